// Tests of lab 06. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
//
// The inputs are made so that the predicate keeps exactly the elements a
// pattern names (all, none, every other one, only the last, only the last
// tile, a seeded half), and every output is checked element by element in
// input order, with the output poisoned beforehand and everything after the
// kept elements required to still hold the poison.
//
// The tests of the kernels (one size after another, up to 2^26) draw their
// inputs on the device and check the outputs there against answers computed
// on the device: CUB's stable selection (the lab's yardstick) and small test
// kernels that count one element at a time. Below 2^26 every such answer is
// also computed on the host, with plain loops, and must equal the device's,
// so the 2^26 cases, where the host took seconds, rely on checked answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compaction.cuh"
#include "cub_yardstick.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cub_call.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/host_sort.hpp"
#include "workbook/random.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace compaction {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::seed_text;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

// Outputs are filled with 0x7F bytes before each run: a position nobody wrote
// reads 2139062143 (ints) or the same as a count.
constexpr int kPoisonByte = 0x7F;
constexpr int kPoison = 0x7F7F7F7F;
constexpr std::uint32_t kCountPoison = 0x7F7F7F7Fu;
// Elements past the end of every output: a kernel that writes past its last
// element overwrites them.
constexpr std::size_t kGuard = 64;

// Sizes around a warp (31, 32, 33), a block's threads (255, 256, 257) and a
// tile (4095, 4096, 4097), a non-power of two, more tiles than an H100 runs at
// once (5 * 2^20 = 1280 tiles) and 2^26 (16384 tiles).
constexpr std::size_t kLarge = std::size_t{1} << 26;
constexpr std::size_t kTile = static_cast<std::size_t>(kTileSize);
const std::size_t kSizes[] = {
    1, 31, 32, 33, 255, 256, 257, kTile - 1, kTile, kTile + 1, 100003, std::size_t{5} << 20, kLarge};

// ---------------------------------------------------------------------------
// Which elements are kept.

enum class Kept { all, none, alternating, last_only, last_tile_only, random };

const char* to_string(Kept kept) {
  switch (kept) {
    case Kept::all:
      return "all";
    case Kept::none:
      return "none";
    case Kept::alternating:
      return "alternating (indices 0, 2, 4, ...)";
    case Kept::last_only:
      return "only the last element";
    case Kept::last_tile_only:
      return "only the last tile";
    case Kept::random:
      return "random half";
  }
  return "?";
}

// Whether element i of n is kept, for the seed `seed` (workbook::test_seed()).
// The same on the host and the device, like everything that draws an input.
__host__ __device__ bool is_kept(Kept kept, std::uint64_t seed, std::size_t i, std::size_t n) {
  switch (kept) {
    case Kept::all:
      return true;
    case Kept::none:
      return false;
    case Kept::alternating:
      return i % 2 == 0;
    case Kept::last_only:
      return i + 1 == n;
    case Kept::last_tile_only:
      return i >= (n - 1) / kTile * kTile;  // the last tile, partial or not
    case Kept::random:
      return (workbook::hash64(seed, i) >> 63) != 0;
  }
  return false;
}

// Every pattern for small inputs; fewer for the large ones, which take longest.
std::vector<Kept> patterns_for(std::size_t n) {
  if (n >= kLarge) return {Kept::random, Kept::last_tile_only};
  if (n > 100003) return {Kept::random, Kept::all, Kept::last_only, Kept::last_tile_only};
  return {Kept::all, Kept::none, Kept::alternating, Kept::last_only, Kept::last_tile_only, Kept::random};
}

// The two rules of the lab. The threshold is positive, so that negative values,
// 0 and small positive ones are all kept by it.
constexpr int kThreshold = 1000;
const KeepIf kRules[] = {KeepIf{Rule::nonzero, 0}, KeepIf{Rule::less_than, kThreshold}};

std::string to_string(KeepIf keep) {
  return keep.rule == Rule::nonzero ? "keep x != 0" : "keep x < " + std::to_string(keep.threshold);
}

// Value i of n that `keep` keeps exactly where the pattern says: kept values
// spread over 2^24 values below the threshold (or nonzero of either sign),
// dropped ones over 2^24 values from the threshold up (or 0), with INT_MIN and
// INT_MAX mixed in (1 in 64).
__host__ __device__ int input_value(Kept kept, KeepIf keep, std::uint64_t seed, std::size_t i,
                                    std::size_t n) {
  const std::uint64_t hash = workbook::hash64(seed + 1, i);
  const int spread = static_cast<int>(hash % (1u << 24));
  const bool extreme = (hash >> 32) % 64 == 0;
  const bool keep_it = is_kept(kept, seed, i, n);
  if (keep.rule == Rule::nonzero) {
    return !keep_it ? 0 : extreme ? INT_MIN : (hash >> 40) % 2 != 0 ? spread + 1 : -(spread + 1);
  }
  return keep_it ? (extreme ? INT_MIN : keep.threshold - 1 - spread)
                 : (extreme ? INT_MAX : keep.threshold + spread);
}

// The n values of a case, drawn on the host.
std::vector<int> make_input(std::size_t n, Kept kept, KeepIf keep) {
  const std::uint64_t seed = workbook::test_seed();
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = input_value(kept, keep, seed, i, n);
  return values;
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

__global__ void fill_input(Kept kept, KeepIf keep, std::uint64_t seed, std::size_t n, int* values) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) values[i] = input_value(kept, keep, seed, i, n);
}

// make_input drawn on the device (n > 0): the same values, without drawing
// 2^26 of them on the host and copying them over.
DeviceBuffer<int> input_on_device(std::size_t n, Kept kept, KeepIf keep) {
  DeviceBuffer<int> values(n);
  fill_input<<<blocks_for(n), kThreadsPerBlock>>>(kept, keep, workbook::test_seed(), n, values.data());
  CUDA_CHECK_LAUNCH("fill_input");
  return values;
}

__global__ void fill_indices(std::size_t n, int* values) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) values[i] = static_cast<int>(i);
}

// 0, 1, ..., n - 1 on the device (n > 0): the values of the pair tests.
DeviceBuffer<int> indices_on_device(std::size_t n) {
  DeviceBuffer<int> values(n);
  fill_indices<<<blocks_for(n), kThreadsPerBlock>>>(n, values.data());
  CUDA_CHECK_LAUNCH("fill_indices");
  return values;
}

std::vector<int> kept_values(const std::vector<int>& values, KeepIf keep) {
  std::vector<int> kept;
  std::copy_if(values.begin(), values.end(), std::back_inserter(kept), keep);
  return kept;
}

std::string describe(std::size_t n, Kept kept, KeepIf keep) {
  return "n=" + std::to_string(n) + ", kept=" + to_string(kept) + ", " + to_string(keep) + ", " + seed_text();
}

std::string count_text(std::uint32_t count) {
  return std::to_string(count) + (count == kCountPoison ? " (the poison: the count was never written)" : "");
}

// Checks a compacted output: its first expected.size() elements one by one,
// and the poison in every element after them (the guards included).
void expect_output(const std::vector<int>& expected, const std::vector<int>& got, const std::string& context,
                   const std::string& name) {
  const std::size_t k = std::min(expected.size(), got.size());
  EXPECT_TRUE(matches(compare_exact(expected, std::vector<int>(got.begin(), got.begin() + k)),
                      context + " (" + name + "[j] must be the j-th kept element, in input order)"));
  const std::vector<int> rest(got.begin() + k, got.end());
  EXPECT_TRUE(matches(compare_exact(std::vector<int>(rest.size(), kPoison), rest),
                      context + ", " + name + " after the kept elements (index 0 = position " +
                          std::to_string(k) + "; nothing may be written there)"));
}

void expect_count(std::size_t expected, std::uint32_t got, const std::string& context) {
  EXPECT_EQ(got, expected) << "the kept count for " << context << ": expected " << expected << ", got "
                           << count_text(got);
}

// ---------------------------------------------------------------------------
// Checking on the device, for the inputs of up to 2^26 elements: a download
// and a host loop over 2^26 elements take a good part of a second, the
// device's comparison a millisecond.

// A difference report of workbook::device_differences ("" when none) as a
// failure, in the words of testing::matches.
void expect_no_differences(const std::string& differences, const std::string& context) {
  EXPECT_TRUE(differences.empty()) << "wrong result for " << context << ": " << differences;
}

// got[0 .. n-1] against `expected` (n elements) on the device, then the
// kGuard elements after them, downloaded, against the poison.
template <typename T>
void expect_elements(const DeviceBuffer<T>& expected, const DeviceBuffer<T>& got, T poison,
                     const std::string& context, const std::string& guard_context) {
  const std::size_t n = expected.size();
  expect_no_differences(workbook::device_differences(expected.data(), got.data(), n), context);
  std::vector<T> guard(kGuard);
  CUDA_CHECK(cudaMemcpy(guard.data(), got.data() + n, kGuard * sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(matches(compare_exact(std::vector<T>(kGuard, poison), guard), guard_context));
}

// An input against `original`, the same input drawn again and given to no
// function, compared on the device.
void expect_input_unchanged(const DeviceBuffer<int>& original, const DeviceBuffer<int>& input,
                            const std::string& context, const std::string& name) {
  const std::string differences =
      workbook::device_differences(original.data(), input.data(), original.size());
  EXPECT_TRUE(differences.empty()) << context << ": the input " << name << " was written: " << differences
                                   << ". Your functions may read their inputs, never write them: keep "
                                      "intermediate results in the output or the scratch memory the "
                                      "contract gives you";
}

// What a compaction's output of n + kGuard elements must hold, on the
// device: the `count` kept elements, then the poison.
struct ExpectedOutput {
  DeviceBuffer<int> elements;
  std::size_t count = 0;
};

// The poison in every element of `got` after the first expected.count (the
// guards included), compared on the device.
void expect_poison_after_kept(const ExpectedOutput& expected, const DeviceBuffer<int>& got,
                              const std::string& context, const std::string& name) {
  const std::size_t k = expected.count;
  expect_no_differences(
      workbook::device_differences(expected.elements.data() + k, got.data() + k, got.size() - k),
      context + ", " + name + " after the kept elements (index 0 = position " + std::to_string(k) +
          "; nothing may be written there)");
}

// The device version of expect_output: the first expected.count elements of
// `got` one by one, and the poison in every element after them.
void expect_output(const ExpectedOutput& expected, const DeviceBuffer<int>& got, const std::string& context,
                   const std::string& name) {
  expect_no_differences(workbook::device_differences(expected.elements.data(), got.data(), expected.count),
                        context + " (" + name + "[j] must be the j-th kept element, in input order)");
  expect_poison_after_kept(expected, got, context, name);
}

// ---------------------------------------------------------------------------
// The expected answers, computed on the device from the same input drawn
// again (so that they cannot depend on what the code under test did to its
// input).

// An expected output whose first `count` elements CUB wrote: the poison in
// every element after them (CUB promises nothing about those).
ExpectedOutput with_poison_after(DeviceBuffer<int> elements, std::size_t count) {
  CUDA_CHECK(cudaMemset(elements.data() + count, kPoisonByte, (elements.size() - count) * sizeof(int)));
  return {std::move(elements), count};
}

// The kept elements of `in` in input order, by the lab's yardstick: CUB's
// stable selection.
ExpectedOutput cub_kept(const DeviceBuffer<int>& in, KeepIf keep) {
  DeviceBuffer<int> elements(in.size() + kGuard);
  DeviceBuffer<std::uint32_t> count(1);
  yardstick::CubSelectIf select(in.data(), in.size(), keep, elements.data(), count.data());
  select.run(nullptr);
  return with_poison_after(std::move(elements), count.to_host()[0]);
}

// The values of the pairs whose key is kept, in input order: CUB's stable
// selection of the values, with the keys as the flags it tests.
ExpectedOutput cub_kept_values(const DeviceBuffer<int>& keys, const DeviceBuffer<int>& values, KeepIf keep) {
  DeviceBuffer<int> elements(keys.size() + kGuard);
  DeviceBuffer<std::uint32_t> count(1);
  workbook::CubCall select([&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    return cub::DeviceSelect::FlaggedIf(temp, bytes, values.data(), keys.data(), elements.data(),
                                        count.data(), static_cast<std::int64_t>(keys.size()), keep, stream);
  });
  select.run(nullptr);
  return with_poison_after(std::move(elements), count.to_host()[0]);
}

// The first `count` elements of `values` in ascending order: CUB's radix sort.
DeviceBuffer<int> sorted_on_device(const int* values, std::size_t count) {
  DeviceBuffer<int> sorted(count);
  if (count == 0) return sorted;
  workbook::CubCall sort([&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, values, sorted.data(), static_cast<int>(count), 0, 32,
                                          stream);
  });
  sort.run(nullptr);
  return sorted;
}

// The answer of warp_output_positions, one element at a time and without
// votes: element i counts the kept elements before it in its warp, and the
// first element of each warp counts the whole warp.
__global__ void count_warp_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                     std::uint32_t* warp_counts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::size_t first = i / kWarpSize * kWarpSize;
  int below = 0;
  for (std::size_t j = first; j < i; ++j) below += keep(in[j]) ? 1 : 0;
  positions[i] = keep(in[i]) ? below : -1;
  if (i != first) return;
  std::uint32_t count = 0;
  for (std::size_t j = first; j < n && j < first + kWarpSize; ++j) count += keep(in[j]) ? 1 : 0;
  warp_counts[i / kWarpSize] = count;
}

// What warp_output_positions must write: n positions and one count per warp.
struct WarpPositions {
  DeviceBuffer<int> positions;
  DeviceBuffer<std::uint32_t> counts;
};

WarpPositions device_warp_positions(const DeviceBuffer<int>& in, KeepIf keep) {
  const std::size_t n = in.size();
  WarpPositions expected{DeviceBuffer<int>(n), DeviceBuffer<std::uint32_t>((n + kWarpSize - 1) / kWarpSize)};
  count_warp_positions<<<blocks_for(n), kThreadsPerBlock>>>(in.data(), n, keep, expected.positions.data(),
                                                            expected.counts.data());
  CUDA_CHECK_LAUNCH("count_warp_positions");
  return expected;
}

__global__ void add_up_tiles(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && keep(in[i])) atomicAdd(&tile_counts[i / kTile], 1u);
}

// The kept elements of every tile, on the device: every kept element adds one
// to its tile's count.
DeviceBuffer<std::uint32_t> device_tile_counts(const DeviceBuffer<int>& in, KeepIf keep) {
  const std::size_t n = in.size();
  DeviceBuffer<std::uint32_t> counts(tiles_for(n));
  counts.fill_bytes(0);
  add_up_tiles<<<blocks_for(n), kThreadsPerBlock>>>(in.data(), n, keep, counts.data());
  CUDA_CHECK_LAUNCH("add_up_tiles");
  return counts;
}

// ---------------------------------------------------------------------------
// The same answers on the host, below 2^26: the device's must equal them, so
// that the 2^26 cases, which rely on the device's alone, rely on answers
// checked at every other size. A failure here is a bug in the test.

bool answers_checked_on_host(std::size_t n) {
  return n < kLarge;
}

// The first `count` elements of `on_device` against `on_host`.
template <typename T>
void expect_same_answer(const std::vector<T>& on_host, const T* on_device, std::size_t count,
                        const std::string& what) {
  EXPECT_EQ(count, on_host.size()) << "a bug in the test, not in the code under test: the number of " << what
                                   << " computed on the device differs from the host's";
  const DeviceBuffer<T> host_answer = workbook::to_device(on_host);
  const std::string differences =
      workbook::device_differences(host_answer.data(), on_device, std::min(count, on_host.size()));
  EXPECT_TRUE(differences.empty()) << "a bug in the test, not in the code under test: the " << what
                                   << " computed on the device differ from the host's: " << differences;
}

template <typename T>
void expect_same_answer(const std::vector<T>& on_host, const DeviceBuffer<T>& on_device,
                        const std::string& what) {
  expect_same_answer(on_host, on_device.data(), on_device.size(), what);
}

void expect_same_answer(const std::vector<int>& on_host, const ExpectedOutput& on_device,
                        const std::string& what) {
  expect_same_answer(on_host, on_device.elements.data(), on_device.count, what);
}

// ---------------------------------------------------------------------------
// On the host: the predicate, the warp rank, the tile geometry.

TEST(KeepIf, NonzeroKeepsEveryValueButZero) {
  const KeepIf keep{Rule::nonzero, 12345};  // the threshold must not matter
  EXPECT_FALSE(keep(0));
  for (int value : {INT_MIN, -1000, -1, 1, 7, 12345, 12346, INT_MAX}) EXPECT_TRUE(keep(value)) << value;
}

TEST(KeepIf, LessThanKeepsTheValuesBelowTheThreshold) {
  EXPECT_TRUE((KeepIf{Rule::less_than, 0}(-1)));
  EXPECT_FALSE((KeepIf{Rule::less_than, 0}(0)));
  EXPECT_FALSE((KeepIf{Rule::less_than, 0}(1)));
  EXPECT_TRUE((KeepIf{Rule::less_than, 1000}(999)));
  EXPECT_FALSE((KeepIf{Rule::less_than, 1000}(1000)));
  EXPECT_FALSE((KeepIf{Rule::less_than, INT_MIN}(INT_MIN))) << "nothing is below INT_MIN";
  EXPECT_TRUE((KeepIf{Rule::less_than, INT_MAX}(INT_MAX - 1)));
  EXPECT_FALSE((KeepIf{Rule::less_than, INT_MAX}(INT_MAX)));
}

TEST(WarpRank, IsTheNumberOfKeptLanesBelowTheLane) {
  EXPECT_EQ(rank_among_kept(0b10110u, 4), 2) << "lanes 1 and 2 are kept below lane 4";
  EXPECT_EQ(rank_among_kept(0b10110u, 1), 0) << "no kept lane below lane 1";
  EXPECT_EQ(rank_among_kept(kFullMask, 31), 31);
  EXPECT_EQ(rank_among_kept(kFullMask, 0), 0);
  EXPECT_EQ(rank_among_kept(0x80000000u, 31), 0) << "only lane 31 kept";
  for (std::uint64_t k = 0; k < 200; ++k) {
    const unsigned mask = static_cast<unsigned>(workbook::hash64(6, k));
    for (int lane = 0; lane < kWarpSize; ++lane) {
      int below = 0;
      for (int j = 0; j < lane; ++j) below += (mask >> j) & 1u;
      ASSERT_EQ(rank_among_kept(mask, lane), below)
          << "mask 0x" << std::hex << mask << std::dec << ", lane " << lane;
    }
  }
}

TEST(TileGeometry, TilesCoverEveryElementWithWholeTiles) {
  EXPECT_EQ(kTileSize, kThreadsPerBlock * kItemsPerThread);
  EXPECT_EQ(tiles_for(0), 0u);
  for (std::size_t n : {std::size_t{1}, kTile - 1, kTile, kTile + 1, std::size_t{100003}, kLarge + 1}) {
    const std::size_t tiles = tiles_for(n);
    EXPECT_GE(tiles * kTile, n) << "n=" << n << ": " << tiles << " tiles do not cover every element";
    EXPECT_LT((tiles - 1) * kTile, n) << "n=" << n << ": " << tiles << " tiles, the last of them empty";
  }
}

// ---------------------------------------------------------------------------
// Part 1: positions inside a warp.

class WarpOutputPositions : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WarpOutputPositions, GiveEachKeptElementTheNumberOfKeptLanesBelowIt) {
  const std::size_t n = GetParam();
  const std::size_t warps = (n + kWarpSize - 1) / kWarpSize;
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context = "warp_output_positions, " + describe(n, kept, keep);
      // The input, and the same values again: nothing is given them, so the
      // expected answer and the input check can rely on them.
      const DeviceBuffer<int> in = input_on_device(n, kept, keep), original = input_on_device(n, kept, keep);
      const WarpPositions expected = device_warp_positions(original, keep);
      if (answers_checked_on_host(n)) {
        const std::vector<int> values = make_input(n, kept, keep);
        std::vector<int> expected_positions(n, -1);
        std::vector<std::uint32_t> expected_counts(warps, 0);
        for (std::size_t i = 0; i < n; ++i) {
          if (!keep(values[i])) continue;
          expected_positions[i] = static_cast<int>(expected_counts[i / kWarpSize]++);
        }
        expect_same_answer(expected_positions, expected.positions, "positions, " + context);
        expect_same_answer(expected_counts, expected.counts, "warp counts, " + context);
      }
      DeviceBuffer<int> positions(n + kGuard);
      DeviceBuffer<std::uint32_t> counts(warps + kGuard);
      positions.fill_bytes(kPoisonByte);
      counts.fill_bytes(kPoisonByte);
      launch_warp_output_positions(in.data(), n, keep, positions.data(), counts.data());

      expect_elements(expected.positions, positions, kPoison,
                      context + " (positions[i]: rank among the kept lanes of the warp, -1 when not kept)",
                      context + ", the guard elements after positions[n - 1]");
      expect_elements(expected.counts, counts, kCountPoison,
                      context + " (warp_counts[w]: kept elements among elements 32w .. 32w + 31)",
                      context + ", the guard elements after the last warp count");
      expect_input_unchanged(original, in, context, "in");
      if (HasFailure()) return;  // one failing case says enough
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, WarpOutputPositions, ::testing::ValuesIn(kSizes), size_name);

// ---------------------------------------------------------------------------
// Part 2, phase by phase, then the three together.

std::vector<std::uint32_t> host_tile_counts(const std::vector<int>& values, KeepIf keep) {
  std::vector<std::uint32_t> counts(tiles_for(values.size()), 0);
  for (std::size_t i = 0; i < values.size(); ++i) counts[i / kTile] += keep(values[i]) ? 1 : 0;
  return counts;
}

class CountKeptPerTile : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(CountKeptPerTile, CountsTheKeptElementsOfEveryTile) {
  const std::size_t n = GetParam();
  const std::size_t tiles = tiles_for(n);
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context = "count_kept_per_tile, " + describe(n, kept, keep);
      const DeviceBuffer<int> in = input_on_device(n, kept, keep), original = input_on_device(n, kept, keep);
      const DeviceBuffer<std::uint32_t> expected = device_tile_counts(original, keep);
      if (answers_checked_on_host(n)) {
        expect_same_answer(host_tile_counts(make_input(n, kept, keep), keep), expected,
                           "tile counts, " + context);
      }
      DeviceBuffer<std::uint32_t> counts(tiles + kGuard);
      counts.fill_bytes(kPoisonByte);
      launch_count_kept_per_tile(in.data(), n, keep, counts.data());
      expect_elements(expected, counts, kCountPoison,
                      context + " (index = tile; tile b is elements 4096b .. 4096b + 4095)",
                      context + ", the guard elements after the last tile's count");
      expect_input_unchanged(original, in, context, "in");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CountKeptPerTile, ::testing::ValuesIn(kSizes), size_name);

class ScatterKept : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(ScatterKept, WritesEveryTileAtItsOffsetInInputOrder) {
  // The offsets come from the test, so this test does not depend on phase (a).
  const std::size_t n = GetParam();
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context =
          "scatter_kept with the tile offsets computed by the test, " + describe(n, kept, keep);
      const DeviceBuffer<int> in = input_on_device(n, kept, keep), original = input_on_device(n, kept, keep);
      const DeviceBuffer<std::uint32_t> device_counts = device_tile_counts(original, keep);
      const ExpectedOutput expected = cub_kept(original, keep);
      if (answers_checked_on_host(n)) {
        const std::vector<int> values = make_input(n, kept, keep);
        expect_same_answer(host_tile_counts(values, keep), device_counts, "tile counts, " + context);
        expect_same_answer(kept_values(values, keep), expected, "kept elements, " + context);
      }
      // At most 2^14 counts: the exclusive scan is cheap on the host.
      const std::vector<std::uint32_t> counts = device_counts.to_host();
      std::vector<std::uint32_t> offsets(counts.size(), 0);
      for (std::size_t b = 1; b < counts.size(); ++b) offsets[b] = offsets[b - 1] + counts[b - 1];
      const DeviceBuffer<std::uint32_t> device_offsets = workbook::to_device(offsets);
      DeviceBuffer<int> out(n + kGuard);
      out.fill_bytes(kPoisonByte);
      launch_scatter_kept(in.data(), n, keep, device_offsets.data(), out.data());
      expect_output(expected, out, context, "out");
      expect_input_unchanged(original, in, context, "in");
      expect_input_unchanged(offsets, device_offsets, context, "tile_offsets");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScatterKept, ::testing::ValuesIn(kSizes), size_name);

class StableCompaction : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(StableCompaction, KeepsExactlyTheKeptElementsInInputOrder) {
  const std::size_t n = GetParam();
  CompactionScratch scratch(n);  // exactly large enough
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context = "compact, " + describe(n, kept, keep);
      const DeviceBuffer<int> in = input_on_device(n, kept, keep), original = input_on_device(n, kept, keep);
      const ExpectedOutput expected = cub_kept(original, keep);
      if (answers_checked_on_host(n)) {
        expect_same_answer(kept_values(make_input(n, kept, keep), keep), expected,
                           "kept elements, " + context);
      }
      DeviceBuffer<int> out(n + kGuard);
      DeviceBuffer<std::uint32_t> count(1);
      out.fill_bytes(kPoisonByte);
      count.fill_bytes(kPoisonByte);
      compact(in.data(), n, keep, out.data(), scratch, count.data());
      expect_count(expected.count, count.to_host()[0], context);
      expect_output(expected, out, context, "out");
      expect_input_unchanged(original, in, context, "in");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, StableCompaction, ::testing::ValuesIn(kSizes), size_name);

class EmptyInput : public GpuTest {};

TEST_F(EmptyInput, CompactsToNothingWithACountOfZero) {
  CompactionScratch scratch(0);
  DeviceBuffer<std::uint32_t> count(1);
  DeviceBuffer<int> out(kGuard);
  DeviceBuffer<int> out_values(kGuard);
  out.fill_bytes(kPoisonByte);
  out_values.fill_bytes(kPoisonByte);
  const KeepIf keep{Rule::nonzero, 0};

  count.fill_bytes(kPoisonByte);
  compact(nullptr, 0, keep, out.data(), scratch, count.data());
  EXPECT_EQ(count.to_host()[0], 0u) << "compact of n=0: the count must be written, as 0, got "
                                    << count_text(count.to_host()[0]);
  count.fill_bytes(kPoisonByte);
  compact_pairs(nullptr, nullptr, 0, keep, out.data(), out_values.data(), scratch, count.data());
  EXPECT_EQ(count.to_host()[0], 0u) << "compact_pairs of n=0: got " << count_text(count.to_host()[0]);
  count.fill_bytes(kPoisonByte);
  compact_unordered(nullptr, 0, keep, out.data(), count.data());
  EXPECT_EQ(count.to_host()[0], 0u) << "compact_unordered of n=0: got " << count_text(count.to_host()[0]);
  EXPECT_EQ(compact_and_count(nullptr, 0, keep, out.data(), scratch), 0u) << "compact_and_count of n=0";
  // A grid of 0 blocks is an invalid configuration: the launchers must not try.
  EXPECT_NO_THROW(launch_warp_output_positions(nullptr, 0, keep, nullptr, nullptr));
  EXPECT_NO_THROW(launch_count_kept_per_tile(nullptr, 0, keep, nullptr));
  EXPECT_NO_THROW(launch_scatter_kept(nullptr, 0, keep, nullptr, nullptr));
  EXPECT_NO_THROW(launch_scatter_kept_pairs(nullptr, nullptr, 0, keep, nullptr, nullptr, nullptr));
  EXPECT_NO_THROW(launch_scatter_kept_unordered(nullptr, 0, keep, nullptr, count.data()));
  expect_output({}, out.to_host(), "every compaction of n=0", "out");
  expect_output({}, out_values.to_host(), "compact_pairs of n=0", "out_values");
}

class CompactionArguments : public GpuTest {};

TEST_F(CompactionArguments, AnInputLargerThanTheScratchIsRejectedWithAMessage) {
  CompactionScratch scratch(1000);
  const KeepIf keep{Rule::nonzero, 0};
  // Checked on the host before anything is launched: null pointers never reach the GPU.
  try {
    compact(nullptr, 1001, keep, nullptr, scratch, nullptr);
    ADD_FAILURE() << "compact of n=1001 with a scratch for 1000 elements did not throw";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("1001"), std::string::npos) << "the message should name n: " << message;
    EXPECT_NE(message.find("1000"), std::string::npos) << "the message should name the capacity: " << message;
  }
  EXPECT_THROW(compact_pairs(nullptr, nullptr, 1001, keep, nullptr, nullptr, scratch, nullptr),
               std::invalid_argument);
  EXPECT_THROW(compact_and_count(nullptr, 1001, keep, nullptr, scratch), std::invalid_argument);
  EXPECT_THROW(compact_unordered(nullptr, 10, keep, nullptr, nullptr), std::invalid_argument)
      << "compact_unordered needs its counter";
  EXPECT_THROW(CompactionScratch(std::size_t{1} << 32), std::invalid_argument)
      << "2^32 elements do not fit 32-bit counts";
}

// ---------------------------------------------------------------------------
// Part 3: the predicates, the count on the host, key-value pairs.

class Predicates : public GpuTest {};

TEST_F(Predicates, LessThanKeepsTheValuesBelowAnyThreshold) {
  const std::size_t n = 100003;
  std::vector<int> values =
      workbook::generate_ints(n, workbook::Pattern::uniform, workbook::test_seed(), INT_MIN, INT_MAX);
  values.front() = INT_MIN;
  values[n / 2] = 0;
  values.back() = INT_MAX;
  const DeviceBuffer<int> in = workbook::to_device(values);
  CompactionScratch scratch(n);
  DeviceBuffer<int> out(n + kGuard);
  DeviceBuffer<std::uint32_t> count(1);
  for (const int threshold : {INT_MIN, -1000000000, -1, 0, 1, 1000000000, INT_MAX}) {
    const KeepIf keep{Rule::less_than, threshold};
    out.fill_bytes(kPoisonByte);
    count.fill_bytes(kPoisonByte);
    compact(in.data(), n, keep, out.data(), scratch, count.data());
    const std::vector<int> expected = kept_values(values, keep);
    const std::string context = "compact, n=" + std::to_string(n) +
                                " uniform ints over the whole int range, " + to_string(keep) + ", " +
                                seed_text();
    expect_count(expected.size(), count.to_host()[0], context);
    expect_output(expected, out.to_host(), context, "out");
    expect_input_unchanged(values, in, context, "in");
  }
}

TEST_F(Predicates, NonzeroDropsOnlyTheZeros) {
  const std::size_t n = 100003;
  CompactionScratch scratch(n);
  DeviceBuffer<int> out(n + kGuard);
  DeviceBuffer<std::uint32_t> count(1);
  const KeepIf keep{Rule::nonzero, 0};
  for (const workbook::Pattern pattern : workbook::all_patterns()) {
    // Values in [-2, 2]: about one in five is 0, or all of them, or none.
    const std::vector<int> values = workbook::generate_ints(n, pattern, workbook::test_seed(), -2, 2);
    const DeviceBuffer<int> in = workbook::to_device(values);
    out.fill_bytes(kPoisonByte);
    count.fill_bytes(kPoisonByte);
    compact(in.data(), n, keep, out.data(), scratch, count.data());
    const std::vector<int> expected = kept_values(values, keep);
    const std::string context =
        "compact, values in [-2, 2], " + workbook::testing::describe_case(n, pattern) + ", keep x != 0";
    expect_count(expected.size(), count.to_host()[0], context);
    expect_output(expected, out.to_host(), context, "out");
    expect_input_unchanged(values, in, context, "in");
  }
}

class KeptCount : public GpuTest {};

TEST_F(KeptCount, ComesBackToTheHostAndMatchesTheOutput) {
  // One scratch for every size (built for the largest), and half of the calls on a stream of their own.
  const std::size_t sizes[] = {(std::size_t{5} << 20) + 3, 1, 33, kTile + 1, 100003};
  CompactionScratch scratch(sizes[0]);
  workbook::CudaStream stream;
  int call = 0;
  for (const std::size_t n : sizes) {
    for (const KeepIf keep : kRules) {
      for (const Kept kept : {Kept::random, Kept::all, Kept::none, Kept::last_tile_only}) {
        const std::vector<int> values = make_input(n, kept, keep);
        const std::vector<int> expected = kept_values(values, keep);
        const DeviceBuffer<int> in = workbook::to_device(values);
        DeviceBuffer<int> out(n + kGuard);
        out.fill_bytes(kPoisonByte);
        const bool on_stream = call++ % 2 == 1;
        const std::size_t got =
            compact_and_count(in.data(), n, keep, out.data(), scratch, on_stream ? stream.get() : nullptr);
        const std::string context = std::string("compact_and_count") +
                                    (on_stream ? " on a stream of its own" : "") + ", " +
                                    describe(n, kept, keep);
        EXPECT_EQ(got, expected.size()) << "the kept count returned to the host, for " << context;
        expect_output(expected, out.to_host(), context, "out");
        expect_input_unchanged(values, in, context, "in");
        if (HasFailure()) return;
      }
    }
  }
}

class StableCompactionOfPairs : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(StableCompactionOfPairs, KeepsEachKeyWithItsValueInInputOrder) {
  const std::size_t n = GetParam();
  CompactionScratch scratch(n);
  // The values are the input indices: a kept pair out of order, or a value
  // moved without its key, shows in the values.
  const DeviceBuffer<int> values = indices_on_device(n), original_values = indices_on_device(n);
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context = "compact_pairs with values = input indices, " + describe(n, kept, keep);
      const DeviceBuffer<int> keys = input_on_device(n, kept, keep),
                              original_keys = input_on_device(n, kept, keep);
      const ExpectedOutput expected_keys = cub_kept(original_keys, keep);
      const ExpectedOutput expected_values = cub_kept_values(original_keys, original_values, keep);
      if (answers_checked_on_host(n)) {
        const std::vector<int> host_keys = make_input(n, kept, keep);
        std::vector<int> kept_keys, kept_indices;
        for (std::size_t i = 0; i < n; ++i) {
          if (!keep(host_keys[i])) continue;
          kept_keys.push_back(host_keys[i]);
          kept_indices.push_back(static_cast<int>(i));
        }
        expect_same_answer(kept_keys, expected_keys, "kept keys, " + context);
        expect_same_answer(kept_indices, expected_values, "kept values, " + context);
      }
      DeviceBuffer<int> out_keys(n + kGuard);
      DeviceBuffer<int> out_values(n + kGuard);
      DeviceBuffer<std::uint32_t> count(1);
      out_keys.fill_bytes(kPoisonByte);
      out_values.fill_bytes(kPoisonByte);
      count.fill_bytes(kPoisonByte);
      compact_pairs(keys.data(), values.data(), n, keep, out_keys.data(), out_values.data(), scratch,
                    count.data());
      expect_count(expected_keys.count, count.to_host()[0], context);
      expect_output(expected_keys, out_keys, context, "out_keys");
      expect_output(expected_values, out_values, context, "out_values");
      expect_input_unchanged(original_keys, keys, context, "keys");
      expect_input_unchanged(original_values, values, context, "values");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, StableCompactionOfPairs, ::testing::ValuesIn(kSizes), size_name);

// ---------------------------------------------------------------------------
// Part 4: unordered compaction. The order is free, so both sides are sorted
// (on the device) before they are compared; the count and the untouched rest
// are exact.

class UnorderedCompaction : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(UnorderedCompaction, KeepsTheSameMultisetAndCount) {
  const std::size_t n = GetParam();
  for (const KeepIf keep : kRules) {
    for (const Kept kept : patterns_for(n)) {
      const std::string context = "compact_unordered, " + describe(n, kept, keep);
      const DeviceBuffer<int> in = input_on_device(n, kept, keep), original = input_on_device(n, kept, keep);
      const ExpectedOutput expected = cub_kept(original, keep);
      const std::size_t k = expected.count;
      const DeviceBuffer<int> expected_sorted = sorted_on_device(expected.elements.data(), k);
      if (answers_checked_on_host(n)) {
        // O(n): the harness's host radix sort.
        expect_same_answer(workbook::sorted_on_host(kept_values(make_input(n, kept, keep), keep)),
                           expected_sorted, "kept elements in ascending order, " + context);
      }
      DeviceBuffer<int> out(n + kGuard);
      DeviceBuffer<std::uint32_t> count(1);
      out.fill_bytes(kPoisonByte);
      count.fill_bytes(kPoisonByte);
      compact_unordered(in.data(), n, keep, out.data(), count.data());
      expect_count(k, count.to_host()[0], context);
      const DeviceBuffer<int> got_sorted = sorted_on_device(out.data(), k);
      expect_no_differences(workbook::device_differences(expected_sorted.data(), got_sorted.data(), k),
                            context +
                                " (both sides sorted: index = rank in sorted order; a difference means an "
                                "element lost, written twice or overwritten)");
      expect_poison_after_kept(expected, out, context, "out");
      expect_input_unchanged(original, in, context, "in");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, UnorderedCompaction, ::testing::ValuesIn(kSizes), size_name);

// ---------------------------------------------------------------------------
// Speed: compact() against cub::DeviceSelect::If with the same predicate,
// through the workbook's speed harness (workbook/speed.hpp): every run,
// warm-up included, compacts ints drawn on the GPU just before it from a seed
// of its own; CUB compacts the same ints first, alternately with compact, and
// every run's count and kept elements must equal CUB's (a stable compaction
// has one answer). The rate counts the bytes any compaction must move: every
// element read once and every kept element written once.

constexpr std::size_t kSpeedSize = std::size_t{1} << 28;  // 1 GiB of int32, 20 times an H100's L2

class CompactionSpeed : public GpuTest {};

TEST_F(CompactionSpeed, StableCompactionReachesTargetFractionOfCub) {
  // Uniform over all ints and keep x < 0: half of them, in a random pattern.
  const KeepIf keep{Rule::less_than, 0};
  DeviceBuffer<int> in(kSpeedSize), out(kSpeedSize), cub_out(kSpeedSize);
  DeviceBuffer<std::uint32_t> count(1), cub_count(1);
  CompactionScratch scratch(kSpeedSize);
  yardstick::CubSelectIf cub(in.data(), kSpeedSize, keep, cub_out.data(), cub_count.data());

  SpeedTask task;
  task.what = "compact of 2^28 uniform ints, " + to_string(keep);
  task.yardstick = "cub::DeviceSelect::If with the same predicate on the same input";
  task.unit = "GB/s";
  // Bytes read plus kept bytes written at the expected half kept: 4n + 4 (n / 2)
  // = 6n, the same work for both (the kept count varies a little from run to
  // run). The speed of light counts the reads alone (4n), which any compaction
  // must do whatever it keeps: a bound a little below the truth.
  task.work = 6.0 * kSpeedSize;
  task.min_bytes = static_cast<double>(kSpeedSize * sizeof(int));
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_ints(in.data(), kSpeedSize, seed, INT_MIN, INT_MAX, stream);
    CUDA_CHECK(cudaMemsetAsync(out.data(), kPoisonByte, out.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(count.data(), kPoisonByte, count.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
  task.run = [&](cudaStream_t stream) {
    compact(in.data(), kSpeedSize, keep, out.data(), scratch, count.data(), stream);
  };
  task.check = [&] {
    const std::uint32_t want = cub_count.to_host()[0];
    const std::uint32_t got = count.to_host()[0];
    if (got != want) return "the kept count is " + std::to_string(want) + ", got " + count_text(got);
    const std::string kept = workbook::device_differences(cub_out.data(), out.data(), want);
    return kept.empty() ? kept : "out (out[j] must be the j-th kept element, in input order): " + kept;
  };
  task.inputs = {{"in", workbook::bytes_of(in)}};
  task.yardstick_writes = {workbook::bytes_of(cub_out), workbook::bytes_of(cub_count), cub.storage()};
  workbook::testing::check_speed(task);
}

}  // namespace
}  // namespace compaction
