// Lab 04's Then and now compares Harris's G80 step ratios (2^22 ints) with the
// H200's trees at 2^22, which measurements.md estimated from their 2^28 times
// (over 64, plus 0 to 0.0058 ms a call). This probe times them at 2^22 and at
// 2^28 (to check against table 1), each a whole reduction, pass after pass, as
// the experiment's table 1 does: the interleaved tree, the interleaved tree
// with the strided index (a copy of experiment_reference.cu's kernel, so this
// file stays in solutions/), and the sequential tree, blocks of 256 threads
// (the lab's) and of 128 (Harris's). workbook::time_gpu, cold L2.
// Added later, in the same run, for the handout's step table: Harris's kernel 3
// as his slides write it (the sequential tree without our next_power_of_two
// loop and partner test, so power-of-two blocks only), and reduce_sum() (our
// kernel 7) at 2^10, 2^22, 2^25 (Harris's largest size) and 2^28, so that the 3 -> 7 step compares two times
// of one run.
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab04_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/04-reductions -Icommon/include \
//     -o build/probes/trees_at_2_22 solutions/04-reductions/probes/trees_at_2_22.cu \
//     build/default/liblab04_solution.a build/default/common/libworkbook_common.a
//   build/probes/trees_at_2_22
#include <cstdio>
#include <functional>
#include <vector>

#include "reductions.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

using Launcher = std::function<void(const int*, int*, std::size_t, int, cudaStream_t)>;

unsigned blocks_for(std::size_t n, int threads) {
  return static_cast<unsigned>((n + static_cast<std::size_t>(threads) - 1) /
                               static_cast<std::size_t>(threads));
}

// solutions/04-reductions/experiment_reference.cu's strided-index tree.
__global__ void block_sum_interleaved_strided_index(const int* in, int* partials, std::size_t n) {
  extern __shared__ int shared[];
  const int t = static_cast<int>(threadIdx.x);
  const int size = static_cast<int>(blockDim.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  shared[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = 1; s < size; s *= 2) {
    const int index = 2 * s * t;
    if (index + s < size) shared[index] += shared[index + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = shared[0];
}

// Harris's kernel 3 as written: no partner test, so blockDim.x must be a power of two.
__global__ void block_sum_sequential_as_harris(const int* in, int* partials, std::size_t n) {
  extern __shared__ int shared[];
  const unsigned t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  shared[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) shared[t] += shared[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = shared[0];
}

void launch_sequential_as_harris(const int* in, int* partials, std::size_t n, int threads,
                                 cudaStream_t stream) {
  block_sum_sequential_as_harris<<<blocks_for(n, threads), threads, threads * sizeof(int), stream>>>(
      in, partials, n);
  CUDA_CHECK_LAUNCH("block_sum_sequential_as_harris");
}

void launch_strided_index(const int* in, int* partials, std::size_t n, int threads, cudaStream_t stream) {
  block_sum_interleaved_strided_index<<<blocks_for(n, threads), threads, threads * sizeof(int), stream>>>(
      in, partials, n);
  CUDA_CHECK_LAUNCH("block_sum_interleaved_strided_index");
}

// Pass after pass until one value is left; returns the buffer that holds it.
int* reduce_by_passes(const Launcher& launch, const int* in, std::size_t n, int threads, int* scratch_a,
                      int* scratch_b, cudaStream_t stream) {
  const int* source = in;
  int* target = scratch_a;
  do {
    launch(source, target, n, threads, stream);
    n = blocks_for(n, threads);
    source = target;
    target = target == scratch_a ? scratch_b : scratch_a;
  } while (n > 1);
  return const_cast<int*>(source);
}

__global__ void fill_ones(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 1;
}

}  // namespace

int main() {
  struct Tree {
    const char* label;
    Launcher launch;
  };
  const std::vector<Tree> trees = {
      {"interleaved (kernel 1)",
       [](const int* in, int* out, std::size_t n, int threads, cudaStream_t s) {
         reductions::launch_block_sum_interleaved(in, out, n, threads, s);
       }},
      {"strided index (kernel 2)", launch_strided_index},
      {"sequential (kernel 3)",
       [](const int* in, int* out, std::size_t n, int threads, cudaStream_t s) {
         reductions::launch_block_sum_sequential(in, out, n, threads, s);
       }},
      {"sequential, Harris's loop", launch_sequential_as_harris},
  };
  std::printf(
      "lab 04 probe: the trees, pass after pass to one value; all-ones input; workbook::time_gpu, cold L2\n");
  std::printf("  %-26s %8s %6s %10s %9s %7s\n", "tree", "n", "block", "ms", "GB/s", "check");
  for (const int log2n : {22, 28}) {
    const std::size_t n = std::size_t{1} << log2n;
    workbook::DeviceBuffer<int> in(n), scratch_a(blocks_for(n, 128)), scratch_b(blocks_for(n, 128));
    fill_ones<<<blocks_for(n, 256), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill_ones");
    for (const int threads : {256, 128}) {
      for (const Tree& tree : trees) {
        int* result = nullptr;
        const workbook::TimingResult t = workbook::time_gpu([&](cudaStream_t s) {
          result =
              reduce_by_passes(tree.launch, in.data(), n, threads, scratch_a.data(), scratch_b.data(), s);
        });
        int value = 0;
        CUDA_CHECK(cudaMemcpy(&value, result, sizeof value, cudaMemcpyDeviceToHost));
        std::printf("  %-26s   2^%d %6d %10.5f %9.1f %7s   %s\n", tree.label, log2n, threads, t.median_ms,
                    static_cast<double>(n) * sizeof(int) / t.median_ms / 1e6,
                    value == static_cast<int>(n) ? "ok" : "WRONG", t.summary().c_str());
      }
    }
  }
  // Our kernel 7: the whole-array sum, each combine, at the sizes the handout compares.
  std::printf("  %-26s %8s %6s %10s %9s %7s\n", "reduce_sum()", "n", "block", "ms", "GB/s", "check");
  const std::size_t largest = std::size_t{1} << 28;
  workbook::DeviceBuffer<int> in(largest), result(1), partials(reductions::kMaxGridBlocks);
  fill_ones<<<blocks_for(largest, 256), 256>>>(in.data(), largest);
  CUDA_CHECK_LAUNCH("fill_ones");
  for (const int log2n : {10, 22, 25, 28}) {
    const std::size_t n = std::size_t{1} << log2n;
    for (const reductions::Combine combine :
         {reductions::Combine::atomic_per_block, reductions::Combine::second_pass}) {
      const workbook::TimingResult t = workbook::time_gpu([&](cudaStream_t s) {
        reductions::reduce_sum(in.data(), n, result.data(), combine, partials.data(), s);
      });
      reductions::reduce_sum(in.data(), n, result.data(), combine, partials.data());
      int value = 0;
      CUDA_CHECK(cudaMemcpy(&value, result.data(), sizeof value, cudaMemcpyDeviceToHost));
      std::printf("  %-26s   2^%d %6d %10.5f %9.1f %7s   %s\n",
                  combine == reductions::Combine::atomic_per_block ? "atomic per block" : "second pass",
                  log2n, reductions::kThreadsPerBlock, t.median_ms,
                  static_cast<double>(n) * sizeof(int) / t.median_ms / 1e6,
                  value == static_cast<int>(n) ? "ok" : "WRONG", t.summary().c_str());
    }
  }
  return 0;
}
