// SOLUTION-ONLY: Lab 04 reference solution. labs/04-reductions/reductions.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 04: reductions. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade reductions
// STUDENT-ONLY: The handout is labs/04-reductions/README.md.
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
  // HOLE: Return the smallest power of two that is at least n (1 for n <= 1), for n up to 2^30.
  // HOLE: It runs on the host and on the device.
  // STUB: return 0;
  int power = 1;
  while (power < n) power *= 2;
  return power;
  // END HOLE
}

// WALKTHROUGH: interleaved
__global__ void block_sum_interleaved(const int* in, int* partials, std::size_t n) {
  // HOLE: partials[blockIdx.x] = the sum of the block's blockDim.x elements of `in` (0 past n), by a
  // HOLE: tree with interleaved addressing in the dynamic shared array (thread t adds when
  // HOLE: t % (2 * s) == 0: measurements.md's instruction counts assume the `%`), right for any block size
  // HOLE: 1 to 1024. Every thread reaches every __syncthreads(); only thread 0 writes to partials.
  extern __shared__ int shared[];
  const int t = static_cast<int>(threadIdx.x);
  const int size = static_cast<int>(blockDim.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  shared[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = 1; s < size; s *= 2) {
    // The working threads are 2s apart: in every step every warp still runs
    // (until s reaches 32), with fewer and fewer of its lanes doing anything.
    // "t + s < size" skips the partner that a block of, say, 100 threads lacks.
    if (t % (2 * s) == 0 && t + s < size) shared[t] += shared[t + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = shared[0];
  // END HOLE
}
// END WALKTHROUGH: interleaved

// WALKTHROUGH: sequential
__global__ void block_sum_sequential(const int* in, int* partials, std::size_t n) {
  // HOLE: The same result as block_sum_interleaved, with sequential addressing: in every step the
  // HOLE: threads that add are contiguous from thread 0 and read contiguous words. Any block size
  // HOLE: 1 to 1024 (next_power_of_two helps); every thread reaches every __syncthreads().
  extern __shared__ int shared[];
  const int t = static_cast<int>(threadIdx.x);
  const int size = static_cast<int>(blockDim.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  shared[t] = i < n ? in[i] : 0;
  __syncthreads();
  // The working threads are 0 .. half-1: whole warps work or rest together, and
  // a warp reads 32 consecutive words, one per bank.
  for (int half = next_power_of_two(size) / 2; half > 0; half /= 2) {
    if (t < half && t + half < size) shared[t] += shared[t + half];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = shared[0];
  // END HOLE
}
// END WALKTHROUGH: sequential

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
// WALKTHROUGH: warp_reduce
template <typename Op>
__device__ typename Op::Value warp_reduce(typename Op::Value value, Op op) {
  // HOLE: Return, in lane 0, op applied over the 32 lanes' values (other lanes may return anything).
  // HOLE: Warp shuffles only (__shfl_down_sync with kFullWarpMask): no shared memory, no barrier.
  // STUB: return value;
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    // Lanes whose partner would be past lane 31 get their own value back; their
    // results are garbage, but only lane 0's result is used.
    value = op(value, __shfl_down_sync(kFullWarpMask, value, offset));
  }
  return value;
  // END HOLE
}
// END WALKTHROUGH: warp_reduce

// The reduction of one value per thread of the block, valid in thread 0. The
// block must be whole warps (at most 32 of them), and every thread must call it.
// It uses a shared array, so a kernel that calls it twice needs a
// __syncthreads() between the calls.
// WALKTHROUGH: block_reduce
template <typename Op>
__device__ typename Op::Value block_reduce(typename Op::Value value, Op op) {
  using T = typename Op::Value;
  // HOLE: Return, in thread 0, op applied over the values of all the block's threads, built from
  // HOLE: warp_reduce and a __shared__ array of kMaxThreadsPerBlock / kWarpSize values. Every lane
  // HOLE: of a shuffle holds a real value or Op::kIdentity; every thread reaches the one barrier.
  // STUB: return value;
  __shared__ T warp_results[kMaxThreadsPerBlock / kWarpSize];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  value = warp_reduce(value, op);
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  if (warp == 0) {
    // All 32 lanes of warp 0 shuffle, so the lanes without a warp result hold the identity.
    value = lane < warps ? warp_results[lane] : Op::kIdentity;
    value = warp_reduce(value, op);
  }
  return value;
  // END HOLE
}
// END WALKTHROUGH: block_reduce

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
// WALKTHROUGH: float_atomics
__device__ void atomic_combine(float* address, float value, Min<float>) {
  // HOLE: Atomically make *address the smaller of its value and `value`, with one integer atomic
  // HOLE: on the float's bits (CUDA has no float atomicMin). Right for every sign of the old and
  // HOLE: the new value, -0.0 and +-infinity included (-0.0 and +0.0 compare equal: either may be
  // HOLE: their minimum, but -0.0 must never beat a negative value).
  const int bits = __float_as_int(value);
  if (bits >= 0) {
    // New value >= +0: against an old non-negative value the int order is the
    // float order, and any old negative value is a negative int, which wins.
    atomicMin(reinterpret_cast<int*>(address), bits);
  } else {
    // New value negative (-0 included): as unsigned, a more negative float is
    // larger, and any old non-negative value is below 2^31, so it loses.
    atomicMax(reinterpret_cast<unsigned int*>(address), __float_as_uint(value));
  }
  // END HOLE
}
__device__ void atomic_combine(float* address, float value, Max<float>) {
  // HOLE: The same for the larger of the two: one integer atomic on the float's bits, right for
  // HOLE: every sign of the old and the new value.
  const int bits = __float_as_int(value);
  if (bits >= 0) {
    atomicMax(reinterpret_cast<int*>(address), bits);
  } else {
    atomicMin(reinterpret_cast<unsigned int*>(address), __float_as_uint(value));
  }
  // END HOLE
}
// END WALKTHROUGH: float_atomics

// Every thread accumulates a grid-stride slice of `in`, the block reduces its
// threads' values, and thread 0 either combines the block's result into
// out[0] atomically or writes it to out[blockIdx.x].
// WALKTHROUGH: grid_stride
template <typename Op>
__global__ void reduce_grid_stride(const typename Op::Value* in, std::size_t n, typename Op::Value* out,
                                   Combine combine) {
  using T = typename Op::Value;
  const Op op{};
  // HOLE: The grid together combines every element of in[0, n) exactly once, for any grid size and
  // HOLE: any n, each thread keeping kItemsPerThread loads in flight (std::size_t indices). The block's
  // HOLE: result (block_reduce) goes, from thread 0 only, into out[0] with atomic_combine for
  // HOLE: Combine::atomic_per_block, or to out[blockIdx.x] otherwise.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  T accumulator = Op::kIdentity;
  // Steps of kItemsPerThread coalesced loads, all issued before the first is used.
  for (; i + (kItemsPerThread - 1) * stride < n; i += kItemsPerThread * stride) {
    T values[kItemsPerThread];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) values[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) accumulator = op(accumulator, values[k]);
  }
  for (; i < n; i += stride) accumulator = op(accumulator, in[i]);

  const T total = block_reduce(accumulator, op);
  if (threadIdx.x == 0) {
    if (combine == Combine::atomic_per_block) {
      atomic_combine(out, total, op);
    } else {
      out[blockIdx.x] = total;
    }
  }
  // END HOLE
}
// END WALKTHROUGH: grid_stride

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
  // HOLE: Leave the reduction of in[0, n) in *result, on `stream`, with reduce_grid_stride<Op> on
  // HOLE: reduction_grid_blocks(n) blocks of kThreadsPerBlock threads. Atomic per block: *result holds
  // HOLE: Op::kIdentity before any block combines into it (store_value). Second pass: no atomics, the
  // HOLE: block results go through partials, then one block of reduce_grid_stride<Op>, with
  // HOLE: Combine::second_pass, reduces them into result (out[0] of that launch). CUDA_CHECK_LAUNCH after
  // HOLE: every launch.
  const int blocks = reduction_grid_blocks(n);
  if (combine == Combine::atomic_per_block) {
    store_value<<<1, 1, 0, stream>>>(result, static_cast<T>(Op::kIdentity));
    CUDA_CHECK_LAUNCH("store_value");
    reduce_grid_stride<Op><<<blocks, kThreadsPerBlock, 0, stream>>>(in, n, result, combine);
    CUDA_CHECK_LAUNCH("reduce_grid_stride (atomic per block)");
  } else {
    reduce_grid_stride<Op><<<blocks, kThreadsPerBlock, 0, stream>>>(in, n, partials, combine);
    CUDA_CHECK_LAUNCH("reduce_grid_stride (first pass)");
    // The same kernel as a single block: its grid-stride loop walks the partials
    // and its one block result is the answer, written to result[0].
    reduce_grid_stride<Op>
        <<<1, kThreadsPerBlock, 0, stream>>>(partials, static_cast<std::size_t>(blocks), result, combine);
    CUDA_CHECK_LAUNCH("reduce_grid_stride (second pass)");
  }
  // END HOLE
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
