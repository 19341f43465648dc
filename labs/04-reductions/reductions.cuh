/// @file reductions.cuh
/// @brief Lab 04, reductions: the contract between your code and the tests.
///
/// A reduction combines n values into one with an associative operation:
/// their sum, their minimum or their maximum. The lab builds it up in layers:
/// a binary tree in shared memory that reduces one block's slice of the input
/// (first with interleaved, then with sequential addressing), the same job
/// done with warp shuffles, and finally a whole-array reduction in which
/// every thread first accumulates a grid-stride slice, every block reduces its
/// threads' values, and the block results are combined either with one
/// atomic operation per block or with a second pass.
///
/// Conventions of the whole lab:
/// - Sums of int32 are computed in int32. The caller keeps every partial sum
///   in range: when every |value| <= INT_MAX / n, no order of additions can
///   overflow (the tests choose their inputs so). A sum that does overflow is
///   undefined behaviour, as for int in C++.
/// - Sums of floats are rounded at every step, and the result depends on the
///   order of the additions (float addition is not associative); the tests
///   compare with a double-precision sum within a tolerance that grows with n.
/// - The reduction of an empty input is the identity of the operation: 0 for
///   a sum, the largest value for a minimum, the smallest for a maximum.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <limits>

namespace reductions {

/// @brief Threads per block of the whole-array reduction, of the warp-sum
/// kernel and the default of the block-level kernels: 8 warps. How many such
/// blocks share an SM depends on the GPU (8 where an SM holds 2048 threads,
/// sm_80, sm_90 and sm_100; 6 on sm_86, sm_89 and sm_120; 4 on sm_75) and on the
/// kernel's registers and shared memory: cudaOccupancyMaxActiveBlocksPerMultiprocessor
/// says for a given kernel.
constexpr int kThreadsPerBlock = 256;

/// @brief Loads that each thread of the whole-array reduction issues before it
/// adds any of them up: with one load in flight per thread an SM cannot keep
/// enough bytes in flight to reach the memory's bandwidth.
constexpr int kItemsPerThread = 4;

/// @brief Blocks per SM of the whole-array reduction: with kThreadsPerBlock
/// threads each, enough resident threads to fill the SMs, no more where an SM
/// holds 2048 threads (elsewhere some blocks wait for a second wave).
constexpr int kBlocksPerSm = 8;

/// @brief The most blocks the whole-array reduction launches, whatever the
/// GPU; the @p partials buffer of a reduction with Combine::second_pass must
/// hold this many values.
constexpr int kMaxGridBlocks = 2048;

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask of a warp-wide shuffle in which all 32 lanes take part.
constexpr unsigned kFullWarpMask = 0xFFFFFFFFu;

/// @brief The largest block a CUDA GPU accepts; the block-level kernels take
/// any size from 1 to this.
constexpr int kMaxThreadsPerBlock = 1024;

/// @brief Addition, with its identity 0.
/// @tparam T int or float.
template <typename T>
struct Sum {
  using Value = T;                      ///< The type of the values reduced.
  static constexpr T kIdentity = T(0);  ///< x + 0 == x for every x.
  /// @brief Combines two values.
  /// @param[in] a A value.
  /// @param[in] b Another value.
  /// @return a + b.
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

/// @brief Minimum, with its identity: the largest int, or +infinity for floats.
/// @tparam T int or float.
template <typename T>
struct Min {
  using Value = T;  ///< The type of the values reduced.
  /// min(x, identity) == x for every x.
  static constexpr T kIdentity = std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                      : std::numeric_limits<T>::max();
  /// @brief Combines two values.
  /// @param[in] a A value.
  /// @param[in] b Another value.
  /// @return The smaller of a and b.
  __host__ __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};

/// @brief Maximum, with its identity: the smallest int, or -infinity for floats.
/// @tparam T int or float.
template <typename T>
struct Max {
  using Value = T;  ///< The type of the values reduced.
  /// max(x, identity) == x for every x.
  static constexpr T kIdentity = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                      : std::numeric_limits<T>::lowest();
  /// @brief Combines two values.
  /// @param[in] a A value.
  /// @param[in] b Another value.
  /// @return The larger of a and b.
  __host__ __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};

/// @brief How a whole-array reduction combines the results of its blocks.
enum class Combine {
  atomic_per_block,  ///< Thread 0 of each block adds its block's result into the output atomically.
  second_pass,       ///< Each block writes its result to a buffer; one more block reduces that buffer.
};

/// @brief The smallest power of two that is at least @p n: the size of the
/// complete binary tree that has room for n leaves.
/// @param[in] n A count, 1 to 2^30 (0 gives 1).
/// @return 1, 2, 4, ... : the smallest 2^k >= n.
__host__ __device__ int next_power_of_two(int n);

/// @brief Block sum, shared-memory tree with **interleaved addressing**.
/// Block b sums the blockDim.x elements in[b * blockDim.x ...] (threads past
/// n contribute 0) and writes the sum to partials[b]. In the step with
/// distance s = 1, 2, 4, ..., thread t adds element t + s into element t when
/// t is a multiple of 2s. Works for any blockDim.x, power of two or not.
/// Needs blockDim.x ints of dynamic shared memory.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array with one int per block.
/// @param[in] n Number of elements.
__global__ void block_sum_interleaved(const int* in, int* partials, std::size_t n);

/// @brief Block sum, shared-memory tree with **sequential addressing**: the
/// same job as block_sum_interleaved, but in each step the first half of the
/// remaining elements adds in the second half, so the threads that work are
/// contiguous (no divergence inside a warp) and read contiguous words (no bank
/// conflicts). Works for any blockDim.x. Needs blockDim.x ints of dynamic
/// shared memory.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array with one int per block.
/// @param[in] n Number of elements.
__global__ void block_sum_sequential(const int* in, int* partials, std::size_t n);

/// @brief Block sum built from warp shuffles: block b sums the
/// @p items_per_block elements in[b * items_per_block ...] (elements past n
/// count as 0) and writes the sum to partials[b]. The block has whole warps:
/// threads at or past items_per_block contribute 0.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array with one int per block.
/// @param[in] n Number of elements.
/// @param[in] items_per_block Elements summed per block, at most blockDim.x.
__global__ void block_sum_shuffle(const int* in, int* partials, std::size_t n, int items_per_block);

/// @brief Warp sums: each warp of 32 threads sums 32 consecutive elements with
/// __shfl_down_sync, sums[w] = in[32w] + ... + in[32w + 31] (the last warp
/// sums what is left; elements past n count as 0).
/// @param[in] in Device array of n ints.
/// @param[out] sums Device array of ceil(n / 32) ints.
/// @param[in] n Number of elements.
__global__ void warp_sums(const int* in, int* sums, std::size_t n);

/// @brief Launches block_sum_interleaved with @p threads_per_block threads
/// per block and ceil(n / threads_per_block) blocks; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array of ceil(n / threads_per_block) ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] threads_per_block 1 to kMaxThreadsPerBlock, any value.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when threads_per_block is out of range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_sum_interleaved(const int* in, int* partials, std::size_t n,
                                  int threads_per_block = kThreadsPerBlock, cudaStream_t stream = nullptr);

/// @brief Launches block_sum_sequential with @p threads_per_block threads per
/// block and ceil(n / threads_per_block) blocks; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array of ceil(n / threads_per_block) ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] threads_per_block 1 to kMaxThreadsPerBlock, any value.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when threads_per_block is out of range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_sum_sequential(const int* in, int* partials, std::size_t n,
                                 int threads_per_block = kThreadsPerBlock, cudaStream_t stream = nullptr);

/// @brief Launches block_sum_shuffle so that each block sums
/// @p items_per_block elements, with items_per_block rounded up to whole warps
/// as the block size, and ceil(n / items_per_block) blocks; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] partials Device array of ceil(n / items_per_block) ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] items_per_block 1 to kMaxThreadsPerBlock, any value.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when items_per_block is out of range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_sum_shuffle(const int* in, int* partials, std::size_t n,
                              int items_per_block = kThreadsPerBlock, cudaStream_t stream = nullptr);

/// @brief Launches warp_sums with kThreadsPerBlock threads per block and one
/// warp per 32 elements; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] sums Device array of ceil(n / 32) ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_warp_sums(const int* in, int* sums, std::size_t n, cudaStream_t stream = nullptr);

/// @brief The number of blocks a whole-array reduction of @p n elements
/// launches: kBlocksPerSm per SM of the current GPU, never more than n needs
/// at kThreadsPerBlock * kItemsPerThread elements per block, never more than
/// kMaxGridBlocks, at least 1.
/// @param[in] n Number of elements.
/// @return The grid size, 1 to kMaxGridBlocks.
/// @throws workbook::CudaError when there is no GPU.
int reduction_grid_blocks(std::size_t n);

/// @brief Whole-array sum of ints: *result = in[0] + ... + in[n - 1], or 0
/// for n = 0. Every thread accumulates a grid-stride slice, every block
/// reduces its threads' sums with warp shuffles, and the block sums are
/// combined as @p combine says. Asynchronous: the result is in device memory
/// once the stream reaches it.
/// @param[in] in Device array of n ints whose partial sums all fit in an int.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one int.
/// @param[in] combine Atomic per block, or a second pass over the block sums.
/// @param[out] partials Device scratch of kMaxGridBlocks ints, used by
///             Combine::second_pass (may be nullptr with Combine::atomic_per_block).
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_sum(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream = nullptr);

/// @brief Whole-array minimum of ints, INT_MAX for n = 0; otherwise as reduce_sum().
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one int.
/// @param[in] combine Atomic per block, or a second pass over the block results.
/// @param[out] partials Device scratch of kMaxGridBlocks ints (Combine::second_pass only).
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_min(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream = nullptr);

/// @brief Whole-array maximum of ints, INT_MIN for n = 0; otherwise as reduce_sum().
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one int.
/// @param[in] combine Atomic per block, or a second pass over the block results.
/// @param[out] partials Device scratch of kMaxGridBlocks ints (Combine::second_pass only).
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_max(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream = nullptr);

/// @brief Whole-array sum of floats, 0 for n = 0; otherwise as reduce_sum().
/// With Combine::atomic_per_block the order in which the block sums arrive
/// changes from run to run, and so can the last bits of the result; with
/// Combine::second_pass the order is fixed and the result repeatable.
/// @param[in] in Device array of n floats.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one float.
/// @param[in] combine Atomic per block, or a second pass over the block sums.
/// @param[out] partials Device scratch of kMaxGridBlocks floats (Combine::second_pass only).
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_sum(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream = nullptr);

/// @brief Whole-array minimum of floats, +infinity for n = 0; otherwise as reduce_sum().
/// The inputs must not be NaN.
/// @param[in] in Device array of n floats.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one float.
/// @param[in] combine Atomic per block, or a second pass over the block results.
/// @param[out] partials Device scratch of kMaxGridBlocks floats (Combine::second_pass only).
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_min(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream = nullptr);

/// @brief Whole-array maximum of floats, -infinity for n = 0; otherwise as reduce_sum().
/// The inputs must not be NaN.
/// @param[in] in Device array of n floats.
/// @param[in] n Number of elements.
/// @param[out] result Device pointer to one float.
/// @param[in] combine Atomic per block, or a second pass over the block results.
/// @param[out] partials Device scratch of kMaxGridBlocks floats (Combine::second_pass only).
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when second_pass is asked for without partials.
/// @throws workbook::CudaError when a launch fails.
void reduce_max(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream = nullptr);

}  // namespace reductions
