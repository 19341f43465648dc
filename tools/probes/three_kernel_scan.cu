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
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr int kThreads = 256;
constexpr int kBlockElements = 2 * kThreads;  // Harris's 512
constexpr double kPeakGBps = 4800.0;          // H200 data sheet

__global__ void fill_values(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<int>(i % 7) - 3;
}

// Block b's sum: its last exclusive value plus its last element (or the last below n).
__global__ void gather_block_sums(const int* in, const int* out, std::size_t n, int* sums,
                                  std::size_t blocks) {
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  std::size_t last = (b + 1) * kBlockElements - 1;
  if (last >= n) last = n - 1;
  sums[b] = out[last] + in[last];
}

__global__ void add_block_offsets(int* out, std::size_t n, const int* offsets) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] += offsets[i / kBlockElements];
}

unsigned grid(std::size_t count, int threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace

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
    const std::vector<int> got = out.to_host();
    bool ok = true;
    long long running = 0;
    for (std::size_t i = 0; i < n && ok; ++i) {
      ok = got[i] == static_cast<int>(running);
      running += static_cast<int>(i % 7) - 3;
    }
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
