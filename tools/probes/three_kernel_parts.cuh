// The pieces of Harris's three-kernel scan that lab 07's Then-and-now probes
// share (tools/probes/three_kernel_scan.cu, and a padded variant kept beside the
// solutions): 512-element blocks of 256 threads, the input, each block's sum
// and the offsets added back. The block scan itself is each probe's own.
#pragma once
#include <cstddef>
#include <vector>

namespace three_kernel {

constexpr int kThreads = 256;
constexpr int kBlockElements = 2 * kThreads;  // Harris's 512
constexpr double kPeakGBps = 4800.0;          // H200 data sheet

// The input: i % 7 - 3, whose running sum the probes check on the host.
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

// Whether `got` is the exclusive scan of fill_values' input.
inline bool is_exclusive_scan_of_input(const std::vector<int>& got) {
  long long running = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != static_cast<int>(running)) return false;
    running += static_cast<int>(i % 7) - 3;
  }
  return true;
}

inline unsigned grid(std::size_t count, int threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace three_kernel
