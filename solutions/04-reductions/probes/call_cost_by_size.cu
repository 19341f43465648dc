// Lab 04's Then and now leaves open why reduce_sum() (our kernel 7) reaches
// only 27.2 % of peak at 2^22 ints, while Harris's kernel 7 reached 72.5 %; a
// 2^10 call takes 0.00602 ms, 0.47 of the 2^22 call's 0.01283 ms, which hints
// at a fixed cost per call. This probe splits one call, atomic per block, into
// its two launches and times each alone at 2^10 and 2^22 ints, so that the
// call's fixed part (the event pair, the one-thread store_value launch, the
// grid-stride kernel's launch and its tail) can be told from the time its
// kernel spends reading. Rows, each with workbook::time_gpu (CUDA events on one
// stream, cold L2, as trees_at_2_22 timed the call):
//   - nothing between the events (the floor of an event pair);
//   - an empty kernel of 1 block, and one of reduction_grid_blocks(n) blocks;
//   - store_value alone (a copy: a 1-thread kernel storing 0);
//   - the grid-stride sum alone (a copy of the reference kernel, same grid);
//   - both copies back to back, and reduce_sum() itself (the two should agree).
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab04_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/04-reductions -Icommon/include \
//     -o build/probes/call_cost_by_size solutions/04-reductions/probes/call_cost_by_size.cu \
//     build/default/liblab04_solution.a build/default/common/libworkbook_common.a
//   build/probes/call_cost_by_size
#include <cstdio>
#include <functional>

#include "reductions.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

__global__ void fill_ones(int* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1;
}

__global__ void empty_kernel(int* sink) {
  if (sink != nullptr && threadIdx.x == 1024) *sink = 0;  // never true: keeps the launch
}

__global__ void store_zero(int* out) {
  *out = 0;
}

// solutions/04-reductions/reductions.cu's reduce_grid_stride<Sum<int>>, atomic per block.
__global__ void grid_stride_sum(const int* in, std::size_t n, int* out) {
  constexpr int kItems = reductions::kItemsPerThread;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int accumulator = 0;
  for (; i + (kItems - 1) * stride < n; i += kItems * stride) {
    int values[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) values[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < kItems; ++k) accumulator += values[k];
  }
  for (; i < n; i += stride) accumulator += in[i];
  // Block reduce: shuffles within each warp, then warp 0 over the warps' sums.
  __shared__ int warp_totals[32];
  for (int offset = 16; offset > 0; offset /= 2)
    accumulator += __shfl_down_sync(0xffffffffu, accumulator, offset);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  if (lane == 0) warp_totals[warp] = accumulator;
  __syncthreads();
  if (warp == 0) {
    accumulator = lane < static_cast<int>((blockDim.x + 31) / 32) ? warp_totals[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
      accumulator += __shfl_down_sync(0xffffffffu, accumulator, offset);
    if (lane == 0) atomicAdd(out, accumulator);
  }
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "GPU: %s; lab 04 probe: one reduce_sum() call split into its launches; workbook::time_gpu, cold L2\n",
      prop.name);
  const std::size_t largest = std::size_t{1} << 22;
  workbook::DeviceBuffer<int> in(largest), result(1), partials(reductions::kMaxGridBlocks);
  fill_ones<<<static_cast<unsigned>((largest + 255) / 256), 256>>>(in.data(), largest);
  CUDA_CHECK_LAUNCH("fill_ones");
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("  %-40s %6s %7s %10s %9s   %s\n", "row", "n", "blocks", "ms", "check", "timing");
  for (const int log2n : {10, 22}) {
    const std::size_t n = std::size_t{1} << log2n;
    const int blocks = reductions::reduction_grid_blocks(n);
    auto check_sum = [&]() {
      int value = 0;
      CUDA_CHECK(cudaMemcpy(&value, result.data(), sizeof value, cudaMemcpyDeviceToHost));
      return value == static_cast<int>(n) ? "ok" : "WRONG";
    };
    struct Row {
      const char* label;
      std::function<void(cudaStream_t)> work;
      bool sums;  // leaves the sum in result when run after a zeroing
    };
    const Row rows[] = {
        {"nothing between the events", [](cudaStream_t) {}, false},
        {"empty kernel, 1 block", [&](cudaStream_t s) { empty_kernel<<<1, 256, 0, s>>>(result.data()); },
         false},
        {"empty kernel, the call's grid",
         [&](cudaStream_t s) { empty_kernel<<<blocks, 256, 0, s>>>(result.data()); }, false},
        {"store_value alone (copy)", [&](cudaStream_t s) { store_zero<<<1, 1, 0, s>>>(result.data()); },
         false},
        {"grid-stride sum alone (copy)",
         [&](cudaStream_t s) { grid_stride_sum<<<blocks, 256, 0, s>>>(in.data(), n, result.data()); }, false},
        {"store_value + grid-stride sum (copies)",
         [&](cudaStream_t s) {
           store_zero<<<1, 1, 0, s>>>(result.data());
           grid_stride_sum<<<blocks, 256, 0, s>>>(in.data(), n, result.data());
         },
         true},
        {"reduce_sum(), atomic per block",
         [&](cudaStream_t s) {
           reductions::reduce_sum(in.data(), n, result.data(), reductions::Combine::atomic_per_block,
                                  partials.data(), s);
         },
         true},
    };
    for (const Row& row : rows) {
      const workbook::TimingResult t = workbook::time_gpu(row.work);
      CUDA_CHECK_LAUNCH(row.label);
      const char* check = "";
      if (row.sums) {
        row.work(nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        check = check_sum();
      }
      std::printf("  %-40s   2^%d %7d %10.5f %9s   %s\n", row.label, log2n, blocks, t.median_ms, check,
                  t.summary().c_str());
    }
  }
  return 0;
}
