// Lab 06 experiment: what does order cost, and how close do three phases come to CUB?
//   ./workbook bench compaction
// Prints four tables:
//   1. Keeping half of n = 2^28 ints: a naive stable compaction written here
//      (one thread per element: a 0/1 flag per element, workbook::CountScan
//      over all n flags, a scatter), the lab's three-phase compact(), its
//      compact_unordered() (one atomic per warp), and cub::DeviceSelect::If,
//      each with ms, GB/s, % of CUB and the bytes each moves per element;
//      and phases (a) and (c) of compact() timed alone.
//   2. compact(), compact_unordered() and CUB when 0 %, 10 %, 50 %, 90 % and
//      100 % of the elements are kept: the byte count of each method at work.
//   3. How much order the unordered compaction loses.
//   4. compact() and CUB keeping half of n = 2^10 ... 2^28 ints: where launch
//      latency ends and memory bandwidth begins.
// The input's value encodes its own index (value = index, with the sign bit
// set on the elements to keep), so the order of any output can be read off
// its values. Rates count the bytes any compaction must move: every element
// read once, every kept element written once. Times are medians with the
// spread of the samples (their interquartile range over the median). Every
// result is checked; a wrong one makes the program exit with 1. Under
// ./workbook bench --all every timed row is also recorded for the charts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "compaction.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/count_scan.cuh"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using compaction::KeepIf;
using workbook::DeviceBuffer;

constexpr int kThreads = 256;

// The sweep of table 4: 2^10, 2^12, ..., 2^28 elements, half of them kept.
constexpr int kSweepFromLog2 = 10;
constexpr int kSweepToLog2 = 28;
constexpr int kSweepStepLog2 = 2;
constexpr unsigned kSweepPercent = 50;

// Every failed check, so that main() can exit non-zero after printing every
// table: ./workbook bench --all then reports the lab as failed.
int wrong_results = 0;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// ---- the input: element i is i itself, negative (sign bit set) when it is to be kept ----

// Kept with probability percent / 100, at random positions; keep = "x < 0".
__host__ __device__ int element(std::size_t i, unsigned percent) {
  const bool kept =
      static_cast<std::uint64_t>(workbook::hash_index(i)) * 100u < static_cast<std::uint64_t>(percent) << 32;
  return static_cast<int>(static_cast<std::uint32_t>(i) | (kept ? 0x80000000u : 0u));
}

int index_of(int value) {
  return value & 0x7FFFFFFF;
}

__global__ void fill_elements(int* data, std::size_t n, unsigned percent) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = element(i, percent);
}

// ---- the naive stable compaction: one thread per element, a global scan between kernels ----

__global__ void flag_kept(const int* in, std::size_t n, KeepIf keep, std::uint32_t* flags) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = keep(in[i]) ? 1u : 0u;
}

__global__ void scatter_flagged(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* offsets,
                                int* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int value = in[i];
  if (keep(value)) out[offsets[i]] = value;
}

// Reads in, writes n flags, scans them in place (CountScan reads them twice
// and writes them once), then reads in and the offsets again and writes the
// kept elements: 4 + 4 + 12 + 8 + 4f bytes per element.
void compact_naive(const int* in, std::size_t n, KeepIf keep, int* out, std::uint32_t* flags,
                   workbook::CountScan& scan, std::uint32_t* kept_count, cudaStream_t stream) {
  flag_kept<<<blocks_for(n), kThreads, 0, stream>>>(in, n, keep, flags);
  CUDA_CHECK_LAUNCH("flag_kept");
  scan.exclusive(flags, flags, n, kept_count, stream);
  scatter_flagged<<<blocks_for(n), kThreads, 0, stream>>>(in, n, keep, flags, out);
  CUDA_CHECK_LAUNCH("scatter_flagged");
}

// ---- measuring and printing ----

struct Measured {
  double ms = 0;                  // the median
  double gbps = 0;                // bytes over the median
  workbook::TimingResult timing;  // with the spread, for the tables and ./workbook bench --all's charts
};

Measured measure(const std::function<void(cudaStream_t)>& work, double bytes,
                 double time_budget_ms = 2000.0) {
  workbook::TimingOptions options;
  options.time_budget_ms = time_budget_ms;
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, workbook::gigabytes_per_second(bytes, timing.median_ms), timing};
}

// A row for ./workbook bench --all's charts (nothing happens without
// $WORKBOOK_BENCH_CSV). A phase row's indentation is layout, not part of its name.
void record(const char* table, const std::string& label, std::size_t n, const Measured& m) {
  const std::string implementation = label.substr(label.find_first_not_of(' '));
  workbook::record("06-compaction", {table, implementation, n, m.timing, m.gbps, "GB/s"});
}

using workbook::spread_text;

// "ok" (or @p wrong) for a check column; a wrong result is counted.
const char* check_text(bool ok, const char* wrong = "WRONG RESULT") {
  if (!ok) ++wrong_results;
  return ok ? "ok" : wrong;
}

std::uint32_t read_count(const DeviceBuffer<std::uint32_t>& count) {
  return count.to_host()[0];
}

// The first `count` elements of a device array.
std::vector<int> download(const DeviceBuffer<int>& buffer, std::size_t count) {
  std::vector<int> host(count);
  if (count > 0)
    CUDA_CHECK(cudaMemcpy(host.data(), buffer.data(), count * sizeof(int), cudaMemcpyDeviceToHost));
  return host;
}

// The expected stable output of element(i, percent), i < n, kept when negative.
std::vector<int> expected_output(std::size_t n, unsigned percent) {
  std::vector<int> kept;
  kept.reserve(n / 100 * percent + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const int value = element(i, percent);
    if (value < 0) kept.push_back(value);
  }
  return kept;
}

// The unordered output holds each kept element once: as indices they are a
// permutation of the expected ones. Sorting both decides it.
bool same_elements(std::vector<int> got, std::vector<int> expected) {
  if (got.size() != expected.size()) return false;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  return got == expected;
}

void print_header() {
  std::printf("  %-58s %9s %7s %9s %9s %9s   %s\n", "variant", "ms", "spread", "GB/s", "% of CUB", "B/elem",
              "check");
}

// "% of CUB" is CUB's time over this row's time: the speed relative to CUB.
// The row is also recorded in table 1 ("half kept") with n elements.
void print_row(const std::string& label, std::size_t n, const Measured& m, double cub_ms,
               double bytes_per_element, bool ok) {
  record("half kept", label, n, m);
  std::printf("  %-58s %9.3f %s %9.1f %8.1f%% %9.1f   %s\n", label.c_str(), m.ms,
              spread_text(m.timing).c_str(), m.gbps, 100.0 * cub_ms / m.ms, bytes_per_element,
              check_text(ok));
}

// Table 4: compact() and its yardstick on n = 2^10 ... 2^28 elements, half of
// them kept, each output checked against the host's: at small n a compaction
// is a few launches and a look at a few tiles, at large n a stream through DRAM.
void sweep(std::size_t max_bytes) {
  const char* table = "by size";
  const KeepIf keep{compaction::Rule::less_than, 0};
  std::printf("4. compact() and CUB by n, keeping %u %% of the elements: ms, spread, GB/s\n", kSweepPercent);
  std::printf("  %12s %12s %7s %9s %12s %7s %9s %9s   %s\n", "n", "compact ms", "spread", "GB/s", "CUB ms",
              "spread", "GB/s", "% of CUB", "check");
  // The input and the two outputs: 12 bytes per element (the scratch and CUB's storage are small).
  for (const std::size_t n :
       workbook::sweep_sizes(kSweepFromLog2, kSweepToLog2, kSweepStepLog2, 3 * sizeof(int), max_bytes)) {
    DeviceBuffer<int> in(n), out(n), cub_out(n);
    DeviceBuffer<std::uint32_t> count(1), cub_count(1);
    compaction::CompactionScratch scratch(n);
    fill_elements<<<blocks_for(n), kThreads>>>(in.data(), n, kSweepPercent);
    CUDA_CHECK_LAUNCH("fill_elements");
    const std::vector<int> want = expected_output(n, kSweepPercent);
    const double bytes = (static_cast<double>(n) + static_cast<double>(want.size())) * sizeof(int);
    // A shorter time budget than the other tables': ten sizes, two compactions each.
    const double budget_ms = 300.0;
    out.fill_bytes(0x7F);
    const Measured ours = measure(
        [&](cudaStream_t stream) {
          compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), stream);
        },
        bytes, budget_ms);
    compaction::yardstick::CubSelectIf cub(in.data(), n, keep, cub_out.data(), cub_count.data());
    cub_out.fill_bytes(0x7F);
    const Measured theirs = measure([&](cudaStream_t stream) { cub.run(stream); }, bytes, budget_ms);
    const bool ok = read_count(count) == want.size() && download(out, want.size()) == want &&
                    read_count(cub_count) == want.size() && download(cub_out, want.size()) == want;
    record(table, "three phases: compact()", n, ours);
    record(table, "cub::DeviceSelect::If", n, theirs);
    std::printf("  %12zu %12.4f %s %9.1f %12.4f %s %9.1f %8.1f%%   %s\n", n, ours.ms,
                spread_text(ours.timing).c_str(), ours.gbps, theirs.ms, spread_text(theirs.timing).c_str(),
                theirs.gbps, 100.0 * theirs.ms / ours.ms, check_text(ok));
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
    std::printf("Tiles of %d elements: %d threads per block, %d items per thread\n", compaction::kTileSize,
                compaction::kThreadsPerBlock, compaction::kItemsPerThread);
    std::printf(
        "Rates count 4 bytes read per element and 4 written per kept element; B/elem is what each method\n"
        "moves in DRAM by design, with f the kept fraction. The yardstick is cub::DeviceSelect::If.\n\n");

    // While the naive version runs, 16 bytes per element are in use at once
    // (input, output, the unordered output, the naive flags), and a little more
    // for the scans; on a GPU with little memory n is halved until they fit.
    std::size_t n = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 17 * n > free_bytes / 4 * 3) n /= 2;
    const KeepIf keep{compaction::Rule::less_than, 0};

    DeviceBuffer<int> in(n);
    DeviceBuffer<int> out(n);
    DeviceBuffer<std::uint32_t> count(1);
    compaction::CompactionScratch scratch(n);
    DeviceBuffer<int> unordered_out(n);

    // --- 1. half kept, every method -------------------------------------------------------------
    {
      const unsigned percent = 50;
      fill_elements<<<blocks_for(n), kThreads>>>(in.data(), n, percent);
      CUDA_CHECK_LAUNCH("fill_elements");
      const std::vector<int> expected = expected_output(n, percent);
      const double f = static_cast<double>(expected.size()) / static_cast<double>(n);
      const double bytes = (static_cast<double>(n) + static_cast<double>(expected.size())) * sizeof(int);
      const auto stable_ok = [&]() {
        return read_count(count) == expected.size() && download(out, expected.size()) == expected;
      };

      compaction::yardstick::CubSelectIf cub(in.data(), n, keep, out.data(), count.data());
      out.fill_bytes(0x7F);
      const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); }, bytes);
      const bool cub_ok = stable_ok();

      std::printf("1. Keep the negative elements of n = %zu ints (%.0f MB): %.2f %% kept\n", n,
                  static_cast<double>(n) * sizeof(int) / 1.0e6, 100.0 * f);
      print_header();
      {
        DeviceBuffer<std::uint32_t> flags(n);
        workbook::CountScan scan(n);
        out.fill_bytes(0x7F);
        const Measured m = measure(
            [&](cudaStream_t stream) {
              compact_naive(in.data(), n, keep, out.data(), flags.data(), scan, count.data(), stream);
            },
            bytes);
        print_row("naive: flags, CountScan of n flags, scatter", n, m, cub_rate.ms, 28.0 + 4.0 * f,
                  stable_ok());
      }
      out.fill_bytes(0x7F);
      const Measured stable = measure(
          [&](cudaStream_t stream) {
            compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), stream);
          },
          bytes);
      print_row("three phases: compact()", n, stable, cub_rate.ms, 8.0 + 4.0 * f, stable_ok());
      // The phases one at a time (the offsets left by the last compact() are still in the scratch).
      const Measured count_phase = measure(
          [&](cudaStream_t stream) {
            compaction::launch_count_kept_per_tile(in.data(), n, keep, scratch.tile_counts(), stream);
          },
          static_cast<double>(n) * sizeof(int));
      // Rows for a phase alone count that phase's own bytes in GB/s.
      print_row("  phase (a) alone: count_kept_per_tile", n, count_phase, cub_rate.ms, 4.0, true);
      compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), nullptr);
      out.fill_bytes(0x7F);
      const Measured scatter_phase = measure(
          [&](cudaStream_t stream) {
            compaction::launch_scatter_kept(in.data(), n, keep, scratch.tile_counts(), out.data(), stream);
          },
          bytes);
      print_row("  phase (c) alone: scatter_kept", n, scatter_phase, cub_rate.ms, 4.0 + 4.0 * f, stable_ok());
      const Measured unordered = measure(
          [&](cudaStream_t stream) {
            compaction::compact_unordered(in.data(), n, keep, unordered_out.data(), count.data(), stream);
          },
          bytes);
      const bool unordered_ok = read_count(count) == expected.size() &&
                                same_elements(download(unordered_out, expected.size()), expected);
      print_row("one pass, one atomic per warp: compact_unordered()", n, unordered, cub_rate.ms,
                4.0 + 4.0 * f, unordered_ok);
      print_row("cub::DeviceSelect::If", n, cub_rate, cub_rate.ms, 4.0 + 4.0 * f, cub_ok);
      std::printf("\n");

      // --- 3 (measured here, printed last). How much order does the unordered output lose? ----
      const std::vector<int> got = download(unordered_out, expected.size());
      std::size_t displaced = 0, descents = 0;
      for (std::size_t j = 0; j < got.size(); ++j) {
        if (got[j] != expected[j]) ++displaced;
        if (j + 1 < got.size() && index_of(got[j]) > index_of(got[j + 1])) ++descents;
      }
      const std::size_t pairs = got.size() > 1 ? got.size() - 1 : 1;

      // --- 2. the kept fraction -----------------------------------------------------------------
      std::printf(
          "2. The same n, keeping 0 %% to 100 %% of the elements (ms, spread; %% of CUB in brackets)\n");
      std::printf("  %8s %29s %29s %20s %16s\n", "kept", "compact()", "compact_unordered()", "CUB",
                  "check (c, u, CUB)");
      for (const unsigned p : {0u, 10u, 50u, 90u, 100u}) {
        fill_elements<<<blocks_for(n), kThreads>>>(in.data(), n, p);
        CUDA_CHECK_LAUNCH("fill_elements");
        const std::vector<int> want = expected_output(n, p);
        const double b = (static_cast<double>(n) + static_cast<double>(want.size())) * sizeof(int);
        compaction::yardstick::CubSelectIf cub_p(in.data(), n, keep, out.data(), count.data());
        const Measured c = measure([&](cudaStream_t stream) { cub_p.run(stream); }, b);
        const bool c_ok = read_count(count) == want.size() && download(out, want.size()) == want;
        const Measured s = measure(
            [&](cudaStream_t stream) {
              compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), stream);
            },
            b);
        const bool s_ok = read_count(count) == want.size() && download(out, want.size()) == want;
        const Measured u = measure(
            [&](cudaStream_t stream) {
              compaction::compact_unordered(in.data(), n, keep, unordered_out.data(), count.data(), stream);
            },
            b);
        const bool u_ok =
            read_count(count) == want.size() && same_elements(download(unordered_out, want.size()), want);
        // Recorded in table "kept fraction", one implementation per method and fraction (one n).
        const std::string kept = " at " + std::to_string(p) + "% kept";
        record("kept fraction", "compact()" + kept, n, s);
        record("kept fraction", "compact_unordered()" + kept, n, u);
        record("kept fraction", "cub::DeviceSelect::If" + kept, n, c);
        std::printf("  %7u%% %12.3f %s (%5.1f%%) %12.3f %s (%5.1f%%) %12.3f %s %8s %s %s\n", p, s.ms,
                    spread_text(s.timing).c_str(), 100.0 * c.ms / s.ms, u.ms, spread_text(u.timing).c_str(),
                    100.0 * c.ms / u.ms, c.ms, spread_text(c.timing).c_str(), check_text(s_ok, "WRONG"),
                    check_text(u_ok, "WRONG"), check_text(c_ok, "WRONG"));
      }
      std::printf("\n");

      std::printf("3. Order lost by compact_unordered() in table 1 (%zu kept elements)\n", got.size());
      std::printf(
          "  elements not at their stable position:      %12zu (%.1f %%)\n", displaced,
          100.0 * static_cast<double>(displaced) / static_cast<double>(std::max<std::size_t>(got.size(), 1)));
      std::printf("  adjacent output pairs out of input order:   %12zu (%.2f %%)\n", descents,
                  100.0 * static_cast<double>(descents) / static_cast<double>(pairs));
      std::printf("  mean run in input order between two breaks: %12.1f elements\n",
                  static_cast<double>(got.size()) / static_cast<double>(descents + 1));
      std::printf("  first output indices: ");
      for (std::size_t j = 0; j < std::min<std::size_t>(got.size(), 8); ++j)
        std::printf("%d ", index_of(got[j]));
      std::printf("...\n\n");
    }

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
