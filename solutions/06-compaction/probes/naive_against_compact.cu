// Lab 06's Then and now quotes one old pair of times, from seminar slides that
// present Billeter, Olsson and Assarsson's compaction: 4M elements on a GTX 280
// in 0.56 ms for their method and 1.81 ms for CUDPP's (a flag per element, a
// scan of the flags, a scatter), 3.2 times as long. The experiment's naive row
// is built the same way as CUDPP's, and compact() the same way as theirs, but
// table 1 times the naive row at 2^28 only. This probe times both, keeping
// about half, at 2^20, 2^22 (4M) and 2^24 to 2^28 elements, so the ratio can
// be set beside the slides' at the same size.
//
// CUDPP's compactArray() takes the flags as its input, so its 1.81 ms covers
// the scan and the scatter only (about 22 B an element). The third column
// times that part alone: the flags are written once, outside the timing, and
// the scatter reads them (as CUDPP's does) instead of testing the value again.
//
// The naive compaction is the experiment's (labs/06-compaction/experiment.cu,
// compact_naive), copied here; compact() is the reference solution's. Both
// outputs are checked against the host's. Timer: workbook::time_gpu, cold L2,
// the experiment's 2 s budget; times are medians.
//
// Links the reference solution's library, so it lives beside the solutions;
// from the repository root:
//   WORKBOOK_BUILD_TARGET="lab06_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/06-compaction -Icommon/include \
//     -c solutions/06-compaction/probes/naive_against_compact.cu -o build/probes/naive_against_compact.o
//   nvcc -arch=sm_90 -o build/probes/naive_against_compact build/probes/naive_against_compact.o \
//     build/default/liblab06_solution.a build/default/common/libworkbook_common.a
//   build/probes/naive_against_compact
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "../../../tools/probes/compaction_input.cuh"
#include "compaction.cuh"
#include "workbook/buffers.hpp"
#include "workbook/count_scan.cuh"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using compaction_probe::element;
using compaction_probe::fill_elements;

using compaction::KeepIf;

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// ---- the experiment's naive stable compaction, as CUDPP built one: flags, a scan, a scatter ----

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

void compact_naive(const int* in, std::size_t n, KeepIf keep, int* out, std::uint32_t* flags,
                   workbook::CountScan& scan, std::uint32_t* kept_count, cudaStream_t stream) {
  flag_kept<<<blocks_for(n), kThreads, 0, stream>>>(in, n, keep, flags);
  CUDA_CHECK_LAUNCH("flag_kept");
  scan.exclusive(flags, flags, n, kept_count, stream);
  scatter_flagged<<<blocks_for(n), kThreads, 0, stream>>>(in, n, keep, flags, out);
  CUDA_CHECK_LAUNCH("scatter_flagged");
}

// CUDPP's shape: the flags are an input; scan them, then scatter where a flag is set.
__global__ void scatter_by_flags(const int* in, std::size_t n, const std::uint32_t* flags,
                                 const std::uint32_t* offsets, int* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && flags[i] != 0u) out[offsets[i]] = in[i];
}

void scan_and_scatter(const int* in, std::size_t n, const std::uint32_t* flags, std::uint32_t* offsets,
                      int* out, workbook::CountScan& scan, std::uint32_t* kept_count, cudaStream_t stream) {
  scan.exclusive(flags, offsets, n, kept_count, stream);
  scatter_by_flags<<<blocks_for(n), kThreads, 0, stream>>>(in, n, flags, offsets, out);
  CUDA_CHECK_LAUNCH("scatter_by_flags");
}

double median_ms(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;  // the experiment's budget for table 1
  return workbook::time_gpu(work, options).median_ms;
}

// The kept elements in input order, as every stable compaction must write them.
std::vector<int> expected_output(std::size_t n, unsigned percent) {
  std::vector<int> kept;
  for (std::size_t i = 0; i < n; ++i) {
    const int value = element(i, percent);
    if (value < 0) kept.push_back(value);
  }
  return kept;
}

bool output_ok(const workbook::DeviceBuffer<int>& out, const workbook::DeviceBuffer<std::uint32_t>& count,
               const std::vector<int>& expected) {
  if (count.to_host()[0] != expected.size()) return false;
  std::vector<int> got(expected.size());
  CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return got == expected;
}

}  // namespace

int main() {
  const KeepIf keep{compaction::Rule::less_than, 0};
  const unsigned percent = 50;
  std::printf("GPU: %s\n", workbook::describe(workbook::current_device_info()).c_str());
  std::printf(
      "lab 06 probe: the naive compaction (flags, CountScan, scatter) against compact(), keeping 50 %%;\n"
      "workbook::time_gpu, cold L2, budget 2 s; medians in ms\n");
  std::printf("  %10s %10s %12s %10s %8s %8s %7s\n", "n", "naive", "scan+scatter", "compact()", "ratio",
              "ratio2", "check");
  int wrong = 0;
  for (const int log2n : {20, 22, 24, 26, 28}) {
    const std::size_t n = std::size_t{1} << log2n;
    workbook::DeviceBuffer<int> in(n), out(n);
    workbook::DeviceBuffer<std::uint32_t> flags(n), given_flags(n), offsets(n), count(1);
    workbook::CountScan scan(n);
    compaction::CompactionScratch scratch(n);
    fill_elements<<<blocks_for(n), kThreads>>>(in.data(), n, percent);
    CUDA_CHECK_LAUNCH("fill_elements");
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<int> expected = expected_output(n, percent);

    const double naive = median_ms([&](cudaStream_t s) {
      compact_naive(in.data(), n, keep, out.data(), flags.data(), scan, count.data(), s);
    });
    const bool naive_ok = output_ok(out, count, expected);
    out.fill_bytes(0x7F);
    flag_kept<<<blocks_for(n), kThreads>>>(in.data(), n, keep, given_flags.data());
    CUDA_CHECK_LAUNCH("flag_kept");
    const double scan_scatter = median_ms([&](cudaStream_t s) {
      scan_and_scatter(in.data(), n, given_flags.data(), offsets.data(), out.data(), scan, count.data(), s);
    });
    const bool scan_scatter_ok = output_ok(out, count, expected);
    out.fill_bytes(0x7F);
    const double ours = median_ms([&](cudaStream_t s) {
      compaction::compact(in.data(), n, keep, out.data(), scratch, count.data(), s);
    });
    const bool ours_ok = output_ok(out, count, expected);
    const bool all_ok = naive_ok && scan_scatter_ok && ours_ok;
    if (!all_ok) ++wrong;
    std::printf("  %10zu %10.4f %12.4f %10.4f %8.2f %8.2f %7s\n", n, naive, scan_scatter, ours, naive / ours,
                scan_scatter / ours, all_ok ? "ok" : "WRONG");
  }
  std::printf(
      "ratio = naive / compact(); ratio2 = scan+scatter (flags given, CUDPP's shape) / compact();\n"
      "the slides' GTX 280 pair at 4M: 1.81 / 0.56 = 3.2\n");
  return wrong == 0 ? 0 : 1;
}
