// Tests of lab 07. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cub_yardstick.cuh"
#include "scan.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace scan {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

// Outputs are poisoned before each launch: ints with 0x7F bytes (2139062143,
// far from any prefix the tests make), floats with 0xFF bytes (a NaN). A value
// nobody wrote is then never right. Elements past the end are guards.
constexpr int kIntPoisonByte = 0x7F;
constexpr int kFloatPoisonByte = 0xFF;
constexpr int kIntPoison = 0x7F7F7F7F;
constexpr std::size_t kGuard = 64;

const char* to_string(ScanKind kind) {
  return kind == ScanKind::inclusive ? "ScanKind::inclusive" : "ScanKind::exclusive";
}

const ScanKind kKinds[] = {ScanKind::inclusive, ScanKind::exclusive};

// The inputs of the whole-array tests: the grader's patterns plus the shapes
// that catch a scan's typical mistakes (an all-zeros input hides a missing
// carry, all ones shows every index, negative values catch unsigned mix-ups).
enum class Input { uniform, all_zeros, all_ones, negative, sorted, few_unique };

const Input kAllInputs[] = {Input::uniform,  Input::all_zeros, Input::all_ones,
                            Input::negative, Input::sorted,    Input::few_unique};

std::string to_string(Input input) {
  switch (input) {
    case Input::uniform:
      return "uniform";
    case Input::all_zeros:
      return "all_zeros";
    case Input::all_ones:
      return "all_ones";
    case Input::negative:
      return "negative";
    case Input::sorted:
      return "sorted";
    case Input::few_unique:
      return "few_unique";
  }
  return "?";
}

// The largest |value| for which no prefix of n ints can overflow, at most 1000.
int safe_bound(std::size_t n) {
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(INT_MAX) / std::max<std::size_t>(n, 1), 1000));
}

std::vector<int> make_ints(std::size_t n, Input input) {
  const int bound = safe_bound(n);
  const std::uint64_t seed = workbook::test_seed();
  switch (input) {
    case Input::uniform:
      return workbook::generate_ints(n, Pattern::uniform, seed, -bound, bound);
    case Input::all_zeros:
      return std::vector<int>(n, 0);
    case Input::all_ones:
      return std::vector<int>(n, 1);
    case Input::negative:
      return workbook::generate_ints(n, Pattern::uniform, seed, -bound, -1);
    case Input::sorted:
      return workbook::generate_ints(n, Pattern::sorted, seed, -bound, bound);
    case Input::few_unique:
      return workbook::generate_ints(n, Pattern::few_unique, seed, -bound, bound);
  }
  return {};
}

std::string describe(const std::string& what, std::size_t n, Input input, ScanKind kind) {
  return what + " with " + to_string(kind) + ", n=" + std::to_string(n) + ", input=" + to_string(input) +
         ", seed=" + std::to_string(workbook::test_seed());
}

// Host scans in 64 bits (the tests keep every prefix inside int).
std::vector<int> host_scan(const std::vector<int>& values, ScanKind kind, std::size_t segment) {
  std::vector<int> out(values.size());
  std::int64_t running = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % segment == 0) running = 0;
    if (kind == ScanKind::exclusive) out[i] = static_cast<int>(running);
    running += values[i];
    if (kind == ScanKind::inclusive) out[i] = static_cast<int>(running);
  }
  return out;
}

// Checks got[0..n) against expected and the guards after it.
::testing::AssertionResult scanned_correctly(const std::vector<int>& expected, const std::vector<int>& got,
                                             const std::string& context) {
  const std::size_t n = expected.size();
  const ::testing::AssertionResult values = matches(
      compare_exact(expected, std::vector<int>(got.begin(), got.begin() + static_cast<long>(n))), context);
  if (!values) return values;
  return matches(compare_exact(std::vector<int>(kGuard, kIntPoison),
                               std::vector<int>(got.begin() + static_cast<long>(n), got.end())),
                 context + ", the " + std::to_string(kGuard) +
                     " guard elements after the output (nothing may be written there)");
}

// ---------------------------------------------------------------------------
// Host-side: the status words of part 3.

TEST(TileStatus, PacksStateAndValueIntoOneWord) {
  for (int value : {INT_MIN, -123456, -1, 0, 1, 987654, INT_MAX}) {
    for (TileState state : {TileState::invalid, TileState::aggregate, TileState::prefix}) {
      const std::uint64_t word = make_tile_status(state, value);
      EXPECT_EQ(tile_status_state(word), state) << "value " << value;
      EXPECT_EQ(tile_status_value(word), value) << "state " << static_cast<int>(state);
    }
  }
  EXPECT_EQ(make_tile_status(TileState::invalid, 0), 0u) << "a zeroed status array must read as all invalid";
}

TEST(ScanArguments, BadBlockSizesMissingScratchAndSmallScratchAreRejected) {
  // Checked on the host before any launch: no GPU needed.
  for (int threads : {0, -1, kMaxThreadsPerBlock + 1}) {
    EXPECT_THROW(launch_block_scan_hillis_steele(nullptr, nullptr, 10, threads), std::invalid_argument)
        << threads;
    EXPECT_THROW(launch_block_scan_blelloch(nullptr, nullptr, 10, threads), std::invalid_argument) << threads;
    EXPECT_THROW(launch_block_scan_shuffle(nullptr, nullptr, 10, threads), std::invalid_argument) << threads;
  }
  EXPECT_THROW(launch_block_scan_blelloch(nullptr, nullptr, 10, 96), std::invalid_argument)
      << "Blelloch's tree needs a power of two";
  EXPECT_THROW(launch_block_scan_shuffle(nullptr, nullptr, 10, 100), std::invalid_argument)
      << "a shuffle scan needs whole warps";
  EXPECT_THROW(reduce_then_scan(static_cast<const int*>(nullptr), nullptr, 10, ScanKind::inclusive, nullptr),
               std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Part 1: warp and block scans, checked element by element.

class WarpScans : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WarpScans, ScanEach32Elements) {
  const std::size_t n = GetParam();
  for (Input input : {Input::uniform, Input::all_ones, Input::negative}) {
    const std::vector<int> values = make_ints(n, input);
    const DeviceBuffer<int> in = workbook::to_device(values);
    DeviceBuffer<int> out(n + kGuard);
    out.fill_bytes(kIntPoisonByte);
    launch_warp_scans(in.data(), out.data(), n);
    const std::string context = describe("warp_scans (index = element)", n, input, ScanKind::inclusive);
    EXPECT_TRUE(scanned_correctly(host_scan(values, ScanKind::inclusive, kWarpSize), out.to_host(), context));
    expect_input_unchanged(values, in, context, "in");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, WarpScans, ::testing::Values(1, 31, 32, 33, 255, 256, 257, 100003),
                         size_name);

struct BlockCase {
  std::size_t n;
  int threads;
};

std::ostream& operator<<(std::ostream& out, const BlockCase& c) {
  return out << "n=" << c.n << ", threads_per_block=" << c.threads;
}

std::string block_case_name(const ::testing::TestParamInfo<BlockCase>& info) {
  return "n" + std::to_string(info.param.n) + "_threads" + std::to_string(info.param.threads);
}

// n = 1, just under, at and just over one block's slice, and a large input,
// for each block size; `per_thread` elements per thread (2 for Blelloch).
std::vector<BlockCase> block_cases(const std::vector<int>& block_sizes, int per_thread) {
  std::vector<BlockCase> cases;
  for (int threads : block_sizes) {
    const std::size_t slice = static_cast<std::size_t>(threads) * per_thread;
    for (std::size_t n : {std::size_t{1}, slice - 1, slice, slice + 1, std::size_t{100003}}) {
      const bool seen = std::any_of(cases.begin(), cases.end(),
                                    [&](const BlockCase& c) { return c.n == n && c.threads == threads; });
      if (n > 0 && !seen) cases.push_back({n, threads});
    }
  }
  return cases;
}

using BlockLauncher = void (*)(const int*, int*, std::size_t, int, cudaStream_t);

void check_block_scan(BlockLauncher launch, const BlockCase& c, ScanKind kind, int per_thread,
                      const char* kernel) {
  for (Input input : {Input::uniform, Input::all_ones, Input::negative}) {
    const std::vector<int> values = make_ints(c.n, input);
    const DeviceBuffer<int> in = workbook::to_device(values);
    DeviceBuffer<int> out(c.n + kGuard);
    out.fill_bytes(kIntPoisonByte);
    launch(in.data(), out.data(), c.n, c.threads, nullptr);
    const std::size_t slice = static_cast<std::size_t>(c.threads) * per_thread;
    const std::string context = describe(kernel, c.n, input, kind) +
                                ", threads_per_block=" + std::to_string(c.threads) +
                                " (each block scans its own slice)";
    EXPECT_TRUE(scanned_correctly(host_scan(values, kind, slice), out.to_host(), context));
    expect_input_unchanged(values, in, context, "in");
  }
}

class HillisSteele : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(HillisSteele, ScansEachBlockSliceInclusively) {
  check_block_scan(launch_block_scan_hillis_steele, GetParam(), ScanKind::inclusive, 1,
                   "block_scan_hillis_steele");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, HillisSteele,
                         ::testing::ValuesIn(block_cases({1, 2, 31, 32, 100, 256, 1000, 1024}, 1)),
                         block_case_name);

class Blelloch : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(Blelloch, ScansEachBlockSliceExclusively) {
  check_block_scan(launch_block_scan_blelloch, GetParam(), ScanKind::exclusive, 2, "block_scan_blelloch");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, Blelloch, ::testing::ValuesIn(block_cases({1, 2, 32, 64, 256, 1024}, 2)),
                         block_case_name);

class ShuffleBlockScan : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(ShuffleBlockScan, ScansEachBlockSliceInclusively) {
  check_block_scan(launch_block_scan_shuffle, GetParam(), ScanKind::inclusive, 1, "block_scan_shuffle");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, ShuffleBlockScan,
                         ::testing::ValuesIn(block_cases({32, 64, 96, 256, 992, 1024}, 1)), block_case_name);

// ---------------------------------------------------------------------------
// Parts 2 and 3: the whole array.

// Around a warp, a block, a tile (4096), non-powers of two, more tiles than a
// reduce-then-scan grid has blocks on any GPU, and 2^26 elements: 16384 tiles,
// far more than fit on the GPU at once.
const std::vector<std::size_t> kSizes = {1,
                                         31,
                                         32,
                                         33,
                                         255,
                                         256,
                                         257,
                                         static_cast<std::size_t>(kTileSize) - 1,
                                         static_cast<std::size_t>(kTileSize),
                                         static_cast<std::size_t>(kTileSize) + 1,
                                         100003,
                                         static_cast<std::size_t>(kTileSize) * 2500 + 17,
                                         (std::size_t{5} << 20) + 3,
                                         std::size_t{1} << 26};

// The patterns that run at a size: all of them up to 100003, uniform beyond.
std::vector<Input> inputs_for(std::size_t n) {
  if (n > 100003) return {Input::uniform};
  return std::vector<Input>(std::begin(kAllInputs), std::end(kAllInputs));
}

using IntScan = void (*)(const DeviceBuffer<int>& in, DeviceBuffer<int>& out, std::size_t n, ScanKind kind);

void run_reduce_then_scan(const DeviceBuffer<int>& in, DeviceBuffer<int>& out, std::size_t n, ScanKind kind) {
  DeviceBuffer<int> block_sums(kMaxGridBlocks);
  block_sums.fill_bytes(kIntPoisonByte);
  reduce_then_scan(in.data(), out.data(), n, kind, block_sums.data());
}

void run_single_pass(const DeviceBuffer<int>& in, DeviceBuffer<int>& out, std::size_t n, ScanKind kind) {
  LookbackScratch scratch(n);
  scratch.tile_status.fill_bytes(0xAB);  // garbage: the scan must reset what it uses
  scratch.tile_counter.fill_bytes(0xAB);
  single_pass_scan(in.data(), out.data(), n, kind, scratch);
}

void check_whole_array(IntScan scan_function, const char* what, std::size_t n) {
  for (Input input : inputs_for(n)) {
    const std::vector<int> values = make_ints(n, input);
    const DeviceBuffer<int> in = workbook::to_device(values);
    for (ScanKind kind : kKinds) {
      DeviceBuffer<int> out(n + kGuard);
      out.fill_bytes(kIntPoisonByte);
      scan_function(in, out, n, kind);
      const std::string context = describe(what, n, input, kind);
      EXPECT_TRUE(scanned_correctly(host_scan(values, kind, n), out.to_host(), context));
      expect_input_unchanged(values, in, context, "in");
    }
  }
}

class ReduceThenScan : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(ReduceThenScan, IntScanMatchesTheHost) {
  check_whole_array(run_reduce_then_scan, "reduce_then_scan(int)", GetParam());
}

// Floats that are small integers add up exactly in any order while every
// prefix stays below 2^24: the float scan must then equal the host's exactly.
TEST_P(ReduceThenScan, FloatScanOfSmallIntegersIsExact) {
  const std::size_t n = GetParam();
  // -1, 0 or 1 with equal odds: a random walk, whose prefixes stay far below 2^24.
  std::vector<int> ints(n);
  for (std::size_t i = 0; i < n; ++i)
    ints[i] = static_cast<int>(workbook::hash64(workbook::test_seed(), i) % 3) - 1;
  const std::vector<float> values(ints.begin(), ints.end());
  const DeviceBuffer<float> in = workbook::to_device(values);
  DeviceBuffer<float> block_sums(kMaxGridBlocks);
  for (ScanKind kind : kKinds) {
    DeviceBuffer<float> out(n);
    out.fill_bytes(kFloatPoisonByte);
    block_sums.fill_bytes(kFloatPoisonByte);
    reduce_then_scan(in.data(), out.data(), n, kind, block_sums.data());
    const std::vector<int> expected_ints = host_scan(ints, kind, n);
    const std::vector<float> expected(expected_ints.begin(), expected_ints.end());
    const std::string context =
        describe("reduce_then_scan(float) of values in {-1, 0, 1}", n, Input::uniform, kind);
    EXPECT_TRUE(matches(compare_exact(expected, out.to_host()), context));
    expect_input_unchanged(values, in, context, "in");
  }
}

// Floats in [0, 1) against a double scan. The order of the additions differs
// from the host's, and every addition rounds to the 24-bit mantissa of the
// running sum, so element i may be off by a few units in the last place of
// its prefix: the tolerance is relative to the prefix itself, growing with log2(n).
TEST_P(ReduceThenScan, FloatScanIsWithinToleranceOfADoubleScan) {
  const std::size_t n = GetParam();
  const std::vector<float> values =
      workbook::generate_floats(n, Pattern::uniform, workbook::test_seed(), 0.0f, 1.0f);
  const DeviceBuffer<float> in = workbook::to_device(values);
  DeviceBuffer<float> block_sums(kMaxGridBlocks);
  for (ScanKind kind : kKinds) {
    DeviceBuffer<float> out(n);
    out.fill_bytes(kFloatPoisonByte);
    reduce_then_scan(in.data(), out.data(), n, kind, block_sums.data());
    std::vector<float> expected(n);
    double running = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      if (kind == ScanKind::exclusive) expected[i] = static_cast<float>(running);
      running += values[i];
      if (kind == ScanKind::inclusive) expected[i] = static_cast<float>(running);
    }
    workbook::FloatTolerance tolerance = workbook::FloatTolerance::growing_with(n, 1.0e-6);
    tolerance.absolute = 1.0e-6;
    const std::string context =
        describe("reduce_then_scan(float) of values in [0, 1), vs a double scan", n, Input::uniform, kind);
    EXPECT_TRUE(matches(workbook::compare_floats(expected, out.to_host(), tolerance),
                        context + " (relative tolerance " + std::to_string(tolerance.relative) + ")"));
    expect_input_unchanged(values, in, context, "in");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ReduceThenScan, ::testing::ValuesIn(kSizes), size_name);

class SinglePass : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SinglePass, IntScanMatchesTheHost) {
  check_whole_array(run_single_pass, "single_pass_scan(int)", GetParam());
}

// The grader's sizes plus the edges of the single pass's own tile (7168).
std::vector<std::size_t> single_pass_sizes() {
  std::vector<std::size_t> sizes = kSizes;
  const std::size_t tile = kSinglePassTileSize;
  for (std::size_t n : {tile - 1, tile, tile + 1, 3 * tile + 5}) sizes.push_back(n);
  return sizes;
}

INSTANTIATE_TEST_SUITE_P(Sizes, SinglePass, ::testing::ValuesIn(single_pass_sizes()), size_name);

class SinglePassRuns : public GpuTest {};

TEST_F(SinglePassRuns, RepeatedScansWithOneScratchAgree) {
  // The status words and the tile counter must be reset by every scan, not
  // only by a fresh scratch.
  const std::size_t n = (std::size_t{3} << 20) + 5;
  const std::vector<int> values = make_ints(n, Input::uniform);
  const std::vector<int> expected = host_scan(values, ScanKind::exclusive, n);
  const DeviceBuffer<int> in = workbook::to_device(values);
  LookbackScratch scratch(n);
  for (int run = 0; run < 4; ++run) {
    DeviceBuffer<int> out(n + kGuard);
    out.fill_bytes(kIntPoisonByte);
    single_pass_scan(in.data(), out.data(), n, ScanKind::exclusive, scratch);
    const std::string context =
        describe("single_pass_scan(int), run " + std::to_string(run + 1) + " with the same scratch", n,
                 Input::uniform, ScanKind::exclusive);
    EXPECT_TRUE(scanned_correctly(expected, out.to_host(), context));
    expect_input_unchanged(values, in, context, "in");
  }
}

// Arrays that start 4, 8 or 12 bytes past a 16-byte boundary (a slice of a
// larger array, say) cannot be read with 16-byte loads: the scan must still
// be right, whole tiles included.
TEST_F(SinglePassRuns, ArraysNotAlignedTo16BytesAreScannedCorrectly) {
  const std::size_t n = 3 * static_cast<std::size_t>(kSinglePassTileSize) + 7;
  const std::vector<int> values = make_ints(n, Input::uniform);
  const std::vector<int> expected = host_scan(values, ScanKind::inclusive, n);
  for (std::size_t in_shift : {0, 1, 3}) {
    for (std::size_t out_shift : {0, 2}) {
      if (in_shift == 0 && out_shift == 0) continue;
      std::vector<int> shifted(in_shift, 0);
      shifted.insert(shifted.end(), values.begin(), values.end());
      const DeviceBuffer<int> in = workbook::to_device(shifted);
      DeviceBuffer<int> out(out_shift + n + kGuard);
      out.fill_bytes(kIntPoisonByte);
      LookbackScratch scratch(n);
      single_pass_scan(in.data() + in_shift, out.data() + out_shift, n, ScanKind::inclusive, scratch);
      const std::vector<int> all = out.to_host();
      const std::vector<int> got(all.begin() + static_cast<std::ptrdiff_t>(out_shift), all.end());
      const std::string context = describe("single_pass_scan(int) of in + " + std::to_string(in_shift) +
                                               " into out + " + std::to_string(out_shift),
                                           n, Input::uniform, ScanKind::inclusive);
      EXPECT_TRUE(scanned_correctly(expected, got, context));
      EXPECT_TRUE(std::all_of(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(out_shift),
                              [](int v) { return v == kIntPoison; }))
          << "single_pass_scan wrote before out + " << out_shift;
      // The whole buffer, the elements before in + in_shift included: indices count from its start.
      const std::string name = in_shift == 0 ? "in" : "in (index 0 = in - " + std::to_string(in_shift) + ")";
      expect_input_unchanged(shifted, in, context, name);
    }
  }
}

TEST_F(SinglePassRuns, ScratchTooSmallIsRejectedAndEmptyInputWritesNothing) {
  LookbackScratch scratch(1000);
  EXPECT_THROW(single_pass_scan(nullptr, nullptr, 1001, ScanKind::inclusive, scratch), std::invalid_argument);
  DeviceBuffer<int> out(kGuard);
  out.fill_bytes(kIntPoisonByte);
  single_pass_scan(nullptr, out.data(), 0, ScanKind::inclusive, scratch);
  reduce_then_scan(static_cast<const int*>(nullptr), out.data(), 0, ScanKind::exclusive, nullptr);
  EXPECT_EQ(out.to_host(), std::vector<int>(kGuard, kIntPoison)) << "a scan of 0 elements must write nothing";
  // The other scans' launchers launch nothing for n = 0 (a grid of 0 blocks is an error).
  EXPECT_NO_THROW(launch_warp_scans(nullptr, nullptr, 0));
  EXPECT_NO_THROW(launch_block_scan_hillis_steele(nullptr, nullptr, 0, 64));
  EXPECT_NO_THROW(launch_block_scan_blelloch(nullptr, nullptr, 0, 64));
  EXPECT_NO_THROW(launch_block_scan_shuffle(nullptr, nullptr, 0, 64));
}

class ReduceThenScanGrid : public GpuTest {};  // it reads the GPU's SM count

TEST_F(ReduceThenScanGrid, NeverOutgrowsTheBlockSums) {
  for (std::size_t n : {std::size_t{1}, std::size_t{4096}, std::size_t{4097}, std::size_t{1} << 20,
                        std::size_t{1} << 28, std::size_t{1} << 34}) {
    const int blocks = reduce_then_scan_blocks(n);
    EXPECT_GE(blocks, 1) << "n=" << n;
    EXPECT_LE(blocks, kMaxGridBlocks) << "n=" << n;
    EXPECT_LE(static_cast<std::size_t>(blocks - 1) * kTileSize, n)
        << "n=" << n << ": no block should be launched without a tile to scan";
  }
}

// ---------------------------------------------------------------------------
// Speed: exclusive scans of 2^28 int32 against cub::DeviceScan::ExclusiveSum,
// through the workbook's speed harness (workbook/speed.hpp): every run,
// warm-up included, scans ints drawn on the GPU just before it from a seed of
// its own; CUB scans the same ints first, alternately with the student's scan,
// and every run's output must equal CUB's. The rate counts 8 bytes per
// element: one read and one write, what any scan must move (reduce-then-scan
// reads the input twice, so its true traffic is 12).

constexpr std::size_t kSpeedSize = std::size_t{1} << 28;  // 1 GiB of int32, 21 times an H100's 50 MB L2
// Values in [-7, 7]: no prefix of 2^28 of them overflows an int.
constexpr int kSpeedBound = 7;

void expect_scan_speed(const char* what,
                       const std::function<void(const int*, int*, cudaStream_t)>& ours_run) {
  DeviceBuffer<int> in(kSpeedSize), out(kSpeedSize), cub_out(kSpeedSize);
  yardstick::CubExclusiveSum cub(in.data(), cub_out.data(), kSpeedSize);

  SpeedTask task;
  task.what = std::string(what) + " of 2^28 uniform ints in [-" + std::to_string(kSpeedBound) + ", " +
              std::to_string(kSpeedBound) + "]";
  task.yardstick = "cub::DeviceScan::ExclusiveSum on the same input";
  task.unit = "GB/s";
  // Any scan reads every element once and writes every element once.
  task.work = 2.0 * sizeof(int) * kSpeedSize;
  task.min_bytes = task.work;
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_ints(in.data(), kSpeedSize, seed, -kSpeedBound, kSpeedBound, stream);
    CUDA_CHECK(cudaMemsetAsync(out.data(), kIntPoisonByte, out.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
  task.run = [&](cudaStream_t stream) { ours_run(in.data(), out.data(), stream); };
  task.check = [&] { return workbook::device_differences(cub_out.data(), out.data(), kSpeedSize); };
  task.inputs = {{"in", workbook::bytes_of(in)}};
  task.yardstick_writes = {workbook::bytes_of(cub_out), cub.storage()};
  workbook::testing::check_speed(task);
}

// The largest grid this GPU takes, one tile per block, the last tile partial.
// Where that grid has more than kMaxThreadsPerBlock (1024) blocks (more than
// 128 SMs: an H100 or H200), scan_block_sums, one block of 1024 threads, must
// scan its sums in chunks (TODO(8)); no other correctness test reaches that.
TEST_F(ReduceThenScanGrid, LargestGridWithOneTilePerBlockMatchesTheHost) {
  const int largest_grid = reduce_then_scan_blocks(std::size_t{1} << 34);
  const std::size_t n = static_cast<std::size_t>(largest_grid) * kTileSize - 5;
  ASSERT_EQ(reduce_then_scan_blocks(n), largest_grid);
  std::printf("[   NOTE   ] %d blocks, %d block sums for scan_block_sums%s\n", largest_grid, largest_grid,
              largest_grid > kMaxThreadsPerBlock ? ": more than one chunk of 1024" : "");
  check_whole_array(run_reduce_then_scan, "reduce_then_scan(int) on the largest grid", n);
}

class ScanSpeed : public GpuTest {};

TEST_F(ScanSpeed, ReduceThenScanReachesTargetFractionOfCub) {
  DeviceBuffer<int> block_sums(kMaxGridBlocks);
  expect_scan_speed("reduce_then_scan(int), exclusive", [&](const int* in, int* out, cudaStream_t stream) {
    reduce_then_scan(in, out, kSpeedSize, ScanKind::exclusive, block_sums.data(), stream);
  });
}

TEST_F(ScanSpeed, SinglePassReachesTargetFractionOfCub) {
  LookbackScratch scratch(kSpeedSize);
  expect_scan_speed("single_pass_scan(int), exclusive", [&](const int* in, int* out, cudaStream_t stream) {
    single_pass_scan(in, out, kSpeedSize, ScanKind::exclusive, scratch, stream);
  });
}

}  // namespace
}  // namespace scan
