// SOLUTION-ONLY: Lab 05 reference solution. labs/05-atomics/atomics.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 05: atomics. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade atomics
// STUDENT-ONLY: The handout is labs/05-atomics/README.md.
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

// WALKTHROUGH: parallel-counter
template <int Slots, int Pitch>
__host__ __device__ int ParallelCounter<Slots, Pitch>::slot_of(unsigned thread_index) {
  // HOLE: Return the slot, 0 to Slots - 1, that thread thread_index of a block updates (the header
  // HOLE: defines it): with 32 slots, the 32 lanes of a warp must land in 32 different slots.
  // STUB: return 0;
  // Slots is a compile-time constant: for a power of two the compiler turns % into &.
  return static_cast<int>(thread_index % static_cast<unsigned>(Slots));
  // END HOLE
}

template <int Slots, int Pitch>
__host__ __device__ int ParallelCounter<Slots, Pitch>::word_of_slot(int slot) {
  // HOLE: Return the index in words where slot `slot` lives, for the layout that Pitch describes
  // HOLE: (kPackedPitch: the slots are neighbours; kPaddedPitch: each slot has its own 128-byte line).
  // STUB: return 0;
  return slot * Pitch;
  // END HOLE
}

template <int Slots, int Pitch>
__host__ __device__ void ParallelCounter<Slots, Pitch>::set(unsigned value) {
  // HOLE: Make the counter hold value, spread as evenly as the header says (total() == value), with
  // HOLE: every padding word 0 afterwards. The memory may hold garbage before the call.
  for (int w = 0; w < Slots * Pitch; ++w) words[w] = 0;
  const unsigned share = value / Slots;
  const int remainder = static_cast<int>(value % Slots);
  for (int s = 0; s < Slots; ++s) words[word_of_slot(s)] = share + (s < remainder ? 1u : 0u);
  // END HOLE
}

template <int Slots, int Pitch>
__host__ __device__ unsigned ParallelCounter<Slots, Pitch>::total() const {
  // HOLE: Return the counter's value: the sum of the slots modulo 2^32, padding not included. It must
  // HOLE: stay right when a slot has wrapped below zero.
  // STUB: return 0;
  unsigned sum = 0;
  for (int s = 0; s < Slots; ++s) sum += words[word_of_slot(s)];
  return sum;
  // END HOLE
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator+=(unsigned amount) {
  // HOLE: Add amount to the calling thread's slot, slot_of(threadIdx.x), so that no update is lost when
  // HOLE: many threads of the grid add at the same time.
  // The 32 lanes of a warp hit 32 different addresses, so the compiler cannot merge
  // them into one atomic as it does for a single counter: see the handout's SASS exercise.
  atomicAdd(&words[word_of_slot(slot_of(threadIdx.x))], amount);
  // END HOLE
}

template <int Slots, int Pitch>
__device__ void ParallelCounter<Slots, Pitch>::operator-=(unsigned amount) {
  // HOLE: Subtract amount from the calling thread's slot, with no update lost under contention.
  atomicSub(&words[word_of_slot(slot_of(threadIdx.x))], amount);
  // END HOLE
}

// The counters the lab uses. Their member functions are compiled here and
// nowhere else, so every size used by another file must be listed.
template struct ParallelCounter<kCounterSlots, kPackedPitch>;
template struct ParallelCounter<kCounterSlots, kPaddedPitch>;
template struct ParallelCounter<8, kPackedPitch>;
// END WALKTHROUGH: parallel-counter

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

// WALKTHROUGH: device-global
unsigned count_with_device_global(std::size_t n, unsigned initial) {
  // HOLE: With the three kernels above, entirely on the device: device_global_counter starts at initial
  // HOLE: (set by one thread), n threads add 1 each, and its total() comes back to the host as the
  // HOLE: return value. No empty grid for n == 0; check every launch with CUDA_CHECK_LAUNCH.
  // STUB: return 0;
  set_device_global_counter<<<1, 1>>>(initial);
  CUDA_CHECK_LAUNCH("set_device_global_counter");
  if (n > 0) {
    add_one_to_device_global_counter<<<blocks_for(n), kThreadsPerBlock>>>(n);
    CUDA_CHECK_LAUNCH("add_one_to_device_global_counter");
  }
  workbook::DeviceBuffer<unsigned> total(1);
  // Kernels on one stream run in order: this one sees every add before it.
  read_device_global_counter<<<1, 1>>>(total.data());
  CUDA_CHECK_LAUNCH("read_device_global_counter");
  return total.to_host()[0];
  // END HOLE
}
// END WALKTHROUGH: device-global

// WALKTHROUGH: mapped-memory
unsigned count_in_mapped_memory(std::size_t n, unsigned initial) {
  // HOLE: A PackedCounter in mapped host memory (HostAllocation, cudaHostAllocMapped): set to initial
  // HOLE: on the host, n device threads add 1 each through launch_add_to_counter, and return the
  // HOLE: total() the host reads once the device has finished. Wrap CUDA calls in CUDA_CHECK.
  // STUB: return 0;
  HostAllocation memory(sizeof(PackedCounter), cudaHostAllocMapped);
  PackedCounter* on_host = static_cast<PackedCounter*>(memory.pointer);
  on_host->set(initial);
  PackedCounter* on_device = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&on_device), on_host, 0));
  launch_add_to_counter(on_device, n, 1u);
  CUDA_CHECK(cudaDeviceSynchronize());
  return on_host->total();
  // END HOLE
}
// END WALKTHROUGH: mapped-memory

// ---------------------------------------------------------------------------
// Part 2: block-level aggregation

// WALKTHROUGH: block-count
__global__ void count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count) {
  // HOLE: Add the number of odd values[i] (the header's is_odd), i < n, to *count with at most ONE
  // HOLE: global atomic per block: the block counts in shared memory first. Every thread of the block
  // HOLE: reaches every barrier.
  __shared__ unsigned block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  const std::size_t i = global_index();
  if (i < n && is_odd(values[i])) atomicAdd(&block_count, 1u);
  __syncthreads();
  // 2^28 values make 2^20 global atomics instead of up to 2^28.
  if (threadIdx.x == 0 && block_count > 0) atomicAdd(count, block_count);
  // END HOLE
}
// END WALKTHROUGH: block-count

void launch_count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count,
                                       cudaStream_t stream) {
  if (n == 0) return;
  count_odd_block_aggregated<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values, n, count);
  CUDA_CHECK_LAUNCH("count_odd_block_aggregated");
}

// ---------------------------------------------------------------------------
// Part 3: filters

__host__ __device__ unsigned lanes_below(int lane) {
  // HOLE: Return the mask of the lanes below lane: bit k set exactly when k < lane (0 for lane 0).
  // HOLE: lane is 0 to 31, and no shift may be undefined.
  // STUB: return 0;
  return (1u << lane) - 1u;
  // END HOLE
}

__host__ __device__ int rank_in_mask(unsigned mask, int lane) {
  // HOLE: Return how many lanes of mask are below lane (its own bit does not count). Use the header's
  // HOLE: host-and-device helpers: the host tests call it.
  // STUB: return 0;
  return popcount(mask & lanes_below(lane));
  // END HOLE
}

__host__ __device__ int leader_of(unsigned mask) {
  // HOLE: Return the lowest lane set in mask (0 to 31; mask is not empty), with the header's
  // HOLE: find_first_set: read how it numbers the bits.
  // STUB: return 0;
  return find_first_set(mask) - 1;
  // END HOLE
}

__global__ void filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // HOLE: Append every odd values[i] (the header's is_odd), i < n, to out, one atomic per kept value:
  // HOLE: each gets a position of its own from *out_count, which ends advanced by the number kept. Any
  // HOLE: order, no gaps.
  const std::size_t i = global_index();
  if (i >= n) return;
  const int value = values[i];
  if (is_odd(value)) out[atomicAdd(out_count, 1u)] = value;
  // END HOLE
}

// WALKTHROUGH: warp-filter
__global__ void filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // HOLE: The same filter with ONE global atomic per warp that keeps anything: the warp reserves its
  // HOLE: range of out at once; each kept lane writes at its place in it (use leader_of, rank_in_mask).
  // HOLE: Every lane a *_sync mask names (kFullMask) must execute that call, also lanes with i >= n.
  const std::size_t i = global_index();
  const int value = i < n ? values[i] : 0;
  const bool keep = i < n && is_odd(value);
  // All 32 lanes exist (blocks are whole warps) and all of them get here, so
  // kFullMask is the truth. A mask that names a lane which does not take part
  // is undefined behaviour, not a lane that votes false.
  const unsigned kept = __ballot_sync(kFullMask, keep);
  if (kept == 0) return;  // the same for every lane: the warp leaves together
  const int lane = lane_index();
  const int leader = leader_of(kept);
  unsigned base = 0;
  if (lane == leader) base = atomicAdd(out_count, static_cast<unsigned>(popcount(kept)));
  base = __shfl_sync(kFullMask, base, leader);
  if (keep) out[base + static_cast<unsigned>(rank_in_mask(kept, lane))] = value;
  // END HOLE
}
// END WALKTHROUGH: warp-filter

// WALKTHROUGH: block-filter
__global__ void filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count) {
  // HOLE: The same filter with ONE global atomic per block that keeps anything: kept threads take their
  // HOLE: place inside the block from a shared-memory atomic, and the block reserves its range of out.
  // HOLE: Every thread of the block reaches every __syncthreads(): no early return.
  __shared__ unsigned block_kept;
  __shared__ unsigned block_base;
  if (threadIdx.x == 0) block_kept = 0;
  __syncthreads();
  const std::size_t i = global_index();
  const int value = i < n ? values[i] : 0;
  const bool keep = i < n && is_odd(value);
  unsigned position = 0;
  if (keep) position = atomicAdd(&block_kept, 1u);
  __syncthreads();
  if (threadIdx.x == 0 && block_kept > 0) block_base = atomicAdd(out_count, block_kept);
  __syncthreads();
  if (keep) out[block_base + position] = value;
  // END HOLE
}
// END WALKTHROUGH: block-filter

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
// WALKTHROUGH: cas-max
__device__ float atomic_max_float(float* address, float value) {
  // HOLE: Atomically make *address the larger of itself and value, by atomicCAS on the float's bits;
  // HOLE: a NaN value changes nothing and no other thread's update is lost (the return value: above).
  // STUB: return *address;
  int* bits_address = reinterpret_cast<int*>(address);
  int old = *bits_address;  // a first guess; the CAS checks it
  // Stopping as soon as the slot holds a value >= ours is what keeps the
  // contention low: most threads of a large input never try a swap at all.
  while (__int_as_float(old) < value) {
    const int assumed = old;
    old = atomicCAS(bits_address, assumed, __float_as_int(value));
    if (old == assumed) break;
  }
  return __int_as_float(old);
  // END HOLE
}
// END WALKTHROUGH: cas-max

// atomicAdd for doubles by compare-and-swap, as it had to be written before
// compute capability 6.0. Returns the value before this thread's add.
// WALKTHROUGH: cas-double
__device__ double atomic_add_double_cas(double* address, double value) {
  // HOLE: Atomically add value to *address by atomicCAS on its 64 bits, losing no add under contention;
  // HOLE: return the value just before this thread's add. The loop must end once its CAS succeeded,
  // HOLE: whatever the doubles hold (NaN, -0.0).
  // STUB: return *address;
  unsigned long long* bits_address = reinterpret_cast<unsigned long long*>(address);
  unsigned long long old = *bits_address;
  unsigned long long assumed = 0;
  // Every failed CAS costs a round trip to L2 and a new try: with k threads on
  // one address, about k^2 / 2 tries in all.
  do {
    assumed = old;
    const double sum = __longlong_as_double(static_cast<long long>(assumed)) + value;
    old = atomicCAS(bits_address, assumed, static_cast<unsigned long long>(__double_as_longlong(sum)));
  } while (old != assumed);
  return __longlong_as_double(static_cast<long long>(old));
  // END HOLE
}
// END WALKTHROUGH: cas-double

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

// WALKTHROUGH: match-any
__global__ void count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts) {
  // HOLE: Increase counts[k] by the number of keys equal to k in keys[0, n), with ONE atomic per
  // HOLE: group of equal keys in a warp (__match_any_sync finds the groups). Lanes with i >= n take
  // HOLE: no part in the match; every lane a *_sync mask names must execute that call.
  const std::size_t i = global_index();
  // The last warp may be partly past the end. Those lanes must not take part in
  // the match (their key would be garbage), so the match names only the lanes in range.
  const unsigned in_range = __ballot_sync(kFullMask, i < n);
  if (i >= n) return;
  const int key = keys[i];
  const unsigned peers = __match_any_sync(in_range, key);
  if (lane_index() == leader_of(peers)) atomicAdd(&counts[key], static_cast<unsigned>(popcount(peers)));
  // END HOLE
}
// END WALKTHROUGH: match-any

void launch_count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts, cudaStream_t stream) {
  if (n == 0) return;
  count_by_key_match_any<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys, n, counts);
  CUDA_CHECK_LAUNCH("count_by_key_match_any");
}

}  // namespace atomics
