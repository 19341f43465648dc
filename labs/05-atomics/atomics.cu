// Lab 05: atomics. This is your file: fill in each TODO, then run
//   ./workbook grade atomics
// The handout is labs/05-atomics/README.md.
#include <stdexcept>
#include <string>

#include "atomics.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"

namespace atomics {

namespace {

// The index of the calling thread in the whole grid, in std::size_t: a grid
// of 2^28 threads is fine in an int, 2^31 is not.
__device__ std::size_t global_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The calling thread's lane in its warp: blocks are whole warps, so the lane
// is threadIdx.x modulo 32.
[[maybe_unused]] __device__ int lane_index() {
  return static_cast<int>(threadIdx.x % kWarpSize);
}

// Blocks of kThreadsPerBlock threads for n threads, one per element.
unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(ceil_div(n, kThreadsPerBlock));
}

void check_slot_count(int slot_count, const char* launcher) {
  if (slot_count < 1) throw std::invalid_argument(std::string(launcher) + ": slot_count must be at least 1");
}

}  // namespace

// ---------------------------------------------------------------------------
// Part 1: ParallelCounter

template <int Slots, int Pitch>
__host__ __device__ int ParallelCounter<Slots, Pitch>::slot_of(unsigned thread_index) {
  // TODO(1): Return thread_index modulo Slots. With Slots = 32 this is the lane: the 32
  //          threads of a warp update 32 different slots.
  return 0;
}

template <int Slots, int Pitch>
__host__ __device__ int ParallelCounter<Slots, Pitch>::word_of_slot(int slot) {
  // TODO(2): Slot s lives in words[s * Pitch]: neighbours when Pitch is 1, a cache line
  //          apart when Pitch is kPaddedPitch.
  return 0;
}

template <int Slots, int Pitch>
__host__ __device__ void ParallelCounter<Slots, Pitch>::set(unsigned value) {
  // TODO(3): Clear every word (padding included), then give each slot value / Slots and
  //          the first value % Slots slots one more, so that the slots add up to value.
}

template <int Slots, int Pitch>
__host__ __device__ unsigned ParallelCounter<Slots, Pitch>::total() const {
  // TODO(4): Add up the Slots slots (not the padding) in an unsigned: wrapping modulo
  //          2^32 is what makes a slot that went "below zero" still give the right total.
  return 0;
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator+=(unsigned amount) {
  // TODO(5): atomicAdd amount to this thread's slot: words[word_of_slot(slot_of(threadIdx.x))].
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator-=(unsigned amount) {
  // TODO(6): atomicSub amount from this thread's slot.
}

// The counters the lab uses. Their member functions are compiled here and
// nowhere else, so every size used by another file must be listed.
template struct ParallelCounter<kCounterSlots, kPackedPitch>;
template struct ParallelCounter<kCounterSlots, kPaddedPitch>;
template struct ParallelCounter<8, kPackedPitch>;

namespace {

template <typename Counter>
__global__ void add_to_counter(Counter* counter, std::size_t n, unsigned amount) {
  if (global_index() < n) *counter += amount;
}

template <typename Counter>
__global__ void subtract_from_counter(Counter* counter, std::size_t n, unsigned amount) {
  if (global_index() < n) *counter -= amount;
}

template <typename Counter>
void launch_add(Counter* counter, std::size_t n, unsigned amount, cudaStream_t stream) {
  if (n == 0) return;
  add_to_counter<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(counter, n, amount);
  CUDA_CHECK_LAUNCH("add_to_counter");
}

template <typename Counter>
void launch_subtract(Counter* counter, std::size_t n, unsigned amount, cudaStream_t stream) {
  if (n == 0) return;
  subtract_from_counter<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(counter, n, amount);
  CUDA_CHECK_LAUNCH("subtract_from_counter");
}

// One counter that lives on the device for the whole program, like any
// global variable; host code reaches it only through kernels or
// cudaMemcpyToSymbol / cudaMemcpyFromSymbol.
__device__ PackedCounter device_global_counter;

[[maybe_unused]] __global__ void set_device_global_counter(unsigned value) {
  device_global_counter.set(value);
}

[[maybe_unused]] __global__ void add_one_to_device_global_counter(std::size_t n) {
  if (global_index() < n) device_global_counter += 1u;
}

[[maybe_unused]] __global__ void read_device_global_counter(unsigned* total) {
  *total = device_global_counter.total();
}

// Owns memory from cudaHostAlloc (page-locked host memory; with
// cudaHostAllocMapped the device can address it too).
struct HostAllocation {
  HostAllocation(std::size_t bytes, unsigned flags) { CUDA_CHECK(cudaHostAlloc(&pointer, bytes, flags)); }
  ~HostAllocation() {
    if (pointer != nullptr) cudaFreeHost(pointer);
  }
  HostAllocation(const HostAllocation&) = delete;
  HostAllocation& operator=(const HostAllocation&) = delete;

  void* pointer = nullptr;  // the host address
};

}  // namespace

void launch_add_to_counter(PackedCounter* counter, std::size_t n, unsigned amount, cudaStream_t stream) {
  launch_add(counter, n, amount, stream);
}

void launch_add_to_counter(PaddedCounter* counter, std::size_t n, unsigned amount, cudaStream_t stream) {
  launch_add(counter, n, amount, stream);
}

void launch_add_to_counter(EightSlotCounter* counter, std::size_t n, unsigned amount, cudaStream_t stream) {
  launch_add(counter, n, amount, stream);
}

void launch_subtract_from_counter(PackedCounter* counter, std::size_t n, unsigned amount,
                                  cudaStream_t stream) {
  launch_subtract(counter, n, amount, stream);
}

void launch_subtract_from_counter(PaddedCounter* counter, std::size_t n, unsigned amount,
                                  cudaStream_t stream) {
  launch_subtract(counter, n, amount, stream);
}

unsigned count_with_device_global(std::size_t n, unsigned initial) {
  // TODO(7): Use device_global_counter entirely on the device:
  //          1. set_device_global_counter<<<1, 1>>>(initial): ONE thread calls set().
  //          2. add_one_to_device_global_counter with one thread per element (blocks_for(n)
  //             blocks of kThreadsPerBlock), only when n > 0 (a grid of 0 blocks is an error).
  //          3. read_device_global_counter<<<1, 1>>> into a workbook::DeviceBuffer<unsigned>(1),
  //             and return its value (to_host()[0]). Check every launch with CUDA_CHECK_LAUNCH.
  return 0;
}

unsigned count_in_mapped_memory(std::size_t n, unsigned initial) {
  // TODO(8): 1. HostAllocation memory(sizeof(PackedCounter), cudaHostAllocMapped); view
  //             memory.pointer as a PackedCounter* on the host; set(initial) there, on the host.
  //          2. cudaHostGetDevicePointer gives the address the device uses for the same bytes.
  //          3. launch_add_to_counter(device pointer, n, 1), then cudaDeviceSynchronize(): the
  //             kernel's atomics land in host memory, and the host may read them only after it.
  //          4. Return total() computed on the host. Wrap CUDA calls in CUDA_CHECK.
  return 0;
}

// ---------------------------------------------------------------------------
// Part 2: block-level aggregation

__global__ void count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count) {
  // TODO(9): 1. A __shared__ unsigned block_count; thread 0 sets it to 0; __syncthreads().
  //          2. Each thread with i < n and an odd values[i] does atomicAdd(&block_count, 1u):
  //             a shared-memory atomic, handled inside the SM.
  //          3. __syncthreads(); then thread 0 adds block_count to *count with ONE global
  //             atomicAdd (skip it when the block found nothing).
}

void launch_count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count,
                                       cudaStream_t stream) {
  if (n == 0) return;
  count_odd_block_aggregated<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, count);
  CUDA_CHECK_LAUNCH("count_odd_block_aggregated");
}

// ---------------------------------------------------------------------------
// Part 3: filters

__host__ __device__ unsigned lanes_below(int lane) {
  // TODO(10): Bits 0 to lane - 1: (1u << lane) - 1u. Lane 0 has no lanes below it.
  return 0;
}

__host__ __device__ int rank_in_mask(unsigned mask, int lane) {
  // TODO(11): Count the bits of mask below lane: popcount(mask & lanes_below(lane)).
  return 0;
}

__host__ __device__ int leader_of(unsigned mask) {
  // TODO(12): The lowest set bit: find_first_set counts positions from 1, lanes from 0.
  return 0;
}

__global__ void filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(13): If i < n and values[i] is odd: take a position with atomicAdd(out_count, 1u)
  //          (it returns the old value: this thread's position) and write values[i] there.
}

__global__ void filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(14): Every lane must reach the vote, also those with i >= n (they keep nothing), so
  //          do not return early. Then:
  //          1. kept = __ballot_sync(kFullMask, keep): bit k set when lane k keeps its value.
  //             If kept is 0 the whole warp is done.
  //          2. The leader, leader_of(kept), does base = atomicAdd(out_count, popcount(kept)).
  //          3. base = __shfl_sync(kFullMask, base, leader): every lane gets the leader's base.
  //          4. A kept lane writes its value to out[base + rank_in_mask(kept, lane)].
}

__global__ void filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(15): 1. __shared__ unsigned block_kept (thread 0 sets it to 0) and block_base; sync.
  //          2. A thread that keeps its value takes position = atomicAdd(&block_kept, 1u).
  //          3. Sync; thread 0 reserves the block's range: block_base = atomicAdd(out_count,
  //             block_kept) (only when block_kept > 0). Sync again so everyone sees block_base.
  //          4. A kept thread writes its value to out[block_base + position].
  //          Every thread of the block must reach each __syncthreads(): no early return.
}

void launch_filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count,
                                  cudaStream_t stream) {
  if (n == 0) return;
  filter_odd_per_thread<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, out, out_count);
  CUDA_CHECK_LAUNCH("filter_odd_per_thread");
}

void launch_filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count,
                                       cudaStream_t stream) {
  if (n == 0) return;
  filter_odd_warp_aggregated<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, out, out_count);
  CUDA_CHECK_LAUNCH("filter_odd_warp_aggregated");
}

void launch_filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count,
                                        cudaStream_t stream) {
  if (n == 0) return;
  filter_odd_block_aggregated<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, out, out_count);
  CUDA_CHECK_LAUNCH("filter_odd_block_aggregated");
}

// ---------------------------------------------------------------------------
// Part 4: compare-and-swap loops

namespace {

// atomicMax for floats: atomicCAS works on integers, so the loop compares
// and swaps the float's 32 bits. Returns the value before this thread's update.
__device__ float atomic_max_float(float* address, float value) {
  // TODO(16): Read the current bits (int old = *reinterpret_cast<int*>(address)). While the
  //          float they hold is less than value: try atomicCAS(int address, old, bits of value)
  //          (__float_as_int); it returns what was there. If that equals old, the swap
  //          happened: stop. Otherwise someone else wrote first: old = what it returned, and
  //          test again. Return the float of the last value seen (__int_as_float).
  return *address;
}

// atomicAdd for doubles by compare-and-swap, as it had to be written before
// compute capability 6.0. Returns the value before this thread's add.
__device__ double atomic_add_double_cas(double* address, double value) {
  // TODO(17): View the double as unsigned long long bits. Loop: assumed = current bits;
  //          new bits = __double_as_longlong(__longlong_as_double(assumed) + value);
  //          old = atomicCAS(bits address, assumed, new bits); until old == assumed.
  //          Compare the BITS, not the doubles: NaN != NaN would loop forever.
  //          Return __longlong_as_double(old).
  return *address;
}

}  // namespace

__global__ void max_into_slots_cas(const float* values, std::size_t n, float* slots, int slot_count) {
  const std::size_t i = global_index();
  if (i < n) atomic_max_float(&slots[i % static_cast<std::size_t>(slot_count)], values[i]);
}

__global__ void add_into_slots_cas(const double* values, std::size_t n, double* slots, int slot_count) {
  const std::size_t i = global_index();
  if (i < n) atomic_add_double_cas(&slots[i % static_cast<std::size_t>(slot_count)], values[i]);
}

__global__ void add_into_slots_native(const double* values, std::size_t n, double* slots, int slot_count) {
  const std::size_t i = global_index();
  if (i < n) atomicAdd(&slots[i % static_cast<std::size_t>(slot_count)], values[i]);
}

__global__ void take_tickets_cas(double* counter, std::size_t n, double* tickets) {
  const std::size_t i = global_index();
  if (i < n) tickets[i] = atomic_add_double_cas(counter, 1.0);
}

void launch_max_into_slots_cas(const float* values, std::size_t n, float* slots, int slot_count,
                               cudaStream_t stream) {
  check_slot_count(slot_count, "launch_max_into_slots_cas");
  if (n == 0) return;
  max_into_slots_cas<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, slots, slot_count);
  CUDA_CHECK_LAUNCH("max_into_slots_cas");
}

void launch_add_into_slots_cas(const double* values, std::size_t n, double* slots, int slot_count,
                               cudaStream_t stream) {
  check_slot_count(slot_count, "launch_add_into_slots_cas");
  if (n == 0) return;
  add_into_slots_cas<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, slots, slot_count);
  CUDA_CHECK_LAUNCH("add_into_slots_cas");
}

void launch_add_into_slots_native(const double* values, std::size_t n, double* slots, int slot_count,
                                  cudaStream_t stream) {
  check_slot_count(slot_count, "launch_add_into_slots_native");
  if (n == 0) return;
  add_into_slots_native<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, slots, slot_count);
  CUDA_CHECK_LAUNCH("add_into_slots_native");
}

void launch_take_tickets_cas(double* counter, std::size_t n, double* tickets, cudaStream_t stream) {
  if (n == 0) return;
  take_tickets_cas<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(counter, n, tickets);
  CUDA_CHECK_LAUNCH("take_tickets_cas");
}

// ---------------------------------------------------------------------------
// Part 5: reduce by key with __match_any_sync

__global__ void count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts) {
  // TODO(18): 1. in_range = __ballot_sync(kFullMask, i < n), voted by all 32 lanes.
  //          2. Lanes with i >= n leave. The others: peers = __match_any_sync(in_range, key):
  //             the lanes (among in_range) whose key equals this lane's.
  //          3. The group's leader, leader_of(peers), adds popcount(peers) to counts[key];
  //             the other peers do nothing. One atomic per group instead of one per key.
}

void launch_count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts, cudaStream_t stream) {
  if (n == 0) return;
  count_by_key_match_any<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys, n, counts);
  CUDA_CHECK_LAUNCH("count_by_key_match_any");
}

}  // namespace atomics
