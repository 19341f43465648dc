// Lab 05's misses that its handout's fold "Ours" once left open (written then as
// "the rests, 6.639 - 6.391 = 0.248 ms and 1.170 - 1.022 = 0.148 ms: the kernels
// without their atomic would time the reads"; the fold now quotes this program's
// results). Measured on an NVIDIA H200, 2026-11-29: labs/05-atomics/figures/
// ncu-probe.txt, the blocks "Follow-up probe (the rests, 0.248 ms and 0.148 ms)".
// (The handout's other open line, "the L2's clock ... is not measured", is answered
// by tools/probes/open_misses.sh's first probe, on the experiment itself.)
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab05_experiment_solution" ./workbook build   # builds liblab05_solution.a too
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/05-atomics -Icommon/include \
//     -c solutions/05-atomics/probes/counts_without_atomics.cu -o build/probes/counts_without_atomics.o
//   nvcc -arch=sm_90 -o build/probes/counts_without_atomics build/probes/counts_without_atomics.o \
//     build/default/liblab05_solution.a build/default/common/libworkbook_common.a
//   build/probes/counts_without_atomics
// tools/probes/open_misses.sh builds and runs it (and the probes of labs 06 and 09).
// The code is session 37's /tmp/p37/probe37_lab05.cu as measured; only the comments
// above its first #include and the file name changed (the include paths are the -I flags').
//
// The counts' time beyond their atomics (once "the rests, 0.248 ms and
// 0.148 ms"): the experiment has no variant of its counts without their
// atomic, so this program times them, with workbook::time_gpu (cold L2, as the
// experiment), on 2^28 values, all odd (the experiment's table 1 input):
//   add_one_result_unused          row 1, copied from experiment.cu (2^23 merged atomics, no reads)
//   count_odd_per_thread           copied from experiment.cu (reads + 2^23 merged atomics)
//   count_odd_per_thread_no_atomic the same, its atomic behind a condition never true (reads only)
//   count_odd_block_aggregated     the reference solution's kernel (liblab05_solution.a)
//   count_odd_block_no_global_atomic  a copy of it whose global atomic never runs (reads + shared atomics)
//   block_atomics_only             2^20 blocks, thread 0 adds 256: the block count's 2^20 global atomics, no
//   reads
// Usage: counts_without_atomics [once]   (once: each kernel once, untimed, for ncu)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "atomics.cuh"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr std::size_t kN = std::size_t{1} << 28;
constexpr unsigned kThreads = atomics::kThreadsPerBlock;

__device__ std::size_t thread_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__global__ void add_one_result_unused(unsigned* counter, std::size_t n) {
  if (thread_index() < n) atomicAdd(counter, 1u);
}

__global__ void count_odd_per_thread(const int* values, std::size_t n, unsigned* count) {
  const std::size_t i = thread_index();
  if (i < n && atomics::is_odd(values[i])) atomicAdd(count, 1u);
}

// values are in [0, 2^20): v < 0 never holds, so the atomic never runs, but the load must.
__global__ void count_odd_per_thread_no_atomic(const int* values, std::size_t n, unsigned* count) {
  const std::size_t i = thread_index();
  if (i < n) {
    const int v = values[i];
    if (atomics::is_odd(v) && v < 0) atomicAdd(count, 1u);
  }
}

// solutions/05-atomics/atomics.cu's count_odd_block_aggregated, its global atomic
// behind a condition never true (a block counts at most 256).
__global__ void count_odd_block_no_global_atomic(const int* values, std::size_t n, unsigned* count) {
  __shared__ unsigned block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  const std::size_t i = thread_index();
  if (i < n && atomics::is_odd(values[i])) atomicAdd(&block_count, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && block_count > 0x7FFFFFFFu) atomicAdd(count, block_count);
}

__global__ void block_atomics_only(std::size_t n, unsigned* count) {
  if (threadIdx.x == 0 && thread_index() < n) atomicAdd(count, static_cast<unsigned>(blockDim.x));
}

__global__ void fill_all_odd(int* values, std::size_t n) {
  const std::size_t i = thread_index();
  if (i < n) values[i] = static_cast<int>(((i * 2654435761u) & 0xFFFFFu) | 1u);
}

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  const std::size_t n = kN;
  const unsigned blocks = static_cast<unsigned>(atomics::ceil_div(n, kThreads));
  int* values = nullptr;
  unsigned* counter = nullptr;
  CUDA_CHECK(cudaMalloc(&values, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&counter, sizeof(unsigned)));
  fill_all_odd<<<blocks, kThreads>>>(values, n);
  CUDA_CHECK(cudaDeviceSynchronize());

  struct Case {
    const char* name;
    std::function<void(cudaStream_t)> run;
    unsigned want;  // the counter after one run from 0
  };
  const std::vector<Case> cases = {
      {"add_one_result_unused (2^28 threads, no reads)",
       [&](cudaStream_t s) { add_one_result_unused<<<blocks, kThreads, 0, s>>>(counter, n); },
       static_cast<unsigned>(n)},
      {"count_odd_per_thread (reads + atomics)",
       [&](cudaStream_t s) { count_odd_per_thread<<<blocks, kThreads, 0, s>>>(values, n, counter); },
       static_cast<unsigned>(n)},
      {"count_odd_per_thread_no_atomic (reads only)",
       [&](cudaStream_t s) {
         count_odd_per_thread_no_atomic<<<blocks, kThreads, 0, s>>>(values, n, counter);
       },
       0u},
      {"count_odd_block_aggregated (solution)",
       [&](cudaStream_t s) { atomics::launch_count_odd_block_aggregated(values, n, counter, s); },
       static_cast<unsigned>(n)},
      {"count_odd_block_no_global_atomic (reads + shared atomics)",
       [&](cudaStream_t s) {
         count_odd_block_no_global_atomic<<<blocks, kThreads, 0, s>>>(values, n, counter);
       },
       0u},
      {"block_atomics_only (2^20 global atomics, no reads)",
       [&](cudaStream_t s) { block_atomics_only<<<blocks, kThreads, 0, s>>>(n, counter); },
       static_cast<unsigned>(n)},
  };
  int wrong = 0;
  if (!once)
    std::printf("lab 05 probe: n = 2^28 ints, all odd; workbook::time_gpu, cold L2, budget 1000 ms\n");
  for (const Case& c : cases) {
    workbook::TimingResult t;
    if (!once) {
      workbook::TimingOptions options;
      options.time_budget_ms = 1000.0;
      options.before_each = [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned), s));
      };
      t = workbook::time_gpu(c.run, options);
    }
    CUDA_CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
    c.run(nullptr);
    CUDA_CHECK(cudaGetLastError());
    unsigned got = 0;
    CUDA_CHECK(cudaMemcpy(&got, counter, sizeof(unsigned), cudaMemcpyDeviceToHost));
    if (got != c.want) ++wrong;
    if (!once)
      std::printf("  %-62s %9.4f ms  %s  %s\n", c.name, t.median_ms, t.summary().c_str(),
                  got == c.want ? "ok" : "WRONG");
  }
  CUDA_CHECK(cudaFree(values));
  CUDA_CHECK(cudaFree(counter));
  return wrong == 0 ? 0 : 1;
}
