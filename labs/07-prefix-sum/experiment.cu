// Lab 07 experiment: how fast is each way of scanning an array?
//   ./workbook bench prefix-sum
// Prints the copy bandwidth first (the yardstick of the handout's prediction),
// then two tables:
//   1. Exclusive scans of 2^28 int32 (1 GiB): the lab's reduce-then-scan and
//      single-pass scans, and cub::DeviceScan::ExclusiveSum, as time, GB/s and
//      a ratio to CUB. The handout's naive row (Hillis-Steele over global
//      memory, one kernel per step) is not here: its step would be your TODO(3)
//      in global memory. `./workbook bench prefix-sum --solution` adds it in
//      the full repository, and the handout quotes it.
//   2. The lab's two scans and CUB at 2^10, 2^12, ..., 2^28 elements: how each
//      scan's time changes with n (the handout's table question 4).
// Rates count 8 bytes per element (one read, one write). Times are medians
// with the spread of the samples (their interquartile range over the median).
// Every result is checked against the host, so a fast wrong kernel is
// flagged, and a wrong one makes the program exit with 1. Under ./workbook
// bench --all every timed row is also recorded for the charts.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "scan.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

// The sweep of table 2: 2^10, 2^12, ..., 2^28 elements.
constexpr int kSweepFromLog2 = 10;
constexpr int kSweepToLog2 = 28;
constexpr int kSweepStepLog2 = 2;

// Every failed check, so that main() can exit non-zero after printing every
// table: ./workbook bench --all then reports the lab as failed.
int wrong_results = 0;

// Inputs in [-7, 7] from a hash of the index: no prefix of 2^28 of them overflows.
__host__ __device__ int value_at(std::uint64_t i) {
  return static_cast<int>(workbook::hash_index(i) % 15u) - 7;
}

__global__ void fill(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = value_at(i);
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + 255) / 256);
}

struct Measured {
  double ms = 0;                  // the median
  double gbps = 0;                // 8 bytes per element over the median
  workbook::TimingResult timing;  // with the spread, for the tables and ./workbook bench --all's charts
};

Measured measure(std::size_t n, const std::function<void(cudaStream_t)>& work,
                 const workbook::TimingOptions& options = {}) {
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, workbook::gigabytes_per_second(8.0 * static_cast<double>(n), timing.median_ms),
          timing};
}

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const std::string& implementation, std::size_t n, const Measured& m) {
  workbook::record("07-prefix-sum", {table, implementation, n, m.timing, m.gbps, "GB/s"});
}

using workbook::spread_text;

// "ok" or "WRONG RESULT" for a check column; a wrong result is counted.
const char* check_text(bool ok) {
  if (!ok) ++wrong_results;
  return ok ? "ok" : "WRONG RESULT";
}

// Whether out holds the exclusive scan of value_at(0 .. n-1).
bool check(const DeviceBuffer<int>& out, std::size_t n) {
  const std::vector<int> got = out.to_host();
  int running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (got[i] != running) return false;
    running += value_at(i);
  }
  return true;
}

// Prints the row and records it in table 1 ("whole array") with n elements.
void print_row(const std::string& label, std::size_t n, const Measured& m, double cub_gbps, bool ok) {
  record("whole array", label, n, m);
  std::printf("  %-52s %9.3f %s %9.1f %9.1f%%   %s\n", label.c_str(), m.ms, spread_text(m.timing).c_str(),
              m.gbps, 100.0 * m.gbps / cub_gbps, check_text(ok));
}

void compare_all(std::size_t n) {
  DeviceBuffer<int> in(n), out(n), cub_out(n);
  fill<<<blocks_for(n), 256>>>(in.data(), n);
  CUDA_CHECK_LAUNCH("fill");
  DeviceBuffer<int> block_sums(scan::kMaxGridBlocks);
  scan::LookbackScratch scratch(n);
  scan::yardstick::CubExclusiveSum cub(in.data(), cub_out.data(), n);

  const Measured theirs = measure(n, [&](cudaStream_t stream) { cub.run(stream); });
  std::printf("Exclusive scan of %zu int32 (%.0f MiB):\n", n,
              static_cast<double>(n * sizeof(int)) / (1 << 20));
  std::printf("  %-52s %9s %7s %9s %10s   %s\n", "variant", "ms", "spread", "GB/s", "% of CUB", "check");
  out.fill_bytes(0x7F);
  const Measured rts = measure(n, [&](cudaStream_t stream) {
    scan::reduce_then_scan(in.data(), out.data(), n, scan::ScanKind::exclusive, block_sums.data(), stream);
  });
  print_row("reduce_then_scan (3 kernels, reads the input twice)", n, rts, theirs.gbps, check(out, n));
  out.fill_bytes(0x7F);
  const Measured single = measure(n, [&](cudaStream_t stream) {
    scan::single_pass_scan(in.data(), out.data(), n, scan::ScanKind::exclusive, scratch, stream);
  });
  print_row("single_pass_scan (decoupled look-back)", n, single, theirs.gbps, check(out, n));
  print_row("cub::DeviceScan::ExclusiveSum", n, theirs, theirs.gbps, check(cub_out, n));
  std::printf("\n");
}

// Table 2: the lab's two scans and CUB from a few tiles to far beyond L2,
// every output checked against the host.
void sweep(std::size_t max_bytes) {
  const char* table = "by size";
  std::printf(
      "Reduce-then-scan, single pass and CUB by size (exclusive, int32): ms, spread, GB/s, %% of CUB\n");
  std::printf("  %12s | %-36s | %-36s | %-27s | %s\n", "", "reduce_then_scan", "single_pass_scan",
              "cub::DeviceScan::ExclusiveSum", "check");
  std::printf("  %12s | %10s %7s %8s %8s | %10s %7s %8s %8s | %10s %7s %8s |\n", "n", "ms", "spread", "GB/s",
              "% of CUB", "ms", "spread", "GB/s", "% of CUB", "ms", "spread", "GB/s");
  // A shorter time budget than table 1's: ten sizes, three scans each.
  workbook::TimingOptions options;
  options.time_budget_ms = 300.0;
  // The input, one output for the lab's scans and one for CUB: 12 bytes per
  // element (the look-back scratch and the block sums are small).
  for (const std::size_t n :
       workbook::sweep_sizes(kSweepFromLog2, kSweepToLog2, kSweepStepLog2, 3 * sizeof(int), max_bytes)) {
    DeviceBuffer<int> in(n), out(n), cub_out(n);
    fill<<<blocks_for(n), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill");
    DeviceBuffer<int> block_sums(scan::kMaxGridBlocks);
    scan::LookbackScratch scratch(n);
    scan::yardstick::CubExclusiveSum cub(in.data(), cub_out.data(), n);
    out.fill_bytes(0x7F);
    const Measured rts = measure(
        n,
        [&](cudaStream_t stream) {
          scan::reduce_then_scan(in.data(), out.data(), n, scan::ScanKind::exclusive, block_sums.data(),
                                 stream);
        },
        options);
    bool ok = check(out, n);
    out.fill_bytes(0x7F);
    const Measured single = measure(
        n,
        [&](cudaStream_t stream) {
          scan::single_pass_scan(in.data(), out.data(), n, scan::ScanKind::exclusive, scratch, stream);
        },
        options);
    ok = check(out, n) && ok;
    const Measured theirs = measure(
        n, [&](cudaStream_t stream) { cub.run(stream); }, options);
    ok = check(cub_out, n) && ok;
    record(table, "reduce_then_scan", n, rts);
    record(table, "single_pass_scan", n, single);
    record(table, "cub::DeviceScan::ExclusiveSum", n, theirs);
    std::printf(
        "  %12zu | %10.4f %s %8.1f %7.1f%% | %10.4f %s %8.1f %7.1f%% | %10.4f %s %8.1f | "
        "%s\n",
        n, rts.ms, spread_text(rts.timing).c_str(), rts.gbps, 100.0 * rts.gbps / theirs.gbps, single.ms,
        spread_text(single.timing).c_str(), single.gbps, 100.0 * single.gbps / theirs.gbps, theirs.ms,
        spread_text(theirs.timing).c_str(), theirs.gbps, check_text(ok));
  }
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    std::printf("GPU: %s\n", workbook::describe(workbook::current_device_info()).c_str());
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    std::printf("Reduce-then-scan: tiles of %d ints (%d threads x %d items), at most %d blocks at 2^28.\n",
                scan::kTileSize, scan::kThreadsPerBlock, scan::kItemsPerThread,
                scan::reduce_then_scan_blocks(std::size_t{1} << 28));
    std::printf("Single pass: tiles of %d elements (%d threads x %d items, %d-int loads).\n",
                scan::kSinglePassTileSize, scan::kSinglePassThreads, scan::kSinglePassItems,
                scan::kVectorWidth);
    std::printf("Rates count 8 bytes per element (read + write); timings are medians with a cold L2.\n\n");
    // 2^28 ints; fewer on a GPU with little memory, by the rule of the reference's
    // comparison (its naive scan needs 5 arrays of n ints, and the rule leaves room
    // for a sixth), so that both time the same n.
    std::size_t n = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 6 * n * sizeof(int) > free_bytes / 4 * 3) n /= 2;
    compare_all(n);
    // The sweep's buffers: at most half of the memory free now (table 1's are freed).
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    sweep(free_bytes / 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "experiment failed: %s\n", e.what());
    return 1;
  }
  if (wrong_results > 0) {
    std::fprintf(stderr, "%d check(s) found a WRONG RESULT\n", wrong_results);
    return 1;
  }
  return 0;
}
