// Speed tests of lab 08: sort_keys and sort_pairs against
// cub::DeviceRadixSort on uniform random uint32 keys, through the workbook's
// speed harness (workbook/speed.hpp): every run, warm-up included, sorts keys
// drawn on the GPU just before it from a seed of its own; CUB sorts the same
// keys first, alternately with your sort, and your output of every run must
// equal CUB's (a stable sort has one answer). Rates are in keys (pairs) per
// second.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "cub_yardstick.cuh"
#include "radix_sort.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace radix_sort {
namespace {

using workbook::DeviceBuffer;
using workbook::testing::GpuTest;
using workbook::testing::SpeedTask;

constexpr int kPoisonByte = 0x7F;

std::string size_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

class RadixSortSpeed : public GpuTest {
 protected:
  // sort_keys against CUB's SortKeys on n uniform keys.
  void measure_keys(std::size_t n) {
    DeviceBuffer<std::uint32_t> in(n), out(n), cub_out(n);
    RadixSortScratch scratch(n);
    yardstick::CubSortKeys<std::uint32_t> cub(in.data(), cub_out.data(), n);

    SpeedTask task;
    task.what = "sort_keys of " + size_text(n) + " uniform uint32 keys";
    task.yardstick = "cub::DeviceRadixSort::SortKeys on the same keys";
    task.unit = "Gkeys/s";
    task.work = static_cast<double>(n);
    task.min_bytes = 2.0 * sizeof(std::uint32_t) * n;  // every key read once and written once
    task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
      workbook::fill_random_u32(in.data(), n, seed, stream);
      CUDA_CHECK(cudaMemsetAsync(out.data(), kPoisonByte, out.bytes(), stream));
    };
    task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
    task.run = [&](cudaStream_t stream) { sort_keys(in.data(), out.data(), n, scratch, stream); };
    task.check = [&] { return workbook::device_differences(cub_out.data(), out.data(), n); };
    task.inputs = {{"keys_in", workbook::bytes_of(in)}};
    task.yardstick_writes = {workbook::bytes_of(cub_out), cub.storage()};
    workbook::testing::check_speed(task);
  }
};

TEST_F(RadixSortSpeed, KeysAt2To24ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 24);  // 64 MiB: a little above an H200's L2
}

TEST_F(RadixSortSpeed, KeysAt2To28ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 28);  // 1 GiB, 17 times an H200's L2
}

TEST_F(RadixSortSpeed, PairsAt2To24ReachTargetFractionOfCub) {
  const std::size_t n = std::size_t{1} << 24;
  DeviceBuffer<std::uint32_t> keys_in(n), values_in(n), keys_out(n), values_out(n), cub_keys(n),
      cub_values(n);
  RadixSortScratch scratch(n, true);
  yardstick::CubSortPairs cub(keys_in.data(), values_in.data(), cub_keys.data(), cub_values.data(), n);

  SpeedTask task;
  task.what = "sort_pairs of 2^24 uniform uint32 keys with uint32 values";
  task.yardstick = "cub::DeviceRadixSort::SortPairs on the same pairs";
  task.unit = "Gpairs/s";
  task.work = static_cast<double>(n);
  task.min_bytes = 4.0 * sizeof(std::uint32_t) * n;  // keys and values read once and written once
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_u32(keys_in.data(), n, seed, stream);
    workbook::fill_random_u32(values_in.data(), n, ~seed, stream);
    CUDA_CHECK(cudaMemsetAsync(keys_out.data(), kPoisonByte, keys_out.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(values_out.data(), kPoisonByte, values_out.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
  task.run = [&](cudaStream_t stream) {
    sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch, stream);
  };
  // CUB's sort is stable, so its values are the only right ones too.
  task.check = [&] {
    const std::string keys = workbook::device_differences(cub_keys.data(), keys_out.data(), n);
    if (!keys.empty()) return "keys: " + keys;
    const std::string values = workbook::device_differences(cub_values.data(), values_out.data(), n);
    return values.empty() ? values : "values (keys right; is the sort stable?): " + values;
  };
  task.inputs = {{"keys_in", workbook::bytes_of(keys_in)}, {"values_in", workbook::bytes_of(values_in)}};
  task.yardstick_writes = {workbook::bytes_of(cub_keys), workbook::bytes_of(cub_values), cub.storage()};
  workbook::testing::check_speed(task);
}

}  // namespace
}  // namespace radix_sort
