/// @file atomics.cuh
/// @brief Lab 05, atomics: the contract between your code and the tests.
///
/// Atomic read-modify-write operations let many threads update one memory
/// word without losing updates, at the price of serialising them. This lab
/// counts, filters and reduces by key with atomics in five ways: a counter
/// spread over several slots (ParallelCounter), a count aggregated in shared
/// memory per block, a filter whose output positions come from an atomic
/// counter (per thread, per warp, per block), compare-and-swap loops for
/// operations the hardware lacks, and a count by key that does one atomic per
/// run of equal keys in a warp with __match_any_sync.
///
/// Every kernel runs one thread per element, kThreadsPerBlock threads per
/// block. Counters and outputs are added to, never cleared: the caller zeroes
/// them (or sets their initial value) before a launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace atomics {

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask naming all 32 lanes of a warp, for the *_sync intrinsics.
constexpr unsigned kFullMask = 0xFFFFFFFFu;

/// @brief Threads per block of every kernel of the lab. A multiple of
/// kWarpSize, so that every warp of a block is complete: the warp-level code
/// can let all 32 lanes vote with kFullMask.
constexpr int kThreadsPerBlock = 256;
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must consist of whole warps");

/// @brief Slots of the ParallelCounter used in the lab: one per lane of a warp.
constexpr int kCounterSlots = 32;

/// @brief Bytes in an L2 cache line; the memory system handles atomics on
/// the same line in the same place.
constexpr int kCacheLineBytes = 128;

/// @brief Words (unsigned) from one slot of a packed counter to the next: the
/// slots are neighbours, and 32 of them fill one 128-byte line.
constexpr int kPackedPitch = 1;

/// @brief Words (unsigned) from one slot of a padded counter to the next: a
/// whole cache line, so that every slot has a line of its own.
constexpr int kPaddedPitch = kCacheLineBytes / static_cast<int>(sizeof(unsigned));

/// @brief Integer division rounded up: the number of blocks of @p d items
/// needed to cover @p n items.
/// @param[in] n Number of items, at least 0.
/// @param[in] d Items per block, at least 1.
/// @return The smallest b with b * d >= n.
__host__ __device__ constexpr std::size_t ceil_div(std::size_t n, std::size_t d) {
  return (n + d - 1) / d;
}

/// @brief The predicate of the lab's count and filters: whether @p value is
/// odd (negative odd values included: -3 is odd).
/// @param[in] value Any int.
/// @return true when the lowest bit of @p value is 1.
__host__ __device__ inline bool is_odd(int value) {
  return (value & 1) != 0;
}

/// @brief The number of 1 bits of @p bits: __popc on the device, the
/// compiler's builtin on the host, so that warp arithmetic can be tested on
/// the host.
/// @param[in] bits A 32-bit mask.
/// @return 0 to 32.
__host__ __device__ inline int popcount(unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __popc(bits);
#else
  return __builtin_popcount(bits);
#endif
}

/// @brief The position plus one of the lowest 1 bit of @p bits, or 0 when
/// @p bits is 0: __ffs on the device, the compiler's builtin on the host.
/// @param[in] bits A 32-bit mask.
/// @return 0 for an empty mask, else 1 to 32.
__host__ __device__ inline int find_first_set(unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(bits));
#else
  return __builtin_ffs(static_cast<int>(bits));
#endif
}

// ---------------------------------------------------------------------------
// Part 1: ParallelCounter

/// @brief A counter whose value is spread over @p Slots slots, so that
/// threads that add at the same time update different words.
///
/// Thread t updates slot slot_of(t) with an atomic; the value of the counter
/// is the sum of all slots (modulo 2^32, like any unsigned). A single slot
/// may wrap below zero after a subtraction while the total stays right.
///
/// The type is trivially copyable and standard-layout (a C struct with
/// member functions), so one object can be a `__device__` global, be built on
/// the host and copied with cudaMemcpy, or live in mapped host memory that
/// the device reads and writes directly.
///
/// Every counter starts on a cache-line boundary (alignas(kCacheLineBytes)):
/// that is what makes a packed counter exactly one 128-byte line and puts each
/// slot of a padded counter at the start of a line of its own, wherever the
/// object lives (a `__device__` global, the stack, a std::vector, cudaMalloc,
/// cudaHostAlloc). Without it a packed counter could straddle two lines. A
/// counter smaller than a line (8 slots) is padded to a whole line.
///
/// Its member functions are defined in atomics.cu, which instantiates the
/// counter for (32, kPackedPitch), (32, kPaddedPitch) and (8, kPackedPitch);
/// device code in other files cannot call them (the lab is compiled without
/// relocatable device code), so the device-side operators are reached
/// through the launchers below.
/// @tparam Slots Number of slots, at least 1.
/// @tparam Pitch Words from one slot to the next: kPackedPitch puts the slots
///         side by side, kPaddedPitch gives each slot a 128-byte line.
template <int Slots, int Pitch>
struct alignas(kCacheLineBytes) ParallelCounter {
  static_assert(Slots >= 1 && Pitch >= 1, "a counter needs at least one slot, one word apart");

  /// @brief The storage: slot s is words[word_of_slot(s)]; the words between
  /// two slots (when Pitch > 1) are padding and stay 0 after set().
  unsigned words[Slots * Pitch];

  /// @brief The slot that thread @p thread_index of a block updates:
  /// consecutive threads take consecutive slots, starting again at slot 0
  /// after Slots threads (so with 32 slots, the 32 lanes of a warp differ).
  /// @param[in] thread_index threadIdx.x of the thread.
  /// @return 0 to Slots - 1.
  __host__ __device__ static int slot_of(unsigned thread_index);

  /// @brief The index in @p words of slot @p slot: slot 0 is words[0], and
  /// each slot lies Pitch words after the one before.
  /// @param[in] slot 0 to Slots - 1.
  /// @return The word index.
  __host__ __device__ static int word_of_slot(int slot);

  /// @brief Sets the counter to @p value, spread evenly: every slot gets
  /// value / Slots and the first value % Slots slots one more; padding words
  /// are set to 0. Not atomic: call it from one thread (or the host) while
  /// no one else uses the counter.
  /// @param[in] value The new value of the counter.
  __host__ __device__ void set(unsigned value);

  /// @brief The value of the counter: the sum of the slots, modulo 2^32.
  /// Not atomic: read it after the updates have finished (after the kernel,
  /// or from a later kernel).
  /// @return The sum of all slots.
  __host__ __device__ unsigned total() const;

  /// @brief Atomically adds @p amount to the calling thread's slot,
  /// slot_of(threadIdx.x).
  /// @param[in] amount What to add.
  __device__ void operator+=(unsigned amount);

  /// @brief Atomically subtracts @p amount from the calling thread's slot,
  /// slot_of(threadIdx.x).
  /// @param[in] amount What to subtract.
  __device__ void operator-=(unsigned amount);
};

/// @brief 32 slots side by side: the whole counter is one 128-byte line.
using PackedCounter = ParallelCounter<kCounterSlots, kPackedPitch>;

/// @brief 32 slots a cache line apart: 32 lines, 4 KiB.
using PaddedCounter = ParallelCounter<kCounterSlots, kPaddedPitch>;

/// @brief A smaller counter, 8 slots side by side: four lanes share a slot.
/// Its 32 bytes of slots are padded to one 128-byte line by the alignment.
using EightSlotCounter = ParallelCounter<8, kPackedPitch>;

// What makes one object usable on the host, on the device and in between:
// copying its bytes must copy its value, and its layout must be plain.
static_assert(std::is_trivially_copyable_v<PackedCounter> && std::is_standard_layout_v<PackedCounter>,
              "a PackedCounter must be copyable byte by byte between host and device");
static_assert(std::is_trivially_copyable_v<PaddedCounter> && std::is_standard_layout_v<PaddedCounter>,
              "a PaddedCounter must be copyable byte by byte between host and device");
static_assert(alignof(PackedCounter) == kCacheLineBytes && alignof(PaddedCounter) == kCacheLineBytes,
              "a counter starts on a cache-line boundary");
static_assert(sizeof(PackedCounter) == kCacheLineBytes, "a packed counter fills one cache line");
static_assert(sizeof(PaddedCounter) == kCounterSlots * kCacheLineBytes,
              "a padded counter has a line per slot");

/// @brief Launches one thread per element, n threads in all, each doing
/// `*counter += amount`; checks the launch.
/// @param[in,out] counter Device pointer to a counter (device memory or the
///                device address of mapped host memory).
/// @param[in] n Number of threads; 0 launches nothing.
/// @param[in] amount What each thread adds.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_add_to_counter(PackedCounter* counter, std::size_t n, unsigned amount,
                           cudaStream_t stream = nullptr);

/// @copydoc launch_add_to_counter(PackedCounter*, std::size_t, unsigned, cudaStream_t)
void launch_add_to_counter(PaddedCounter* counter, std::size_t n, unsigned amount,
                           cudaStream_t stream = nullptr);

/// @copydoc launch_add_to_counter(PackedCounter*, std::size_t, unsigned, cudaStream_t)
void launch_add_to_counter(EightSlotCounter* counter, std::size_t n, unsigned amount,
                           cudaStream_t stream = nullptr);

/// @brief Launches one thread per element, n threads in all, each doing
/// `*counter -= amount`; checks the launch.
/// @param[in,out] counter Device pointer to a counter.
/// @param[in] n Number of threads; 0 launches nothing.
/// @param[in] amount What each thread subtracts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_subtract_from_counter(PackedCounter* counter, std::size_t n, unsigned amount,
                                  cudaStream_t stream = nullptr);

/// @copydoc launch_subtract_from_counter(PackedCounter*, std::size_t, unsigned, cudaStream_t)
void launch_subtract_from_counter(PaddedCounter* counter, std::size_t n, unsigned amount,
                                  cudaStream_t stream = nullptr);

/// @brief A PackedCounter that is a `__device__` global of atomics.cu, used
/// entirely on the device: one thread sets it to @p initial with set(), n
/// threads add 1 each, one thread reads total(); the total is copied back.
/// @param[in] n Number of threads that add 1 (0 adds nothing).
/// @param[in] initial The value the counter starts from.
/// @return initial + n, modulo 2^32, as the device computed it.
/// @throws workbook::CudaError when a CUDA call or launch fails.
unsigned count_with_device_global(std::size_t n, unsigned initial);

/// @brief A PackedCounter in mapped (zero-copy) host memory: allocated with
/// cudaHostAlloc(..., cudaHostAllocMapped), set to @p initial on the host,
/// incremented by n device threads through the pointer from
/// cudaHostGetDevicePointer, and read with total() on the host after the
/// device has finished. Every atomic crosses the bus to host memory: correct
/// but slow.
/// @param[in] n Number of threads that add 1 (0 adds nothing).
/// @param[in] initial The value the counter starts from.
/// @return initial + n, modulo 2^32, as the host reads it.
/// @throws workbook::CudaError when a CUDA call or launch fails.
unsigned count_in_mapped_memory(std::size_t n, unsigned initial);

// ---------------------------------------------------------------------------
// Part 2: block-level aggregation

/// @brief Counts the odd values of @p values: each block counts its own in a
/// `__shared__` counter with shared-memory atomics, then one thread of the
/// block adds the block's count to @p count with one global atomicAdd.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values.
/// @param[in,out] count Device pointer to one unsigned; the number of odd
///                values is added to it.
__global__ void count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count);

/// @brief Launches count_odd_block_aggregated with one thread per value,
/// kThreadsPerBlock threads per block; checks the launch.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[in,out] count Device pointer to one unsigned, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_odd_block_aggregated(const int* values, std::size_t n, unsigned* count,
                                       cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3: filters (stream compaction without order)

/// @brief A mask of the lanes below @p lane: bits 0 to lane - 1 set.
/// @param[in] lane 0 to 31.
/// @return The mask with bits 0 to lane - 1 set; 0 for lane 0.
__host__ __device__ unsigned lanes_below(int lane);

/// @brief The rank of @p lane among the lanes of @p mask: how many lanes of
/// @p mask are below it. Lane k of a warp-aggregated filter writes to
/// base + rank_in_mask(kept lanes, k).
/// @param[in] mask A set of lanes (bit k = lane k).
/// @param[in] lane 0 to 31.
/// @return The number of 1 bits of @p mask below bit @p lane.
__host__ __device__ int rank_in_mask(unsigned mask, int lane);

/// @brief The leader of a set of lanes: its lowest lane.
/// @param[in] mask A non-empty set of lanes.
/// @return The lowest lane whose bit is set, 0 to 31.
__host__ __device__ int leader_of(unsigned mask);

/// @brief Filter with one atomic per kept element: thread i keeps values[i]
/// when it is odd, takes the next output position with
/// atomicAdd(out_count, 1) and writes the value there. The order of the
/// output is not kept.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values.
/// @param[out] out Device array with room for every odd value (n ints).
/// @param[in,out] out_count Device pointer to the number of values already
///                in @p out (0 for an empty output); advanced by the number kept.
__global__ void filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count);

/// @brief Filter with one atomic per warp, aggregated by hand: the lanes vote
/// with __ballot_sync, the leader (lowest kept lane) adds the number of kept
/// lanes to @p out_count with one atomicAdd, broadcasts the returned base
/// with __shfl_sync, and each kept lane writes at base + its rank.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values.
/// @param[out] out Device array with room for every odd value.
/// @param[in,out] out_count Device pointer to the output's length, advanced.
__global__ void filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count);

/// @brief Filter with one global atomic per block: each kept thread takes a
/// position inside the block with a shared-memory atomic, one thread reserves
/// the block's range of @p out with one atomicAdd on @p out_count, and every
/// kept thread writes at the block's base + its position.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values.
/// @param[out] out Device array with room for every odd value.
/// @param[in,out] out_count Device pointer to the output's length, advanced.
__global__ void filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count);

/// @brief Launches filter_odd_per_thread, one thread per value,
/// kThreadsPerBlock per block; checks the launch.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[out] out Device array of at least n ints.
/// @param[in,out] out_count Device pointer to one unsigned (usually 0), advanced.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_filter_odd_per_thread(const int* values, std::size_t n, int* out, unsigned* out_count,
                                  cudaStream_t stream = nullptr);

/// @brief Launches filter_odd_warp_aggregated; as launch_filter_odd_per_thread.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[out] out Device array of at least n ints.
/// @param[in,out] out_count Device pointer to one unsigned (usually 0), advanced.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_filter_odd_warp_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count,
                                       cudaStream_t stream = nullptr);

/// @brief Launches filter_odd_block_aggregated; as launch_filter_odd_per_thread.
/// @param[in] values Device array of n ints.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[out] out Device array of at least n ints.
/// @param[in,out] out_count Device pointer to one unsigned (usually 0), advanced.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_filter_odd_block_aggregated(const int* values, std::size_t n, int* out, unsigned* out_count,
                                        cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 4: compare-and-swap loops

/// @brief Slot-wise maximum with a float atomicMax built from atomicCAS:
/// slots[i % slot_count] = max(slots[i % slot_count], values[i]) for every
/// i < n. NaN values are ignored (no value compares greater than a NaN, and
/// a NaN never compares greater).
/// @param[in] values Device array of n floats.
/// @param[in] n Number of values.
/// @param[in,out] slots Device array of slot_count floats, set by the caller
///                (to -infinity for a plain maximum).
/// @param[in] slot_count Number of slots, at least 1.
__global__ void max_into_slots_cas(const float* values, std::size_t n, float* slots, int slot_count);

/// @brief Slot-wise sum with a double atomicAdd built from atomicCAS:
/// slots[i % slot_count] += values[i] for every i < n.
/// @param[in] values Device array of n doubles.
/// @param[in] n Number of values.
/// @param[in,out] slots Device array of slot_count doubles, added to.
/// @param[in] slot_count Number of slots, at least 1.
__global__ void add_into_slots_cas(const double* values, std::size_t n, double* slots, int slot_count);

/// @brief The same sum with the hardware's atomicAdd(double*, double)
/// (compute capability 6.0 and newer), for comparison.
/// @param[in] values Device array of n doubles.
/// @param[in] n Number of values.
/// @param[in,out] slots Device array of slot_count doubles, added to.
/// @param[in] slot_count Number of slots, at least 1.
__global__ void add_into_slots_native(const double* values, std::size_t n, double* slots, int slot_count);

/// @brief Every thread adds 1.0 to @p counter with the CAS-loop double add
/// and stores what the add returned (the counter's value just before its own
/// add) in tickets[i]: n distinct tickets 0, 1, ..., n - 1, in some order.
/// @param[in,out] counter Device pointer to one double, added to.
/// @param[in] n Number of threads.
/// @param[out] tickets Device array of n doubles.
__global__ void take_tickets_cas(double* counter, std::size_t n, double* tickets);

/// @brief Launches max_into_slots_cas, one thread per value; checks the launch.
/// @param[in] values Device array of n floats.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[in,out] slots Device array of slot_count floats.
/// @param[in] slot_count Number of slots.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when slot_count < 1.
/// @throws workbook::CudaError when the launch fails.
void launch_max_into_slots_cas(const float* values, std::size_t n, float* slots, int slot_count,
                               cudaStream_t stream = nullptr);

/// @brief Launches add_into_slots_cas, one thread per value; checks the launch.
/// @param[in] values Device array of n doubles.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[in,out] slots Device array of slot_count doubles.
/// @param[in] slot_count Number of slots.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when slot_count < 1.
/// @throws workbook::CudaError when the launch fails.
void launch_add_into_slots_cas(const double* values, std::size_t n, double* slots, int slot_count,
                               cudaStream_t stream = nullptr);

/// @brief Launches add_into_slots_native, one thread per value; checks the launch.
/// @param[in] values Device array of n doubles.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[in,out] slots Device array of slot_count doubles.
/// @param[in] slot_count Number of slots.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when slot_count < 1.
/// @throws workbook::CudaError when the launch fails.
void launch_add_into_slots_native(const double* values, std::size_t n, double* slots, int slot_count,
                                  cudaStream_t stream = nullptr);

/// @brief Launches take_tickets_cas with n threads; checks the launch.
/// @param[in,out] counter Device pointer to one double.
/// @param[in] n Number of threads; 0 launches nothing.
/// @param[out] tickets Device array of n doubles.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_take_tickets_cas(double* counter, std::size_t n, double* tickets, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 5: reduce by key with __match_any_sync

/// @brief Count by key with one atomic per group of equal keys in a warp:
/// the lanes holding the same key find each other with __match_any_sync,
/// and the lowest lane of each group adds the group's size to
/// counts[key]. Correct for keys in any order; fast when equal keys are
/// neighbours (sorted keys).
/// @param[in] keys Device array of n keys, each in [0, number of counts).
/// @param[in] n Number of keys.
/// @param[in,out] counts Device array with one unsigned per possible key;
///                counts[k] is increased by the number of keys equal to k.
__global__ void count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts);

/// @brief Launches count_by_key_match_any, one thread per key,
/// kThreadsPerBlock per block; checks the launch.
/// @param[in] keys Device array of n keys.
/// @param[in] n Number of keys; 0 launches nothing.
/// @param[in,out] counts Device array with one unsigned per possible key, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_by_key_match_any(const int* keys, std::size_t n, unsigned* counts,
                                   cudaStream_t stream = nullptr);

}  // namespace atomics
