// The harness on a real GPU: buffers, timing and the copy-bandwidth yardstick.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/device.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace workbook {
namespace {

using testing::GpuTest;

class Harness : public GpuTest {};

TEST_F(Harness, DeviceBufferRoundTripsAndMovesOwnership) {
  const std::vector<int> values{1, 2, 3, 4, 5};
  DeviceBuffer<int> buffer = to_device(values);
  EXPECT_EQ(buffer.to_host(), values);
  DeviceBuffer<int> moved = std::move(buffer);
  EXPECT_EQ(buffer.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the point.
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(moved.to_host(), values);
  moved.fill_bytes(0);
  EXPECT_EQ(moved.to_host(), std::vector<int>(5, 0));
}

TEST_F(Harness, InputUnchangedPassesForUntouchedBytesAndNamesTheFirstWrite) {
  const std::vector<float> values{1.0f, std::nanf(""), -0.0f, 4.0f, 5.0f};
  DeviceBuffer<float> input = to_device(values);
  testing::expect_input_unchanged(values, input, "untouched", "in");  // NaN and -0.0 equal themselves
  const float written = 9.0f;
  CUDA_CHECK(cudaMemcpy(input.data() + 3, &written, sizeof written, cudaMemcpyHostToDevice));
  EXPECT_NONFATAL_FAILURE(testing::expect_input_unchanged(values, input, "case", "in"),
                          "the input in was written: 1 of 5 elements changed, the first at index 3");
}

TEST_F(Harness, TimingReportsMedianSpreadAndSamples) {
  DeviceBuffer<unsigned char> source(64 << 20), destination(64 << 20);
  TimingOptions options;
  options.min_samples = 5;
  const TimingResult result = time_gpu(
      [&](cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), source.bytes(),
                                   cudaMemcpyDeviceToDevice, stream));
      },
      options);
  EXPECT_GE(result.samples, 5);
  EXPECT_GT(result.median_ms, 0.0);
  EXPECT_LE(result.min_ms, result.median_ms);
  EXPECT_LE(result.median_ms, result.max_ms);
  EXPECT_GE(result.relative_spread, 0.0);
}

TEST_F(Harness, CopyBandwidthIsMeasuredAndPlausible) {
  const double gbps = copy_bandwidth_gbps();
  // From a laptop GPU (~100 GB/s) to an H200 (~4200 GB/s), with headroom.
  EXPECT_GT(gbps, 50.0);
  EXPECT_LT(gbps, 20000.0);
  EXPECT_EQ(gbps, copy_bandwidth_gbps()) << "the yardstick is measured once per process";
}

TEST_F(Harness, DeviceInfoDescribesTheGpu) {
  const DeviceInfo info = current_device_info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_major, 7);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0u);
}

}  // namespace
}  // namespace workbook
