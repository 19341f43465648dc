// SOLUTION-ONLY: Lab 08 reference solution. labs/08-radix-sort/radix_sort.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 08: radix sort. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade radix-sort
// STUDENT-ONLY: The handout is labs/08-radix-sort/README.md. Write the sort yourself: the
// STUDENT-ONLY: grader refuses a file that uses CUB or Thrust (cub::DeviceRadixSort is the
// STUDENT-ONLY: yardstick you are timed against). workbook::CountScan is yours to use.
#include <limits>
#include <stdexcept>
#include <string>

#include "radix_sort.cuh"
#include "workbook/cuda_check.hpp"

namespace radix_sort {

namespace {

// The calling thread's lane in its warp, and its warp in the block: blocks
// are whole warps, so both follow from threadIdx.x alone.
[[maybe_unused]] __device__ int lane_index() {
  return static_cast<int>(threadIdx.x) % kWarpSize;
}
[[maybe_unused]] __device__ int warp_index() {
  return static_cast<int>(threadIdx.x) / kWarpSize;
}

// Grids: one thread per key for part 1, one block per tile for the rest.
unsigned blocks_for_keys(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}
unsigned blocks_for_tiles(std::size_t n) {
  return static_cast<unsigned>(tiles_for(n));
}

// Positions are 32-bit: a larger input could not be addressed by them.
std::size_t checked_max_n(std::size_t max_n, const char* scratch) {
  if (max_n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument(std::string(scratch) + ": max_n = " + std::to_string(max_n) +
                                ", but positions are 32-bit: build it for at most 2^32 - 1 keys");
  }
  return max_n;
}

void check_capacity(std::size_t n, std::size_t max_n, const char* caller, const char* scratch) {
  if (n > max_n) {
    throw std::invalid_argument(std::string(caller) + ": n = " + std::to_string(n) +
                                " keys, but the scratch was built for at most " + std::to_string(max_n) +
                                "; construct the " + scratch + " with a larger max_n");
  }
}

void check_pointer(const void* pointer, std::size_t n, const char* caller, const char* name) {
  if (n > 0 && pointer == nullptr) {
    throw std::invalid_argument(std::string(caller) + ": " + name + " is nullptr but n = " +
                                std::to_string(n) + "; pass a device array of n elements");
  }
}

}  // namespace

SplitScratch::SplitScratch(std::size_t max_n)
    : max_n_(checked_max_n(max_n, "SplitScratch")),
      flags_(max_n),
      count_scan_(max_n),
      // A scratch for 0 keys allocates nothing at all (a split of 0 keys needs
      // no count), so that the argument checks can be tested without a GPU.
      zero_count_(max_n > 0 ? 1 : 0),
      keys_temp_(max_n) {}

RadixSortScratch::RadixSortScratch(std::size_t max_n, bool with_values)
    : max_n_(checked_max_n(max_n, "RadixSortScratch")),
      has_values_(with_values),
      keys_temp_(max_n),
      values_temp_(with_values ? max_n : 0),
      digit_counts_(digit_counts_for(max_n)),
      count_scan_(digit_counts_for(max_n)) {}

// ---------------------------------------------------------------------------
// Part 1: split by one bit. One thread per key, kernels as plain as lab 02's.

// WALKTHROUGH: split-kernels
__global__ void flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags) {
  // HOLE: flags[i] = 1 for every key i < n whose bit `bit` is 0, 0 for every other key i < n; nothing
  // HOLE: at or past n is read or written. One thread per key, in a grid that may have more threads than
  // HOLE: keys; indices are std::size_t.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = ((keys[i] >> bit) & 1u) == 0u ? 1u : 0u;
  // END HOLE
}

__global__ void split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                              const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                              std::uint32_t* keys_out) {
  // HOLE: Write every key i < n once to keys_out, at its place in the stable split: all keys with bit
  // HOLE: `bit` 0, then all keys with bit 1, each group in input order. zero_offsets[i] is the number
  // HOLE: of keys with bit 0 before key i, *zero_count their total. One thread per key.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t key = keys_in[i];
  const std::uint32_t zeros_before = zero_offsets[i];
  // Every thread reads the same total: one broadcast from L1 per warp.
  const std::size_t position =
      ((key >> bit) & 1u) == 0u ? zeros_before : static_cast<std::size_t>(*zero_count) + (i - zeros_before);
  keys_out[position] = key;
  // END HOLE
}
// END WALKTHROUGH: split-kernels

void launch_flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags,
                           cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid configuration
  flag_zero_bits<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(keys, n, bit, flags);
  CUDA_CHECK_LAUNCH("flag_zero_bits");
}

void launch_split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                          const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                          std::uint32_t* keys_out, cudaStream_t stream) {
  if (n == 0) return;
  split_scatter<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(keys_in, n, bit, zero_offsets,
                                                                     zero_count, keys_out);
  CUDA_CHECK_LAUNCH("split_scatter");
}

// WALKTHROUGH: one-bit-sort
void split_by_bit(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, int bit,
                  SplitScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "split_by_bit", "SplitScratch");
  check_pointer(keys_in, n, "split_by_bit", "keys_in");
  check_pointer(keys_out, n, "split_by_bit", "keys_out");
  if (bit < 0 || bit >= kKeyBits) {
    throw std::invalid_argument("split_by_bit: bit = " + std::to_string(bit) +
                                ", but a key has bits 0 to 31; pass a bit in that range");
  }
  if (n > 0 && keys_in == keys_out) {
    throw std::invalid_argument(
        "split_by_bit: keys_out is keys_in, but a split cannot work in place (a key may be written over "
        "another before that one is read); pass a second array");
  }
  // HOLE: keys_out = the stable split of keys_in on bit `bit`, with the two launchers above and
  // HOLE: scratch.count_scan() on the scratch's arrays. Everything on `stream`: nothing allocated,
  // HOLE: nothing waited for.
  launch_flag_zero_bits(keys_in, n, bit, scratch.flags(), stream);
  scratch.count_scan().exclusive(scratch.flags(), scratch.flags(), n, scratch.zero_count(), stream);
  launch_split_scatter(keys_in, n, bit, scratch.flags(), scratch.zero_count(), keys_out, stream);
  // END HOLE
}

void split_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, SplitScratch& scratch,
                cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "split_sort", "SplitScratch");
  check_pointer(keys_in, n, "split_sort", "keys_in");
  check_pointer(keys_out, n, "split_sort", "keys_out");
  // HOLE: keys_out = keys_in in ascending order, by 32 split_by_bit() calls, bit 0 first. No array but
  // HOLE: the scratch's keys_temp() and keys_out; keys_in is never written unless it is keys_out
  // HOLE: (keys_in == keys_out, in place, must work).
  const std::uint32_t* source = keys_in;
  for (int bit = 0; bit < kKeyBits; ++bit) {
    std::uint32_t* target = bit % 2 == 0 ? scratch.keys_temp() : keys_out;
    split_by_bit(source, target, n, bit, scratch, stream);
    source = target;
  }
  // END HOLE
}
// END WALKTHROUGH: one-bit-sort

// ---------------------------------------------------------------------------
// Part 2: eight bits per pass. Block b handles tile b; warp w of it owns the
// kWarpTileSize keys from b * kTileSize + w * kWarpTileSize, and lane l's
// item k is the key k * kWarpSize + l of its warp's share ("warp-striped"):
// each load instruction of a warp reads 32 neighbouring keys (one 128-byte
// line), and a warp's items, taken k by k and lane by lane, are in input order.

// Blocks of kThreadsPerBlock that each SM should hold at once, which caps the
// sort kernels at 80 registers per thread: 65536 registers over 768 threads
// is 85.3, and registers are allocated in units of 8 per thread (256 per
// warp), so 80. Without the cap nvcc gives the scatter kernels about 100, and
// an SM then holds only 2 blocks (16 warps), few to keep loads in flight while
// the other blocks rank their tiles. A cap of 64 (4 blocks) made nvcc spill
// registers to local memory.
// 3 x 256 threads fit every GPU of the course (sm_75 holds 1024 threads). The
// bound only sets the register budget: where shared memory holds fewer blocks
// (a T4's 64 KB per SM holds 2 of scatter_by_digit's 25 KB blocks and 1 of
// scatter_pairs_by_digit's 41 KB), fewer run at once; nothing fails.
constexpr int kMinBlocksPerSm = 3;

// WALKTHROUGH: digit
__host__ __device__ std::uint32_t digit_of(std::uint32_t key, int shift) {
  // HOLE: Return the digit of key for the pass with this shift: its kRadixBits bits from bit `shift` up,
  // HOLE: as a number 0 to kRadix - 1. It runs on the host and on the device.
  // STUB: return 0;
  return (key >> shift) & kDigitMask;
  // END HOLE
}
// END WALKTHROUGH: digit

namespace {

// The key past the end of the input: every digit of it is 255, the last
// digit, so in every pass such keys rank after all real keys of their tile.
[[maybe_unused]] constexpr std::uint32_t kKeyPastEnd = 0xFFFFFFFFu;

// The first key of this block's tile, and the number of keys of the tile
// that are below n (kTileSize except in the last tile).
[[maybe_unused]] __device__ std::size_t tile_start() {
  return static_cast<std::size_t>(blockIdx.x) * kTileSize;
}
[[maybe_unused]] __device__ int keys_in_tile(std::size_t n) {
  const std::size_t left = n - tile_start();
  return left < static_cast<std::size_t>(kTileSize) ? static_cast<int>(left) : kTileSize;
}

// The position inside the tile of the calling thread's item k.
[[maybe_unused]] __device__ int item_in_tile(int k) {
  return warp_index() * kWarpTileSize + k * kWarpSize + lane_index();
}

// Loads the calling thread's items of this block's tile; items at or past n
// get kKeyPastEnd.
// WALKTHROUGH: load-tile
[[maybe_unused]] __device__ void load_tile(const std::uint32_t* keys, std::size_t n,
                                           std::uint32_t (&items)[kItemsPerThread]) {
  // HOLE: items[k] = the key at position item_in_tile(k) of this block's tile (the helpers above), or
  // HOLE: kKeyPastEnd where that position holds no real key. Nothing at or past n is read. items[] stays
  // HOLE: in registers, and all kItemsPerThread loads of a thread are in flight together.
  const int valid = keys_in_tile(n);
  const std::uint32_t* tile = keys + tile_start();
  // Sixteen independent loads per thread, all issued before any is used; for
  // each k the warp reads 32 neighbouring keys: one 128-byte line.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    items[k] = j < valid ? tile[j] : kKeyPastEnd;
  }
  // END HOLE
}
// END WALKTHROUGH: load-tile

}  // namespace

// WALKTHROUGH: count-digits
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts) {
  // HOLE: digit_counts[d * tiles_for(n) + blockIdx.x] = the number of this tile's keys below n whose
  // HOLE: digit at `shift` is d, for every d (digit-major). Count in shared memory with a set of
  // HOLE: counters per warp, so that warps never wait for each other; zero them all, then a barrier,
  // HOLE: before any warp counts. Every thread reaches every barrier. Load with load_tile; its
  // HOLE: 0xFFFFFFFF fillers past n are not keys, so do not count them.
  __shared__ std::uint32_t warp_counts[kWarpsPerBlock][kRadix];
  for (int w = 0; w < kWarpsPerBlock; ++w) warp_counts[w][threadIdx.x] = 0;
  __syncthreads();
  std::uint32_t items[kItemsPerThread];
  load_tile(keys, n, items);
  const int valid = keys_in_tile(n);
  const int warp = warp_index();
  // Counters per warp: a shared atomic only waits for lanes of its own warp
  // that hit the same digit, never for the other seven warps.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    if (item_in_tile(k) < valid) atomicAdd(&warp_counts[warp][digit_of(items[k], shift)], 1u);
  }
  __syncthreads();
  const int digit = static_cast<int>(threadIdx.x);  // one thread per digit
  std::uint32_t count = 0;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) count += warp_counts[w][digit];
  // Digit-major: counts of one digit for all tiles are neighbours, so the
  // exclusive scan of the whole array puts every smaller digit first.
  digit_counts[static_cast<std::size_t>(digit) * tiles_for(n) + blockIdx.x] = count;
  // END HOLE
}
// END WALKTHROUGH: count-digits

void launch_count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts,
                         cudaStream_t stream) {
  if (n == 0) return;
  count_digits<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(keys, n, shift, digit_counts);
  CUDA_CHECK_LAUNCH("count_digits");
}

namespace {

// The exclusive prefix sum of one value per thread of the block, in thread
// order (lab 07's block scan from warp scans). Every thread of the block must
// call it, once per kernel: it uses a shared array and a barrier.
[[maybe_unused]] __device__ std::uint32_t block_exclusive_sum(std::uint32_t value) {
  __shared__ std::uint32_t warp_totals[kWarpsPerBlock];
  const int lane = lane_index();
  const int warp = warp_index();
  std::uint32_t inclusive = value;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += below;
  }
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  std::uint32_t warps_before = 0;
  for (int w = 0; w < warp; ++w) warps_before += warp_totals[w];
  return warps_before + inclusive - value;
}

// The lanes of the calling warp whose digit equals this lane's: bit l is set
// when lane l has the same digit (this lane's own bit included). Every lane
// of the warp must call it.
// WALKTHROUGH: peers
[[maybe_unused]] __device__ unsigned same_digit_lanes(std::uint32_t digit) {
  // HOLE: Return the mask of the lanes of this warp whose digit equals this lane's (bit l for lane l,
  // HOLE: this lane's own bit included). All 32 lanes call it: every warp vote uses kFullMask.
  // STUB: return 0u;
  // Eight one-bit votes and eight ANDs, as CUB's radix sort does it
  // (cub::MatchAny). __match_any_sync(kFullMask, digit) gives the same mask
  // in one instruction, but not a cheap one: swap it in and compare the
  // experiment's first table.
  unsigned peers = kFullMask;
#pragma unroll
  for (int b = 0; b < kRadixBits; ++b) {
    const bool set = ((digit >> b) & 1u) != 0u;
    const unsigned vote = __ballot_sync(kFullMask, set);
    peers &= set ? vote : ~vote;
  }
  return peers;
  // END HOLE
}
// END WALKTHROUGH: peers

// Ranks the tile stably by digit: positions[k] = where item k goes when the
// tile is sorted by digit_of(item, shift), equal digits in input order.
// Returns the first position of digit threadIdx.x in the sorted tile (the
// number of the tile's keys with a smaller digit). Every thread of the block
// must call it, once per kernel: it uses shared arrays and barriers.
// WALKTHROUGH: rank-tile
[[maybe_unused]] __device__ std::uint32_t rank_tile_by_digit(const std::uint32_t (&items)[kItemsPerThread],
                                                             int shift,
                                                             std::uint32_t (&positions)[kItemsPerThread]) {
  // HOLE: positions[k] = item k's position in this tile sorted stably by digit: after every key of a
  // HOLE: smaller digit and after the tile's earlier keys (smaller item_in_tile) of the same digit.
  // HOLE: Return the number of the tile's keys whose digit is below threadIdx.x. The result must not
  // HOLE: depend on the order in which threads run. Use same_digit_lanes and block_exclusive_sum;
  // HOLE: every thread reaches every barrier and every vote.
  // STUB: return 0u;
  __shared__ std::uint32_t warp_digit_offsets[kWarpsPerBlock][kRadix];
  for (int w = 0; w < kWarpsPerBlock; ++w) warp_digit_offsets[w][threadIdx.x] = 0;
  __syncthreads();
  const int lane = lane_index();
  const int warp = warp_index();
  const unsigned lanes_below = (1u << lane) - 1u;
  std::uint32_t* counters = warp_digit_offsets[warp];
  // Each warp ranks its own 512 keys in input order: item by item, a key's
  // rank is the keys of its digit in earlier items (the warp's counter) plus
  // its peers in lower lanes. One lane per digit group moves the counter.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::uint32_t digit = digit_of(items[k], shift);
    const unsigned peers = same_digit_lanes(digit);
    const std::uint32_t before = counters[digit];
    // The rank among the warp's keys of this digit (below 512) and the digit
    // share one register until step 4: nvcc then keeps no second array of 16
    // digits (or of their shared addresses) alive across the barriers, which
    // would cost 16 registers per thread.
    positions[k] =
        ((before + static_cast<std::uint32_t>(popcount(peers & lanes_below))) << kRadixBits) | digit;
    __syncwarp();  // every lane has read the counter before the leader moves it
    if ((peers & lanes_below) == 0u) counters[digit] = before + static_cast<std::uint32_t>(popcount(peers));
    __syncwarp();
  }
  __syncthreads();
  // Thread t owns digit t: in the sorted tile, digit t starts after every key
  // of a smaller digit, and within it warp 0's keys come first, then warp 1's...
  const int digit = static_cast<int>(threadIdx.x);
  std::uint32_t counts[kWarpsPerBlock];
  std::uint32_t total = 0;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    counts[w] = warp_digit_offsets[w][digit];
    total += counts[w];
  }
  const std::uint32_t digit_start = block_exclusive_sum(total);
  std::uint32_t running = digit_start;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    warp_digit_offsets[w][digit] = running;
    running += counts[w];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    positions[k] = counters[positions[k] & kDigitMask] + (positions[k] >> kRadixBits);
  }
  return digit_start;
  // END HOLE
}
// END WALKTHROUGH: rank-tile

}  // namespace

// A hook for the tests: whole tiles ranked by rank_tile_by_digit alone, so
// that the ranking is graded apart from the scatter. The items come in thread
// order (thread t's item k at (b * kThreadsPerBlock + t) * kItemsPerThread + k),
// laid out by the test as load_tile would hold them; positions[k] starts at
// 0xFFFFFFFF, what a ranking that writes nothing leaves.
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    rank_tiles_by_digit(const std::uint32_t* items, int shift, std::uint32_t* positions,
                        std::uint32_t* digit_starts) {
  const std::size_t first =
      (static_cast<std::size_t>(blockIdx.x) * kThreadsPerBlock + threadIdx.x) * kItemsPerThread;
  std::uint32_t mine[kItemsPerThread];
  std::uint32_t ranked[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    mine[k] = items[first + k];
    ranked[k] = 0xFFFFFFFFu;
  }
  const std::uint32_t digit_start = rank_tile_by_digit(mine, shift, ranked);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) positions[first + k] = ranked[k];
  digit_starts[static_cast<std::size_t>(blockIdx.x) * kRadix + threadIdx.x] = digit_start;
}

void launch_rank_tiles_by_digit(const std::uint32_t* items, std::size_t tiles, int shift,
                                std::uint32_t* positions, std::uint32_t* digit_starts, cudaStream_t stream) {
  if (tiles == 0) return;
  rank_tiles_by_digit<<<static_cast<unsigned>(tiles), kThreadsPerBlock, 0, stream>>>(items, shift, positions,
                                                                                     digit_starts);
  CUDA_CHECK_LAUNCH("rank_tiles_by_digit");
}

// WALKTHROUGH: scatter
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                     const std::uint32_t* digit_offsets, std::uint32_t* keys_out) {
  // HOLE: Write each of the tile's keys below n to keys_out at digit_offsets[d * tiles_for(n) +
  // HOLE: blockIdx.x] + r, d being its digit and r the number of the tile's earlier keys of digit d.
  // HOLE: Rank with rank_tile_by_digit and sort the tile in shared memory first, so that neighbouring
  // HOLE: threads store neighbouring addresses. Every thread reaches every barrier. Static shared memory
  // HOLE: is at most 48 KB per block: the sorted tile (16 KB), one base per digit (its offset minus its
  // HOLE: start in the sorted tile, 1 KB) and rank_tile_by_digit's counters (8 KB) make 25 KB.
  __shared__ std::uint32_t sorted_keys[kTileSize];
  __shared__ std::uint32_t digit_base[kRadix];
  const std::uint32_t offset = digit_offsets[threadIdx.x * tiles_for(n) + blockIdx.x];
  std::uint32_t items[kItemsPerThread];
  load_tile(keys_in, n, items);
  std::uint32_t positions[kItemsPerThread];
  const std::uint32_t digit_start = rank_tile_by_digit(items, shift, positions);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) sorted_keys[positions[k]] = items[k];
  // Key j of the sorted tile, of digit d, is key (j - start[d]) of digit d in
  // this tile, so it goes to offset[d] + j - start[d] = base[d] + j.
  digit_base[threadIdx.x] = offset - digit_start;
  __syncthreads();
  // The keys past n sort last in the tile (digit 255, highest input index),
  // so j < valid is exactly the real keys.
  const int valid = keys_in_tile(n);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kThreadsPerBlock + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted_keys[j];
      keys_out[digit_base[digit_of(key, shift)] + static_cast<std::uint32_t>(j)] = key;
    }
  }
  // END HOLE
}
// END WALKTHROUGH: scatter

void launch_scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                             const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                             cudaStream_t stream) {
  if (n == 0) return;
  scatter_by_digit<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(keys_in, n, shift, digit_offsets,
                                                                         keys_out);
  CUDA_CHECK_LAUNCH("scatter_by_digit");
}

// WALKTHROUGH: sort-keys
void sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
               RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_keys", "RadixSortScratch");
  check_pointer(keys_in, n, "sort_keys", "keys_in");
  check_pointer(keys_out, n, "sort_keys", "keys_out");
  // HOLE: keys_out = keys_in in ascending order: kPasses stable passes, lowest digit first, built from
  // HOLE: launch_count_digits, scratch.count_scan() and launch_scatter_by_digit. No array but the
  // HOLE: scratch's and keys_out; keys_in is never written unless it is keys_out (in place must work).
  // HOLE: Everything on `stream`.
  const std::uint32_t* source = keys_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kRadixBits;
    std::uint32_t* target = pass % 2 == 0 ? scratch.keys_temp() : keys_out;
    launch_count_digits(source, n, shift, scratch.digit_counts(), stream);
    scratch.count_scan().exclusive(scratch.digit_counts(), scratch.digit_counts(), digit_counts_for(n),
                                   nullptr, stream);
    launch_scatter_by_digit(source, n, shift, scratch.digit_counts(), target, stream);
    source = target;
  }
  // END HOLE
}
// END WALKTHROUGH: sort-keys

// ---------------------------------------------------------------------------
// Part 3: key-value pairs

// WALKTHROUGH: pairs
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n,
                           int shift, const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                           std::uint32_t* values_out) {
  // HOLE: As scatter_by_digit, and values_out gets each key's value (values_in at the key's input
  // HOLE: index) at the same position as the key. The value loads are in flight while the tile is
  // HOLE: ranked, and the stores of both arrays stay coalesced. Of the 48 KB of static shared memory a
  // HOLE: block may have, the scatter of keys takes 25 KB and a second tile for the values 16 KB: 41 KB,
  // HOLE: so nothing else of that size fits.
  __shared__ std::uint32_t sorted_keys[kTileSize];
  __shared__ std::uint32_t sorted_values[kTileSize];
  __shared__ std::uint32_t digit_base[kRadix];
  const std::uint32_t offset = digit_offsets[threadIdx.x * tiles_for(n) + blockIdx.x];
  std::uint32_t items[kItemsPerThread];
  load_tile(keys_in, n, items);
  const int valid = keys_in_tile(n);
  const std::uint32_t* tile_values = values_in + tile_start();
  std::uint32_t values[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    values[k] = j < valid ? tile_values[j] : 0u;
  }
  std::uint32_t positions[kItemsPerThread];
  const std::uint32_t digit_start = rank_tile_by_digit(items, shift, positions);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    sorted_keys[positions[k]] = items[k];
    sorted_values[positions[k]] = values[k];
  }
  digit_base[threadIdx.x] = offset - digit_start;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kThreadsPerBlock + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted_keys[j];
      const std::uint32_t position = digit_base[digit_of(key, shift)] + static_cast<std::uint32_t>(j);
      keys_out[position] = key;
      values_out[position] = sorted_values[j];
    }
  }
  // END HOLE
}
// END WALKTHROUGH: pairs

void launch_scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                   std::size_t n, int shift, const std::uint32_t* digit_offsets,
                                   std::uint32_t* keys_out, std::uint32_t* values_out, cudaStream_t stream) {
  if (n == 0) return;
  scatter_pairs_by_digit<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(
      keys_in, values_in, n, shift, digit_offsets, keys_out, values_out);
  CUDA_CHECK_LAUNCH("scatter_pairs_by_digit");
}

void sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                std::uint32_t* values_out, std::size_t n, RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_pairs", "RadixSortScratch");
  if (!scratch.has_values()) {
    throw std::invalid_argument(
        "sort_pairs: the scratch has no value array; construct it as RadixSortScratch(max_n, true)");
  }
  check_pointer(keys_in, n, "sort_pairs", "keys_in");
  check_pointer(values_in, n, "sort_pairs", "values_in");
  check_pointer(keys_out, n, "sort_pairs", "keys_out");
  check_pointer(values_out, n, "sort_pairs", "values_out");
  // HOLE: The passes of sort_keys(), each value moving with its key (launch_scatter_pairs_by_digit):
  // HOLE: keys_out ascending, values_out beside them, equal keys in input order. No array but the
  // HOLE: scratch's (keys_temp(), values_temp()) and the outputs; in place must work.
  const std::uint32_t* key_source = keys_in;
  const std::uint32_t* value_source = values_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kRadixBits;
    std::uint32_t* key_target = pass % 2 == 0 ? scratch.keys_temp() : keys_out;
    std::uint32_t* value_target = pass % 2 == 0 ? scratch.values_temp() : values_out;
    launch_count_digits(key_source, n, shift, scratch.digit_counts(), stream);
    scratch.count_scan().exclusive(scratch.digit_counts(), scratch.digit_counts(), digit_counts_for(n),
                                   nullptr, stream);
    launch_scatter_pairs_by_digit(key_source, value_source, n, shift, scratch.digit_counts(), key_target,
                                  value_target, stream);
    key_source = key_target;
    value_source = value_target;
  }
  // END HOLE
}

// ---------------------------------------------------------------------------
// Part 4: int32 and float keys

// WALKTHROUGH: encodings
__host__ __device__ std::uint32_t encode_int(std::int32_t value) {
  // HOLE: Return the key of value: for any two ints, a < b exactly when encode_int(a) < encode_int(b)
  // HOLE: as unsigned numbers, and every int gets a different key (decode_int undoes it).
  // STUB: return 0u;
  return static_cast<std::uint32_t>(value) ^ 0x80000000u;
  // END HOLE
}

__host__ __device__ std::int32_t decode_int(std::uint32_t key) {
  // HOLE: Return the int that encode_int maps to key: decode_int(encode_int(v)) == v for every v.
  // STUB: return 0;
  return static_cast<std::int32_t>(key ^ 0x80000000u);
  // END HOLE
}

__host__ __device__ std::uint32_t encode_float_bits(std::uint32_t bits) {
  // HOLE: Return the key of the float with these bits: unsigned order of the keys is IEEE 754
  // HOLE: totalOrder of the floats (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), and every
  // HOLE: bit pattern, NaNs included, gets a different key.
  // STUB: return 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
  // END HOLE
}

__host__ __device__ std::uint32_t decode_float_bits(std::uint32_t key) {
  // HOLE: The inverse: decode_float_bits(encode_float_bits(b)) == b for every bit pattern b, NaN
  // HOLE: payloads included.
  // STUB: return 0u;
  return (key & 0x80000000u) != 0u ? key & 0x7FFFFFFFu : ~key;
  // END HOLE
}
// END WALKTHROUGH: encodings

namespace {

// The maps of a whole array, one thread per element; `out` may be `in`
// (each thread reads its element before it writes it). The floats travel as
// their bits, so no kernel reads memory as one type that it writes as another.
__global__ void encode_int_keys(const std::int32_t* in, std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = encode_int(in[i]);
}
__global__ void decode_int_keys(const std::uint32_t* in, std::size_t n, std::int32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = decode_int(in[i]);
}
__global__ void encode_float_keys(const std::uint32_t* bits, std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = encode_float_bits(bits[i]);
}
__global__ void decode_float_keys(const std::uint32_t* in, std::size_t n, std::uint32_t* bits) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bits[i] = decode_float_bits(in[i]);
}

// The launches of the maps: nothing for n = 0.
[[maybe_unused]] void launch_encode_int_keys(const std::int32_t* in, std::size_t n, std::uint32_t* out,
                                             cudaStream_t stream) {
  if (n == 0) return;
  encode_int_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, out);
  CUDA_CHECK_LAUNCH("encode_int_keys");
}
[[maybe_unused]] void launch_decode_int_keys(const std::uint32_t* in, std::size_t n, std::int32_t* out,
                                             cudaStream_t stream) {
  if (n == 0) return;
  decode_int_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, out);
  CUDA_CHECK_LAUNCH("decode_int_keys");
}
[[maybe_unused]] void launch_encode_float_keys(const std::uint32_t* bits, std::size_t n, std::uint32_t* out,
                                               cudaStream_t stream) {
  if (n == 0) return;
  encode_float_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(bits, n, out);
  CUDA_CHECK_LAUNCH("encode_float_keys");
}
[[maybe_unused]] void launch_decode_float_keys(const std::uint32_t* in, std::size_t n, std::uint32_t* bits,
                                               cudaStream_t stream) {
  if (n == 0) return;
  decode_float_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, bits);
  CUDA_CHECK_LAUNCH("decode_float_keys");
}

}  // namespace

// WALKTHROUGH: typed-sorts
void sort_ints(const std::int32_t* in, std::int32_t* out, std::size_t n, RadixSortScratch& scratch,
               cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_ints", "RadixSortScratch");
  check_pointer(in, n, "sort_ints", "in");
  check_pointer(out, n, "sort_ints", "out");
  // HOLE: out = in in ascending int order, with the int maps (launch_encode_int_keys,
  // HOLE: launch_decode_int_keys) and sort_keys(). No array but out and the scratch's; in is never
  // HOLE: written unless it is out.
  std::uint32_t* keys = reinterpret_cast<std::uint32_t*>(out);
  launch_encode_int_keys(in, n, keys, stream);
  sort_keys(keys, keys, n, scratch, stream);
  launch_decode_int_keys(keys, n, out, stream);
  // END HOLE
}

void sort_floats(const float* in, float* out, std::size_t n, RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_floats", "RadixSortScratch");
  check_pointer(in, n, "sort_floats", "in");
  check_pointer(out, n, "sort_floats", "out");
  // HOLE: As sort_ints, for floats in the order of encode_float_bits, with the float maps
  // HOLE: (launch_encode_float_keys, launch_decode_float_keys); the float arrays travel as their
  // HOLE: bits (std::uint32_t).
  std::uint32_t* keys = reinterpret_cast<std::uint32_t*>(out);
  launch_encode_float_keys(reinterpret_cast<const std::uint32_t*>(in), n, keys, stream);
  sort_keys(keys, keys, n, scratch, stream);
  launch_decode_float_keys(keys, n, keys, stream);
  // END HOLE
}
// END WALKTHROUGH: typed-sorts

}  // namespace radix_sort
