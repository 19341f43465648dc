// Lab 06's open miss, question 3 of the handout (labs/06-compaction/README.md,
// fold "Ours", Question 3): "phase (c) reads in 0.599 - 0.252 = 0.347 ms what the
// copy reads in 0.257 ms; why is not measured (we probed stalls at 50 %)".
// Measured on an NVIDIA H200, 2026-11-29: labs/06-compaction/figures/ncu-probe.txt,
// the blocks "Follow-up probe (question 3, phase (c) at 0 % kept)".
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab06_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/06-compaction -Icommon/include \
//     -c tools/probes/compaction_phases_by_kept.cu -o build/probes/compaction_phases_by_kept.o
//   nvcc -arch=sm_90 -o build/probes/compaction_phases_by_kept build/probes/compaction_phases_by_kept.o \
//     build/default/liblab06_solution.a build/default/common/libworkbook_common.a
//   build/probes/compaction_phases_by_kept 0 50
// tools/probes/open_misses.sh builds and runs it (and the probes of labs 05 and 09).
// The code is session 37's /tmp/p37/probe37_lab06.cu as measured; only the comments
// above its first #include and the file name changed (the include paths are the -I flags').
//
// Question 3 of the handout: at 0 % kept, how long does phase (c), scatter_kept,
// take alone, and phase (a)? The experiment times the phases alone at 50 % only.
// With the reference solution (liblab06_solution.a) on the experiment's input
// (element i is i, sign bit set when kept, kept with probability p %), n = 2^28,
// keep = x < 0, for each p given (default 0 50):
//   compact() once (phases a, b, c), then phase (c) alone once from the offsets it
//   left (as the experiment's "phase (c) alone"); then, unless "once", the
//   experiment's timings (workbook::time_gpu, cold L2) of compact(), phase (a)
//   alone and phase (c) alone.
// Usage: compaction_phases_by_kept [once] [p ...]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compaction.cuh"
#include "compaction_input.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using compaction_probe::element;
using compaction_probe::fill_elements;

}  // namespace

int main(int argc, char** argv) {
  bool once = false;
  std::vector<unsigned> percents;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "once") == 0) {
      once = true;
    } else {
      percents.push_back(static_cast<unsigned>(std::atoi(argv[a])));
    }
  }
  if (percents.empty()) percents = {0u, 50u};
  const std::size_t n = std::size_t{1} << 28;
  const compaction::KeepIf keep{compaction::Rule::less_than, 0};
  workbook::DeviceBuffer<int> in(n), out(n);
  workbook::DeviceBuffer<std::uint32_t> count(1);
  compaction::CompactionScratch scratch(n);
  if (!once)
    std::printf("lab 06 probe: n = 2^28 ints, keep x < 0; workbook::time_gpu, cold L2, budget 1000 ms\n");
  for (const unsigned p : percents) {
    fill_elements<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n, p);
    CUDA_CHECK(cudaDeviceSynchronize());
    compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), nullptr);
    compaction::launch_scatter_kept(in.data(), n, keep, scratch.tile_counts(), out.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::uint32_t kept = count.to_host()[0];
    if (once) continue;
    workbook::TimingOptions options;
    options.time_budget_ms = 1000.0;
    const workbook::TimingResult whole = workbook::time_gpu(
        [&](cudaStream_t s) {
          compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), s);
        },
        options);
    const workbook::TimingResult phase_a = workbook::time_gpu(
        [&](cudaStream_t s) {
          compaction::launch_count_kept_per_tile(in.data(), n, keep, scratch.tile_counts(), s);
        },
        options);
    compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), nullptr);
    const workbook::TimingResult phase_c = workbook::time_gpu(
        [&](cudaStream_t s) {
          compaction::launch_scatter_kept(in.data(), n, keep, scratch.tile_counts(), out.data(), s);
        },
        options);
    const double read_gb = static_cast<double>(n) * sizeof(int) / 1e9;
    const double write_gb = static_cast<double>(kept) * sizeof(int) / 1e9;
    std::printf("  %3u %% kept (%u elements)\n", p, kept);
    std::printf("    compact()                    %8.4f ms  %s\n", whole.median_ms, whole.summary().c_str());
    std::printf("    phase (a) count_kept_per_tile %8.4f ms  %s  (%.1f GB/s of reads)\n", phase_a.median_ms,
                phase_a.summary().c_str(), read_gb / phase_a.median_ms * 1e3);
    std::printf("    phase (c) scatter_kept        %8.4f ms  %s  (%.1f GB/s of reads + writes)\n",
                phase_c.median_ms, phase_c.summary().c_str(), (read_gb + write_gb) / phase_c.median_ms * 1e3);
    std::printf("    compact() - phase (a) - phase (c) = %.4f ms (the scan and the gaps)\n",
                whole.median_ms - phase_a.median_ms - phase_c.median_ms);
  }
  return 0;
}
