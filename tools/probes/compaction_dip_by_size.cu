// Lab 06's open dip (measurements.md, "The dip at 2^24 is open"): table 4
// keeps about half of n, and compact() falls from 93.4 % of CUB at 2^22 to
// 81.5 % at 2^24, then climbs back. Our hypothesis: from 2^24 on the
// tiles_for(n) counts (4096) outgrow one CountScan block's 2048, so phase (b)
// takes three launches, not one.
//
// This probe times, at each n from 2^21 to 2^26 (keeping about half, the
// experiment's input), with the experiment's timer (workbook::time_gpu, cold
// L2): compact(), each phase alone, and cub::DeviceSelect::If. If the
// hypothesis holds, phase (b) alone jumps between 2^23 and 2^24 by about
// compact()'s loss of share there.
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab06_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/06-compaction -Icommon/include \
//     -c tools/probes/compaction_dip_by_size.cu -o build/probes/compaction_dip_by_size.o
//   nvcc -arch=sm_90 -o build/probes/compaction_dip_by_size build/probes/compaction_dip_by_size.o \
//     build/default/liblab06_solution.a build/default/common/libworkbook_common.a
//   build/probes/compaction_dip_by_size
#include <cstdint>
#include <cstdio>

#include "compaction.cuh"
#include "compaction_input.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using compaction_probe::element;
using compaction_probe::fill_elements;

double median_ms(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 300.0;  // the experiment's budget for table 4
  return workbook::time_gpu(work, options).median_ms;
}

}  // namespace

int main() {
  const compaction::KeepIf keep{compaction::Rule::less_than, 0};
  std::printf(
      "lab 06 probe: compact() by phase against CUB, keeping 50 %%; workbook::time_gpu, cold L2, "
      "budget 300 ms; times in ms\n");
  std::printf("  %10s %6s %9s %9s %9s %9s %9s %9s %9s %8s\n", "n", "tiles", "compact", "(a)", "(b)", "(c)",
              "a+b+c", "CUB", "gap", "%ofCUB");
  for (int log2n = 21; log2n <= 26; ++log2n) {
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t tiles = compaction::tiles_for(n);
    workbook::DeviceBuffer<int> in(n), out(n), cub_out(n);
    workbook::DeviceBuffer<std::uint32_t> count(1), cub_count(1);
    compaction::CompactionScratch scratch(n);
    fill_elements<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n, 50u);
    CUDA_CHECK_LAUNCH("fill_elements");
    CUDA_CHECK(cudaDeviceSynchronize());
    const double whole = median_ms([&](cudaStream_t s) {
      compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), s);
    });
    const double phase_a = median_ms([&](cudaStream_t s) {
      compaction::launch_count_kept_per_tile(in.data(), n, keep, scratch.tile_counts(), s);
    });
    // The scan runs in place, so each call is timed on counts it scanned
    // before: the same number of launches and bytes, other values.
    const double phase_b = median_ms([&](cudaStream_t s) {
      scratch.count_scan().exclusive(scratch.tile_counts(), scratch.tile_counts(), tiles, count.data(), s);
    });
    // Phase (c) needs real offsets: one whole compact() leaves them.
    compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double phase_c = median_ms([&](cudaStream_t s) {
      compaction::launch_scatter_kept(in.data(), n, keep, scratch.tile_counts(), out.data(), s);
    });
    compaction::yardstick::CubSelectIf cub(in.data(), n, keep, cub_out.data(), cub_count.data());
    const double theirs = median_ms([&](cudaStream_t s) { cub.run(s); });
    std::printf("  %10zu %6zu %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %7.1f%%\n", n, tiles, whole, phase_a,
                phase_b, phase_c, phase_a + phase_b + phase_c, theirs, whole - theirs,
                100.0 * theirs / whole);
  }
  std::printf(
      "gap = compact - CUB. One CountScan launch scans at most %zu counts (common/src/count_scan.cu).\n",
      static_cast<std::size_t>(workbook::kCountScanTile));
  return 0;
}
