// Tests of lab 04. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cub_yardstick.cuh"
#include "reductions.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace reductions {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::describe_case;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

// Outputs are poisoned before each launch: int outputs with 0x7F bytes
// (2139062143, far from any sum the tests make), float outputs with 0xFF bytes
// (a NaN, which matches nothing). A value nobody wrote is then never right.
constexpr int kIntPoisonByte = 0x7F;
constexpr int kFloatPoisonByte = 0xFF;
constexpr int kIntPoison = 0x7F7F7F7F;
// Elements past the end of an output are guards: a kernel that writes past
// its last block or warp overwrites them.
constexpr std::size_t kGuard = 64;

const char* to_string(Combine combine) {
  return combine == Combine::atomic_per_block ? "Combine::atomic_per_block" : "Combine::second_pass";
}

const Combine kCombines[] = {Combine::atomic_per_block, Combine::second_pass};

// The largest |value| for which no sum of n ints can overflow: INT_MAX / n,
// and at most 1000.
int safe_int_bound(std::size_t n) {
  const std::size_t bound = static_cast<std::size_t>(INT_MAX) / std::max<std::size_t>(n, 1);
  return static_cast<int>(std::min<std::size_t>(bound, 1000));
}

std::vector<int> ints_for_sums(std::size_t n, Pattern pattern, std::uint64_t seed) {
  const int bound = safe_int_bound(n);
  return workbook::generate_ints(n, pattern, seed, -bound, bound);
}

// ---------------------------------------------------------------------------
// Host-side helpers: __host__ __device__ functions tested without a GPU.

TEST(NextPowerOfTwo, IsTheSmallestPowerOfTwoAtLeastN) {
  const int cases[][2] = {{1, 1},     {2, 2},       {3, 4},       {31, 32},     {32, 32},
                          {33, 64},   {96, 128},    {100, 128},   {255, 256},   {256, 256},
                          {257, 512}, {1000, 1024}, {1024, 1024}, {1025, 2048}, {1 << 30, 1 << 30}};
  for (const auto& c : cases) EXPECT_EQ(next_power_of_two(c[0]), c[1]) << "next_power_of_two(" << c[0] << ")";
}

TEST(NextPowerOfTwo, OfZeroIsOne) {
  EXPECT_EQ(next_power_of_two(0), 1);
}

TEST(Operators, CombineTwoValuesAndKeepAnyValueWithTheIdentity) {
  EXPECT_EQ(Sum<int>{}(3, -5), -2);
  EXPECT_EQ(Min<int>{}(3, -5), -5);
  EXPECT_EQ(Max<int>{}(3, -5), 3);
  EXPECT_EQ(Sum<float>{}(1.5f, 2.25f), 3.75f);
  EXPECT_EQ(Min<float>{}(1.5f, -2.25f), -2.25f);
  EXPECT_EQ(Max<float>{}(1.5f, -2.25f), 1.5f);
  for (int value : {INT_MIN, -1, 0, 7, INT_MAX}) {
    EXPECT_EQ(Sum<int>{}(value, Sum<int>::kIdentity), value);
    EXPECT_EQ(Min<int>{}(value, Min<int>::kIdentity), value);
    EXPECT_EQ(Max<int>{}(value, Max<int>::kIdentity), value);
  }
  for (float value : {-1.0e30f, -1.0f, 0.0f, 0.5f, 3.0e38f}) {
    EXPECT_EQ(Sum<float>{}(value, Sum<float>::kIdentity), value);
    EXPECT_EQ(Min<float>{}(value, Min<float>::kIdentity), value);
    EXPECT_EQ(Max<float>{}(value, Max<float>::kIdentity), value);
  }
}

// ---------------------------------------------------------------------------
// Parts 1 and 2: block-level and warp-level sums, checked partial by partial.

struct BlockCase {
  std::size_t n;  // elements
  int threads;    // threads per block (for the shuffle kernel: elements per block)
};

std::ostream& operator<<(std::ostream& out, const BlockCase& c) {
  return out << "n=" << c.n << ", threads_per_block=" << c.threads;
}

std::string block_case_name(const ::testing::TestParamInfo<BlockCase>& info) {
  return "n" + std::to_string(info.param.n) + "_threads" + std::to_string(info.param.threads);
}

// Powers of two and not (1, 2, 31, 33, 96, 100, 127, 1000, ...), with n at,
// just under and just over one block, sizes that leave a partial last block,
// and one large input.
std::vector<BlockCase> block_cases() {
  std::vector<BlockCase> cases;
  for (int threads : {32, 96, 100, 256, 1000, 1024}) {
    for (std::size_t n :
         {std::size_t{1}, static_cast<std::size_t>(threads - 1), static_cast<std::size_t>(threads),
          static_cast<std::size_t>(threads + 1), std::size_t{100003}}) {
      cases.push_back({n, threads});
    }
  }
  for (int threads : {1, 2, 31, 33, 127, 129, 255, 257, 513}) cases.push_back({1000, threads});
  cases.push_back({std::size_t{1} << 24, 256});
  cases.push_back({std::size_t{1} << 24, 1000});
  return cases;
}

// The sum of each slice of `per_block` elements, the last one possibly shorter.
std::vector<int> host_slice_sums(const std::vector<int>& values, std::size_t per_block) {
  std::vector<int> sums((values.size() + per_block - 1) / per_block, 0);
  for (std::size_t i = 0; i < values.size(); ++i) sums[i / per_block] += values[i];
  return sums;
}

using BlockLauncher = void (*)(const int*, int*, std::size_t, int, cudaStream_t);

// Runs a block-level launcher on seeded inputs of every pattern (uniform only
// for large n) and checks every partial, the guards after them and that the
// input comes back unchanged.
void check_block_sums(BlockLauncher launch, const BlockCase& c, const char* kernel) {
  std::vector<Pattern> patterns = workbook::all_patterns();
  if (c.n > 100003) patterns = {Pattern::uniform};
  for (Pattern pattern : patterns) {
    const std::vector<int> values = workbook::generate_ints(c.n, pattern, workbook::test_seed(), -1000, 1000);
    const std::vector<int> expected = host_slice_sums(values, static_cast<std::size_t>(c.threads));
    const DeviceBuffer<int> in = workbook::to_device(values);
    DeviceBuffer<int> partials(expected.size() + kGuard);
    partials.fill_bytes(kIntPoisonByte);
    launch(in.data(), partials.data(), c.n, c.threads, nullptr);
    const std::vector<int> got = partials.to_host();
    const std::string context = std::string(kernel) + ", threads_per_block=" + std::to_string(c.threads) +
                                ", " + describe_case(c.n, pattern) + " (index = block)";
    EXPECT_TRUE(matches(compare_exact(expected, std::vector<int>(got.begin(), got.begin() + expected.size())),
                        context));
    EXPECT_TRUE(matches(compare_exact(std::vector<int>(kGuard, kIntPoison),
                                      std::vector<int>(got.begin() + expected.size(), got.end())),
                        context + ", the " + std::to_string(kGuard) +
                            " guard elements after the last partial (nothing may be written there)"));
    expect_input_unchanged(values, in, context, "in");
  }
}

class InterleavedTree : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(InterleavedTree, WritesTheSumOfEachBlockSlice) {
  check_block_sums(launch_block_sum_interleaved, GetParam(), "block_sum_interleaved");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, InterleavedTree, ::testing::ValuesIn(block_cases()), block_case_name);

class SequentialTree : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(SequentialTree, WritesTheSumOfEachBlockSlice) {
  check_block_sums(launch_block_sum_sequential, GetParam(), "block_sum_sequential");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, SequentialTree, ::testing::ValuesIn(block_cases()), block_case_name);

class ShuffleBlockReduce : public GpuTest, public ::testing::WithParamInterface<BlockCase> {};

TEST_P(ShuffleBlockReduce, WritesTheSumOfEachBlockSlice) {
  check_block_sums(launch_block_sum_shuffle, GetParam(), "block_sum_shuffle");
}

INSTANTIATE_TEST_SUITE_P(BlockSizes, ShuffleBlockReduce, ::testing::ValuesIn(block_cases()), block_case_name);

class WarpSums : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WarpSums, WritesTheSumOfEach32Elements) {
  const std::size_t n = GetParam();
  for (Pattern pattern : {Pattern::uniform, Pattern::all_equal, Pattern::sorted}) {
    const std::vector<int> values = workbook::generate_ints(n, pattern, workbook::test_seed(), -1000, 1000);
    const std::vector<int> expected = host_slice_sums(values, kWarpSize);
    const DeviceBuffer<int> in = workbook::to_device(values);
    DeviceBuffer<int> sums(expected.size() + kGuard);
    sums.fill_bytes(kIntPoisonByte);
    launch_warp_sums(in.data(), sums.data(), n);
    const std::vector<int> got = sums.to_host();
    const std::string context = "warp_sums, " + describe_case(n, pattern) + " (index = warp)";
    EXPECT_TRUE(matches(compare_exact(expected, std::vector<int>(got.begin(), got.begin() + expected.size())),
                        context));
    EXPECT_TRUE(matches(compare_exact(std::vector<int>(kGuard, kIntPoison),
                                      std::vector<int>(got.begin() + expected.size(), got.end())),
                        context + ", the guard elements after the last warp sum"));
    expect_input_unchanged(values, in, context, "in");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, WarpSums,
                         ::testing::Values(1, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1000, 100003,
                                           std::size_t{1} << 24),
                         size_name);

// ---------------------------------------------------------------------------
// Parts 3 and 4: whole-array sum, min and max of ints and floats.

template <typename T>
using ReduceFunction = void (*)(const T*, std::size_t, T*, Combine, T*, cudaStream_t);

// Runs one whole-array reduction into a poisoned result, with a poisoned
// partials buffer, and returns the result.
template <typename T>
T run_reduction(ReduceFunction<T> reduce, const DeviceBuffer<T>& in, std::size_t n, Combine combine) {
  const int poison = std::is_same<T, int>::value ? kIntPoisonByte : kFloatPoisonByte;
  DeviceBuffer<T> result(1);
  DeviceBuffer<T> partials(kMaxGridBlocks);
  result.fill_bytes(poison);
  partials.fill_bytes(poison);
  reduce(in.data(), n, result.data(), combine, partials.data(), nullptr);
  return result.to_host()[0];
}

// Sizes around a warp (31, 32, 33), a block (255, 256, 257), the elements one
// block loads in one step (1023, 1024, 1025), non-powers of two, more than one
// grid-stride pass over the whole grid on any GPU (5 * 2^20) and 2^26.
const std::vector<std::size_t> kSizes = {1,
                                         31,
                                         32,
                                         33,
                                         255,
                                         256,
                                         257,
                                         static_cast<std::size_t>(kThreadsPerBlock) * kItemsPerThread - 1,
                                         1024,
                                         1025,
                                         100003,
                                         std::size_t{5} << 20,
                                         std::size_t{1} << 26};

std::string context_of(const char* what, std::size_t n, Pattern pattern, Combine combine) {
  return std::string(what) + " with " + to_string(combine) + ", " + describe_case(n, pattern);
}

// Checks reduce on ints of one pattern against the host's answer, with both
// combines, and that the input comes back unchanged. Each combine gets a fresh
// upload, so a write to the input is blamed on the run that made it.
void check_int_reduction(ReduceFunction<int> reduce, const char* what, const std::vector<int>& values,
                         int expected, Pattern pattern) {
  for (Combine combine : kCombines) {
    const DeviceBuffer<int> in = workbook::to_device(values);
    const std::string context = context_of(what, values.size(), pattern, combine);
    EXPECT_EQ(run_reduction(reduce, in, values.size(), combine), expected) << context;
    expect_input_unchanged(values, in, context, "in");
  }
}

int host_sum(const std::vector<int>& values) {
  std::int64_t sum = 0;
  for (int v : values) sum += v;
  return static_cast<int>(sum);
}

int host_min(const std::vector<int>& values) {
  return values.empty() ? INT_MAX : *std::min_element(values.begin(), values.end());
}

int host_max(const std::vector<int>& values) {
  return values.empty() ? INT_MIN : *std::max_element(values.begin(), values.end());
}

class WholeArrayInt : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WholeArrayInt, SumMatchesTheHost) {
  const std::vector<int> values = ints_for_sums(GetParam(), Pattern::uniform, workbook::test_seed());
  check_int_reduction(reduce_sum, "reduce_sum(int)", values, host_sum(values), Pattern::uniform);
}

TEST_P(WholeArrayInt, MinMatchesTheHost) {
  const std::vector<int> values =
      workbook::generate_ints(GetParam(), Pattern::uniform, workbook::test_seed(), -1000000000, 1000000000);
  check_int_reduction(reduce_min, "reduce_min(int)", values, host_min(values), Pattern::uniform);
}

TEST_P(WholeArrayInt, MaxMatchesTheHost) {
  const std::vector<int> values =
      workbook::generate_ints(GetParam(), Pattern::uniform, workbook::test_seed(), -1000000000, 1000000000);
  check_int_reduction(reduce_max, "reduce_max(int)", values, host_max(values), Pattern::uniform);
}

INSTANTIATE_TEST_SUITE_P(Sizes, WholeArrayInt, ::testing::ValuesIn(kSizes), size_name);

class IntPatterns : public GpuTest {};

TEST_F(IntPatterns, SumMinAndMaxAreRightForEveryPattern) {
  const std::size_t n = 100003;
  for (Pattern pattern : workbook::all_patterns()) {
    const std::vector<int> small = ints_for_sums(n, pattern, workbook::test_seed());
    check_int_reduction(reduce_sum, "reduce_sum(int)", small, host_sum(small), pattern);
    const std::vector<int> wide =
        workbook::generate_ints(n, pattern, workbook::test_seed(), INT_MIN, INT_MAX);
    check_int_reduction(reduce_min, "reduce_min(int)", wide, host_min(wide), pattern);
    check_int_reduction(reduce_max, "reduce_max(int)", wide, host_max(wide), pattern);
  }
}

TEST_F(IntPatterns, MaxOfNegativeValuesAndMinOfPositiveValuesAreNotTheIdentityOrZero) {
  // An accumulator started at 0 instead of the identity gives 0 here.
  const std::size_t n = 100003;
  const std::vector<int> negative =
      workbook::generate_ints(n, Pattern::uniform, workbook::test_seed(), -5000, -3);
  check_int_reduction(reduce_max, "reduce_max(int) of values in [-5000, -3]", negative, host_max(negative),
                      Pattern::uniform);
  const std::vector<int> positive =
      workbook::generate_ints(n, Pattern::uniform, workbook::test_seed(), 3, 5000);
  check_int_reduction(reduce_min, "reduce_min(int) of values in [3, 5000]", positive, host_min(positive),
                      Pattern::uniform);
}

TEST_F(IntPatterns, ExtremesAtTheEndsAreFound) {
  // The last element is a thread's leftover after its unrolled steps and the
  // first is in block 0: both are easy to drop.
  for (std::size_t n : {std::size_t{1000}, std::size_t{5} << 20, (std::size_t{5} << 20) + 3}) {
    std::vector<int> values =
        workbook::generate_ints(n, Pattern::uniform, workbook::test_seed(), -1000000, 1000000);
    values.back() = INT_MIN;
    values.front() = INT_MAX;
    check_int_reduction(reduce_min, "reduce_min(int), INT_MIN at the last index", values, INT_MIN,
                        Pattern::uniform);
    check_int_reduction(reduce_max, "reduce_max(int), INT_MAX at index 0", values, INT_MAX, Pattern::uniform);
    values.back() = 1000000007;
    values.front() = -1000000007;
    check_int_reduction(reduce_max, "reduce_max(int), the maximum at the last index", values, 1000000007,
                        Pattern::uniform);
    check_int_reduction(reduce_min, "reduce_min(int), the minimum at index 0", values, -1000000007,
                        Pattern::uniform);
  }
}

// Floats: min and max are exact in any order; sums are compared with a double
// sum, allowing a rounding error that grows with log2(n), relative to the sum
// of the absolute values (which is what bounds the error of any order of
// additions; the sum itself may be close to 0 by cancellation).
::testing::AssertionResult float_sum_close(const std::vector<float>& values, float got,
                                           const std::string& context) {
  double sum = 0.0;
  double sum_of_magnitudes = 0.0;
  for (float v : values) {
    sum += v;
    sum_of_magnitudes += std::fabs(v);
  }
  workbook::FloatTolerance tolerance = workbook::FloatTolerance::growing_with(values.size());
  tolerance.absolute = tolerance.relative * sum_of_magnitudes;
  return matches(
      workbook::compare_floats({static_cast<float>(sum)}, {got}, tolerance),
      context + " (vs a double-precision sum; tolerance " + std::to_string(tolerance.absolute) + ")");
}

// As check_int_reduction: a fresh upload for each combine, checked after the run.
void check_float_sum(const std::vector<float>& values, Pattern pattern) {
  for (Combine combine : kCombines) {
    const DeviceBuffer<float> in = workbook::to_device(values);
    const std::string context = context_of("reduce_sum(float)", values.size(), pattern, combine);
    const float got = run_reduction<float>(reduce_sum, in, values.size(), combine);
    EXPECT_TRUE(float_sum_close(values, got, context));
    expect_input_unchanged(values, in, context, "in");
  }
}

void check_float_extreme(ReduceFunction<float> reduce, const char* what, const std::vector<float>& values,
                         float expected, Pattern pattern) {
  for (Combine combine : kCombines) {
    const DeviceBuffer<float> in = workbook::to_device(values);
    const std::string context = context_of(what, values.size(), pattern, combine);
    EXPECT_EQ(run_reduction(reduce, in, values.size(), combine), expected) << context;
    expect_input_unchanged(values, in, context, "in");
  }
}

float host_min(const std::vector<float>& values) {
  return *std::min_element(values.begin(), values.end());
}

float host_max(const std::vector<float>& values) {
  return *std::max_element(values.begin(), values.end());
}

class WholeArrayFloat : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WholeArrayFloat, SumIsWithinToleranceOfADoubleSum) {
  check_float_sum(workbook::generate_floats(GetParam(), Pattern::uniform, workbook::test_seed()),
                  Pattern::uniform);
}

TEST_P(WholeArrayFloat, SumOfPositiveValuesIsWithinToleranceOfADoubleSum) {
  // No cancellation: the sum grows with n and so does each rounding step.
  check_float_sum(workbook::generate_floats(GetParam(), Pattern::uniform, workbook::test_seed(), 0.0f, 1.0f),
                  Pattern::uniform);
}

TEST_P(WholeArrayFloat, MinMatchesTheHost) {
  const std::vector<float> values =
      workbook::generate_floats(GetParam(), Pattern::uniform, workbook::test_seed(), -1.0e6f, 1.0e6f);
  check_float_extreme(reduce_min, "reduce_min(float)", values, host_min(values), Pattern::uniform);
}

TEST_P(WholeArrayFloat, MaxMatchesTheHost) {
  const std::vector<float> values =
      workbook::generate_floats(GetParam(), Pattern::uniform, workbook::test_seed(), -1.0e6f, 1.0e6f);
  check_float_extreme(reduce_max, "reduce_max(float)", values, host_max(values), Pattern::uniform);
}

INSTANTIATE_TEST_SUITE_P(Sizes, WholeArrayFloat, ::testing::ValuesIn(kSizes), size_name);

class FloatPatterns : public GpuTest {};

TEST_F(FloatPatterns, SumMinAndMaxAreRightForEveryPattern) {
  const std::size_t n = 100003;
  for (Pattern pattern : workbook::all_patterns()) {
    const std::vector<float> values = workbook::generate_floats(n, pattern, workbook::test_seed());
    check_float_sum(values, pattern);
    check_float_extreme(reduce_min, "reduce_min(float)", values, host_min(values), pattern);
    check_float_extreme(reduce_max, "reduce_max(float)", values, host_max(values), pattern);
  }
}

TEST_F(FloatPatterns, MinAndMaxHandleEverySignOfOldAndNewValue) {
  // All negative, all positive, and mixed: the bit tricks of the float atomics
  // take a different integer atomic for each sign.
  const std::size_t n = 100003;
  const float ranges[][2] = {{-1.0e6f, -1.0f}, {1.0f, 1.0e6f}, {-1.0e6f, 1.0e6f}, {-1.0e-3f, 1.0e-3f}};
  for (const auto& range : ranges) {
    const std::vector<float> values =
        workbook::generate_floats(n, Pattern::uniform, workbook::test_seed(), range[0], range[1]);
    const std::string what = "values in [" + std::to_string(range[0]) + ", " + std::to_string(range[1]) + "]";
    check_float_extreme(reduce_min, ("reduce_min(float) of " + what).c_str(), values, host_min(values),
                        Pattern::uniform);
    check_float_extreme(reduce_max, ("reduce_max(float) of " + what).c_str(), values, host_max(values),
                        Pattern::uniform);
  }
}

TEST_F(FloatPatterns, ExtremesAtTheEndsAreFound) {
  for (std::size_t n : {std::size_t{1000}, (std::size_t{5} << 20) + 3}) {
    std::vector<float> values = workbook::generate_floats(n, Pattern::uniform, workbook::test_seed());
    values.back() = -1.0e30f;
    values.front() = 1.0e30f;
    check_float_extreme(reduce_min, "reduce_min(float), the minimum at the last index", values, -1.0e30f,
                        Pattern::uniform);
    check_float_extreme(reduce_max, "reduce_max(float), the maximum at index 0", values, 1.0e30f,
                        Pattern::uniform);
  }
}

class FloatSum : public GpuTest {};

TEST_F(FloatSum, SecondPassGivesTheSameRightAnswerEveryRun) {
  // The order of every addition is fixed by the grid, so the bits repeat.
  const std::size_t n = std::size_t{1} << 22;
  const std::vector<float> values =
      workbook::generate_floats(n, Pattern::uniform, workbook::test_seed(), 0.0f, 1.0f);
  const DeviceBuffer<float> in = workbook::to_device(values);
  const std::string context = context_of("reduce_sum(float)", n, Pattern::uniform, Combine::second_pass);
  const float first = run_reduction<float>(reduce_sum, in, n, Combine::second_pass);
  ASSERT_TRUE(float_sum_close(values, first, context));
  // A run that leaves something in the input would change what the next run reads.
  expect_input_unchanged(values, in, context, "in");
  for (int run = 1; run < 5; ++run) {
    const float again = run_reduction<float>(reduce_sum, in, n, Combine::second_pass);
    std::uint32_t first_bits = 0, again_bits = 0;
    std::memcpy(&first_bits, &first, sizeof first);
    std::memcpy(&again_bits, &again, sizeof again);
    EXPECT_EQ(first_bits, again_bits)
        << "run " << run << " of reduce_sum(float) with Combine::second_pass gave " << again
        << ", the first run " << first << ": a second pass adds in a fixed order and must repeat bit for bit";
  }
}

// ---------------------------------------------------------------------------
// Edge cases.

TEST(ReductionArguments, BadBlockSizesAndMissingPartialsAreRejected) {
  // Checked on the host before any launch: no GPU needed.
  for (int threads : {0, -1, kMaxThreadsPerBlock + 1}) {
    EXPECT_THROW(launch_block_sum_interleaved(nullptr, nullptr, 10, threads), std::invalid_argument)
        << threads;
    EXPECT_THROW(launch_block_sum_sequential(nullptr, nullptr, 10, threads), std::invalid_argument)
        << threads;
    EXPECT_THROW(launch_block_sum_shuffle(nullptr, nullptr, 10, threads), std::invalid_argument) << threads;
  }
  EXPECT_THROW(reduce_sum(static_cast<const int*>(nullptr), 10, nullptr, Combine::second_pass, nullptr),
               std::invalid_argument);
  EXPECT_THROW(reduce_max(static_cast<const float*>(nullptr), 10, nullptr, Combine::second_pass, nullptr),
               std::invalid_argument);
}

class EdgeCases : public GpuTest {};

TEST_F(EdgeCases, EmptyInputGivesTheIdentity) {
  const DeviceBuffer<int> ints;
  const DeviceBuffer<float> floats;
  for (Combine combine : kCombines) {
    EXPECT_EQ(run_reduction<int>(reduce_sum, ints, 0, combine), 0) << to_string(combine);
    EXPECT_EQ(run_reduction<int>(reduce_min, ints, 0, combine), INT_MAX) << to_string(combine);
    EXPECT_EQ(run_reduction<int>(reduce_max, ints, 0, combine), INT_MIN) << to_string(combine);
    EXPECT_EQ(run_reduction<float>(reduce_sum, floats, 0, combine), 0.0f) << to_string(combine);
    EXPECT_EQ(run_reduction<float>(reduce_min, floats, 0, combine), std::numeric_limits<float>::infinity())
        << to_string(combine);
    EXPECT_EQ(run_reduction<float>(reduce_max, floats, 0, combine), -std::numeric_limits<float>::infinity())
        << to_string(combine);
  }
}

TEST_F(EdgeCases, EmptyInputLaunchesNoBlockKernel) {
  // A grid of 0 blocks is an invalid configuration: the launchers must not try.
  EXPECT_NO_THROW(launch_block_sum_interleaved(nullptr, nullptr, 0, 100));
  EXPECT_NO_THROW(launch_block_sum_sequential(nullptr, nullptr, 0, 100));
  EXPECT_NO_THROW(launch_block_sum_shuffle(nullptr, nullptr, 0, 100));
  EXPECT_NO_THROW(launch_warp_sums(nullptr, nullptr, 0));
}

TEST_F(EdgeCases, ASingleElementIsItsOwnSumMinAndMax) {
  for (int value : {INT_MIN, -7, 0, 5, INT_MAX}) {
    const std::vector<int> one = {value};
    check_int_reduction(reduce_sum, "reduce_sum(int) of one element", one, value, Pattern::uniform);
    check_int_reduction(reduce_min, "reduce_min(int) of one element", one, value, Pattern::uniform);
    check_int_reduction(reduce_max, "reduce_max(int) of one element", one, value, Pattern::uniform);
  }
  for (float value : {-3.0e38f, -1.5f, 0.0f, 2.5f, 3.0e38f}) {
    const std::vector<float> one = {value};
    check_float_extreme(reduce_sum, "reduce_sum(float) of one element", one, value, Pattern::uniform);
    check_float_extreme(reduce_min, "reduce_min(float) of one element", one, value, Pattern::uniform);
    check_float_extreme(reduce_max, "reduce_max(float) of one element", one, value, Pattern::uniform);
  }
}

TEST_F(EdgeCases, TheGridNeverOutgrowsThePartialsBuffer) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1024}, std::size_t{1025}, std::size_t{1} << 20,
                        std::size_t{1} << 28, std::size_t{1} << 34}) {
    const int blocks = reduction_grid_blocks(n);
    EXPECT_GE(blocks, 1) << "n=" << n;
    EXPECT_LE(blocks, kMaxGridBlocks) << "n=" << n;
    EXPECT_LE(static_cast<std::size_t>(blocks - 1) * kThreadsPerBlock * kItemsPerThread, n)
        << "n=" << n << ": no block should be launched without elements to reduce";
  }
}

// ---------------------------------------------------------------------------
// Speed: the whole-array int32 sum against cub::DeviceReduce::Sum, through the
// workbook's speed harness (workbook/speed.hpp): every run, warm-up included,
// sums ints drawn on the GPU just before it from a seed of its own; CUB sums
// the same ints first, alternately with reduce_sum, and every run's result
// must equal CUB's. The rate is bytes read per second: 4 bytes per element.

constexpr std::size_t kSpeedSize = std::size_t{1} << 28;  // 1 GiB of int32, 20 times an H100's L2

void expect_sum_speed(Combine combine) {
  // Values in [-7, 7]: no partial sum of 2^28 of them can overflow.
  const int bound = safe_int_bound(kSpeedSize);
  DeviceBuffer<int> in(kSpeedSize), result(1), cub_result(1);
  DeviceBuffer<int> partials(kMaxGridBlocks);
  yardstick::CubReduction<int> cub(yardstick::CubOperation::sum, in.data(), kSpeedSize, cub_result.data());

  SpeedTask task;
  task.what = std::string("reduce_sum(int) with ") + to_string(combine) + " of 2^28 uniform ints in [-" +
              std::to_string(bound) + ", " + std::to_string(bound) + "]";
  task.yardstick = "cub::DeviceReduce::Sum on the same input";
  task.unit = "GB/s";
  task.work = static_cast<double>(kSpeedSize * sizeof(int));
  // Any sum reads every element once; its 4-byte result is negligible.
  task.min_bytes = static_cast<double>(kSpeedSize * sizeof(int));
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_ints(in.data(), kSpeedSize, seed, -bound, bound, stream);
    CUDA_CHECK(cudaMemsetAsync(result.data(), kIntPoisonByte, result.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
  task.run = [&](cudaStream_t stream) {
    reduce_sum(in.data(), kSpeedSize, result.data(), combine, partials.data(), stream);
  };
  task.check = [&] {
    const int want = cub_result.to_host()[0];
    const int got = result.to_host()[0];
    if (got == want) return std::string();
    return "the sum is " + std::to_string(want) + ", got " + std::to_string(got) +
           (got == kIntPoison ? " (the poison: the result was never written)" : "");
  };
  task.inputs = {{"in", workbook::bytes_of(in)}};
  task.yardstick_writes = {workbook::bytes_of(cub_result), cub.storage()};
  workbook::testing::check_speed(task);
}

class ReductionSpeed : public GpuTest {};

TEST_F(ReductionSpeed, SumOfInt32ReachesTargetFractionOfCub) {
  expect_sum_speed(Combine::atomic_per_block);
}

TEST_F(ReductionSpeed, SumOfInt32WithSecondPassReachesTargetFractionOfCub) {
  expect_sum_speed(Combine::second_pass);
}

}  // namespace
}  // namespace reductions
