// Speed tests of lab 08: sort_keys and sort_pairs against
// cub::DeviceRadixSort on the same uniform random uint32 keys, both timed
// with workbook::time_gpu (cold L2, median of repeated CUDA-event timings) in
// the same run. The timed output is checked first, against CUB's own sorted
// output (CUB's radix sort is stable, so for pairs the values must match too):
// speed counts only for correct code. Rates are in keys (pairs) per second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cub_yardstick.cuh"
#include "radix_sort.cuh"
#include "workbook/buffers.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace radix_sort {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::GpuTest;
using workbook::testing::matches;

std::vector<std::uint32_t> uniform_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(workbook::hash64(workbook::test_seed() + 21, i) >> 16);
  }
  return keys;
}

std::string size_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

double gigakeys_per_second(std::size_t n, double ms) {
  return static_cast<double>(n) / ms / 1.0e6;
}

class RadixSortSpeed : public GpuTest {
 protected:
  // sort_keys against CUB's SortKeys on n uniform keys.
  void measure_keys(std::size_t n) {
    const std::vector<std::uint32_t> keys = uniform_keys(n);
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(keys);
    DeviceBuffer<std::uint32_t> out(n);
    DeviceBuffer<std::uint32_t> cub_out(n);
    RadixSortScratch scratch(n);
    out.fill_bytes(0x7F);

    const workbook::TimingResult ours = workbook::time_gpu(
        [&](cudaStream_t stream) { sort_keys(in.data(), out.data(), n, scratch, stream); });
    yardstick::CubSortKeys<std::uint32_t> cub(in.data(), cub_out.data(), n);
    const workbook::TimingResult theirs = workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });

    const std::vector<std::uint32_t> want = cub_out.to_host();
    ASSERT_TRUE(std::is_sorted(want.begin(), want.end())) << "cub::DeviceRadixSort::SortKeys did not sort";
    const std::string context = "sort_keys, n=" + size_text(n) +
                                " uniform uint32 keys, seed=" + std::to_string(workbook::test_seed()) +
                                " (the timed runs, against CUB's output)";
    ASSERT_TRUE(matches(compare_exact(want, out.to_host()), context));

    const double rate = gigakeys_per_second(n, ours.median_ms);
    const double cub_rate = gigakeys_per_second(n, theirs.median_ms);
    std::printf("[  TIMING  ] sort_keys, %s keys: %s, %.2f Gkeys/s\n", size_text(n).c_str(),
                ours.summary().c_str(), rate);
    std::printf("[  TIMING  ] cub::DeviceRadixSort::SortKeys: %s, %.2f Gkeys/s\n", theirs.summary().c_str(),
                cub_rate);
    workbook::testing::expect_speed(
        {rate, cub_rate, "Gkeys/s", "cub::DeviceRadixSort::SortKeys on the same keys"});
  }
};

TEST_F(RadixSortSpeed, KeysAt2To24ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 24);  // 64 MiB: a little above an H100's L2
}

TEST_F(RadixSortSpeed, KeysAt2To28ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 28);  // 1 GiB, 20 times an H100's L2
}

TEST_F(RadixSortSpeed, PairsAt2To24ReachTargetFractionOfCub) {
  const std::size_t n = std::size_t{1} << 24;
  const std::vector<std::uint32_t> keys = uniform_keys(n);
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  const DeviceBuffer<std::uint32_t> keys_in = workbook::to_device(keys);
  const DeviceBuffer<std::uint32_t> values_in = workbook::to_device(values);
  DeviceBuffer<std::uint32_t> keys_out(n), values_out(n), cub_keys(n), cub_values(n);
  RadixSortScratch scratch(n, true);
  keys_out.fill_bytes(0x7F);
  values_out.fill_bytes(0x7F);

  const workbook::TimingResult ours = workbook::time_gpu([&](cudaStream_t stream) {
    sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch, stream);
  });
  yardstick::CubSortPairs cub(keys_in.data(), values_in.data(), cub_keys.data(), cub_values.data(), n);
  const workbook::TimingResult theirs = workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });

  const std::string context = "sort_pairs, n=2^24 uniform uint32 keys with values = input indices, seed=" +
                              std::to_string(workbook::test_seed()) +
                              " (the timed runs, against CUB's output)";
  ASSERT_TRUE(matches(compare_exact(cub_keys.to_host(), keys_out.to_host()), context + " (keys)"));
  ASSERT_TRUE(matches(compare_exact(cub_values.to_host(), values_out.to_host()), context + " (values)"));

  const double rate = gigakeys_per_second(n, ours.median_ms);
  const double cub_rate = gigakeys_per_second(n, theirs.median_ms);
  std::printf("[  TIMING  ] sort_pairs, 2^24 pairs: %s, %.2f Gpairs/s\n", ours.summary().c_str(), rate);
  std::printf("[  TIMING  ] cub::DeviceRadixSort::SortPairs: %s, %.2f Gpairs/s\n", theirs.summary().c_str(),
              cub_rate);
  workbook::testing::expect_speed(
      {rate, cub_rate, "Gpairs/s", "cub::DeviceRadixSort::SortPairs on the same pairs"});
}

}  // namespace
}  // namespace radix_sort
