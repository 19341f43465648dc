// Lab 08, the comparison kept beside the reference solution: the Going-further
// Onesweep sort (going_further/onesweep.cuh) against cub::DeviceRadixSort on
// the experiment's inputs, keys (beside table 1) and pairs (beside table 3).
// It lives here and not in labs/08-radix-sort/experiment.cu because its
// ranking is TODO(9)-(10)'s: the student's folder must not hold it.
//   ./workbook bench radix-sort --solution   (the experiment, then this program)
// "% of CUB" is CUB's time over the row's, CUB timed again here on the same
// input; every result is checked against CUB's output (both sorts are stable).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "onesweep.cuh"
#include "radix_sort.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/random.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

constexpr char kLab[] = "08-radix-sort";

// The experiment's keys (its uniform_keys with stream 8), so that the rows
// compare with table 1's.
std::vector<std::uint32_t> uniform_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(workbook::hash64(8, i) >> 16);
  return keys;
}

workbook::TimingResult time_it(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return workbook::time_gpu(work, options);
}

double gigakeys(std::size_t n, double ms) {
  return static_cast<double>(n) / ms / 1.0e6;
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

// Two keys rows and two pairs rows at n (ours, then CUB's); false if a result was wrong.
bool rows_at(std::size_t n) {
  std::printf("  n = %s (%zu keys)\n", power_text(n).c_str(), n);
  const std::vector<std::uint32_t> keys = uniform_keys(n);
  const DeviceBuffer<std::uint32_t> in = workbook::to_device(keys);
  std::vector<std::uint32_t> indices(n);
  for (std::size_t i = 0; i < n; ++i) indices[i] = static_cast<std::uint32_t>(i);
  const DeviceBuffer<std::uint32_t> values = workbook::to_device(indices);
  DeviceBuffer<std::uint32_t> out(n), out_values(n), cub_out(n), cub_values(n);
  radix_sort::OnesweepScratch scratch(n, true);
  bool all_ok = true;

  radix_sort::yardstick::CubSortKeys<std::uint32_t> cub_keys(in.data(), cub_out.data(), n);
  const workbook::TimingResult cub_keys_time = time_it([&](cudaStream_t stream) { cub_keys.run(stream); });
  out.fill_bytes(0x7F);
  const workbook::TimingResult keys_time = time_it([&](cudaStream_t stream) {
    radix_sort::onesweep_sort_keys(in.data(), out.data(), n, scratch, stream);
  });
  const double cub_keys_rate = gigakeys(n, cub_keys_time.median_ms);
  all_ok &= workbook::print_and_record(
      kLab,
      {"onesweep keys", "onesweep_sort_keys()", n, keys_time, gigakeys(n, keys_time.median_ms), "Gkeys/s"},
      cub_keys_rate, out.to_host() == cub_out.to_host());
  all_ok &= workbook::print_and_record(
      kLab, {"onesweep keys", "cub::DeviceRadixSort::SortKeys", n, cub_keys_time, cub_keys_rate, "Gkeys/s"},
      cub_keys_rate, true);

  radix_sort::yardstick::CubSortPairs cub_pairs(in.data(), values.data(), cub_out.data(), cub_values.data(),
                                                n);
  const workbook::TimingResult cub_pairs_time = time_it([&](cudaStream_t stream) { cub_pairs.run(stream); });
  out.fill_bytes(0x7F);
  out_values.fill_bytes(0x7F);
  const workbook::TimingResult pairs_time = time_it([&](cudaStream_t stream) {
    radix_sort::onesweep_sort_pairs(in.data(), values.data(), out.data(), out_values.data(), n, scratch,
                                    stream);
  });
  const double cub_pairs_rate = gigakeys(n, cub_pairs_time.median_ms);
  const bool pairs_ok = out.to_host() == cub_out.to_host() && out_values.to_host() == cub_values.to_host();
  all_ok &= workbook::print_and_record(kLab,
                                       {"onesweep pairs", "onesweep_sort_pairs()", n, pairs_time,
                                        gigakeys(n, pairs_time.median_ms), "Gkeys/s"},
                                       cub_pairs_rate, pairs_ok);
  all_ok &= workbook::print_and_record(
      kLab,
      {"onesweep pairs", "cub::DeviceRadixSort::SortPairs", n, cub_pairs_time, cub_pairs_rate, "Gkeys/s"},
      cub_pairs_rate, true);
  return all_ok;
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    // As the experiment: 2^28 keys, halved on a GPU with little memory
    // (input, indices, two outputs, CUB's two, the scratch's two: 8 arrays).
    std::size_t large = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (large > (std::size_t{1} << 20) && 40 * large > free_bytes / 4 * 3) large /= 2;

    std::printf("\nGoing further, from solutions/08-radix-sort/experiment_reference.cu: a Onesweep sort\n");
    std::printf(
        "(one histogram pass, then one kernel per digit; going_further/onesweep.cu), tiles of %d keys\n",
        radix_sort::kOnesweepTileSize);
    workbook::print_rows_header("1c. Onesweep against CUB, uint32 keys and uint32 values = input indices",
                                "Gkeys/s", "CUB");
    bool all_ok = true;
    for (std::size_t n : {std::size_t{1} << 20, std::size_t{1} << 24, large}) all_ok &= rows_at(n);
    if (!all_ok) {
      std::fprintf(stderr, "a WRONG RESULT: see above\n");
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
