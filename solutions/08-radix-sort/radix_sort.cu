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
  // HOLE: One thread per key, i = blockIdx.x * blockDim.x + threadIdx.x (a std::size_t);
  // HOLE: when i < n: flags[i] = 1 when bit `bit` of keys[i] is 0, else 0.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = ((keys[i] >> bit) & 1u) == 0u ? 1u : 0u;
  // END HOLE
}

__global__ void split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                              const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                              std::uint32_t* keys_out) {
  // HOLE: One thread per key i < n, f = zero_offsets[i] (the keys with bit 0 before it):
  // HOLE: a key whose bit is 0 goes to keys_out[f]; a key whose bit is 1 goes after all
  // HOLE: *zero_count keys with bit 0 and after the i - f keys with bit 1 before it.
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
  // HOLE: Three steps on `stream`, nothing allocated, nothing waited for:
  // HOLE: 1. launch_flag_zero_bits() into scratch.flags();
  // HOLE: 2. scratch.count_scan().exclusive() of the n flags in place, with scratch.zero_count()
  // HOLE:    as its total (the sum of the flags is the number of keys whose bit is 0);
  // HOLE: 3. launch_split_scatter() with those offsets and that count.
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
  // HOLE: 32 splits, bit 0 first. Pass b reads the previous pass's output (pass 0 reads
  // HOLE: keys_in) and writes scratch.keys_temp() when b is even, keys_out when b is odd, so
  // HOLE: that pass 31 ends in keys_out. (In place works too: pass 0 reads keys_in = keys_out
  // HOLE: and writes the temporary.)
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
// sort kernels at 80 registers per thread (65536 / 768): without the cap nvcc
// gives the scatter kernels about 100, and an SM then holds only 2 blocks (16
// warps), few to keep loads in flight while the other blocks rank their
// tiles. A cap of 64 (4 blocks) made nvcc spill registers to local memory.
// 3 x 256 threads fit every GPU of the course (sm_75 holds 1024 threads).
constexpr int kMinBlocksPerSm = 3;

// WALKTHROUGH: digit
__host__ __device__ std::uint32_t digit_of(std::uint32_t key, int shift) {
  // HOLE: The eight bits of key from bit `shift` up, as a number 0..255: shift right, mask.
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
  // HOLE: For item k the key is keys[tile_start() + item_in_tile(k)] (helpers above): load it
  // HOLE: when item_in_tile(k) < keys_in_tile(n), else use kKeyPastEnd. #pragma unroll, so
  // HOLE: that items[] stays in registers and all 16 loads are in flight at once.
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
  // HOLE: 1. A __shared__ array of kWarpsPerBlock x kRadix counters (one set per warp, so
  // HOLE:    that warps do not contend for the same counter), zeroed by the block; barrier.
  // HOLE: 2. load_tile(); each item that is below n (item_in_tile(k) < keys_in_tile(n))
  // HOLE:    adds 1 to its warp's counter of digit_of(item, shift) with a shared atomicAdd.
  // HOLE: 3. Barrier. Thread d adds up the kWarpsPerBlock counters of digit d and writes the
  // HOLE:    sum to digit_counts[d * tiles_for(n) + blockIdx.x] (digit-major).
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
  // HOLE: Either __match_any_sync(kFullMask, digit), or one vote per bit of the digit: start
  // HOLE: from kFullMask and, for each of the kRadixBits bits, keep the lanes that agree with
  // HOLE: this lane on it: vote = __ballot_sync(kFullMask, bit set); keep vote if this lane's
  // HOLE: bit is set, ~vote if not.
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
  // HOLE: 1. A __shared__ kWarpsPerBlock x kRadix array of counters, zeroed; barrier.
  // HOLE: 2. Each warp walks its items k = 0, 1, ... (its keys in input order): digit d,
  // HOLE:    peers = same_digit_lanes(d); rank = counter[warp][d] + the number of peers below
  // HOLE:    this lane; keep rank and d for step 4 in positions[k], e.g. (rank << 8) | d.
  // HOLE:    __syncwarp(); the lowest lane of the peers adds popcount(peers) to
  // HOLE:    counter[warp][d]; __syncwarp() before the next item.
  // HOLE: 3. Barrier. Thread t owns digit t: its total over the warps, the exclusive scan of the
  // HOLE:    256 totals (block_exclusive_sum) = the digit's first position in the sorted tile;
  // HOLE:    replace counter[w][t] by that plus the counts of digit t in warps before w.
  // HOLE: 4. Barrier. positions[k] = counter[warp][d] + rank. Return digit t's start.
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

// WALKTHROUGH: scatter
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                     const std::uint32_t* digit_offsets, std::uint32_t* keys_out) {
  // HOLE: 1. Thread t reads this tile's offset of digit t, digit_offsets[t * tiles_for(n) +
  // HOLE:    blockIdx.x], first (the load overlaps the rest). load_tile(); rank_tile_by_digit()
  // HOLE:    gives each item's position in the sorted tile and digit t's start in it.
  // HOLE: 2. Write each item into a __shared__ array of kTileSize keys at its position (the
  // HOLE:    tile sorted by digit), and base[t] = offset - start into a __shared__ array of
  // HOLE:    kRadix; barrier.
  // HOLE: 3. For j = k * kThreadsPerBlock + threadIdx.x below keys_in_tile(n): key = sorted[j],
  // HOLE:    keys_out[base[digit of key] + j] = key. Neighbouring threads write neighbouring
  // HOLE:    addresses of the same digit: the stores coalesce.
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
  // HOLE: kPasses passes, shift = 8 * pass. Pass p reads the previous pass's output (pass 0:
  // HOLE: keys_in) and writes scratch.keys_temp() when p is even, keys_out when p is odd.
  // HOLE: Each pass: launch_count_digits() into scratch.digit_counts(); the exclusive scan of
  // HOLE: the digit_counts_for(n) counts in place (scratch.count_scan(), no total needed);
  // HOLE: launch_scatter_by_digit() with those offsets. Everything on `stream`.
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
  // HOLE: As scatter_by_digit, with the values along: load each item's value (same index as
  // HOLE: its key; 0 past n) right after the keys, so that those loads are in flight while
  // HOLE: the tile is ranked; write keys AND values into two __shared__ tiles at their
  // HOLE: positions; then for each j below keys_in_tile(n) write key j and value j to the
  // HOLE: same place, base[digit of key j] + j.
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
  // HOLE: The passes of sort_keys(), with launch_scatter_pairs_by_digit() as phase (c): keys
  // HOLE: ping-pong between scratch.keys_temp() and keys_out, values between
  // HOLE: scratch.values_temp() and values_out, in step.
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
  // HOLE: Two's complement puts the negative ints above the positive ones as unsigned
  // HOLE: numbers; flipping the sign bit (XOR 0x80000000) moves them below.
  // STUB: return 0u;
  return static_cast<std::uint32_t>(value) ^ 0x80000000u;
  // END HOLE
}

__host__ __device__ std::int32_t decode_int(std::uint32_t key) {
  // HOLE: Flip the sign bit back.
  // STUB: return 0;
  return static_cast<std::int32_t>(key ^ 0x80000000u);
  // END HOLE
}

__host__ __device__ std::uint32_t encode_float_bits(std::uint32_t bits) {
  // HOLE: A float is sign, exponent, mantissa: for two non-negative floats the larger one
  // HOLE: has the larger bits, for two negative ones the smaller bits. So: a negative float
  // HOLE: (sign bit set) gets all its bits inverted (~bits: larger magnitudes now smaller);
  // HOLE: a non-negative one gets the sign bit set (above every negative one).
  // STUB: return 0u;
  return (bits & 0x80000000u) != 0u ? ~bits : bits | 0x80000000u;
  // END HOLE
}

__host__ __device__ std::uint32_t decode_float_bits(std::uint32_t key) {
  // HOLE: The inverse: a key with the top bit set came from a non-negative float (clear that
  // HOLE: bit); a key with the top bit clear from a negative one (invert every bit).
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
  // HOLE: keys = out seen as std::uint32_t* (reinterpret_cast). launch_encode_int_keys(in ->
  // HOLE: keys); sort_keys(keys, keys, ...) in place; launch_decode_int_keys(keys -> out).
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
  // HOLE: As sort_ints, with the float arrays seen as their bits (reinterpret_cast to
  // HOLE: const std::uint32_t* and std::uint32_t*) and the float maps.
  std::uint32_t* keys = reinterpret_cast<std::uint32_t*>(out);
  launch_encode_float_keys(reinterpret_cast<const std::uint32_t*>(in), n, keys, stream);
  sort_keys(keys, keys, n, scratch, stream);
  launch_decode_float_keys(keys, n, keys, stream);
  // END HOLE
}
// END WALKTHROUGH: typed-sorts

}  // namespace radix_sort
