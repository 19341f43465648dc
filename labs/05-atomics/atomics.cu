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
  // TODO(1): Return the slot, 0 to Slots - 1, that thread thread_index of a block updates (the header
  //          defines it): with 32 slots, the 32 lanes of a warp must land in 32 different slots.
  return 0;
}

template <int Slots, int Pitch>
__host__ __device__ int ParallelCounter<Slots, Pitch>::word_of_slot(int slot) {
  // TODO(2): Return the index in words where slot `slot` lives, for the layout that Pitch describes
  //          (kPackedPitch: the slots are neighbours; kPaddedPitch: each slot has its own 128-byte line).
  return 0;
}

template <int Slots, int Pitch>
__host__ __device__ void ParallelCounter<Slots, Pitch>::set(unsigned value) {
  // TODO(3): Make the counter hold value, spread as evenly as the header says (total() == value), with
  //          every padding word 0 afterwards. The memory may hold garbage before the call.
}

template <int Slots, int Pitch>
__host__ __device__ unsigned ParallelCounter<Slots, Pitch>::total() const {
  // TODO(4): Return the counter's value: the sum of the slots modulo 2^32, padding not included. It must
  //          stay right when a slot has wrapped below zero.
  return 0;
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator+=(unsigned amount) {
  // TODO(5): Add amount to the calling thread's slot, slot_of(threadIdx.x), so that no update is lost when
  //          many threads of the grid add at the same time.
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator-=(unsigned amount) {
  // TODO(6): Subtract amount from the calling thread's slot, with no update lost under contention.
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
  // TODO(7): With the three kernels above, entirely on the device: device_global_counter starts at initial
  //          (set by one thread), n threads add 1 each, and its total() comes back to the host as the
  //          return value. No empty grid for n == 0; check every launch with CUDA_CHECK_LAUNCH.
  return 0;
}

unsigned count_in_mapped_memory(std::size_t n, unsigned initial) {
  // TODO(8): A PackedCounter in mapped host memory (HostAllocation, cudaHostAllocMapped): set to initial
  //          on the host, n device threads add 1 each through launch_add_to_counter, and return the
  //          total() the host reads once the device has finished. Wrap CUDA calls in CUDA_CHECK.
  return 0;
}

// ---------------------------------------------------------------------------
// Part 2: block-level aggregation

__global__ void count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count) {
  // TODO(9): Add the number of odd values[i] (the header's is_odd), i < n, to *count with at most ONE
  //          global atomic per block: the block counts in shared memory first. Every thread of the block
  //          reaches every barrier.
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
  // TODO(10): Return the mask of the lanes below lane: bit k set exactly when k < lane (0 for lane 0).
  //           lane is 0 to 31, and no shift may be undefined.
  return 0;
}

__host__ __device__ int rank_in_mask(unsigned mask, int lane) {
  // TODO(11): Return how many lanes of mask are below lane (its own bit does not count). Use the header's
  //           host-and-device helpers: the host tests call it.
  return 0;
}

__host__ __device__ int leader_of(unsigned mask) {
  // TODO(12): Return the lowest lane set in mask (0 to 31; mask is not empty), with the header's
  //           find_first_set: read how it numbers the bits.
  return 0;
}

__global__ void filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(13): Append every odd values[i] (the header's is_odd), i < n, to out, one atomic per kept value:
  //           each gets a position of its own from *out_count, which ends advanced by the number kept. Any
  //           order, no gaps.
}

__global__ void filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(14): The same filter with ONE global atomic per warp that keeps anything: the warp reserves its
  //           range of out at once; each kept lane writes at its place in it (use leader_of, rank_in_mask).
  //           Every lane a *_sync mask names (kFullMask) must execute that call, also lanes with i >= n.
}

__global__ void filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // TODO(15): The same filter with ONE global atomic per block that keeps anything: kept threads take their
  //           place inside the block from a shared-memory atomic, and the block reserves its range of out.
  //           Every thread of the block reaches every __syncthreads(): no early return.
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
// and swaps the float's 32 bits. Returns the value at address just before its
// swap or, with no swap, the value that stopped it.
__device__ float atomic_max_float(float* address, float value) {
  // TODO(16): Atomically make *address the larger of itself and value, by atomicCAS on the float's bits;
  //           a NaN value changes nothing and no other thread's update is lost (the return value: above).
  return *address;
}

// atomicAdd for doubles by compare-and-swap, as it had to be written before
// compute capability 6.0. Returns the value before this thread's add.
__device__ double atomic_add_double_cas(double* address, double value) {
  // TODO(17): Atomically add value to *address by atomicCAS on its 64 bits, losing no add under contention;
  //           return the value just before this thread's add. The loop must end once its CAS succeeded,
  //           whatever the doubles hold (NaN, -0.0).
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
  // TODO(18): Increase counts[k] by the number of keys equal to k in keys[0, n), with ONE atomic per
  //           group of equal keys in a warp (__match_any_sync finds the groups). Lanes with i >= n take
  //           no part in the match; every lane a *_sync mask names must execute that call.
}

void launch_count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts, cudaStream_t stream) {
  if (n == 0) return;
  count_by_key_match_any<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys, n, counts);
  CUDA_CHECK_LAUNCH("count_by_key_match_any");
}

}  // namespace atomics
