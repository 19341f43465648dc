// Lab 01: hello world. This is your file: fill in each TODO, then run
//   ./workbook grade hello
// The handout is labs/01-hello-world/README.md.
#include <cstdio>
#include <stdexcept>

#include "hello.cuh"
#include "workbook/cuda_check.hpp"

namespace hello {

__host__ __device__ int blocks_for(int n, int threads_per_block) {
  // TODO(1): Return n / threads_per_block rounded up, using integer arithmetic only.
  return 0;
}

__global__ void record_thread_ids(ThreadRecord* records, int n) {
  // TODO(2): Compute this thread's global index from blockIdx.x, blockDim.x and
  //          threadIdx.x. The last block may have threads past n: they must not write.
}

void launch_record_thread_ids(ThreadRecord* records, int n, int threads_per_block) {
  if (threads_per_block < 1)
    throw std::invalid_argument("launch_record_thread_ids: threads_per_block must be at least 1");
  if (n == 0) return;  // A grid of zero blocks is an invalid configuration.
  // TODO(3): Launch record_thread_ids with enough blocks of threads_per_block threads,
  //          then check the launch with CUDA_CHECK_LAUNCH("record_thread_ids").
}

__global__ void record_thread_ids_2d(ThreadRecord2D* records, int width, int height) {
  // TODO(4): Compute (x, y) from the block and thread indices in both dimensions;
  //          threads outside the image write nothing. Rows are width records apart.
}

void launch_record_thread_ids_2d(ThreadRecord2D* records, int width, int height, dim3 block) {
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    throw std::invalid_argument("launch_record_thread_ids_2d: no side of the block may be 0");
  }
  if (width == 0 || height == 0) return;
  // TODO(5): Build a dim3 grid that covers width x height with blocks of shape `block`,
  //          launch record_thread_ids_2d and check the launch.
}

__global__ void say_hello() {
  // TODO(6): Print "Hello from block B, thread T\n" with printf.
}

void launch_hello(int blocks, int threads_per_block) {
  say_hello<<<blocks, threads_per_block>>>();
  CUDA_CHECK_LAUNCH("say_hello");
  // Device printf output is flushed to stdout when the host synchronizes.
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace hello
