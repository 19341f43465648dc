// The harness's scan of counts (workbook::CountScan) on a GPU, at sizes that
// take one, two and three levels of tiles.
#include "workbook/count_scan.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"

namespace workbook {
namespace {

using testing::GpuTest;

std::vector<std::uint32_t> random_counts(std::size_t n) {
  std::vector<std::uint32_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = static_cast<std::uint32_t>(hash64(test_seed(), i) % 1000);
  return counts;
}

std::vector<std::uint32_t> host_exclusive_scan(const std::vector<std::uint32_t>& counts,
                                               std::uint32_t* total) {
  std::vector<std::uint32_t> offsets(counts.size());
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    offsets[i] = running;
    running += counts[i];
  }
  *total = running;
  return offsets;
}

class CountScanSizes : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(CountScanSizes, WritesExclusiveOffsetsAndTheTotal) {
  const std::size_t n = GetParam();
  const std::vector<std::uint32_t> counts = random_counts(n);
  std::uint32_t expected_total = 0;
  const std::vector<std::uint32_t> expected = host_exclusive_scan(counts, &expected_total);
  const DeviceBuffer<std::uint32_t> in = to_device(counts);
  DeviceBuffer<std::uint32_t> out(n);
  DeviceBuffer<std::uint32_t> total(1);
  out.fill_bytes(0xFF);
  total.fill_bytes(0xFF);
  CountScan scan(n + 17);  // room to spare: a scan of fewer counts than the maximum
  scan.exclusive(in.data(), out.data(), n, total.data());
  const std::string context =
      "CountScan::exclusive, n=" + std::to_string(n) + ", seed=" + std::to_string(test_seed());
  EXPECT_TRUE(testing::matches(compare_exact(expected, out.to_host()), context));
  EXPECT_EQ(total.to_host()[0], expected_total) << context << " (the total)";
  EXPECT_EQ(in.to_host(), counts) << context << ": the counts must not change";
}

TEST_P(CountScanSizes, ScansInPlace) {
  const std::size_t n = GetParam();
  const std::vector<std::uint32_t> counts = random_counts(n);
  std::uint32_t expected_total = 0;
  const std::vector<std::uint32_t> expected = host_exclusive_scan(counts, &expected_total);
  DeviceBuffer<std::uint32_t> data = to_device(counts);
  CountScan scan(n);
  scan.exclusive(data.data(), data.data(), n);
  EXPECT_TRUE(testing::matches(compare_exact(expected, data.to_host()),
                               "CountScan::exclusive in place, n=" + std::to_string(n)));
}

INSTANTIATE_TEST_SUITE_P(Levels, CountScanSizes,
                         ::testing::Values(1, 31, 2047, 2048, 2049, 100003, 2048 * 2048, 2048 * 2048 + 5,
                                           std::size_t{1} << 24),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return "n" + std::to_string(info.param);
                         });

class CountScanEdges : public GpuTest {};

TEST_F(CountScanEdges, NoCountsGiveATotalOfZero) {
  DeviceBuffer<std::uint32_t> total(1);
  total.fill_bytes(0xFF);
  CountScan scan(0);
  scan.exclusive(nullptr, nullptr, 0, total.data());
  EXPECT_EQ(total.to_host()[0], 0u);
}

TEST(CountScanArguments, MoreCountsThanTheScannerWasBuiltForAreRejected) {
  // A scanner of at most 2048 counts allocates nothing on the device, so this runs without a GPU.
  CountScan scan(2048);
  EXPECT_THROW(scan.exclusive(nullptr, nullptr, 2049), std::invalid_argument);
}

}  // namespace
}  // namespace workbook
