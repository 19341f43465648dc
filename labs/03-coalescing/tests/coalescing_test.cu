// Tests of lab 03. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "coalescing.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace coalescing {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::describe_case;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::SpeedTask;

// Outputs are poisoned with 0xFF bytes before each launch; the float with bits
// 0xFFFFFFFF is a NaN, so an element nobody wrote never equals an expected value.
constexpr std::uint32_t kPoisonBits = 0xFFFFFFFFu;
// Elements past the end of an output are guards: a kernel without a bounds
// check overwrites them.
constexpr std::size_t kGuard = 64;

// The bit patterns of floats, to compare NaN poison exactly (NaN != NaN).
std::vector<std::uint32_t> bits_of(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  if (!values.empty()) std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

// Splits a downloaded output of n + kGuard elements into the first n (returned)
// and checks that the guards after them still hold the poison.
::testing::AssertionResult guards_untouched(const std::vector<float>& downloaded, std::size_t n,
                                            const std::string& context) {
  const std::vector<float> guard(downloaded.begin() + static_cast<std::ptrdiff_t>(n), downloaded.end());
  return matches(compare_exact(std::vector<std::uint32_t>(guard.size(), kPoisonBits), bits_of(guard)),
                 context + ", the " + std::to_string(kGuard) +
                     " elements past the end of the output (as bits; threads past the end must not write)");
}

// ---------------------------------------------------------------------------
// Host-side helpers: __host__ __device__ functions tested without a GPU.

TEST(RowMajorIndex, IsRowTimesColumnsPlusColumn) {
  EXPECT_EQ(row_major_index(0, 0, 1), 0u);
  EXPECT_EQ(row_major_index(0, 5, 7), 5u);
  EXPECT_EQ(row_major_index(3, 2, 7), 23u);
  EXPECT_EQ(row_major_index(8191, 8191, 8192), 8192u * 8192u - 1u);
}

TEST(RowMajorIndex, DoesNotOverflowPastTwoToThe31) {
  // 70000 * 70000 = 4.9e9 does not fit in a 32-bit int.
  EXPECT_EQ(row_major_index(69999, 69999, 70000), std::size_t{70000} * 70000 - 1);
  EXPECT_EQ(row_major_index(2147483, 647, 1000), std::size_t{2147483647});
  EXPECT_EQ(row_major_index(1 << 20, 3, 1 << 12), (std::size_t{1} << 32) + 3);
}

TEST(SharedBank, NeighbouringWordsOfARowAreInNeighbouringBanks) {
  for (int col = 0; col < kTileDim; ++col) EXPECT_EQ(shared_bank(0, col, kTileDim), col);
  EXPECT_EQ(shared_bank(0, 32, 64), 0);
  EXPECT_EQ(shared_bank(2, 3, kTilePitch), (2 * kTilePitch + 3) % kSharedBanks);
}

TEST(SharedBank, AColumnOfAnUnpaddedTileSitsInOneBank) {
  for (int col = 0; col < kTileDim; ++col) {
    std::set<int> banks;
    for (int row = 0; row < kTileDim; ++row) banks.insert(shared_bank(row, col, kTileDim));
    EXPECT_EQ(banks.size(), 1u) << "column " << col
                                << " of a 32 x 32 tile (pitch 32): a 32-way bank conflict";
  }
}

TEST(SharedBank, AColumnOfAPaddedTileSpreadsOverAllBanks) {
  for (int col = 0; col < kTileDim; ++col) {
    std::set<int> banks;
    for (int row = 0; row < kTileDim; ++row) banks.insert(shared_bank(row, col, kTilePitch));
    EXPECT_EQ(banks.size(), static_cast<std::size_t>(kSharedBanks))
        << "column " << col << " of a tile with pitch " << kTilePitch << " should touch every bank once";
  }
}

// ---------------------------------------------------------------------------
// Strided and offset copies.

struct CopyCase {
  std::size_t n;  // elements copied
  int step;       // the stride, or the offset
};

struct StridedCase : CopyCase {};
struct OffsetCase : CopyCase {};

std::ostream& operator<<(std::ostream& out, const StridedCase& c) {
  return out << "n=" << c.n << ", stride=" << c.step;
}
std::ostream& operator<<(std::ostream& out, const OffsetCase& c) {
  return out << "n=" << c.n << ", offset=" << c.step;
}

std::string case_name(std::size_t n, const char* what, int step) {
  return "n" + std::to_string(n) + "_" + what + std::to_string(step);
}

class StridedCopy : public GpuTest, public ::testing::WithParamInterface<StridedCase> {};

TEST_P(StridedCopy, CopiesEveryStrideThElementAndNothingMore) {
  const StridedCase c = GetParam();
  const std::size_t input_size = c.n * static_cast<std::size_t>(c.step);
  const std::vector<float> input =
      workbook::generate_floats(input_size, Pattern::uniform, workbook::test_seed());
  const DeviceBuffer<float> in = workbook::to_device(input);
  DeviceBuffer<float> out(c.n + kGuard);
  out.fill_bytes(0xFF);
  launch_strided_copy(out.data(), in.data(), c.n, c.step);

  std::vector<float> expected(c.n);
  for (std::size_t i = 0; i < c.n; ++i) expected[i] = input[i * static_cast<std::size_t>(c.step)];
  const std::vector<float> downloaded = out.to_host();
  const std::string context = "stride=" + std::to_string(c.step) + ", " +
                              describe_case(c.n, Pattern::uniform) + " (expected out[i] = in[i * stride])";
  EXPECT_TRUE(matches(
      compare_exact(expected, std::vector<float>(downloaded.begin(), downloaded.begin() + c.n)), context));
  EXPECT_TRUE(guards_untouched(downloaded, c.n, context));
  expect_input_unchanged(input, in, context, "in");
}

INSTANTIATE_TEST_SUITE_P(Sizes, StridedCopy,
                         ::testing::Values(StridedCase{{1, 1}}, StridedCase{{1, 32}}, StridedCase{{31, 2}},
                                           StridedCase{{32, 32}}, StridedCase{{33, 3}}, StridedCase{{255, 8}},
                                           StridedCase{{256, 16}}, StridedCase{{257, 7}},
                                           StridedCase{{1000, 4}}, StridedCase{{100003, 5}},
                                           StridedCase{{std::size_t{1} << 26, 1}},
                                           StridedCase{{std::size_t{1} << 25, 2}}),
                         [](const ::testing::TestParamInfo<StridedCase>& info) {
                           return case_name(info.param.n, "stride", info.param.step);
                         });

class OffsetCopy : public GpuTest, public ::testing::WithParamInterface<OffsetCase> {};

TEST_P(OffsetCopy, CopiesTheShiftedElementsAndNothingMore) {
  const OffsetCase c = GetParam();
  const std::vector<float> input = workbook::generate_floats(c.n + static_cast<std::size_t>(c.step),
                                                             Pattern::uniform, workbook::test_seed());
  const DeviceBuffer<float> in = workbook::to_device(input);
  DeviceBuffer<float> out(c.n + kGuard);
  out.fill_bytes(0xFF);
  launch_offset_copy(out.data(), in.data(), c.n, c.step);

  const std::vector<float> expected(input.begin() + c.step, input.end());
  const std::vector<float> downloaded = out.to_host();
  const std::string context = "offset=" + std::to_string(c.step) + ", " +
                              describe_case(c.n, Pattern::uniform) + " (expected out[i] = in[i + offset])";
  EXPECT_TRUE(matches(
      compare_exact(expected, std::vector<float>(downloaded.begin(), downloaded.begin() + c.n)), context));
  EXPECT_TRUE(guards_untouched(downloaded, c.n, context));
  expect_input_unchanged(input, in, context, "in");
}

INSTANTIATE_TEST_SUITE_P(Sizes, OffsetCopy,
                         ::testing::Values(OffsetCase{{1, 0}}, OffsetCase{{1, 1}}, OffsetCase{{31, 1}},
                                           OffsetCase{{32, 31}}, OffsetCase{{33, 32}}, OffsetCase{{255, 5}},
                                           OffsetCase{{256, 0}}, OffsetCase{{257, 17}}, OffsetCase{{1000, 3}},
                                           OffsetCase{{std::size_t{1} << 26, 1}}),
                         [](const ::testing::TestParamInfo<OffsetCase>& info) {
                           return case_name(info.param.n, "offset", info.param.step);
                         });

TEST(CopyArguments, AStrideBelowOneOrANegativeOffsetIsRejected) {
  // Checked on the host before any launch: no GPU needed.
  EXPECT_THROW(launch_strided_copy(nullptr, nullptr, 10, 0), std::invalid_argument);
  EXPECT_THROW(launch_offset_copy(nullptr, nullptr, 10, -1), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Matrices: row sums, column sums, transposes.

// row * cols + col for the host references. The tests do not call the lab's
// row_major_index here, so a wrong one cannot make a wrong expected value.
std::size_t index_of(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

struct Shape {
  int rows;
  int cols;
  std::size_t size() const { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); }
};

std::ostream& operator<<(std::ostream& out, const Shape& s) {
  return out << s.rows << " x " << s.cols;
}

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
}

std::string describe_matrix(const Shape& s) {
  return "rows=" + std::to_string(s.rows) + ", cols=" + std::to_string(s.cols) + ", " +
         describe_case(s.size(), Pattern::uniform);
}

// Sides of 1, around a warp (31, 32, 33) and a block of the sum kernels
// (127, 128, 129), sides that are not multiples of the 32 x 32 tile, very
// unequal sides, and 8192 x 8192 = 2^26 elements.
const Shape kShapes[] = {{1, 1},     {1, 33},    {33, 1},    {31, 31},   {32, 32},    {33, 33},
                         {31, 33},   {33, 65},   {127, 129}, {128, 128}, {129, 127},  {17, 1000},
                         {1000, 17}, {255, 257}, {3, 4097},  {70001, 3}, {1000, 999}, {8192, 8192}};

// Integer-valued floats in [-8, 8]: every partial sum of up to 2^20 of them is
// an integer below 2^24, which a float holds exactly, so a sum is exact in any
// order and the sums can be compared exactly.
std::vector<float> integer_valued_matrix(const Shape& s) {
  const std::vector<std::int32_t> ints =
      workbook::generate_ints(s.size(), Pattern::uniform, workbook::test_seed(), -8, 8);
  return std::vector<float>(ints.begin(), ints.end());
}

class MatrixSums : public GpuTest, public ::testing::WithParamInterface<Shape> {};

TEST_P(MatrixSums, RowSumsAddUpEachRow) {
  const Shape s = GetParam();
  const std::vector<float> matrix = integer_valued_matrix(s);
  const DeviceBuffer<float> in = workbook::to_device(matrix);
  DeviceBuffer<float> sums(static_cast<std::size_t>(s.rows) + kGuard);
  sums.fill_bytes(0xFF);
  launch_row_sums(sums.data(), in.data(), s.rows, s.cols);

  std::vector<float> expected(s.rows);
  for (int r = 0; r < s.rows; ++r) {
    std::int64_t total = 0;
    for (int c = 0; c < s.cols; ++c) total += static_cast<std::int64_t>(matrix[index_of(r, c, s.cols)]);
    expected[r] = static_cast<float>(total);
  }
  const std::vector<float> downloaded = sums.to_host();
  const std::string context = describe_matrix(s) + " (index = row)";
  EXPECT_TRUE(matches(
      compare_exact(expected, std::vector<float>(downloaded.begin(), downloaded.begin() + s.rows)), context));
  EXPECT_TRUE(guards_untouched(downloaded, s.rows, context));
  expect_input_unchanged(matrix, in, context, "matrix");
}

TEST_P(MatrixSums, ColumnSumsAddUpEachColumn) {
  const Shape s = GetParam();
  const std::vector<float> matrix = integer_valued_matrix(s);
  const DeviceBuffer<float> in = workbook::to_device(matrix);
  DeviceBuffer<float> sums(static_cast<std::size_t>(s.cols) + kGuard);
  sums.fill_bytes(0xFF);
  launch_column_sums(sums.data(), in.data(), s.rows, s.cols);

  std::vector<std::int64_t> totals(s.cols, 0);
  for (int r = 0; r < s.rows; ++r) {
    for (int c = 0; c < s.cols; ++c) totals[c] += static_cast<std::int64_t>(matrix[index_of(r, c, s.cols)]);
  }
  const std::vector<float> expected(totals.begin(), totals.end());
  const std::vector<float> downloaded = sums.to_host();
  const std::string context = describe_matrix(s) + " (index = column)";
  EXPECT_TRUE(matches(
      compare_exact(expected, std::vector<float>(downloaded.begin(), downloaded.begin() + s.cols)), context));
  EXPECT_TRUE(guards_untouched(downloaded, s.cols, context));
  expect_input_unchanged(matrix, in, context, "matrix");
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatrixSums, ::testing::ValuesIn(kShapes), shape_name);

// The transpose of a rows x cols matrix, computed on the host.
std::vector<float> host_transpose(const std::vector<float>& matrix, const Shape& s) {
  std::vector<float> out(s.size());
  for (int r = 0; r < s.rows; ++r) {
    for (int c = 0; c < s.cols; ++c) out[index_of(c, r, s.rows)] = matrix[index_of(r, c, s.cols)];
  }
  return out;
}

using TransposeLauncher = void (*)(float*, const float*, int, int, cudaStream_t);

// Runs a transpose launcher on a seeded matrix of shape s and checks the whole
// output, the guards after it and that the input comes back unchanged.
void check_transpose(TransposeLauncher launch, const Shape& s) {
  const std::vector<float> matrix =
      workbook::generate_floats(s.size(), Pattern::uniform, workbook::test_seed());
  const DeviceBuffer<float> in = workbook::to_device(matrix);
  DeviceBuffer<float> out(s.size() + kGuard);
  out.fill_bytes(0xFF);
  launch(out.data(), in.data(), s.rows, s.cols, nullptr);

  const std::vector<float> downloaded = out.to_host();
  const std::string context = describe_matrix(s) + " (the output is " + std::to_string(s.cols) + " x " +
                              std::to_string(s.rows) +
                              "; index = column of the input * rows + row of the input)";
  EXPECT_TRUE(matches(
      compare_exact(
          host_transpose(matrix, s),
          std::vector<float>(downloaded.begin(), downloaded.begin() + static_cast<std::ptrdiff_t>(s.size()))),
      context));
  EXPECT_TRUE(guards_untouched(downloaded, s.size(), context));
  expect_input_unchanged(matrix, in, context, "in");
}

class Transpose : public GpuTest, public ::testing::WithParamInterface<Shape> {};

TEST_P(Transpose, NaiveTransposeMovesEveryElementToItsMirrorPosition) {
  check_transpose(launch_transpose_naive, GetParam());
}

TEST_P(Transpose, TiledTransposeMovesEveryElementToItsMirrorPosition) {
  check_transpose(launch_transpose_tiled, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Shapes, Transpose, ::testing::ValuesIn(kShapes), shape_name);

TEST(TransposeConfiguration, ATileIs32By32MovedBy32By4ThreadsOf8ElementsEach) {
  EXPECT_EQ(kTileDim, 32);
  EXPECT_EQ(kBlockRows, 4);
  EXPECT_EQ(kTileDim % kBlockRows, 0) << "each thread must move a whole number of elements";
  EXPECT_EQ(kTilePitch, kTileDim + 1);
}

// ---------------------------------------------------------------------------
// Empty inputs: nothing to do, nothing launched (a grid of 0 blocks is an error).

class EmptyInput : public GpuTest {};

TEST_F(EmptyInput, NoElementsLaunchNothingAndSucceed) {
  EXPECT_NO_THROW(launch_strided_copy(nullptr, nullptr, 0, 4));
  EXPECT_NO_THROW(launch_offset_copy(nullptr, nullptr, 0, 3));
  EXPECT_NO_THROW(launch_row_sums(nullptr, nullptr, 0, 10));
  EXPECT_NO_THROW(launch_column_sums(nullptr, nullptr, 10, 0));
  EXPECT_NO_THROW(launch_transpose_naive(nullptr, nullptr, 0, 10));
  EXPECT_NO_THROW(launch_transpose_naive(nullptr, nullptr, 10, 0));
  EXPECT_NO_THROW(launch_transpose_tiled(nullptr, nullptr, 0, 10));
  EXPECT_NO_THROW(launch_transpose_tiled(nullptr, nullptr, 10, 0));
}

TEST_F(EmptyInput, SumsOverNoElementsAreZero) {
  DeviceBuffer<float> sums(5 + kGuard);
  sums.fill_bytes(0xFF);
  launch_row_sums(sums.data(), nullptr, 5, 0);
  std::vector<float> downloaded = sums.to_host();
  EXPECT_TRUE(matches(compare_exact(std::vector<float>(5, 0.0f),
                                    std::vector<float>(downloaded.begin(), downloaded.begin() + 5)),
                      "row sums of a 5 x 0 matrix"));
  EXPECT_TRUE(guards_untouched(downloaded, 5, "row sums of a 5 x 0 matrix"));

  sums.fill_bytes(0xFF);
  launch_column_sums(sums.data(), nullptr, 0, 5);
  downloaded = sums.to_host();
  EXPECT_TRUE(matches(compare_exact(std::vector<float>(5, 0.0f),
                                    std::vector<float>(downloaded.begin(), downloaded.begin() + 5)),
                      "column sums of a 0 x 5 matrix"));
  EXPECT_TRUE(guards_untouched(downloaded, 5, "column sums of a 0 x 5 matrix"));
}

// ---------------------------------------------------------------------------
// Speed: the tiled transpose reads and writes every byte once, like a copy, so
// its yardstick is a device-to-device copy of the same bytes, timed
// alternately with it. Every run transposes a new matrix drawn on the GPU, and
// its output is compared, bit for bit, with a transpose the test makes on the
// GPU, untimed (a transpose moves values, it never rounds them).

__global__ void reference_transpose(float* out, const float* in, int rows, int cols) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) return;
  // Output element i is row i / rows, column i % rows of the cols x rows output.
  const std::size_t in_col = i / static_cast<std::size_t>(rows), in_row = i % static_cast<std::size_t>(rows);
  out[i] = in[in_row * static_cast<std::size_t>(cols) + in_col];
}

class TransposeSpeed : public GpuTest {};

TEST_F(TransposeSpeed, TiledTransposeReachesTargetFractionOfCopyBandwidth) {
  const Shape s{8192, 8192};  // 256 MiB each way, over four times the 62.9 MB L2 of an H200
  DeviceBuffer<float> in(s.size()), out(s.size()), want(s.size()), copy_to(s.size());

  SpeedTask task;
  task.what = "launch_transpose_tiled of an 8192 x 8192 float matrix";
  task.yardstick = "cudaMemcpyAsync device to device of the same 256 MiB";
  task.unit = "GB/s";
  task.work = 2.0 * static_cast<double>(in.bytes());
  task.min_bytes = 2.0 * static_cast<double>(in.bytes());  // every element read once and written once
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_floats(in.data(), s.size(), seed, -1.0f, 1.0f, stream);
    CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream));  // kPoisonBits: a NaN
  };
  task.run_yardstick = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(copy_to.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice, stream));
  };
  task.run = [&](cudaStream_t stream) {
    launch_transpose_tiled(out.data(), in.data(), s.rows, s.cols, stream);
  };
  task.check = [&] {
    reference_transpose<<<static_cast<unsigned>((s.size() + 255) / 256), 256>>>(want.data(), in.data(),
                                                                                s.rows, s.cols);
    CUDA_CHECK_LAUNCH("reference_transpose");
    // As bits: NaN poison never equals, and every value must arrive unchanged.
    return workbook::device_differences(reinterpret_cast<const std::uint32_t*>(want.data()),
                                        reinterpret_cast<const std::uint32_t*>(out.data()), s.size());
  };
  task.inputs = {{"in", workbook::bytes_of(in)}};
  task.yardstick_writes = {workbook::bytes_of(copy_to)};
  workbook::testing::check_speed(task);
}

}  // namespace
}  // namespace coalescing
