// Lab 07's Then and now splits Harris's 2007 scan against ours into the design
// (three kernels around a Blelloch block scan, measured on the H200 by
// tools/probes/three_kernel_scan.cu: 26.1 % of peak at 2^24) and the rest. The
// lab's block_scan_blelloch lacks his padding against bank conflicts
// (CONFLICT_FREE_OFFSET: one int of padding every 16 on the G80's 16 banks,
// every 32 here on 32 banks), so the design's factor
// also holds the padding's part. This probe times the same three kernels twice
// in one run, with the block scan unpadded (the lab's) and padded (his), at
// 2^20, 2^22 and 2^24. It copies the reference's block scan, which is a
// student's TODO, so it lives beside the solutions and is not shipped.
//
//   WORKBOOK_BUILD_TARGET="lab07_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/07-prefix-sum -Icommon/include \
//     -o build/probes/three_kernel_scan_padded solutions/07-prefix-sum/probes/three_kernel_scan_padded.cu \
//     build/default/liblab07_solution.a build/default/common/libworkbook_common.a
//   build/probes/three_kernel_scan_padded
#include <cstdio>
#include <vector>

#include "../../../tools/probes/three_kernel_parts.cuh"
#include "scan.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

using namespace three_kernel;

// Harris's padding: index i of the tree sits at i + i / 32, so the strided
// indices of one step fall in different banks.
__device__ int padded(int i, bool pad) {
  return pad ? i + (i >> 5) : i;
}

// The exclusive Blelloch scan of each block's 512 elements, as the lab's
// block_scan_blelloch, with or without the padding.
template <bool kPad>
__global__ void blelloch_block_scan(const int* in, int* out, std::size_t n) {
  extern __shared__ int tree[];
  const int t = static_cast<int>(threadIdx.x);
  const int half = static_cast<int>(blockDim.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x;
  tree[padded(t, kPad)] = base + t < n ? in[base + t] : 0;
  tree[padded(t + half, kPad)] = base + t + half < n ? in[base + t + half] : 0;
  int stride = 1;
  for (int active = half; active > 0; active /= 2) {
    __syncthreads();
    if (t < active)
      tree[padded((2 * t + 2) * stride - 1, kPad)] += tree[padded((2 * t + 1) * stride - 1, kPad)];
    stride *= 2;
  }
  if (t == 0) tree[padded(2 * half - 1, kPad)] = 0;
  for (int active = 1; active <= half; active *= 2) {
    stride /= 2;
    __syncthreads();
    if (t < active) {
      const int left = padded((2 * t + 1) * stride - 1, kPad);
      const int right = padded((2 * t + 2) * stride - 1, kPad);
      const int left_sum = tree[left];
      tree[left] = tree[right];
      tree[right] += left_sum;
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = tree[padded(t, kPad)];
  if (base + t + half < n) out[base + t + half] = tree[padded(t + half, kPad)];
}

}  // namespace

int main() {
  std::printf(
      "lab 07 probe: Harris's three-kernel scan, its Blelloch block scan unpadded (the lab's) and padded\n"
      "(his CONFLICT_FREE_OFFSET); workbook::time_gpu, cold L2; share of the 4800 GB/s peak at 16 B an "
      "element\n");
  for (const int log2n : {20, 22, 24}) {
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t blocks = (n + kBlockElements - 1) / kBlockElements;
    workbook::DeviceBuffer<int> in(n), out(n), sums(blocks), offsets(blocks);
    scan::LookbackScratch scratch(blocks);
    fill_values<<<grid(n, 256), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill_values");
    for (const bool pad : {false, true}) {
      const std::size_t shared_bytes = (kBlockElements + kBlockElements / 32) * sizeof(int);
      const auto block_scan = [&](cudaStream_t s) {
        if (pad)
          blelloch_block_scan<true>
              <<<static_cast<unsigned>(blocks), kThreads, shared_bytes, s>>>(in.data(), out.data(), n);
        else
          blelloch_block_scan<false>
              <<<static_cast<unsigned>(blocks), kThreads, shared_bytes, s>>>(in.data(), out.data(), n);
        CUDA_CHECK_LAUNCH("blelloch_block_scan");
      };
      const auto three_kernels = [&](cudaStream_t s) {
        block_scan(s);
        gather_block_sums<<<grid(blocks, 256), 256, 0, s>>>(in.data(), out.data(), n, sums.data(), blocks);
        CUDA_CHECK_LAUNCH("gather_block_sums");
        scan::single_pass_scan(sums.data(), offsets.data(), blocks, scan::ScanKind::exclusive, scratch, s);
        add_block_offsets<<<grid(n, 256), 256, 0, s>>>(out.data(), n, offsets.data());
        CUDA_CHECK_LAUNCH("add_block_offsets");
      };
      const workbook::TimingResult whole = workbook::time_gpu(three_kernels);
      const workbook::TimingResult first = workbook::time_gpu(block_scan);
      three_kernels(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const bool ok = is_exclusive_scan_of_input(out.to_host());
      const double bytes = 16.0 * static_cast<double>(n);
      std::printf(
          "  2^%d %-8s three kernels %.4f ms, %.1f GB/s at 16 B, %.1f %% of peak (%s); block scan alone %.4f "
          "ms, "
          "%.1f %% of the whole\n",
          log2n, pad ? "padded" : "unpadded", whole.median_ms, bytes / whole.median_ms / 1e6,
          100.0 * bytes / whole.median_ms / 1e6 / kPeakGBps, ok ? "ok" : "WRONG", first.median_ms,
          100.0 * first.median_ms / whole.median_ms);
    }
  }
  return 0;
}
