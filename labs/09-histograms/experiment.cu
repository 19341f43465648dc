// Lab 09 experiment: what do collisions cost a histogram, and what removes them?
//   ./workbook bench histograms
// Prints four tables, every result checked against a histogram counted on the
// host (a wrong one makes the program exit with 1):
//   1. 256 bins over n = 2^30 bytes, three inputs: uniform bytes, four bins
//      that share one shared-memory bank (0, 32, 64, 96), and every byte in
//      one bin (255). One row per method: the lab's global atomics, two
//      phases (and each phase alone), per-block histograms merged with
//      atomics, __match_any_sync aggregation, the lab's lane copies
//      (histogram_lane_copies, one shared atomic per byte), and
//      cub::DeviceHistogram::HistogramEven; ms, GB/s of input and % of CUB.
//      The speed of light is n bytes read at the copy bandwidth.
//   2. The RGB histogram of 2^28 RGBA pixels (the same 1 GiB), uniform and
//      one colour: rgb_histogram() against CUB's MultiHistogramEven.
//   3. 65536 bins over 2^29 16-bit values (the same 1 GiB), uniform, one
//      value and sorted: the lab's wide_histogram() (global atomics
//      aggregated with __match_any_sync) and CUB.
//   4. The lab's lane copies (histogram_lane_copies) and CUB on uniform bytes,
//      n = 2^10, 2^12, ..., 2^30: where launch latency ends and memory begins.
// Times are medians with the spread of the samples (their interquartile range
// over the median). Under ./workbook bench --all every timed row is also
// recorded for the charts.
// The handout's rows "written here" are not here: a copy of the histogram per
// warp, runs counted into one copy or into the lane copies (table 1), one
// global atomic per value and eight passes over 8192-bin ranges (table 3).
// Their code would answer your TODOs (they reuse the per-block share, the
// merge with atomics, the lane copies' slots and the global atomics), so they
// live beside the reference solution: `./workbook bench histograms
// --solution` adds them in the full repository, and the handout quotes them.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "histogram.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using histogram::kBins;
using histogram::kThreadsPerBlock;
using workbook::DeviceBuffer;

constexpr int kFillThreads = 256;

// The sweep of table 4: 2^10, 2^12, ..., 2^30 bytes (2^30, as in table 1 and
// the speed tests: 1073.7 MB, about 17 times the H200's 62.9 MB of L2).
constexpr int kSweepFromLog2 = 10;
constexpr int kSweepToLog2 = 30;
constexpr int kSweepStepLog2 = 2;

// Every failed check, so that main() can exit non-zero after printing every
// table: ./workbook bench --all then reports the lab as failed.
int wrong_results = 0;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kFillThreads - 1) / kFillThreads);
}

// ---- the inputs, made on the GPU ----

enum class Kind { uniform, four_bins_one_bank, one_bin, sorted };

const char* to_string(Kind kind) {
  switch (kind) {
    case Kind::uniform:
      return "uniform";
    case Kind::four_bins_one_bank:
      return "4 bins, 1 bank";
    case Kind::one_bin:
      return "one bin";
    case Kind::sorted:
      return "sorted";
  }
  return "?";
}

__global__ void fill_bytes(std::uint8_t* out, std::size_t n, Kind kind) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t hash = workbook::hash_index(i);
  std::uint32_t value = 255;
  if (kind == Kind::uniform) value = hash & 0xFFu;
  if (kind == Kind::four_bins_one_bank) value = 32u * (hash % 4u);  // 0, 32, 64, 96: all in bank 0
  out[i] = static_cast<std::uint8_t>(value);
}

__global__ void fill_wide(std::uint16_t* out, std::size_t n, Kind kind) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t value = 65535;
  if (kind == Kind::uniform) value = workbook::hash_index(i) & 0xFFFFu;
  if (kind == Kind::sorted) value = static_cast<std::uint32_t>((static_cast<std::uint64_t>(i) << 16) / n);
  out[i] = static_cast<std::uint16_t>(value);
}

// ---- measuring and printing ----

struct Measured {
  double ms = 0;  // the median
  bool ok = false;
  workbook::TimingResult timing;  // with the spread, for the tables and ./workbook bench --all's charts
};

// Slow rows (seconds per run) take fewer samples.
Measured measure(const std::function<void(cudaStream_t)>& work, const std::function<bool()>& check,
                 bool slow = false, double time_budget_ms = 2000.0) {
  workbook::TimingOptions options;
  options.time_budget_ms = time_budget_ms;
  if (slow) {
    options.warmup_runs = 1;
    options.min_samples = 3;
  }
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, check(), timing};
}

// A row for ./workbook bench --all's charts (nothing happens without
// $WORKBOOK_BENCH_CSV): GB/s of input, @p input_bytes over the median. A phase
// row's indentation is layout, not part of its name.
void record(const std::string& table, const std::string& label, std::size_t n, double input_bytes,
            const Measured& m) {
  const std::string implementation = label.substr(label.find_first_not_of(' '));
  workbook::record("09-histograms", {table, implementation, n, m.timing, input_bytes / m.ms / 1e6, "GB/s"});
}

using workbook::spread_text;

// "ok" or "WRONG RESULT" for a check column; a wrong result is counted.
const char* check_text(bool ok) {
  if (!ok) ++wrong_results;
  return ok ? "ok" : "WRONG RESULT";
}

template <typename T>
std::vector<std::uint32_t> host_histogram(const DeviceBuffer<T>& in, std::size_t n, std::size_t bins) {
  std::vector<T> values(n);
  CUDA_CHECK(cudaMemcpy(values.data(), in.data(), n * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> counts(bins, 0);
  for (const T value : values) ++counts[value];
  return counts;
}

std::vector<std::uint32_t> download(const DeviceBuffer<std::uint32_t>& bins, std::size_t count) {
  std::vector<std::uint32_t> host = bins.to_host();
  host.resize(count);
  return host;
}

// Table 4: the lab's lane copies and CUB on uniform bytes, from inputs that
// fill a few blocks to inputs far beyond L2, both histograms checked against the host's.
void sweep(std::size_t max_bytes) {
  const char* table = "256 bins by size";
  std::printf("4. 256 bins over n uniform bytes, by n: ms, spread, GB/s of input, %% of CUB\n");
  std::printf("  %12s | %-36s | %-27s | %s\n", "", "lane copies: histogram_lane_copies()",
              "cub::DeviceHistogram::HistogramEven", "check");
  std::printf("  %12s | %10s %7s %8s %8s | %10s %7s %8s |\n", "n", "ms", "spread", "GB/s", "% of CUB", "ms",
              "spread", "GB/s");
  DeviceBuffer<std::uint32_t> bins(kBins), cub_bins(kBins);
  // A shorter time budget than the other tables': eleven sizes, two histograms each.
  const double budget_ms = 300.0;
  for (const std::size_t n :
       workbook::sweep_sizes(kSweepFromLog2, kSweepToLog2, kSweepStepLog2, 1, max_bytes)) {
    DeviceBuffer<std::uint8_t> in(n);
    fill_bytes<<<blocks_for(n), kFillThreads>>>(in.data(), n, Kind::uniform);
    CUDA_CHECK_LAUNCH("fill_bytes");
    const std::vector<std::uint32_t> expected = host_histogram(in, n, kBins);
    const Measured ours =
        measure([&](cudaStream_t s) { histogram::histogram_lane_copies(in.data(), n, bins.data(), s); },
                [&]() { return bins.to_host() == expected; }, false, budget_ms);
    histogram::yardstick::CubByteHistogram cub(in.data(), n, cub_bins.data());
    const Measured theirs = measure([&](cudaStream_t s) { cub.run(s); },
                                    [&]() { return cub_bins.to_host() == expected; }, false, budget_ms);
    const double bytes = static_cast<double>(n);
    record(table, "lane copies: histogram_lane_copies()", n, bytes, ours);
    record(table, "cub::DeviceHistogram::HistogramEven", n, bytes, theirs);
    std::printf("  %12zu | %10.4f %s %8.1f %7.1f%% | %10.4f %s %8.1f | %s\n", n, ours.ms,
                spread_text(ours.timing).c_str(), bytes / ours.ms / 1e6, 100.0 * theirs.ms / ours.ms,
                theirs.ms, spread_text(theirs.timing).c_str(), bytes / theirs.ms / 1e6,
                check_text(ours.ok && theirs.ok));
  }
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    std::printf("GPU: %s\n", workbook::describe(gpu).c_str());
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n", copy_gbps);
    // The clock of the shared-atomic bound (the handout's "Speed of light": clocks per warp atomic).
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, gpu.id));
    std::printf("SM clock: at most %.0f MHz (cudaDevAttrClockRate)\n", clock_khz / 1e3);

    // 1 GiB of input; halved on a GPU with less than 4 GiB free.
    std::size_t n = std::size_t{1} << 30;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 24) && 4 * n > free_bytes) n /= 2;
    const int blocks = histogram::grid_blocks(n);
    std::printf(
        "Byte kernels of parts 2 and 3: %d blocks of %d threads (%d per SM), %d bytes per vector load;\n"
        "lane copies: %d KiB of shared memory per block, %d vectors in flight per thread.\n\n",
        blocks, kThreadsPerBlock, histogram::kBlocksPerSm, histogram::kVectorBytes,
        static_cast<int>(histogram::kLaneCopySlots * sizeof(std::uint32_t) / 1024),
        histogram::kVectorsPerThread);

    DeviceBuffer<std::uint8_t> in(n);
    DeviceBuffer<std::uint32_t> bins(histogram::kWideBins);
    DeviceBuffer<std::uint32_t> block_bins(static_cast<std::size_t>(histogram::kMaxGridBlocks) * kBins);

    // --- 1. 256 bins -------------------------------------------------------------------------
    struct Row {
      std::string label;
      std::function<void(cudaStream_t)> run;
      bool slow_on_contention = false;
      bool checked = true;  // a phase alone leaves no full histogram to check
    };
    const std::uint8_t* bytes = in.data();
    std::uint32_t* out = bins.data();
    const std::vector<Row> rows = {
        {"global atomics, one per byte",
         [&](cudaStream_t s) { histogram::histogram_global_atomics(bytes, n, out, s); }, true},
        {"two phases: per-block histograms + sum kernel",
         [&](cudaStream_t s) { histogram::histogram_two_phase(bytes, n, out, block_bins.data(), s); }},
        {"  phase 1 alone: count_bytes_per_block",
         [&](cudaStream_t s) { histogram::launch_count_bytes_per_block(bytes, n, block_bins.data(), s); },
         false, false},
        {"  phase 2 alone: sum_block_histograms",
         [&](cudaStream_t s) { histogram::launch_sum_block_histograms(block_bins.data(), blocks, out, s); },
         false, false},
        {"per-block histograms merged with atomics",
         [&](cudaStream_t s) { histogram::histogram_shared_atomics(bytes, n, out, s); }},
        {"__match_any_sync in the warp, one copy",
         [&](cudaStream_t s) { histogram::histogram_match_any(bytes, n, out, s); }},
        {"lane copies: histogram_lane_copies()",
         [&](cudaStream_t s) { histogram::histogram_lane_copies(bytes, n, out, s); }},
    };
    // The columns of table 1, one per input: add a Kind here (and its case in
    // fill_bytes) for one more column.
    const std::vector<Kind> kinds = {Kind::uniform, Kind::four_bins_one_bank, Kind::one_bin};
    const std::size_t columns = kinds.size();
    std::vector<std::vector<Measured>> results(rows.size() + 1, std::vector<Measured>(columns));
    for (std::size_t k = 0; k < columns; ++k) {
      fill_bytes<<<blocks_for(n), kFillThreads>>>(in.data(), n, kinds[k]);
      CUDA_CHECK_LAUNCH("fill_bytes");
      const std::vector<std::uint32_t> expected = host_histogram(in, n, kBins);
      const auto check = [&]() { return download(bins, kBins) == expected; };
      histogram::yardstick::CubByteHistogram cub(in.data(), n, out);
      results[rows.size()][k] = measure([&](cudaStream_t s) { cub.run(s); }, check);
      for (std::size_t r = 0; r < rows.size(); ++r) {
        // Phase 2 alone sums the per-block histograms phase 1 leaves for this input.
        if (!rows[r].checked) histogram::histogram_two_phase(bytes, n, out, block_bins.data(), nullptr);
        results[r][k] = measure(
            rows[r].run, rows[r].checked ? std::function<bool()>(check) : [] { return true; },
            rows[r].slow_on_contention && kinds[k] != Kind::uniform);
      }
    }
    std::printf(
        "1. 256 bins over n = %zu bytes (%.2f GB): ms, spread, GB/s of input, %% of CUB on the same input\n",
        n, static_cast<double>(n) / 1e9);
    std::printf("  %-46s", "variant");
    for (const Kind kind : kinds) std::printf(" | %-34s", to_string(kind));
    std::printf(" | check\n");
    // Each row is also recorded, one table per input: "256 bins (uniform)", ...
    const auto print_row = [&](const std::string& label, const std::vector<Measured>& m, bool checked) {
      std::printf("  %-46s", label.c_str());
      bool ok = true;
      for (std::size_t k = 0; k < columns; ++k) {
        record(std::string("256 bins (") + to_string(kinds[k]) + ")", label, n, static_cast<double>(n), m[k]);
        std::printf(" | %9.3f %s %7.1f %7.1f%%", m[k].ms, spread_text(m[k].timing).c_str(),
                    static_cast<double>(n) / m[k].ms / 1e6, 100.0 * results[rows.size()][k].ms / m[k].ms);
        ok = ok && m[k].ok;
      }
      std::printf(" | %s\n", !checked ? "-" : check_text(ok));
    };
    for (std::size_t r = 0; r < rows.size(); ++r) print_row(rows[r].label, results[r], rows[r].checked);
    print_row("cub::DeviceHistogram::HistogramEven", results[rows.size()], true);
    const double light_ms = static_cast<double>(n) / copy_gbps / 1e6;
    std::printf("  %-46s", "speed of light: n bytes at the copy bandwidth");
    for (std::size_t k = 0; k < columns; ++k) {
      std::printf(" | %9.3f %7s %7.1f %7.1f%%", light_ms, "", copy_gbps,
                  100.0 * results[rows.size()][k].ms / light_ms);
    }
    std::printf(" |\n\n");

    // --- 2. RGB ------------------------------------------------------------------------------
    {
      const std::size_t pixels = n / 4;
      const auto* image = reinterpret_cast<const std::uint32_t*>(in.data());
      std::printf("2. RGB histogram of %zu RGBA pixels (%d bins): ms, spread, GB/s of input, %% of CUB\n",
                  pixels, histogram::kRgbBins);
      const char* inputs[2] = {"uniform pixels", "one colour"};
      std::printf("  %-46s | %-34s | %-34s | check\n", "variant", inputs[0], inputs[1]);
      Measured ours[2], theirs[2];
      for (int k = 0; k < 2; ++k) {
        fill_bytes<<<blocks_for(n), kFillThreads>>>(in.data(), n, k == 0 ? Kind::uniform : Kind::one_bin);
        CUDA_CHECK_LAUNCH("fill_bytes");
        std::vector<std::uint32_t> expected(histogram::kRgbBins, 0);
        {
          std::vector<std::uint32_t> host_pixels(pixels);
          CUDA_CHECK(
              cudaMemcpy(host_pixels.data(), image, pixels * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
          for (const std::uint32_t pixel : host_pixels) {
            for (int c = 0; c < histogram::kRgbChannels; ++c)
              ++expected[c * kBins + ((pixel >> (8 * c)) & 0xFFu)];
          }
        }
        const auto check = [&]() { return download(bins, histogram::kRgbBins) == expected; };
        histogram::yardstick::CubRgbHistogram cub(image, pixels, out);
        theirs[k] = measure([&](cudaStream_t s) { cub.run(s); }, check);
        ours[k] = measure([&](cudaStream_t s) { histogram::rgb_histogram(image, pixels, out, s); }, check);
      }
      // Each row is also recorded, one table per input: "RGB (uniform pixels)", "RGB (one colour)".
      const auto print = [&](const char* label, const Measured* m) {
        std::printf("  %-46s", label);
        for (int k = 0; k < 2; ++k) {
          record(std::string("RGB (") + inputs[k] + ")", label, pixels, static_cast<double>(n), m[k]);
          std::printf(" | %9.3f %s %7.1f %7.1f%%", m[k].ms, spread_text(m[k].timing).c_str(),
                      static_cast<double>(n) / m[k].ms / 1e6, 100.0 * theirs[k].ms / m[k].ms);
        }
        std::printf(" | %s\n", check_text(m[0].ok && m[1].ok));
      };
      print("rgb_histogram()", ours);
      print("cub::DeviceHistogram::MultiHistogramEven<4, 3>", theirs);
      std::printf("\n");
    }

    // --- 3. 65536 bins -----------------------------------------------------------------------
    {
      const std::size_t values = n / 2;
      const auto* wide = reinterpret_cast<std::uint16_t*>(in.data());
      const Kind wide_kinds[] = {Kind::uniform, Kind::one_bin, Kind::sorted};
      std::printf("3. %d bins over %zu 16-bit values: ms, spread, GB/s of input, %% of CUB\n",
                  histogram::kWideBins, values);
      std::printf("  %-46s", "variant");
      for (const Kind kind : wide_kinds) std::printf(" | %-34s", to_string(kind));
      std::printf(" | check\n");
      const std::vector<std::pair<std::string, std::function<void(cudaStream_t)>>> wide_rows = {
          {"global atomics + __match_any_sync: wide_histogram()",
           [&](cudaStream_t s) { histogram::wide_histogram(wide, values, out, s); }},
      };
      std::vector<std::vector<Measured>> wide_results(wide_rows.size() + 1, std::vector<Measured>(3));
      for (int k = 0; k < 3; ++k) {
        auto* writable = reinterpret_cast<std::uint16_t*>(in.data());
        fill_wide<<<blocks_for(values), kFillThreads>>>(writable, values, wide_kinds[k]);
        CUDA_CHECK_LAUNCH("fill_wide");
        std::vector<std::uint32_t> expected(histogram::kWideBins, 0);
        {
          std::vector<std::uint16_t> host_values(values);
          CUDA_CHECK(
              cudaMemcpy(host_values.data(), wide, values * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
          for (const std::uint16_t value : host_values) ++expected[value];
        }
        const auto check = [&]() { return download(bins, histogram::kWideBins) == expected; };
        histogram::yardstick::CubWideHistogram cub(wide, values, out);
        wide_results[wide_rows.size()][k] = measure([&](cudaStream_t s) { cub.run(s); }, check);
        for (std::size_t r = 0; r < wide_rows.size(); ++r) {
          wide_results[r][k] = measure(wide_rows[r].second, check);
        }
      }
      // Each row is also recorded, one table per input: "65536 bins (uniform)", ...
      const auto print = [&](const std::string& label, const std::vector<Measured>& m) {
        std::printf("  %-46s", label.c_str());
        bool ok = true;
        for (int k = 0; k < 3; ++k) {
          record(std::string("65536 bins (") + to_string(wide_kinds[k]) + ")", label, values,
                 static_cast<double>(n), m[k]);
          std::printf(" | %9.3f %s %7.1f %7.1f%%", m[k].ms, spread_text(m[k].timing).c_str(),
                      static_cast<double>(n) / m[k].ms / 1e6,
                      100.0 * wide_results[wide_rows.size()][k].ms / m[k].ms);
          ok = ok && m[k].ok;
        }
        std::printf(" | %s\n", check_text(ok));
      };
      for (std::size_t r = 0; r < wide_rows.size(); ++r) print(wide_rows[r].first, wide_results[r]);
      print("cub::DeviceHistogram::HistogramEven, 65536 bins", wide_results[wide_rows.size()]);
      std::printf("\n");
    }

    // --- 4. 256 bins by size -----------------------------------------------------------------
    // The sweep's buffers: at most half of the memory free now.
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    sweep(free_bytes / 2);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  if (wrong_results > 0) {
    std::fprintf(stderr, "%d check(s) found a WRONG RESULT\n", wrong_results);
    return 1;
  }
  return 0;
}
