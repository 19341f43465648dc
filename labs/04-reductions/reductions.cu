// Lab 04: reductions. This is your file: fill in each TODO, then run
//   ./workbook grade reductions
// The handout is labs/04-reductions/README.md.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "reductions.cuh"
#include "workbook/cuda_check.hpp"

namespace reductions {

namespace {

std::size_t ceil_div(std::size_t n, std::size_t d) {
  return (n + d - 1) / d;
}

// The number of SMs of the current GPU, read once.
int sm_count() {
  static const int count = [] {
    int device = 0;
    int value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return value;
  }();
  return count;
}

void check_block_size(int threads, const char* launcher) {
  if (threads < 1 || threads > kMaxThreadsPerBlock) {
    throw std::invalid_argument(std::string(launcher) + ": the block size must be 1 to " +
                                std::to_string(kMaxThreadsPerBlock) + ", got " + std::to_string(threads));
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Part 1: trees in shared memory.

__host__ __device__ int next_power_of_two(int n) {
  // TODO(1): Return the smallest power of two that is at least n (1 for n <= 1), for n up to 2^30.
  //          It runs on the host and on the device.
  return 0;
}

__global__ void block_sum_interleaved(const int* in, int* partials, std::size_t n) {
  // TODO(2): partials[blockIdx.x] = the sum of the block's blockDim.x elements of `in` (0 past n), by a
  //          tree with interleaved addressing in the dynamic shared array (thread t adds when
  //          t % (2 * s) == 0: measurements.md's instruction counts assume the `%`), right for any block size
  //          1 to 1024. Every thread reaches every __syncthreads(); only thread 0 writes to partials.
}

__global__ void block_sum_sequential(const int* in, int* partials, std::size_t n) {
  // TODO(3): The same result as block_sum_interleaved, with sequential addressing: in every step the
  //          threads that add are contiguous from thread 0 and read contiguous words. Any block size
  //          1 to 1024 (next_power_of_two helps); every thread reaches every __syncthreads().
}

void launch_block_sum_interleaved(const int* in, int* partials, std::size_t n, int threads_per_block,
                                  cudaStream_t stream) {
  check_block_size(threads_per_block, "launch_block_sum_interleaved");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, static_cast<std::size_t>(threads_per_block)));
  const std::size_t shared_bytes = static_cast<std::size_t>(threads_per_block) * sizeof(int);
  block_sum_interleaved<<<blocks, threads_per_block, shared_bytes, stream>>>(in, partials, n);
  CUDA_CHECK_LAUNCH("block_sum_interleaved");
}

void launch_block_sum_sequential(const int* in, int* partials, std::size_t n, int threads_per_block,
                                 cudaStream_t stream) {
  check_block_size(threads_per_block, "launch_block_sum_sequential");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, static_cast<std::size_t>(threads_per_block)));
  const std::size_t shared_bytes = static_cast<std::size_t>(threads_per_block) * sizeof(int);
  block_sum_sequential<<<blocks, threads_per_block, shared_bytes, stream>>>(in, partials, n);
  CUDA_CHECK_LAUNCH("block_sum_sequential");
}

// ---------------------------------------------------------------------------
// Part 2: warp shuffles.

// The reduction of the 32 values of a warp, valid in lane 0. Every lane of the
// warp must call it (the shuffles name all 32 lanes in their mask).
template <typename Op>
__device__ typename Op::Value warp_reduce(typename Op::Value value, Op op) {
  // TODO(4): Return, in lane 0, op applied over the 32 lanes' values (other lanes may return anything).
  //          Warp shuffles only (__shfl_down_sync with kFullWarpMask): no shared memory, no barrier.
  return value;
}

// The reduction of one value per thread of the block, valid in thread 0. The
// block must be whole warps (at most 32 of them), and every thread must call it.
// It uses a shared array, so a kernel that calls it twice needs a
// __syncthreads() between the calls.
template <typename Op>
__device__ typename Op::Value block_reduce(typename Op::Value value, Op op) {
  using T = typename Op::Value;
  // TODO(5): Return, in thread 0, op applied over the values of all the block's threads, built from
  //          warp_reduce and a __shared__ array of kMaxThreadsPerBlock / kWarpSize values. Every lane
  //          of a shuffle holds a real value or Op::kIdentity; every thread reaches the one barrier.
  return value;
}

__global__ void warp_sums(const int* in, int* sums, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Threads past n still take part in the shuffles, with the identity.
  const int total = warp_reduce(i < n ? in[i] : 0, Sum<int>{});
  if (i % kWarpSize == 0 && i < n) sums[i / kWarpSize] = total;
}

__global__ void block_sum_shuffle(const int* in, int* partials, std::size_t n, int items_per_block) {
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(items_per_block) + t;
  const int total = block_reduce(t < items_per_block && i < n ? in[i] : 0, Sum<int>{});
  if (t == 0) partials[blockIdx.x] = total;
}

void launch_warp_sums(const int* in, int* sums, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kThreadsPerBlock));
  warp_sums<<<blocks, kThreadsPerBlock, 0, stream>>>(in, sums, n);
  CUDA_CHECK_LAUNCH("warp_sums");
}

void launch_block_sum_shuffle(const int* in, int* partials, std::size_t n, int items_per_block,
                              cudaStream_t stream) {
  check_block_size(items_per_block, "launch_block_sum_shuffle");
  if (n == 0) return;
  // Whole warps only: a shuffle with a full mask needs all 32 lanes to exist.
  const int threads = static_cast<int>(ceil_div(items_per_block, kWarpSize)) * kWarpSize;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, static_cast<std::size_t>(items_per_block)));
  block_sum_shuffle<<<blocks, threads, 0, stream>>>(in, partials, n, items_per_block);
  CUDA_CHECK_LAUNCH("block_sum_shuffle");
}

// ---------------------------------------------------------------------------
// Part 3: the whole array. Atomic combination of one block's result into *address.

__device__ void atomic_combine(int* address, int value, Sum<int>) {
  atomicAdd(address, value);
}
__device__ void atomic_combine(int* address, int value, Min<int>) {
  atomicMin(address, value);
}
__device__ void atomic_combine(int* address, int value, Max<int>) {
  atomicMax(address, value);
}
__device__ void atomic_combine(float* address, float value, Sum<float>) {
  // Native since sm_20; the order in which blocks arrive decides the rounding.
  atomicAdd(address, value);
}

// There is no atomicMin/atomicMax for float; integer atomics on the float's bits
// stand in. How those bits order, read as int and as unsigned: the handout's
// Background, "Float atomics".
__device__ void atomic_combine(float* address, float value, Min<float>) {
  // TODO(6): Atomically make *address the smaller of its value and `value`, with one integer atomic
  //          on the float's bits (CUDA has no float atomicMin). Right for every sign of the old and
  //          the new value, -0.0 and +-infinity included (-0.0 and +0.0 compare equal: either may be
  //          their minimum, but -0.0 must never beat a negative value).
}
__device__ void atomic_combine(float* address, float value, Max<float>) {
  // TODO(7): The same for the larger of the two: one integer atomic on the float's bits, right for
  //          every sign of the old and the new value.
}

// Every thread accumulates a grid-stride slice of `in`, the block reduces its
// threads' values, and thread 0 either combines the block's result into
// out[0] atomically or writes it to out[blockIdx.x].
template <typename Op>
__global__ void reduce_grid_stride(const typename Op::Value* in, std::size_t n, typename Op::Value* out,
                                   Combine combine) {
  using T = typename Op::Value;
  const Op op{};
  // TODO(8): The grid together combines every element of in[0, n) exactly once, for any grid size and
  //          any n, each thread keeping kItemsPerThread loads in flight (std::size_t indices). The block's
  //          result (block_reduce) goes, from thread 0 only, into out[0] with atomic_combine for
  //          Combine::atomic_per_block, or to out[blockIdx.x] otherwise.
}

template <typename T>
__global__ void store_value(T* out, T value) {
  *out = value;
}

int reduction_grid_blocks(std::size_t n) {
  const std::size_t per_block = static_cast<std::size_t>(kThreadsPerBlock) * kItemsPerThread;
  const std::size_t wanted =
      std::min(ceil_div(n, per_block), static_cast<std::size_t>(sm_count()) * kBlocksPerSm);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, kMaxGridBlocks)));
}

namespace {

template <typename Op>
void reduce_whole_array(const typename Op::Value* in, std::size_t n, typename Op::Value* result,
                        Combine combine, typename Op::Value* partials, cudaStream_t stream) {
  using T = typename Op::Value;
  if (combine == Combine::second_pass && partials == nullptr) {
    throw std::invalid_argument(
        "reduce: Combine::second_pass needs a partials buffer of kMaxGridBlocks values");
  }
  if (n == 0) {
    // Defined, not an error: the reduction of nothing is the identity.
    store_value<<<1, 1, 0, stream>>>(result, static_cast<T>(Op::kIdentity));
    CUDA_CHECK_LAUNCH("store_value");
    return;
  }
  // TODO(9): Leave the reduction of in[0, n) in *result, on `stream`, with reduce_grid_stride<Op> on
  //          reduction_grid_blocks(n) blocks of kThreadsPerBlock threads. Atomic per block: *result holds
  //          Op::kIdentity before any block combines into it (store_value). Second pass: no atomics, the
  //          block results go through partials, then one block of reduce_grid_stride<Op>, with
  //          Combine::second_pass, reduces them into result (out[0] of that launch). CUDA_CHECK_LAUNCH after
  //          every launch.
}

}  // namespace

// Part 4: the six reductions the tests call.
void reduce_sum(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream) {
  reduce_whole_array<Sum<int>>(in, n, result, combine, partials, stream);
}
void reduce_min(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream) {
  reduce_whole_array<Min<int>>(in, n, result, combine, partials, stream);
}
void reduce_max(const int* in, std::size_t n, int* result, Combine combine, int* partials,
                cudaStream_t stream) {
  reduce_whole_array<Max<int>>(in, n, result, combine, partials, stream);
}
void reduce_sum(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream) {
  reduce_whole_array<Sum<float>>(in, n, result, combine, partials, stream);
}
void reduce_min(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream) {
  reduce_whole_array<Min<float>>(in, n, result, combine, partials, stream);
}
void reduce_max(const float* in, std::size_t n, float* result, Combine combine, float* partials,
                cudaStream_t stream) {
  reduce_whole_array<Max<float>>(in, n, result, combine, partials, stream);
}

}  // namespace reductions
