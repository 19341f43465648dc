// SOLUTION-ONLY: Lab 01 reference solution. labs/01-hello-world/hello.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 01: hello world. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade hello
// STUDENT-ONLY: The handout is labs/01-hello-world/README.md.
#include <cstdio>
#include <stdexcept>

#include "hello.cuh"
#include "workbook/cuda_check.hpp"

namespace hello {

// WALKTHROUGH: blocks-for
__host__ __device__ int blocks_for(int n, int threads_per_block) {
  // HOLE: Return the fewest blocks of threads_per_block threads that give each of the n items its own
  // HOLE: thread (0 for n = 0). Integers only: floating point is inexact for large n.
  // STUB: return 0;
  return (n + threads_per_block - 1) / threads_per_block;
  // END HOLE
}
// END WALKTHROUGH: blocks-for

// WALKTHROUGH: record-1d
__global__ void record_thread_ids(ThreadRecord* records, int n) {
  // HOLE: Each thread whose global index i is below n writes records[i] = {its block, its thread, i}.
  // HOLE: The grid may hold more than n threads: no thread with index n or above writes anything.
  const int global = blockIdx.x * blockDim.x + threadIdx.x;
  if (global < n) {
    records[global] = ThreadRecord{static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x), global};
  }
  // END HOLE
}
// END WALKTHROUGH: record-1d

// WALKTHROUGH: launch-1d
void launch_record_thread_ids(ThreadRecord* records, int n, int threads_per_block) {
  if (threads_per_block < 1)
    throw std::invalid_argument("launch_record_thread_ids: threads_per_block must be at least 1");
  if (n == 0) return;  // A grid of zero blocks is an invalid configuration.
  // HOLE: Launch record_thread_ids so that each of the n records gets one thread, in blocks of
  // HOLE: threads_per_block threads, and check it with CUDA_CHECK_LAUNCH("record_thread_ids").
  const int blocks = blocks_for(n, threads_per_block);
  record_thread_ids<<<blocks, threads_per_block>>>(records, n);
  CUDA_CHECK_LAUNCH("record_thread_ids");
  // END HOLE
}
// END WALKTHROUGH: launch-1d

// WALKTHROUGH: record-2d
__global__ void record_thread_ids_2d(ThreadRecord2D* records, int width, int height) {
  // HOLE: The thread at pixel (x, y) of the row-major width x height image writes that pixel's record:
  // HOLE: its block and thread coordinates, x and y of each. Threads outside the image write nothing.
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    records[y * width + x] = ThreadRecord2D{static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
                                            static_cast<int>(threadIdx.x), static_cast<int>(threadIdx.y)};
  }
  // END HOLE
}
// END WALKTHROUGH: record-2d

// WALKTHROUGH: launch-2d
void launch_record_thread_ids_2d(ThreadRecord2D* records, int width, int height, dim3 block) {
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    throw std::invalid_argument("launch_record_thread_ids_2d: no side of the block may be 0");
  }
  if (width == 0 || height == 0) return;
  // HOLE: Launch record_thread_ids_2d with blocks of shape `block` on a 2-D grid that covers every
  // HOLE: pixel of the width x height image, and check it with CUDA_CHECK_LAUNCH("record_thread_ids_2d").
  const dim3 grid(blocks_for(width, static_cast<int>(block.x)),
                  blocks_for(height, static_cast<int>(block.y)));
  record_thread_ids_2d<<<grid, block>>>(records, width, height);
  CUDA_CHECK_LAUNCH("record_thread_ids_2d");
  // END HOLE
}
// END WALKTHROUGH: launch-2d

// WALKTHROUGH: hello
__global__ void say_hello() {
  // HOLE: Every thread prints one line "Hello from block B, thread T\n" (device printf), B and T being
  // HOLE: its own block and thread index.
  printf("Hello from block %d, thread %d\n", static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x));
  // END HOLE
}

void launch_hello(int blocks, int threads_per_block) {
  say_hello<<<blocks, threads_per_block>>>();
  CUDA_CHECK_LAUNCH("say_hello");
  // Device printf output is flushed to stdout when the host synchronizes.
  CUDA_CHECK(cudaDeviceSynchronize());
}
// END WALKTHROUGH: hello

}  // namespace hello
