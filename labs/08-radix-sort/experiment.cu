// Lab 08 experiment: what does one bit per pass cost, and how close do four
// 8-bit passes come to CUB?
//   ./workbook bench radix-sort
// Prints five tables:
//   1. Sorting uniform uint32 keys, n = 2^20, 2^24 and 2^28: the one-bit split sort
//      (32 passes), the lab's sort_keys() (4 passes) and
//      cub::DeviceRadixSort::SortKeys, each with ms, Gkeys/s, % of CUB, the
//      bytes each moves per key by design and the GB/s that makes.
//   2. One pass of sort_keys() on 2^28 keys, phase by phase.
//   3. Key-value pairs, n = 2^20, 2^24 and 2^28: sort_pairs() and SortPairs.
//   4. int32 and float keys, n = 2^24: sort_ints(), sort_floats() and CUB's
//      SortKeys of the same type.
//   5. The input's shape, n = 2^24: sort_keys() and CUB on uniform, sorted,
//      all-equal, 8-valued and top-byte-only keys.
// Every result is checked: against CUB's output for uint32 keys and pairs
// (CUB's radix sort is stable), against a host sort for int32 and floats.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "radix_sort.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/count_scan.cuh"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/generators.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

// Bytes per key that each method moves through DRAM, as the handout's Speed of light counts them.
constexpr double kSplitBytes = 32.0 * 32.0;
constexpr double kCountBytes = 4.0 * 256.0 / radix_sort::kTileSize * 5.0;
constexpr double kSortKeysBytes = 4.0 * (12.0 + kCountBytes);
constexpr double kCubKeysBytes = 4.0 + 4.0 * 8.0;
constexpr double kSortPairsBytes = 4.0 * (20.0 + kCountBytes);
constexpr double kCubPairsBytes = 4.0 + 4.0 * 16.0;

struct Measured {
  double ms = 0;                  // the median
  workbook::TimingResult timing;  // with the slowest and fastest runs, for ./workbook bench --all's charts
};

Measured measure(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, timing};
}

std::vector<std::uint32_t> uniform_keys(std::size_t n, std::uint64_t stream) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(workbook::hash64(stream, i) >> 16);
  return keys;
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

void print_header() {
  std::printf("  %-44s %6s %10s %7s %9s %9s %8s %9s   %s\n", "variant", "n", "ms", "spread", "Gkeys/s",
              "% of CUB", "B/key", "GB/s", "check");
}

// "% of CUB" is CUB's time over this row's time: the speed relative to CUB.
// GB/s is the row's own byte count per key over its time; spread, as in every lab:
// the interquartile range of the timed runs over their median (the student guide).
// With a table name, the row is also recorded for the charts (workbook/bench_csv.hpp).
void print_row(const std::string& label, std::size_t n, const Measured& m, double cub_ms,
               double bytes_per_key, bool ok, const char* table = nullptr) {
  const double keys = static_cast<double>(n);
  if (table != nullptr)
    workbook::record("08-radix-sort", {table, label, n, m.timing, keys / m.ms / 1.0e6, "Gkeys/s"});
  std::printf("  %-44s %6s %10.3f %s %9.2f %8.1f%% %8.1f %9.1f   %s\n", label.c_str(), power_text(n).c_str(),
              m.ms, workbook::spread_text(m.timing).c_str(), keys / m.ms / 1.0e6, 100.0 * cub_ms / m.ms,
              bytes_per_key, bytes_per_key * keys / m.ms / 1.0e6, ok ? "ok" : "WRONG RESULT");
}

bool same(const DeviceBuffer<std::uint32_t>& a, const DeviceBuffer<std::uint32_t>& b) {
  return a.to_host() == b.to_host();
}

// Table 1 for one n: the three sorts of the same keys.
void keys_table_rows(std::size_t n, bool with_split) {
  const DeviceBuffer<std::uint32_t> in = workbook::to_device(uniform_keys(n, 8));
  DeviceBuffer<std::uint32_t> out(n), cub_out(n);
  radix_sort::yardstick::CubSortKeys<std::uint32_t> cub(in.data(), cub_out.data(), n);
  const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); });
  const std::vector<std::uint32_t> want = cub_out.to_host();
  const bool cub_ok = std::is_sorted(want.begin(), want.end());
  if (with_split) {
    radix_sort::SplitScratch split_scratch(n);
    out.fill_bytes(0x7F);
    const Measured split = measure([&](cudaStream_t stream) {
      radix_sort::split_sort(in.data(), out.data(), n, split_scratch, stream);
    });
    print_row("one bit per pass: split_sort() (32 passes)", n, split, cub_rate.ms, kSplitBytes,
              same(out, cub_out), "keys");
  }
  {
    radix_sort::RadixSortScratch scratch(n);
    out.fill_bytes(0x7F);
    const Measured lsd = measure(
        [&](cudaStream_t stream) { radix_sort::sort_keys(in.data(), out.data(), n, scratch, stream); });
    print_row("8 bits per pass: sort_keys() (4 passes)", n, lsd, cub_rate.ms, kSortKeysBytes,
              same(out, cub_out), "keys");
  }
  print_row("cub::DeviceRadixSort::SortKeys", n, cub_rate, cub_rate.ms, kCubKeysBytes, cub_ok, "keys");
}

// Table 2: one pass (shift 0) of sort_keys(), its phases timed one by one.
void phases_table(std::size_t n) {
  const DeviceBuffer<std::uint32_t> in = workbook::to_device(uniform_keys(n, 8));
  DeviceBuffer<std::uint32_t> out(n);
  radix_sort::RadixSortScratch scratch(n);
  const std::size_t counts = radix_sort::digit_counts_for(n);
  std::uint32_t* digit_counts = scratch.digit_counts();
  const double keys = static_cast<double>(n);
  const auto row = [&](const char* label, const Measured& m, double bytes) {
    std::printf("  %-55s %10.3f %12.1f %12.1f\n", label, m.ms, bytes / 1.0e6, bytes / m.ms / 1.0e6);
  };
  std::printf(
      "2. One pass of sort_keys() on n = %s keys (shift 0), phase by phase; %zu digit counts (%zu tiles)\n",
      power_text(n).c_str(), counts, radix_sort::tiles_for(n));
  std::printf("  %-55s %10s %12s %12s\n", "phase", "ms", "MB moved", "GB/s");
  const Measured count = measure(
      [&](cudaStream_t stream) { radix_sort::launch_count_digits(in.data(), n, 0, digit_counts, stream); });
  row("(a) count_digits: read keys, write counts", count, 4.0 * keys + 4.0 * static_cast<double>(counts));
  // The scan runs on a copy of the counts each time, so that it always scans counts, not offsets.
  DeviceBuffer<std::uint32_t> offsets(counts);
  const Measured scan = measure([&](cudaStream_t stream) {
    scratch.count_scan().exclusive(digit_counts, offsets.data(), counts, nullptr, stream);
  });
  row("(b) CountScan of the digit counts", scan, 12.0 * static_cast<double>(counts));
  const Measured scatter = measure([&](cudaStream_t stream) {
    radix_sort::launch_scatter_by_digit(in.data(), n, 0, offsets.data(), out.data(), stream);
  });
  row("(c) scatter_by_digit: read keys and offsets, write keys", scatter,
      8.0 * keys + 4.0 * static_cast<double>(counts));
  std::printf("  %-55s %10.3f   (x %d passes = %.3f ms)\n", "one pass, (a) + (b) + (c)",
              count.ms + scan.ms + scatter.ms, radix_sort::kPasses,
              radix_sort::kPasses * (count.ms + scan.ms + scatter.ms));
  std::printf("\n");
}

// Table 3 for one n: pairs.
void pairs_table_rows(std::size_t n) {
  const DeviceBuffer<std::uint32_t> keys_in = workbook::to_device(uniform_keys(n, 9));
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint32_t>(i);
  const DeviceBuffer<std::uint32_t> values_in = workbook::to_device(values);
  DeviceBuffer<std::uint32_t> keys_out(n), values_out(n), cub_keys(n), cub_values(n);
  radix_sort::yardstick::CubSortPairs cub(keys_in.data(), values_in.data(), cub_keys.data(),
                                          cub_values.data(), n);
  const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); });
  const std::vector<std::uint32_t> want = cub_keys.to_host();
  const bool cub_ok = std::is_sorted(want.begin(), want.end());
  radix_sort::RadixSortScratch scratch(n, true);
  const Measured ours = measure([&](cudaStream_t stream) {
    radix_sort::sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch,
                           stream);
  });
  print_row("sort_pairs() (4 passes)", n, ours, cub_rate.ms, kSortPairsBytes,
            same(keys_out, cub_keys) && same(values_out, cub_values), "pairs");
  print_row("cub::DeviceRadixSort::SortPairs", n, cub_rate, cub_rate.ms, kCubPairsBytes, cub_ok, "pairs");
}

bool total_order_less(std::uint32_t a, std::uint32_t b) {
  const bool a_negative = (a >> 31) != 0, b_negative = (b >> 31) != 0;
  if (a_negative != b_negative) return a_negative;
  return a_negative ? a > b : a < b;
}

// Table 4: int32 and float keys.
void typed_table(std::size_t n) {
  radix_sort::RadixSortScratch scratch(n);
  {
    const std::vector<std::uint32_t> bits = uniform_keys(n, 10);
    std::vector<std::int32_t> ints(bits.begin(), bits.end());
    const DeviceBuffer<std::int32_t> in = workbook::to_device(ints);
    DeviceBuffer<std::int32_t> out(n), cub_out(n);
    radix_sort::yardstick::CubSortKeys<std::int32_t> cub(in.data(), cub_out.data(), n);
    const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); });
    const Measured ours = measure(
        [&](cudaStream_t stream) { radix_sort::sort_ints(in.data(), out.data(), n, scratch, stream); });
    std::sort(ints.begin(), ints.end());
    print_row("sort_ints(): encode, sort_keys(), decode", n, ours, cub_rate.ms, kSortKeysBytes + 16.0,
              out.to_host() == ints);
    print_row("cub::DeviceRadixSort::SortKeys<int32>", n, cub_rate, cub_rate.ms, kCubKeysBytes,
              cub_out.to_host() == ints);
  }
  {
    // Floats of every exponent and sign, NaNs and infinities included.
    std::vector<std::uint32_t> bits = uniform_keys(n, 11);
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(bits);
    DeviceBuffer<std::uint32_t> out(n), cub_out(n);
    const auto* float_in = reinterpret_cast<const float*>(in.data());
    radix_sort::yardstick::CubSortKeys<float> cub(float_in, reinterpret_cast<float*>(cub_out.data()), n);
    const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); });
    const Measured ours = measure([&](cudaStream_t stream) {
      radix_sort::sort_floats(float_in, reinterpret_cast<float*>(out.data()), n, scratch, stream);
    });
    std::stable_sort(bits.begin(), bits.end(), total_order_less);
    print_row("sort_floats(): encode, sort_keys(), decode", n, ours, cub_rate.ms, kSortKeysBytes + 16.0,
              out.to_host() == bits);
    // CUB orders -0.0 and +0.0 as equal, so its output is only timed here, not checked bit for bit.
    print_row("cub::DeviceRadixSort::SortKeys<float> (not checked)", n, cub_rate, cub_rate.ms, kCubKeysBytes,
              true);
  }
}

// Table 5: the input's shape.
void patterns_table(std::size_t n) {
  radix_sort::RadixSortScratch scratch(n);
  DeviceBuffer<std::uint32_t> out(n), cub_out(n);
  std::printf("  %-28s %12s %12s %10s   %s\n", "keys", "sort_keys ms", "CUB ms", "% of CUB", "check");
  const std::vector<std::uint32_t> uniform = uniform_keys(n, 12);
  const char* names[] = {"uniform", "already sorted", "all equal", "8 distinct keys",
                         "only the top byte varies"};
  for (int p = 0; p < 5; ++p) {
    std::vector<std::uint32_t> keys(uniform);
    if (p == 1) std::sort(keys.begin(), keys.end());
    if (p == 2) std::fill(keys.begin(), keys.end(), 0x5A5AA5A5u);
    if (p == 3)
      for (std::uint32_t& key : keys) key = uniform[key % 8];
    if (p == 4)
      for (std::uint32_t& key : keys) key = (key & 0xFF000000u) | 0x00A5C3E1u;
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(keys);
    radix_sort::yardstick::CubSortKeys<std::uint32_t> cub(in.data(), cub_out.data(), n);
    const Measured theirs = measure([&](cudaStream_t stream) { cub.run(stream); });
    const Measured ours = measure(
        [&](cudaStream_t stream) { radix_sort::sort_keys(in.data(), out.data(), n, scratch, stream); });
    std::printf("  %-28s %12.3f %12.3f %9.1f%%   %s\n", names[p], ours.ms, theirs.ms,
                100.0 * theirs.ms / ours.ms, same(out, cub_out) ? "ok" : "WRONG RESULT");
  }
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s\n", workbook::describe(gpu).c_str());
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    std::printf("Tiles of %d keys: %d threads per block, %d keys per thread; %d-bit digits, %d passes\n",
                radix_sort::kTileSize, radix_sort::kThreadsPerBlock, radix_sort::kItemsPerThread,
                radix_sort::kRadixBits, radix_sort::kPasses);
    std::printf(
        "B/key is what each method moves through DRAM by design; GB/s is that over the time. The yardstick "
        "is\n"
        "cub::DeviceRadixSort, measured in the same run.\n\n");

    // 2^28 keys need about 5 GiB at once (input, output, scratch, CUB's output
    // and storage; pairs twice that); on a GPU with little memory the large n is halved until it fits.
    std::size_t large = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (large > (std::size_t{1} << 24) && 40 * large > free_bytes / 4 * 3) large /= 2;
    const std::size_t medium = std::size_t{1} << 24;
    // 2^20 keys (4 MiB) fit in L2 and take tens of microseconds: launches and
    // the per-pass scan weigh more there than at 2^24 and 2^28.
    const std::size_t small = std::size_t{1} << 20;

    std::printf("1. Sorting uniform uint32 keys\n");
    print_header();
    keys_table_rows(small, true);
    keys_table_rows(medium, true);
    keys_table_rows(large, true);
    std::printf("\n");

    phases_table(large);

    std::printf("3. Sorting key-value pairs (uint32 keys, uint32 values = input indices)\n");
    print_header();
    pairs_table_rows(small);
    pairs_table_rows(medium);
    pairs_table_rows(large);
    std::printf("\n");

    std::printf(
        "4. int32 and float keys (uniform bit patterns: floats of every exponent, NaNs and infinities)\n");
    print_header();
    typed_table(medium);
    std::printf("\n");

    std::printf("5. The shape of the input, n = %s\n", power_text(medium).c_str());
    patterns_table(medium);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
