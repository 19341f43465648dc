// Tests of lab 01. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hello.cuh"
#include "workbook/buffers.hpp"
#include "workbook/testing.hpp"

namespace hello {
namespace {

using workbook::compare_exact;
using workbook::CudaError;
using workbook::DeviceBuffer;
using workbook::testing::GpuTest;
using workbook::testing::matches;

// blocks_for is a __host__ __device__ helper: tested on the host, no GPU needed.
TEST(BlocksFor, RoundsTheBlockCountUp) {
  EXPECT_EQ(blocks_for(0, 256), 0);
  EXPECT_EQ(blocks_for(1, 256), 1);
  EXPECT_EQ(blocks_for(255, 256), 1);
  EXPECT_EQ(blocks_for(256, 256), 1);
  EXPECT_EQ(blocks_for(257, 256), 2);
  EXPECT_EQ(blocks_for(1000, 96), 11);
  EXPECT_EQ(blocks_for(1 << 26, 1024), 1 << 16);
}

// Records past n are guard records: a kernel without a bounds check overwrites them.
constexpr int kGuard = 64;

std::vector<ThreadRecord> expected_records(int n, int threads_per_block) {
  std::vector<ThreadRecord> expected(n);
  for (int i = 0; i < n; ++i) expected[i] = {i / threads_per_block, i % threads_per_block, i};
  return expected;
}

struct LaunchCase {
  int n;
  int threads_per_block;
};

std::ostream& operator<<(std::ostream& out, const LaunchCase& c) {
  return out << "n=" << c.n << ", threads_per_block=" << c.threads_per_block;
}

class RecordThreadIds : public GpuTest, public ::testing::WithParamInterface<LaunchCase> {};

TEST_P(RecordThreadIds, EveryThreadRecordsItsBlockThreadAndGlobalIndex) {
  const LaunchCase c = GetParam();
  DeviceBuffer<ThreadRecord> records(c.n + kGuard);
  records.fill_bytes(0xFF);  // Poison: every unwritten field reads -1.
  launch_record_thread_ids(records.data(), c.n, c.threads_per_block);
  std::vector<ThreadRecord> got = records.to_host();
  const std::vector<ThreadRecord> guard(got.begin() + c.n, got.end());
  got.resize(c.n);
  std::ostringstream context;
  context << c;
  EXPECT_TRUE(matches(compare_exact(expected_records(c.n, c.threads_per_block), got), context.str()));
  EXPECT_TRUE(matches(compare_exact(std::vector<ThreadRecord>(kGuard, ThreadRecord{-1, -1, -1}), guard),
                      context.str() + ", the records past n (threads with index >= n must not write)"));
}

INSTANTIATE_TEST_SUITE_P(Sizes, RecordThreadIds,
                         ::testing::Values(LaunchCase{1, 256}, LaunchCase{31, 32}, LaunchCase{32, 32},
                                           LaunchCase{33, 32}, LaunchCase{255, 256}, LaunchCase{256, 256},
                                           LaunchCase{257, 256}, LaunchCase{1000, 96}, LaunchCase{4097, 1024},
                                           LaunchCase{1 << 26, 256}));

class RecordThreadIds2D : public GpuTest, public ::testing::WithParamInterface<std::pair<int, int>> {};

TEST_P(RecordThreadIds2D, EveryPixelRecordsItsBlockAndThreadCoordinates) {
  const auto [width, height] = GetParam();
  for (const dim3 block : {dim3(16, 16), dim3(32, 8), dim3(8, 4)}) {
    DeviceBuffer<ThreadRecord2D> records(static_cast<std::size_t>(width) * height + kGuard);
    records.fill_bytes(0xFF);
    launch_record_thread_ids_2d(records.data(), width, height, block);
    std::vector<ThreadRecord2D> got = records.to_host();
    std::vector<ThreadRecord2D> expected(got.size(), ThreadRecord2D{-1, -1, -1, -1});
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        expected[static_cast<std::size_t>(y) * width + x] = {
            x / static_cast<int>(block.x), y / static_cast<int>(block.y), x % static_cast<int>(block.x),
            y % static_cast<int>(block.y)};
      }
    }
    std::ostringstream context;
    context << "width=" << width << ", height=" << height << ", block=(" << block.x << ", " << block.y
            << ") (record index = y * width + x; the last " << kGuard << " are past the image)";
    EXPECT_TRUE(matches(compare_exact(expected, got), context.str()));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RecordThreadIds2D,
                         ::testing::Values(std::make_pair(1, 1), std::make_pair(33, 17),
                                           std::make_pair(100, 70), std::make_pair(17, 300),
                                           std::make_pair(1920, 1080)));

class BadLaunch : public GpuTest {};

// Too many threads per block is refused at launch. CUDA 12 names the error
// cudaErrorInvalidConfiguration, CUDA 13 cudaErrorInvalidValue: accept either.
bool is_bad_launch_error(cudaError_t code) {
  return code == cudaErrorInvalidConfiguration || code == cudaErrorInvalidValue;
}

TEST_F(BadLaunch, TooManyThreadsPerBlockIsReported) {
  DeviceBuffer<ThreadRecord> records(4096);
  try {
    launch_record_thread_ids(records.data(), 4096, 2048);
    FAIL() << "launching 2048 threads per block (the limit is 1024) returned without an error: "
              "check the launch with CUDA_CHECK_LAUNCH right after the <<<...>>>";
  } catch (const CudaError& error) {
    EXPECT_TRUE(is_bad_launch_error(error.code())) << error.what();
    EXPECT_NE(std::string(error.what()).find("record_thread_ids"), std::string::npos)
        << "the message should name the kernel; got: " << error.what();
  }
}

TEST_F(BadLaunch, TooLargeTwoDimensionalBlockIsReported) {
  DeviceBuffer<ThreadRecord2D> records(64 * 64);
  try {
    launch_record_thread_ids_2d(records.data(), 64, 64, dim3(64, 32));
    FAIL() << "a block of 64 x 32 = 2048 threads (the limit is 1024) was launched without an error "
              "being reported; check the launch with CUDA_CHECK_LAUNCH";
  } catch (const CudaError& error) {
    EXPECT_TRUE(is_bad_launch_error(error.code())) << error.what();
  }
}

class Hello : public GpuTest {};

TEST_F(Hello, EveryThreadGreetsExactlyOnce) {
  constexpr int kBlocks = 3;
  constexpr int kThreads = 40;
  ::testing::internal::CaptureStdout();
  launch_hello(kBlocks, kThreads);
  std::fflush(stdout);
  const std::string output = ::testing::internal::GetCapturedStdout();

  std::multiset<std::pair<int, int>> greeted;
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    int block = -1, thread = -1;
    if (std::sscanf(line.c_str(), "Hello from block %d, thread %d", &block, &thread) == 2) {
      greeted.insert({block, thread});
    }
  }
  std::multiset<std::pair<int, int>> expected;
  for (int b = 0; b < kBlocks; ++b) {
    for (int t = 0; t < kThreads; ++t) expected.insert({b, t});
  }
  EXPECT_EQ(greeted, expected) << "expected one line \"Hello from block B, thread T\" for each of " << kBlocks
                               << " x " << kThreads << " threads, in any order; the kernel printed:\n"
                               << output.substr(0, 600);
}

}  // namespace
}  // namespace hello
