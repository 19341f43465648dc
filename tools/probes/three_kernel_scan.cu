// Lab 07's Then and now leaves one hypothesis untested: that Harris's share of
// the 8800 GTX's peak (19.6 % at 16 bytes an element, 2^24 elements) is low
// because of his block scan, 512-element blocks scanned by the Blelloch tree.
// This probe builds his three-kernel scan from the lab's own pieces and times
// it on the H200 at 2^24 (and 2^20, 2^22): (1) block_scan_blelloch, 256
// threads, 512 elements a block, each block's exclusive scan; (2) each block's
// sum gathered (its last exclusive value plus its last element) and scanned
// with single_pass_scan; (3) each block's offset added to its 512 outputs.
// Kernels 1 and 3 each read and write every element: 16 bytes an element, his
// count. Its share of the peak, set against his 19.6 % and the lab's 61.4 %
// and 52.2 %, sizes what the block scan costs. The sum is checked on the host.
//
// Links the reference solution's library (or yours, if it passes the tests):
//   WORKBOOK_BUILD_TARGET="lab07_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/07-prefix-sum -Icommon/include \
//     -o build/probes/three_kernel_scan tools/probes/three_kernel_scan.cu \
//     build/default/liblab07_solution.a build/default/common/libworkbook_common.a
//   build/probes/three_kernel_scan
#include <cstdio>
#include <vector>

#include "scan.cuh"
#include "three_kernel_parts.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

using namespace three_kernel;

int main() {
  std::printf(
      "lab 07 probe: a three-kernel scan (Harris's design) from the lab's block_scan_blelloch, 512 elements\n"
      "a block; exclusive; workbook::time_gpu, cold L2; share of the 4800 GB/s peak at 16 B an element\n");
  for (const int log2n : {20, 22, 24}) {
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t blocks = (n + kBlockElements - 1) / kBlockElements;
    workbook::DeviceBuffer<int> in(n), out(n), sums(blocks), offsets(blocks);
    scan::LookbackScratch scratch(blocks);
    fill_values<<<grid(n, 256), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill_values");
    const auto three_kernels = [&](cudaStream_t s) {
      scan::launch_block_scan_blelloch(in.data(), out.data(), n, kThreads, s);
      gather_block_sums<<<grid(blocks, 256), 256, 0, s>>>(in.data(), out.data(), n, sums.data(), blocks);
      CUDA_CHECK_LAUNCH("gather_block_sums");
      scan::single_pass_scan(sums.data(), offsets.data(), blocks, scan::ScanKind::exclusive, scratch, s);
      add_block_offsets<<<grid(n, 256), 256, 0, s>>>(out.data(), n, offsets.data());
      CUDA_CHECK_LAUNCH("add_block_offsets");
    };
    const workbook::TimingResult whole = workbook::time_gpu(three_kernels);
    const workbook::TimingResult first = workbook::time_gpu(
        [&](cudaStream_t s) { scan::launch_block_scan_blelloch(in.data(), out.data(), n, kThreads, s); });
    three_kernels(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const bool ok = is_exclusive_scan_of_input(out.to_host());
    const double bytes = 16.0 * static_cast<double>(n);
    std::printf(
        "  2^%d: three kernels %.4f ms, %.1f GB/s at 16 B, %.1f %% of peak (%s); kernel 1 alone %.4f ms, "
        "%.1f %% of the whole\n",
        log2n, whole.median_ms, bytes / whole.median_ms / 1e6,
        100.0 * bytes / whole.median_ms / 1e6 / kPeakGBps, ok ? "ok" : "WRONG", first.median_ms,
        100.0 * first.median_ms / whole.median_ms);
  }
  return 0;
}
