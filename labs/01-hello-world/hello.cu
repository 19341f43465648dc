// Lab 01: hello world. This is your file: fill in each TODO, then run
//   ./workbook grade hello
// The handout is labs/01-hello-world/README.md.
#include <cstdio>
#include <stdexcept>

#include "hello.cuh"
#include "workbook/cuda_check.hpp"

namespace hello {

__host__ __device__ int blocks_for(int n, int threads_per_block) {
  // TODO(1): Return the fewest blocks of threads_per_block threads that give each of the n items its own
  //          thread (0 for n = 0). Integers only: floating point is inexact for large n.
  return 0;
}

__global__ void record_thread_ids(ThreadRecord* records, int n) {
  // TODO(2): Each thread whose global index i is below n writes records[i] = {its block, its thread, i}.
  //          The grid may hold more than n threads: no thread with index n or above writes anything.
}

void launch_record_thread_ids(ThreadRecord* records, int n, int threads_per_block) {
  if (threads_per_block < 1)
    throw std::invalid_argument("launch_record_thread_ids: threads_per_block must be at least 1");
  if (n == 0) return;  // A grid of zero blocks is an invalid configuration.
  // TODO(3): Launch record_thread_ids so that each of the n records gets one thread, in blocks of
  //          threads_per_block threads, and check it with CUDA_CHECK_LAUNCH("record_thread_ids").
}

__global__ void record_thread_ids_2d(ThreadRecord2D* records, int width, int height) {
  // TODO(4): The thread at pixel (x, y) of the row-major width x height image writes that pixel's record:
  //          its block and thread coordinates, x and y of each. Threads outside the image write nothing.
}

void launch_record_thread_ids_2d(ThreadRecord2D* records, int width, int height, dim3 block) {
  if (block.x == 0 || block.y == 0 || block.z == 0) {
    throw std::invalid_argument("launch_record_thread_ids_2d: no side of the block may be 0");
  }
  if (width == 0 || height == 0) return;
  // TODO(5): Launch record_thread_ids_2d with blocks of shape `block` on a 2-D grid that covers every
  //          pixel of the width x height image, and check it with CUDA_CHECK_LAUNCH("record_thread_ids_2d").
}

__global__ void say_hello() {
  // TODO(6): Every thread prints one line "Hello from block B, thread T\n" (device printf), B and T being
  //          its own block and thread index.
}

void launch_hello(int blocks, int threads_per_block) {
  say_hello<<<blocks, threads_per_block>>>();
  CUDA_CHECK_LAUNCH("say_hello");
  // Device printf output is flushed to stdout when the host synchronizes.
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace hello
