/// @file hello.cuh
/// @brief Lab 01, hello world: the contract between your code and the tests.
///
/// A kernel runs as a grid of blocks of threads. These functions make every
/// thread write down where it sits in the grid, so the tests can check that
/// you compute global indices and launch configurations correctly.
#pragma once

#include <cuda_runtime.h>

#include <ostream>

namespace hello {

/// @brief Where one thread of a 1-D launch sits in the grid.
struct ThreadRecord {
  int block;   ///< blockIdx.x of the thread.
  int thread;  ///< threadIdx.x of the thread.
  int global;  ///< The thread's global index: blockIdx.x * blockDim.x + threadIdx.x.
};

/// @brief Where one thread of a 2-D launch sits in the grid.
struct ThreadRecord2D {
  int block_x;   ///< blockIdx.x of the thread.
  int block_y;   ///< blockIdx.y of the thread.
  int thread_x;  ///< threadIdx.x of the thread.
  int thread_y;  ///< threadIdx.y of the thread.
};

/// @brief Number of blocks of @p threads_per_block threads needed to give each
/// of @p n items its own thread (n divided by the block size, rounded up).
/// @param[in] n Number of items, at least 0.
/// @param[in] threads_per_block Threads per block, at least 1.
/// @return The smallest block count b with b * threads_per_block >= n.
__host__ __device__ int blocks_for(int n, int threads_per_block);

/// @brief Each thread with global index i < n writes records[i] = {its block,
/// its thread, i}; threads with i >= n write nothing.
/// @param[out] records Device array of at least n records.
/// @param[in] n Number of records to write.
__global__ void record_thread_ids(ThreadRecord* records, int n);

/// @brief Launches record_thread_ids with @p threads_per_block threads per
/// block and just enough blocks for @p n records; checks the launch.
/// @param[out] records Device array of at least n records.
/// @param[in] n Number of records; 0 launches nothing.
/// @param[in] threads_per_block Block size, at least 1; one above the GPU's
///            limit of 1024 must be reported by the launch check.
/// @throws std::invalid_argument when threads_per_block < 1.
/// @throws workbook::CudaError when the launch fails.
void launch_record_thread_ids(ThreadRecord* records, int n, int threads_per_block);

/// @brief Each thread at (x, y) = (blockIdx.x * blockDim.x + threadIdx.x,
/// blockIdx.y * blockDim.y + threadIdx.y) inside the width x height image
/// writes records[y * width + x] with its block and thread coordinates.
/// @param[out] records Device array of width * height records, row-major.
/// @param[in] width Image width (x extent).
/// @param[in] height Image height (y extent).
__global__ void record_thread_ids_2d(ThreadRecord2D* records, int width, int height);

/// @brief Launches record_thread_ids_2d with blocks of @p block threads and a
/// 2-D grid covering the whole image; checks the launch.
/// @param[out] records Device array of width * height records.
/// @param[in] width Image width, 0 or more.
/// @param[in] height Image height, 0 or more.
/// @param[in] block Block shape, e.g. dim3(16, 16); no side may be 0.
/// @throws std::invalid_argument when a side of @p block is 0.
/// @throws workbook::CudaError when the launch fails.
void launch_record_thread_ids_2d(ThreadRecord2D* records, int width, int height, dim3 block);

/// @brief Launches a kernel in which every thread prints
/// "Hello from block B, thread T" (device printf), then waits for it so the
/// output appears before this function returns.
/// @param[in] blocks Number of blocks.
/// @param[in] threads_per_block Threads per block.
/// @throws workbook::CudaError when the launch fails.
void launch_hello(int blocks, int threads_per_block);

/// @brief Records compare equal when every field does.
/// @param[in] a One record. @param[in] b The other. @return Whether they are equal.
inline bool operator==(const ThreadRecord& a, const ThreadRecord& b) {
  return a.block == b.block && a.thread == b.thread && a.global == b.global;
}
/// @brief Prints a record as {block, thread, global}.
/// @param[in,out] out The stream. @param[in] r The record. @return The stream.
inline std::ostream& operator<<(std::ostream& out, const ThreadRecord& r) {
  return out << "{block " << r.block << ", thread " << r.thread << ", global " << r.global << "}";
}
/// @brief 2-D records compare equal when every field does.
/// @param[in] a One record. @param[in] b The other. @return Whether they are equal.
inline bool operator==(const ThreadRecord2D& a, const ThreadRecord2D& b) {
  return a.block_x == b.block_x && a.block_y == b.block_y && a.thread_x == b.thread_x &&
         a.thread_y == b.thread_y;
}
/// @brief Prints a 2-D record as {block (x, y), thread (x, y)}.
/// @param[in,out] out The stream. @param[in] r The record. @return The stream.
inline std::ostream& operator<<(std::ostream& out, const ThreadRecord2D& r) {
  return out << "{block (" << r.block_x << ", " << r.block_y << "), thread (" << r.thread_x << ", "
             << r.thread_y << ")}";
}

}  // namespace hello
