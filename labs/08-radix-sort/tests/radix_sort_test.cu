// Tests of lab 08. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU; the digit, the
// key encodings, the tile geometry and the argument checks run on the host.
//
// Every output is compared element by element with the expected answer, with
// the output poisoned beforehand and the guard elements after it required to
// still hold the poison; inputs must come back unchanged. Up to 100003 keys
// the answer is the host's (std::stable_sort's result, computed by the
// harness's host radix sort, or a stable counting sort by one digit for a
// single pass); at 5 * 2^20 and 2^26, where the host took seconds per case, it
// is computed on the device with CUB (see answers_on_host).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cub_yardstick.cuh"
#include "radix_sort.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cub_call.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/generators.hpp"
#include "workbook/host_sort.hpp"
#include "workbook/testing.hpp"

namespace radix_sort {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::seed_text;
using workbook::testing::size_name;

// Outputs are filled with 0x7F bytes before each run: a position nobody wrote
// reads 2139062143.
constexpr int kPoisonByte = 0x7F;
constexpr std::uint32_t kPoison = 0x7F7F7F7Fu;
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
// The same without 2^26, for the int and float sorts (their host reference is slower).
const std::size_t kSmallerSizes[] = {1,   31,        32,    33,        255,    256,
                                     257, kTile - 1, kTile, kTile + 1, 100003, std::size_t{5} << 20};

// ---------------------------------------------------------------------------
// The inputs.

enum class Keys {
  uniform,
  sorted,
  reverse_sorted,
  all_equal,
  few_unique,
  top_byte_only,
  lowest_bit_only,
  extremes
};

const char* to_string(Keys keys) {
  switch (keys) {
    case Keys::uniform:
      return "uniform over all uint32";
    case Keys::sorted:
      return "already sorted";
    case Keys::reverse_sorted:
      return "reverse sorted";
    case Keys::all_equal:
      return "all equal";
    case Keys::few_unique:
      return "8 distinct keys";
    case Keys::top_byte_only:
      return "only the top byte varies";
    case Keys::lowest_bit_only:
      return "only the lowest bit varies";
    case Keys::extremes:
      return "0, 1, 2^31 - 1, 2^31, 2^32 - 1 and uniform keys mixed";
  }
  return "?";
}

// Value i of the random stream `stream` of the run's seed. The same on the
// host and the device, so that either can draw the keys.
__host__ __device__ std::uint32_t random_bits(std::uint64_t seed, std::uint64_t stream, std::size_t i) {
  return static_cast<std::uint32_t>(workbook::hash64(seed + stream, i) >> 16);
}

std::uint32_t random_bits(std::uint64_t stream, std::size_t i) {
  return random_bits(workbook::test_seed(), stream, i);
}

// Key i of a pattern, for the seed workbook::test_seed(). Sorted keys climb
// evenly from 0 to about 2^32 - 1.
__host__ __device__ std::uint32_t make_key(Keys keys, std::uint64_t seed, std::size_t i, std::size_t n) {
  const std::uint32_t random = random_bits(seed, 1, i);
  const std::uint64_t climb = n > 1 ? static_cast<std::uint64_t>(i) * 0xFFFFFFFFull / (n - 1) : 0;
  switch (keys) {
    case Keys::uniform:
      return random;
    case Keys::sorted:
      return static_cast<std::uint32_t>(climb);
    case Keys::reverse_sorted:
      return ~static_cast<std::uint32_t>(climb);
    case Keys::all_equal:
      return random_bits(seed, 2, 0);
    case Keys::few_unique:
      return random_bits(seed, 2, random % 8);
    case Keys::top_byte_only:
      return (random & 0xFF000000u) | 0x00A5C3E1u;
    case Keys::lowest_bit_only:
      return 0x89ABCDE0u | (random & 1u);
    case Keys::extremes: {
      const std::uint32_t extremes[] = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
      return random % 4 == 0 ? random : extremes[(random >> 8) % 5];
    }
  }
  return 0;
}

std::vector<std::uint32_t> make_keys(std::size_t n, Keys keys) {
  const std::uint64_t seed = workbook::test_seed();
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = make_key(keys, seed, i, n);
  return values;
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

__global__ void fill_keys(Keys keys, std::uint64_t seed, std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = make_key(keys, seed, i, n);
}

// make_keys drawn on the device, then kGuard zeros: what
// upload_with_guard(make_keys(n, keys)) uploads, without 2^26 keys drawn on
// the host and copied over.
DeviceBuffer<std::uint32_t> keys_on_device(std::size_t n, Keys keys) {
  DeviceBuffer<std::uint32_t> buffer(n + kGuard);
  buffer.fill_bytes(0);
  if (n == 0) return buffer;
  fill_keys<<<blocks_for(n), kThreadsPerBlock>>>(keys, workbook::test_seed(), n, buffer.data());
  CUDA_CHECK_LAUNCH("fill_keys");
  return buffer;
}

__global__ void fill_indices(std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i);
}

// 0, 1, ..., n - 1 on the device, then kGuard zeros: the values of the pair tests.
DeviceBuffer<std::uint32_t> indices_on_device(std::size_t n) {
  DeviceBuffer<std::uint32_t> buffer(n + kGuard);
  buffer.fill_bytes(0);
  if (n == 0) return buffer;
  fill_indices<<<blocks_for(n), kThreadsPerBlock>>>(n, buffer.data());
  CUDA_CHECK_LAUNCH("fill_indices");
  return buffer;
}

// Every pattern for small inputs; fewer for the large ones, which take longest.
std::vector<Keys> patterns_for(std::size_t n) {
  if (n >= kLarge) return {Keys::uniform, Keys::top_byte_only};
  if (n > 100003)
    return {Keys::uniform, Keys::sorted, Keys::few_unique, Keys::lowest_bit_only, Keys::extremes};
  return {Keys::uniform,    Keys::sorted,        Keys::reverse_sorted,  Keys::all_equal,
          Keys::few_unique, Keys::top_byte_only, Keys::lowest_bit_only, Keys::extremes};
}

std::string describe(std::size_t n, Keys keys) {
  return "n=" + std::to_string(n) + ", keys " + to_string(keys) + ", " + seed_text();
}

// ---------------------------------------------------------------------------
// The host's answers.

// std::stable_sort's answer, from the harness's host radix sort (the same
// result in O(n): at 2^26 keys std::stable_sort alone took seconds per case).
std::vector<std::uint32_t> sorted_copy(std::vector<std::uint32_t> keys) {
  return workbook::sorted_on_host(std::move(keys));
}

// The stable sort of (key, input index) pairs by key: keys, and the indices as values.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> sorted_pairs(
    const std::vector<std::uint32_t>& keys) {
  std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> out;
  out.second = workbook::stable_sort_order(keys);
  out.first.resize(keys.size());
  for (std::size_t j = 0; j < keys.size(); ++j) out.first[j] = keys[out.second[j]];
  return out;
}

__host__ __device__ std::uint32_t reference_digit(std::uint32_t key, int shift) {
  return (key >> shift) & 0xFFu;
}

// counts[d * tiles + b]: the keys of tile b whose digit is d.
std::vector<std::uint32_t> host_digit_counts(const std::vector<std::uint32_t>& keys, int shift) {
  const std::size_t tiles = (keys.size() + kTile - 1) / kTile;
  std::vector<std::uint32_t> counts(256 * tiles, 0);
  for (std::size_t i = 0; i < keys.size(); ++i) ++counts[reference_digit(keys[i], shift) * tiles + i / kTile];
  return counts;
}

std::vector<std::uint32_t> exclusive_sums(const std::vector<std::uint32_t>& counts) {
  std::vector<std::uint32_t> offsets(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

// One stable pass of (key, input index) pairs by the digit at `shift`: the
// keys, and the input index of each as its value.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> stable_pass(
    const std::vector<std::uint32_t>& keys, int shift) {
  std::vector<std::size_t> starts(257, 0);
  for (const std::uint32_t key : keys) ++starts[reference_digit(key, shift) + 1];
  for (int d = 0; d < 256; ++d) starts[d + 1] += starts[d];
  std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> out;
  out.first.resize(keys.size());
  out.second.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::size_t to = starts[reference_digit(keys[i], shift)]++;
    out.first[to] = keys[i];
    out.second[to] = static_cast<std::uint32_t>(i);
  }
  return out;
}

// The keys whose bit is 0, then those whose bit is 1, each in input order.
std::vector<std::uint32_t> host_split(const std::vector<std::uint32_t>& keys, int bit) {
  std::vector<std::uint32_t> out;
  out.reserve(keys.size());
  for (const std::uint32_t key : keys)
    if (((key >> bit) & 1u) == 0u) out.push_back(key);
  for (const std::uint32_t key : keys)
    if (((key >> bit) & 1u) != 0u) out.push_back(key);
  return out;
}

// ---------------------------------------------------------------------------
// The device's answers, for 2^26 keys.

// Where the expected answers come from. Up to 100003 keys: the host, from
// make_keys, which also checks that the keys drawn on the device are the
// pattern's. At 5 * 2^20 and 2^26, where the host took seconds per case: the device, with CUB's stable
// radix sort by the same bits (one bit for a split, the digit's eight for a
// pass, all 32 for a sort), the digit counts added up one key at a time and
// their exclusive sums by CUB's scan.
// The solution must match both, so a wrong device answer cannot go unnoticed.
bool answers_on_host(std::size_t n) {
  return n <= 100003;
}

using DevicePairs = std::pair<DeviceBuffer<std::uint32_t>, DeviceBuffer<std::uint32_t>>;

// CUB's stable sort of the first n keys by their bits begin_bit .. end_bit - 1.
DeviceBuffer<std::uint32_t> cub_sorted_keys(const DeviceBuffer<std::uint32_t>& keys, std::size_t n,
                                            int begin_bit, int end_bit) {
  DeviceBuffer<std::uint32_t> sorted(n);
  workbook::CubCall sort([&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, keys.data(), sorted.data(),
                                          yardstick::cub_item_count(n), begin_bit, end_bit, stream);
  });
  sort.run(nullptr);
  return sorted;
}

// The same for (key, input index) pairs: the keys, and the input indices as
// values (sorted_pairs and stable_pass on the device).
DevicePairs cub_sorted_pairs(const DeviceBuffer<std::uint32_t>& keys, std::size_t n, int begin_bit,
                             int end_bit) {
  const DeviceBuffer<std::uint32_t> indices = indices_on_device(n);
  DevicePairs sorted{DeviceBuffer<std::uint32_t>(n), DeviceBuffer<std::uint32_t>(n)};
  workbook::CubCall sort([&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys.data(), sorted.first.data(), indices.data(),
                                           sorted.second.data(), yardstick::cub_item_count(n), begin_bit,
                                           end_bit, stream);
  });
  sort.run(nullptr);
  return sorted;
}

__global__ void add_up_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* counts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[reference_digit(keys[i], shift) * tiles_for(n) + i / kTile], 1u);
}

// host_digit_counts on the device: every key adds one to the count of its
// (digit, tile).
DeviceBuffer<std::uint32_t> device_digit_counts(const DeviceBuffer<std::uint32_t>& keys, std::size_t n,
                                                int shift) {
  DeviceBuffer<std::uint32_t> counts(digit_counts_for(n));
  counts.fill_bytes(0);
  add_up_digits<<<blocks_for(n), kThreadsPerBlock>>>(keys.data(), n, shift, counts.data());
  CUDA_CHECK_LAUNCH("add_up_digits");
  return counts;
}

// exclusive_sums(host_digit_counts(...)) on the device, with CUB's scan.
DeviceBuffer<std::uint32_t> device_digit_offsets(const DeviceBuffer<std::uint32_t>& keys, std::size_t n,
                                                 int shift) {
  const DeviceBuffer<std::uint32_t> counts = device_digit_counts(keys, n, shift);
  DeviceBuffer<std::uint32_t> offsets(counts.size());
  workbook::CubCall scan([&](void* temp, std::size_t& bytes, cudaStream_t stream) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, counts.data(), offsets.data(),
                                         yardstick::cub_item_count(counts.size()), stream);
  });
  scan.run(nullptr);
  return offsets;
}

DevicePairs upload_pairs(const std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>& pairs) {
  return {workbook::to_device(pairs.first), workbook::to_device(pairs.second)};
}

// ---------------------------------------------------------------------------
// Checking device arrays.

template <typename T>
DeviceBuffer<T> poisoned(std::size_t n) {
  DeviceBuffer<T> buffer(n + kGuard);
  buffer.fill_bytes(kPoisonByte);
  return buffer;
}

template <typename T>
DeviceBuffer<T> upload_with_guard(const std::vector<T>& host) {
  std::vector<T> padded(host);
  padded.resize(host.size() + kGuard, T{});
  return workbook::to_device(padded);
}

// The first expected.size() elements of got_with_guard, one by one, then the
// poison in each guard element.
void expect_output(const std::vector<std::uint32_t>& expected,
                   const std::vector<std::uint32_t>& got_with_guard, const std::string& context,
                   const std::string& name) {
  const std::size_t n = expected.size();
  EXPECT_TRUE(matches(
      compare_exact(expected, std::vector<std::uint32_t>(got_with_guard.begin(), got_with_guard.begin() + n)),
      context + " (" + name + "[i] against the host's answer)"));
  EXPECT_TRUE(
      matches(compare_exact(std::vector<std::uint32_t>(kGuard, kPoison),
                            std::vector<std::uint32_t>(got_with_guard.begin() + n, got_with_guard.end())),
              context + ", the guard elements after " + name + "[n - 1] (nothing may be written there)"));
}

// matches(compare_exact(...), context) for two device arrays of n elements,
// compared on the device.
::testing::AssertionResult matches_on_device(const std::uint32_t* expected, const std::uint32_t* got,
                                             std::size_t n, const std::string& context) {
  const std::string differences = workbook::device_differences(expected, got, n);
  if (differences.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wrong result for " << context << ": " << differences;
}

// The first n = expected.size() elements of got_with_guard, compared with
// `expected` on the device, then the poison in each guard element.
void expect_output(const DeviceBuffer<std::uint32_t>& expected,
                   const DeviceBuffer<std::uint32_t>& got_with_guard, const std::string& context,
                   const std::string& name) {
  const std::size_t n = expected.size();
  EXPECT_TRUE(matches_on_device(expected.data(), got_with_guard.data(), n,
                                context + " (" + name + "[i] against the expected answer)"));
  std::vector<std::uint32_t> guard(kGuard);
  CUDA_CHECK(cudaMemcpy(guard.data(), got_with_guard.data() + n, kGuard * sizeof(std::uint32_t),
                        cudaMemcpyDeviceToHost));
  EXPECT_TRUE(
      matches(compare_exact(std::vector<std::uint32_t>(kGuard, kPoison), guard),
              context + ", the guard elements after " + name + "[n - 1] (nothing may be written there)"));
}

// The first n elements of a device input against `original` (the same input,
// drawn again, that nothing was given), compared on the device.
void expect_input_unchanged(const DeviceBuffer<std::uint32_t>& original,
                            const DeviceBuffer<std::uint32_t>& input, std::size_t n,
                            const std::string& context, const std::string& name) {
  const std::string differences = workbook::device_differences(original.data(), input.data(), n);
  if (differences.empty()) return;
  ADD_FAILURE() << context << ": the input " << name << " was written: " << differences
                << ". Your functions may read their inputs, never write them: keep intermediate results in "
                   "the output or the scratch memory the contract gives you";
}

// ---------------------------------------------------------------------------
// On the host: the digit, the geometry, the encodings.

TEST(DigitOf, IsTheEightBitsFromTheShift) {
  EXPECT_EQ(digit_of(0x12345678u, 0), 0x78u);
  EXPECT_EQ(digit_of(0x12345678u, 8), 0x56u);
  EXPECT_EQ(digit_of(0x12345678u, 16), 0x34u);
  EXPECT_EQ(digit_of(0x12345678u, 24), 0x12u);
  EXPECT_EQ(digit_of(0xFFFFFFFFu, 24), 0xFFu);
  EXPECT_EQ(digit_of(0u, 8), 0u);
  for (std::size_t i = 0; i < 1000; ++i) {
    const std::uint32_t key = random_bits(7, i);
    for (const int shift : {0, 8, 16, 24}) {
      ASSERT_EQ(digit_of(key, shift), reference_digit(key, shift))
          << "key 0x" << std::hex << key << std::dec << ", shift " << shift;
    }
  }
}

TEST(TileGeometry, TilesCoverEveryKeyWithWholeTiles) {
  EXPECT_EQ(kTileSize, kThreadsPerBlock * kItemsPerThread);
  EXPECT_EQ(kWarpTileSize * kWarpsPerBlock, kTileSize);
  EXPECT_EQ(kRadix, 256);
  EXPECT_EQ(kPasses * kRadixBits, 32);
  EXPECT_EQ(tiles_for(0), 0u);
  EXPECT_EQ(digit_counts_for(0), 0u);
  for (std::size_t n : {std::size_t{1}, kTile - 1, kTile, kTile + 1, std::size_t{100003}, kLarge + 1}) {
    const std::size_t tiles = tiles_for(n);
    EXPECT_GE(tiles * kTile, n) << "n=" << n << ": " << tiles << " tiles do not cover every key";
    EXPECT_LT((tiles - 1) * kTile, n) << "n=" << n << ": " << tiles << " tiles, the last of them empty";
    EXPECT_EQ(digit_counts_for(n), 256 * tiles) << "n=" << n;
  }
}

TEST(KeyEncoding, IntsKeepTheirOrderAndComeBack) {
  EXPECT_EQ(encode_int(INT_MIN), 0u);
  EXPECT_EQ(encode_int(-1), 0x7FFFFFFFu);
  EXPECT_EQ(encode_int(0), 0x80000000u);
  EXPECT_EQ(encode_int(INT_MAX), 0xFFFFFFFFu);
  const std::int32_t ordered[] = {INT_MIN, INT_MIN + 1, -1000000, -2,          -1,     0,
                                  1,       2,           1000000,  INT_MAX - 1, INT_MAX};
  for (std::size_t j = 0; j + 1 < std::size(ordered); ++j) {
    EXPECT_LT(encode_int(ordered[j]), encode_int(ordered[j + 1]))
        << "encode_int(" << ordered[j] << ") must be below encode_int(" << ordered[j + 1] << ")";
  }
  for (std::size_t i = 0; i < 2000; ++i) {
    const auto a = static_cast<std::int32_t>(random_bits(8, i));
    const auto b = static_cast<std::int32_t>(random_bits(9, i));
    ASSERT_EQ(decode_int(encode_int(a)), a) << "decode_int(encode_int(x)) must give x back";
    ASSERT_EQ(a < b, encode_int(a) < encode_int(b)) << "a=" << a << ", b=" << b;
  }
}

// The special floats in IEEE 754 totalOrder: the order sort_floats must give.
const std::uint32_t kFloatsInOrder[] = {
    0xFFC00000u,  // -NaN, quiet (the larger payload of the two negative NaNs: first)
    0xFF800001u,  // -NaN, signalling
    0xFF800000u,  // -inf
    0xFF7FFFFFu,  // -FLT_MAX
    0xBF800000u,  // -1.0
    0x80800000u,  // -FLT_MIN (smallest normal)
    0x807FFFFFu,  // the largest negative denormal in magnitude
    0x80000001u,  // -(smallest denormal)
    0x80000000u,  // -0.0
    0x00000000u,  // +0.0
    0x00000001u,  // the smallest denormal
    0x007FFFFFu,  // the largest denormal
    0x00800000u,  // FLT_MIN
    0x3F800000u,  // 1.0
    0x7F7FFFFFu,  // FLT_MAX
    0x7F800000u,  // +inf
    0x7F800001u,  // +NaN, signalling (the smaller payload: first)
    0x7FC00000u,  // +NaN, quiet
};

std::string hex(std::uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08X", bits);
  return text;
}

TEST(KeyEncoding, FloatsFollowTheTotalOrderAndKeepTheirBits) {
  for (std::size_t j = 0; j + 1 < std::size(kFloatsInOrder); ++j) {
    EXPECT_LT(encode_float_bits(kFloatsInOrder[j]), encode_float_bits(kFloatsInOrder[j + 1]))
        << "the float with bits " << hex(kFloatsInOrder[j]) << " must sort before "
        << hex(kFloatsInOrder[j + 1]);
  }
  EXPECT_EQ(encode_float_bits(float_bits(-0.0f)) + 1, encode_float_bits(float_bits(0.0f)))
      << "-0.0 sorts just before +0.0";
  EXPECT_LT(encode_float_bits(float_bits(-1.5f)), encode_float_bits(float_bits(-1.25f)));
  EXPECT_LT(encode_float_bits(float_bits(1.25f)), encode_float_bits(float_bits(1.5f)));
  for (std::size_t i = 0; i < 2000; ++i) {
    const std::uint32_t bits = random_bits(10, i);
    ASSERT_EQ(decode_float_bits(encode_float_bits(bits)), bits)
        << "decode_float_bits(encode_float_bits(" << hex(bits) << ")) must give the same bits";
    const float a = float_from_bits(bits);
    const float b = float_from_bits(random_bits(11, i));
    if (a == a && b == b && a != b) {  // two different numbers (no NaN, not +-0)
      ASSERT_EQ(a < b, encode_float_bits(float_bits(a)) < encode_float_bits(float_bits(b)))
          << "a=" << a << ", b=" << b;
    }
  }
}

// ---------------------------------------------------------------------------
// Arguments: checked on the host before anything is launched, so a scratch
// built for 0 keys (which allocates nothing) is enough and no GPU is needed.

template <typename Call>
void expect_rejected(Call call, const std::string& what, const std::vector<std::string>& words) {
  try {
    call();
    ADD_FAILURE() << what << " did not throw std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    for (const std::string& word : words) {
      EXPECT_NE(message.find(word), std::string::npos)
          << what << ": the message should say '" << word << "': " << message;
    }
  }
}

TEST(SortArguments, AreRejectedWithAMessageBeforeAnythingIsLaunched) {
  RadixSortScratch scratch(0);
  RadixSortScratch pair_scratch(0, true);
  std::uint32_t* none = nullptr;
  expect_rejected([&] { sort_keys(none, none, 1001, scratch); }, "sort_keys of n=1001 with a scratch for 0",
                  {"1001", "0", "max_n"});
  expect_rejected([&] { sort_pairs(none, none, none, none, 5, pair_scratch); },
                  "sort_pairs beyond the scratch", {"5", "max_n"});
  expect_rejected([&] { sort_pairs(none, none, none, none, 0, scratch); },
                  "sort_pairs with a scratch without values", {"RadixSortScratch(max_n, true)"});
  expect_rejected([&] { sort_ints(nullptr, nullptr, 7, scratch); }, "sort_ints beyond the scratch", {"7"});
  expect_rejected([&] { sort_floats(nullptr, nullptr, 7, scratch); }, "sort_floats beyond the scratch",
                  {"7"});
  expect_rejected([] { RadixSortScratch too_large(std::size_t{1} << 32); }, "RadixSortScratch(2^32)",
                  {"4294967296", "32-bit"});
  expect_rejected([] { SplitScratch too_large(std::size_t{1} << 32); }, "SplitScratch(2^32)", {"4294967296"});
  SplitScratch split_scratch(0);
  expect_rejected([&] { split_sort(none, none, 3, split_scratch); }, "split_sort beyond the scratch",
                  {"3", "max_n"});
  expect_rejected([&] { split_by_bit(none, none, 0, 32, split_scratch); }, "split_by_bit on bit 32",
                  {"32", "0 to 31"});
  expect_rejected([&] { split_by_bit(none, none, 0, -1, split_scratch); }, "split_by_bit on bit -1", {"-1"});
}

// ---------------------------------------------------------------------------
// Part 1: split by one bit.

class SplitByBit : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SplitByBit, PutsTheZerosFirstThenTheOnesEachInInputOrder) {
  const std::size_t n = GetParam();
  SplitScratch scratch(n);
  const bool on_host = answers_on_host(n);
  for (const Keys pattern : patterns_for(n)) {
    const std::vector<std::uint32_t> keys = on_host ? make_keys(n, pattern) : std::vector<std::uint32_t>();
    // The input, and the same keys again: nothing is given them, so the
    // device's answers and the input check can rely on them.
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    for (const int bit : {0, 7, 31}) {
      // A split is a stable sort by one bit.
      const DeviceBuffer<std::uint32_t> expected =
          on_host ? workbook::to_device(host_split(keys, bit)) : cub_sorted_keys(original, n, bit, bit + 1);
      DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
      split_by_bit(in.data(), out.data(), n, bit, scratch);
      const std::string context = "split_by_bit on bit " + std::to_string(bit) + ", " + describe(n, pattern);
      expect_output(expected, out, context, "keys_out");
      expect_input_unchanged(original, in, n, context, "keys_in");
      if (HasFailure()) return;  // one failing case says enough
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SplitByBit, ::testing::ValuesIn(kSizes), size_name);

class SplitSort : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SplitSort, SortsWithThirtyTwoSplits) {
  const std::size_t n = GetParam();
  SplitScratch scratch(n);
  const bool on_host = answers_on_host(n);
  for (const Keys pattern : patterns_for(n)) {
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    const DeviceBuffer<std::uint32_t> expected = on_host
                                                     ? workbook::to_device(sorted_copy(make_keys(n, pattern)))
                                                     : cub_sorted_keys(original, n, 0, kKeyBits);
    DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
    split_sort(in.data(), out.data(), n, scratch);
    const std::string context = "split_sort, " + describe(n, pattern);
    expect_output(expected, out, context, "keys_out");
    expect_input_unchanged(original, in, n, context, "keys_in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SplitSort, ::testing::ValuesIn(kSizes), size_name);

class SplitArguments : public GpuTest {};

TEST_F(SplitArguments, ASplitInPlaceIsRejectedAndASortInPlaceWorks) {
  const std::size_t n = 1000;
  SplitScratch scratch(n);
  const std::vector<std::uint32_t> keys = make_keys(n, Keys::uniform);
  DeviceBuffer<std::uint32_t> data = upload_with_guard(keys);
  expect_rejected([&] { split_by_bit(data.data(), data.data(), n, 3, scratch); }, "split_by_bit in place",
                  {"in place"});
  split_sort(data.data(), data.data(), n, scratch);
  std::vector<std::uint32_t> got = data.to_host();
  got.resize(n);
  EXPECT_TRUE(
      matches(compare_exact(sorted_copy(keys), got), "split_sort in place, " + describe(n, Keys::uniform)));
}

// ---------------------------------------------------------------------------
// Part 2, phase by phase, then the four passes.

class CountDigits : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(CountDigits, CountsEveryDigitOfEveryTileDigitMajor) {
  const std::size_t n = GetParam();
  const std::size_t counts = digit_counts_for(n);
  const bool on_host = answers_on_host(n);
  for (const Keys pattern : patterns_for(n)) {
    const std::vector<std::uint32_t> keys = on_host ? make_keys(n, pattern) : std::vector<std::uint32_t>();
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    for (const int shift : {0, 8, 16, 24}) {
      const DeviceBuffer<std::uint32_t> expected = on_host
                                                       ? workbook::to_device(host_digit_counts(keys, shift))
                                                       : device_digit_counts(original, n, shift);
      DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(counts);
      launch_count_digits(in.data(), n, shift, out.data());
      const std::string context = "count_digits with shift " + std::to_string(shift) + ", " +
                                  describe(n, pattern) + " (index = digit * " + std::to_string(tiles_for(n)) +
                                  " tiles + tile)";
      expect_output(expected, out, context, "digit_counts");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CountDigits, ::testing::ValuesIn(kSizes), size_name);

class ScatterByDigit : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(ScatterByDigit, WritesEveryTileAtItsDigitOffsetsInInputOrder) {
  // The offsets come from the test, so this test does not depend on phase (a).
  const std::size_t n = GetParam();
  const bool on_host = answers_on_host(n);
  for (const Keys pattern : patterns_for(n)) {
    const std::vector<std::uint32_t> keys = on_host ? make_keys(n, pattern) : std::vector<std::uint32_t>();
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    for (const int shift : {0, 8, 24}) {
      const DeviceBuffer<std::uint32_t> offsets =
          on_host ? workbook::to_device(exclusive_sums(host_digit_counts(keys, shift)))
                  : device_digit_offsets(original, n, shift);
      // A pass is a stable sort by the digit's 8 bits.
      const DeviceBuffer<std::uint32_t> expected = on_host
                                                       ? workbook::to_device(stable_pass(keys, shift).first)
                                                       : cub_sorted_keys(original, n, shift, shift + 8);
      DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
      launch_scatter_by_digit(in.data(), n, shift, offsets.data(), out.data());
      const std::string context = "scatter_by_digit with shift " + std::to_string(shift) +
                                  " and the offsets computed by the test, " + describe(n, pattern);
      expect_output(expected, out, context, "keys_out");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScatterByDigit, ::testing::ValuesIn(kSizes), size_name);

// The tile position of thread t's item k, as load_tile holds it: lane l of
// warp w has tile key w * kWarpTileSize + k * kWarpSize + l.
std::size_t tile_key_of_item(int thread, int k) {
  return static_cast<std::size_t>(thread / kWarpSize) * kWarpTileSize +
         static_cast<std::size_t>(k) * kWarpSize + static_cast<std::size_t>(thread % kWarpSize);
}

class RankTileByDigit : public GpuTest {};

TEST_F(RankTileByDigit, RanksEveryKeyStablyByDigitAndReturnsEachDigitsStart) {
  // rank_tile_by_digit alone (through the hook launch_rank_tiles_by_digit):
  // three tiles, the last one 1000 keys short and padded with 0xFFFFFFFF as
  // load_tile pads it. The expected answer is a stable counting sort of each
  // tile by the digit, on the host.
  constexpr std::size_t kTiles = 3;
  const std::size_t n = kTiles * kTile - 1000;
  constexpr std::size_t kThreads = static_cast<std::size_t>(kThreadsPerBlock);
  constexpr std::size_t kItems = static_cast<std::size_t>(kItemsPerThread);
  for (const Keys pattern : patterns_for(n)) {
    std::vector<std::uint32_t> keys = make_keys(n, pattern);
    keys.resize(kTiles * kTile, 0xFFFFFFFFu);
    std::vector<std::uint32_t> items(keys.size());
    for (std::size_t b = 0; b < kTiles; ++b)
      for (int t = 0; t < kThreadsPerBlock; ++t)
        for (int k = 0; k < kItemsPerThread; ++k)
          items[(b * kThreads + t) * kItems + k] = keys[b * kTile + tile_key_of_item(t, k)];
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(items);
    for (const int shift : {0, 8, 24}) {
      std::vector<std::uint32_t> expected_positions(items.size()), expected_starts(kTiles * 256);
      for (std::size_t b = 0; b < kTiles; ++b) {
        std::vector<std::uint32_t> next(256, 0);
        for (std::size_t j = 0; j < kTile; ++j) ++next[reference_digit(keys[b * kTile + j], shift)];
        std::uint32_t start = 0;
        for (int d = 0; d < 256; ++d) {
          const std::uint32_t count = next[d];
          next[d] = start;
          expected_starts[b * 256 + d] = start;
          start += count;
        }
        std::vector<std::uint32_t> position(kTile);  // of tile key j, in input order
        for (std::size_t j = 0; j < kTile; ++j)
          position[j] = next[reference_digit(keys[b * kTile + j], shift)]++;
        for (int t = 0; t < kThreadsPerBlock; ++t)
          for (int k = 0; k < kItemsPerThread; ++k)
            expected_positions[(b * kThreads + t) * kItems + k] = position[tile_key_of_item(t, k)];
      }
      DeviceBuffer<std::uint32_t> positions = poisoned<std::uint32_t>(items.size());
      DeviceBuffer<std::uint32_t> starts = poisoned<std::uint32_t>(kTiles * 256);
      launch_rank_tiles_by_digit(in.data(), kTiles, shift, positions.data(), starts.data());
      const std::string context = "rank_tile_by_digit with shift " + std::to_string(shift) + ", 3 tiles, " +
                                  describe(n, pattern) + ", the last tile padded with 0xFFFFFFFF";
      expect_output(expected_positions, positions.to_host(),
                    context +
                        ": positions[k] of thread t of tile b at index (b * 256 + t) * 16 + k, "
                        "0xFFFFFFFF = never written",
                    "positions");
      expect_output(expected_starts, starts.to_host(),
                    context + ": the returned start of digit d, thread d of tile b, at index b * 256 + d",
                    "digit_starts");
      if (HasFailure()) return;
    }
  }
}

class SortKeys : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SortKeys, SortsLikeStdStableSort) {
  const std::size_t n = GetParam();
  RadixSortScratch scratch(n);  // exactly large enough
  const bool on_host = answers_on_host(n);
  for (const Keys pattern : patterns_for(n)) {
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    const DeviceBuffer<std::uint32_t> expected = on_host
                                                     ? workbook::to_device(sorted_copy(make_keys(n, pattern)))
                                                     : cub_sorted_keys(original, n, 0, kKeyBits);
    DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
    sort_keys(in.data(), out.data(), n, scratch);
    const std::string context = "sort_keys, " + describe(n, pattern);
    expect_output(expected, out, context, "keys_out");
    expect_input_unchanged(original, in, n, context, "keys_in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortKeys, ::testing::ValuesIn(kSizes), size_name);

class EmptyInput : public GpuTest {};

TEST_F(EmptyInput, SortsNothingAndWritesNothing) {
  RadixSortScratch scratch(0, true);
  SplitScratch split_scratch(0);
  DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(0);
  DeviceBuffer<std::uint32_t> out_values = poisoned<std::uint32_t>(0);
  EXPECT_NO_THROW(sort_keys(nullptr, nullptr, 0, scratch));
  EXPECT_NO_THROW(sort_keys(nullptr, out.data(), 0, scratch));
  EXPECT_NO_THROW(sort_pairs(nullptr, nullptr, out.data(), out_values.data(), 0, scratch));
  EXPECT_NO_THROW(sort_ints(nullptr, reinterpret_cast<std::int32_t*>(out.data()), 0, scratch));
  EXPECT_NO_THROW(sort_floats(nullptr, reinterpret_cast<float*>(out.data()), 0, scratch));
  EXPECT_NO_THROW(split_sort(nullptr, out.data(), 0, split_scratch));
  EXPECT_NO_THROW(split_by_bit(nullptr, out.data(), 0, 5, split_scratch));
  // A grid of 0 blocks is an invalid configuration: the launchers must not try.
  EXPECT_NO_THROW(launch_flag_zero_bits(nullptr, 0, 0, nullptr));
  EXPECT_NO_THROW(launch_split_scatter(nullptr, 0, 0, nullptr, nullptr, nullptr));
  EXPECT_NO_THROW(launch_count_digits(nullptr, 0, 0, nullptr));
  EXPECT_NO_THROW(launch_scatter_by_digit(nullptr, 0, 0, nullptr, nullptr));
  EXPECT_NO_THROW(launch_scatter_pairs_by_digit(nullptr, nullptr, 0, 0, nullptr, nullptr, nullptr));
  CUDA_CHECK(cudaDeviceSynchronize());
  expect_output({}, out.to_host(), "every sort of n=0", "out");
  expect_output({}, out_values.to_host(), "sort_pairs of n=0", "values_out");
}

class ScratchReuse : public GpuTest {};

TEST_F(ScratchReuse, OneScratchSortsSeveralSizesOnStreamsAndInPlace) {
  // One scratch for every size (built for the largest), every other call on a
  // stream of its own, and the last two calls of each size in place.
  const std::size_t sizes[] = {(std::size_t{5} << 20) + 3, 1, 33, kTile + 1, 100003};
  RadixSortScratch scratch(sizes[0]);
  workbook::CudaStream stream;
  int call = 0;
  for (const std::size_t n : sizes) {
    for (const Keys pattern : {Keys::uniform, Keys::few_unique, Keys::reverse_sorted}) {
      const std::vector<std::uint32_t> keys = make_keys(n, pattern);
      const std::vector<std::uint32_t> expected = sorted_copy(keys);
      const bool on_stream = call++ % 2 == 1;
      const cudaStream_t where = on_stream ? stream.get() : nullptr;
      const std::string context = std::string("sort_keys") + (on_stream ? " on a stream of its own" : "") +
                                  " with a scratch for " + std::to_string(sizes[0]) + " keys, " +
                                  describe(n, pattern);
      const DeviceBuffer<std::uint32_t> in = upload_with_guard(keys);
      DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
      sort_keys(in.data(), out.data(), n, scratch, where);
      CUDA_CHECK(cudaStreamSynchronize(where));
      expect_output(expected, out.to_host(), context, "keys_out");
      std::vector<std::uint32_t> keys_then_poison(keys);
      keys_then_poison.resize(n + kGuard, kPoison);
      DeviceBuffer<std::uint32_t> data = workbook::to_device(keys_then_poison);
      sort_keys(data.data(), data.data(), n, scratch, where);
      CUDA_CHECK(cudaStreamSynchronize(where));
      expect_output(expected, data.to_host(), context + ", in place", "keys");
      if (HasFailure()) return;
    }
  }
}

// ---------------------------------------------------------------------------
// Part 3: key-value pairs. The values are the input indices: a pair out of
// order among equal keys, or a value that travels without its key, shows.

std::vector<std::uint32_t> indices(std::size_t n) {
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  return values;
}

class ScatterPairsByDigit : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(ScatterPairsByDigit, MovesEveryValueWithItsKey) {
  const std::size_t n = GetParam();
  const bool on_host = answers_on_host(n);
  const DeviceBuffer<std::uint32_t> values = indices_on_device(n);
  for (const Keys pattern : patterns_for(n)) {
    const std::vector<std::uint32_t> keys = on_host ? make_keys(n, pattern) : std::vector<std::uint32_t>();
    const DeviceBuffer<std::uint32_t> in = keys_on_device(n, pattern), original = keys_on_device(n, pattern);
    for (const int shift : {0, 16}) {
      const DeviceBuffer<std::uint32_t> offsets =
          on_host ? workbook::to_device(exclusive_sums(host_digit_counts(keys, shift)))
                  : device_digit_offsets(original, n, shift);
      const DevicePairs expected =
          on_host ? upload_pairs(stable_pass(keys, shift)) : cub_sorted_pairs(original, n, shift, shift + 8);
      DeviceBuffer<std::uint32_t> out_keys = poisoned<std::uint32_t>(n);
      DeviceBuffer<std::uint32_t> out_values = poisoned<std::uint32_t>(n);
      launch_scatter_pairs_by_digit(in.data(), values.data(), n, shift, offsets.data(), out_keys.data(),
                                    out_values.data());
      const std::string context = "scatter_pairs_by_digit with shift " + std::to_string(shift) +
                                  ", values = input indices, offsets from the test, " + describe(n, pattern);
      expect_output(expected.first, out_keys, context, "keys_out");
      expect_output(expected.second, out_values, context, "values_out");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ScatterPairsByDigit, ::testing::ValuesIn(kSizes), size_name);

class SortPairs : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SortPairs, KeepEqualKeysInInputOrderWithTheirValues) {
  const std::size_t n = GetParam();
  RadixSortScratch scratch(n, true);
  const bool on_host = answers_on_host(n);
  const DeviceBuffer<std::uint32_t> values_in = indices_on_device(n), original_values = indices_on_device(n);
  for (const Keys pattern : patterns_for(n)) {
    const DeviceBuffer<std::uint32_t> keys_in = keys_on_device(n, pattern),
                                      original_keys = keys_on_device(n, pattern);
    const DevicePairs expected = on_host ? upload_pairs(sorted_pairs(make_keys(n, pattern)))
                                         : cub_sorted_pairs(original_keys, n, 0, kKeyBits);
    DeviceBuffer<std::uint32_t> keys_out = poisoned<std::uint32_t>(n);
    DeviceBuffer<std::uint32_t> values_out = poisoned<std::uint32_t>(n);
    sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch);
    const std::string context = "sort_pairs with values = input indices, " + describe(n, pattern);
    expect_output(expected.first, keys_out, context, "keys_out");
    expect_output(expected.second, values_out, context,
                  "values_out (equal keys must keep their input order: their values ascend)");
    expect_input_unchanged(original_keys, keys_in, n, context, "keys_in");
    expect_input_unchanged(original_values, values_in, n, context, "values_in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortPairs, ::testing::ValuesIn(kSizes), size_name);

class PairsInPlace : public GpuTest {};

TEST_F(PairsInPlace, SortTheInputArraysThemselvesOnAStream) {
  const std::size_t n = 100003;
  RadixSortScratch scratch(n, true);
  workbook::CudaStream stream;
  for (const Keys pattern : {Keys::few_unique, Keys::lowest_bit_only, Keys::uniform}) {
    const std::vector<std::uint32_t> keys = make_keys(n, pattern);
    const auto expected = sorted_pairs(keys);
    DeviceBuffer<std::uint32_t> device_keys = upload_with_guard(keys);
    DeviceBuffer<std::uint32_t> device_values = upload_with_guard(indices(n));
    sort_pairs(device_keys.data(), device_values.data(), device_keys.data(), device_values.data(), n, scratch,
               stream.get());
    CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    std::vector<std::uint32_t> got_keys = device_keys.to_host(), got_values = device_values.to_host();
    got_keys.resize(n);
    got_values.resize(n);
    const std::string context = "sort_pairs in place on a stream, " + describe(n, pattern);
    EXPECT_TRUE(matches(compare_exact(expected.first, got_keys), context + " (keys)"));
    EXPECT_TRUE(matches(compare_exact(expected.second, got_values), context + " (values = input indices)"));
  }
}

// ---------------------------------------------------------------------------
// Part 4: int32 and float keys.

std::vector<std::uint32_t> to_bits(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) bits[i] = float_bits(values[i]);
  return bits;
}

// IEEE 754 totalOrder on bit patterns, written without the lab's encoding:
// negative before positive; among negatives the larger magnitude (the larger
// bits) first; among positives the smaller bits first.
bool total_order_less(std::uint32_t a, std::uint32_t b) {
  const bool a_negative = (a >> 31) != 0, b_negative = (b >> 31) != 0;
  if (a_negative != b_negative) return a_negative;
  return a_negative ? a > b : a < b;
}

class SortInts : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SortInts, SortLikeStdStableSort) {
  const std::size_t n = GetParam();
  RadixSortScratch scratch(n);
  for (const Keys pattern : {Keys::uniform, Keys::few_unique, Keys::extremes}) {
    std::vector<std::int32_t> values(n);
    for (std::size_t i = 0; i < n; ++i)
      values[i] = static_cast<std::int32_t>(make_key(pattern, workbook::test_seed(), i, n));
    if (n > 4) {
      values[n / 2] = INT_MIN;
      values[n / 3] = INT_MAX;
      values[n / 4] = -1;
      values[n - 1] = 0;
    }
    std::vector<std::int32_t> expected(values);
    std::stable_sort(expected.begin(), expected.end());
    std::vector<std::int32_t> padded(values);
    padded.resize(n + kGuard, 0);
    const DeviceBuffer<std::int32_t> in = workbook::to_device(padded);
    DeviceBuffer<std::int32_t> out = poisoned<std::int32_t>(n);
    sort_ints(in.data(), out.data(), n, scratch);
    const std::string context = "sort_ints, " + describe(n, pattern) + " (as int32)";
    const std::vector<std::int32_t> got = out.to_host();
    EXPECT_TRUE(
        matches(compare_exact(expected, std::vector<std::int32_t>(got.begin(), got.begin() + n)), context));
    EXPECT_TRUE(matches(compare_exact(std::vector<std::int32_t>(kGuard, static_cast<std::int32_t>(kPoison)),
                                      std::vector<std::int32_t>(got.begin() + n, got.end())),
                        context + ", the guard elements after out[n - 1]"));
    const std::vector<std::int32_t> in_now = in.to_host();
    EXPECT_TRUE(matches(compare_exact(padded, in_now), context + ": the input must come back unchanged"));
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortInts, ::testing::ValuesIn(kSmallerSizes), size_name);

class SortFloats : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SortFloats, FollowTheTotalOrderBitForBit) {
  // Uniform bit patterns: every exponent, denormals, infinities and NaNs of
  // both signs; then floats of [-1, 1] with the special values sprinkled in.
  const std::size_t n = GetParam();
  RadixSortScratch scratch(n);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::uint32_t> bits(n);
    if (round == 0) {
      bits = make_keys(n, Keys::uniform);
    } else {
      bits = to_bits(
          workbook::generate_floats(n, workbook::Pattern::uniform, workbook::test_seed(), -1.0f, 1.0f));
      for (std::size_t j = 0; j < std::size(kFloatsInOrder) && j < n; ++j) {
        bits[random_bits(12, j) % n] = kFloatsInOrder[j];
      }
    }
    std::vector<std::uint32_t> expected(bits);
    std::stable_sort(expected.begin(), expected.end(), total_order_less);
    std::vector<std::uint32_t> padded(bits);
    padded.resize(n + kGuard, 0);
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(padded);
    DeviceBuffer<std::uint32_t> out = poisoned<std::uint32_t>(n);
    sort_floats(reinterpret_cast<const float*>(in.data()), reinterpret_cast<float*>(out.data()), n, scratch);
    const std::string context =
        std::string("sort_floats, n=") + std::to_string(n) +
        (round == 0 ? ", uniform bit patterns (NaNs, infinities, denormals included)"
                    : ", floats in [-1, 1] with -NaN, -inf, -0.0, +0.0, denormals, +inf, +NaN mixed in") +
        ", " + seed_text() + " (compared as bit patterns)";
    expect_output(expected, out.to_host(), context, "out");
    expect_input_unchanged(bits, in, context, "in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortFloats, ::testing::ValuesIn(kSmallerSizes), size_name);

class FloatKeys : public GpuTest {};

TEST_F(FloatKeys, SpecialValuesSortInTheStatedOrder) {
  // The special values, reversed and then rotated, sorted in place.
  std::vector<std::uint32_t> bits(std::rbegin(kFloatsInOrder), std::rend(kFloatsInOrder));
  std::rotate(bits.begin(), bits.begin() + 5, bits.end());
  const std::size_t n = bits.size();
  RadixSortScratch scratch(n);
  DeviceBuffer<std::uint32_t> data = workbook::to_device(bits);
  sort_floats(reinterpret_cast<const float*>(data.data()), reinterpret_cast<float*>(data.data()), n, scratch);
  EXPECT_TRUE(
      matches(compare_exact(std::vector<std::uint32_t>(std::begin(kFloatsInOrder), std::end(kFloatsInOrder)),
                            data.to_host()),
              "sort_floats in place of -NaN, -inf, -FLT_MAX, ..., -0.0, +0.0, ..., +inf, +NaN as bit "
              "patterns (expected: -NaN 0xFFC00000 first, +NaN 0x7FC00000 last, -0.0 before +0.0)"));
}

}  // namespace
}  // namespace radix_sort
