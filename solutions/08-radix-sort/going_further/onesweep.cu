// Lab 08, Going further: a single-pass (Onesweep) radix sort, after A. Adinets
// and D. Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs" (2022). A reference for self-learners, not graded; see onesweep.cuh.
//
// The sort, for n keys:
//   1. count_all_digits reads the keys once and counts the digits of all four
//      passes; digit_starts_of_passes turns each pass's counts into the first
//      position of each digit (block p scans pass p).
//   2. Per pass, one launch of onesweep_pass: each block takes the next tile
//      (a global counter, so every earlier tile belongs to a block already
//      running), counts its digits, publishes them, ranks its keys, learns how
//      many keys of each digit the earlier tiles hold (decoupled look-back),
//      and writes its keys to their places.
// Per pass, the keys are read once and written once: 8 bytes a key, where
// sort_keys()'s count_digits, scan and scatter_by_digit read them twice.
//
// What made it fast (tools/sweeps/onesweep_sweep.cu, H200, 2026-11-29; % of
// cub::DeviceRadixSort::SortKeys at 2^24 and 2^28):
//   the lab's own ranking (rank_tile_by_digit), tiles of 4096     82 / 73
//   CUB's ranking order: count first, rank in one pass (below)     90 / 83
//   + keys to the sorted tile while ranking: 3 blocks per SM       96 / 89
//   + the peer vote in PTX, 4 instructions a bit instead of 7     125 / 119
#include <cuda/atomic>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "onesweep.cuh"
#include "workbook/cuda_check.hpp"

namespace radix_sort {
namespace {

constexpr int kWarps = kOnesweepThreads / kWarpSize;
constexpr int kKeysPerWarp = kWarpSize * kOnesweepItems;  // a warp's share of a tile
// Blocks of the histogram kernel per SM (each 256 threads, a thread per digit).
constexpr int kHistogramBlocksPerSm = 8;

// A look-back word, one per (tile, digit): the top two bits say what the low
// 30 hold. Flag and value in one 32-bit word, so a relaxed atomic load sees
// both or neither: no fence is needed to order them.
constexpr std::uint32_t kNotReady = 0u;          // the tile has published nothing yet
constexpr std::uint32_t kTileCount = 1u << 30;   // the tile's own count of the digit
constexpr std::uint32_t kCountsUpTo = 2u << 30;  // the counts of every tile up to this one
constexpr std::uint32_t kValueMask = (1u << 30) - 1u;
constexpr std::size_t kMaxKeys = kValueMask;  // so that every count fits in 30 bits
// Earlier tiles' words loaded at once by a look-back: a walk over many tiles
// costs a round trip to L2 per window, not per tile (windows of 4 were the
// best of 1, 4, 8 and 16 in the sweep).
constexpr int kLookBackWindow = 4;
// The key given to places past n: digit 255 in every pass, so such keys rank
// after every real key of their tile.
constexpr std::uint32_t kKeyPastEnd = 0xFFFFFFFFu;

using DeviceWord = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;

// The lab's lane_index, digit_of and block_exclusive_sum live in radix_sort.cu
// (its anonymous namespace, or a device function of another file): calling
// them from here would need relocatable device code, so this file has its own.
__device__ int lane_index() {
  return static_cast<int>(threadIdx.x) % kWarpSize;
}
__device__ int warp_index() {
  return static_cast<int>(threadIdx.x) / kWarpSize;
}
__device__ std::uint32_t digit_at(std::uint32_t key, int shift) {
  return (key >> shift) & kDigitMask;
}

// The exclusive prefix sum of one value per thread, in thread order (the lab's
// block_exclusive_sum for blocks of kThreads). Every thread must call it.
template <int kThreads>
__device__ std::uint32_t block_exclusive_sum(std::uint32_t value) {
  __shared__ std::uint32_t warp_totals[kThreads / kWarpSize];
  const int lane = lane_index();
  std::uint32_t inclusive = value;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += below;
  }
  if (lane == kWarpSize - 1) warp_totals[warp_index()] = inclusive;
  __syncthreads();
  std::uint32_t warps_before = 0;
  for (int w = 0; w < warp_index(); ++w) warps_before += warp_totals[w];
  return warps_before + inclusive - value;
}

// The lanes of the warp whose digit equals this lane's (the lab's
// same_digit_lanes), with each vote written in PTX. From the C++ loop, nvcc
// 13.0 computed every bit twice, as a predicate for the vote and as a mask
// for the select: 7 instructions a bit, 56 a key, the largest share of a
// pass's instructions. Here: and + setp (one LOP3 that sets a predicate), the
// vote, a predicated not, the and: 4 a bit. A pass at 2^24 went from 0.105 to
// 0.081 ms.
__device__ unsigned same_digit_lanes_ptx(std::uint32_t digit) {
  unsigned peers = kFullMask;
#pragma unroll
  for (int b = 0; b < kRadixBits; ++b) {
    unsigned agree;  // bit l set: lane l's bit b equals this lane's
    asm("{\n\t.reg .pred set;\n\t.reg .b32 bit;\n\t"
        "and.b32 bit, %1, %2;\n\t"
        "setp.ne.u32 set, bit, 0;\n\t"
        "vote.sync.ballot.b32 %0, set, 0xffffffff;\n\t"
        "@!set not.b32 %0, %0;\n\t}"
        : "=r"(agree)
        : "r"(digit), "r"(1u << b));
    peers &= agree;
  }
  return peers;
}

// Step 1: the counts of every digit of every pass, in one read of the keys.
// Each block adds its keys into shared counters, then those into the global
// ones: kPasses x kRadix global atomics per block, not per key.
__global__ void __launch_bounds__(kRadix)
    count_all_digits(const std::uint32_t* keys, std::size_t n, std::uint32_t* counts) {
  __shared__ std::uint32_t block_counts[kPasses][kRadix];
  for (int p = 0; p < kPasses; ++p) block_counts[p][threadIdx.x] = 0;
  __syncthreads();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Four keys per load (16 bytes): few threads then keep enough bytes in flight.
  const std::size_t quads = n / 4;
  const auto* keys4 = reinterpret_cast<const uint4*>(keys);
  for (std::size_t q = first; q < quads; q += stride) {
    const uint4 four = keys4[q];
    const std::uint32_t k[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int p = 0; p < kPasses; ++p) atomicAdd(&block_counts[p][digit_at(k[j], p * kRadixBits)], 1u);
  }
  for (std::size_t i = quads * 4 + first; i < n; i += stride)
    for (int p = 0; p < kPasses; ++p) atomicAdd(&block_counts[p][digit_at(keys[i], p * kRadixBits)], 1u);
  __syncthreads();
  for (int p = 0; p < kPasses; ++p) {
    const std::uint32_t count = block_counts[p][threadIdx.x];
    if (count > 0) atomicAdd(&counts[p * kRadix + threadIdx.x], count);
  }
}

// Each pass's counts become the first position of each digit: block p scans pass p.
__global__ void __launch_bounds__(kRadix) digit_starts_of_passes(std::uint32_t* counts) {
  std::uint32_t& mine = counts[blockIdx.x * kRadix + threadIdx.x];
  mine = block_exclusive_sum<kRadix>(mine);
}

// Thread d (< kRadix) of a tile: the number of keys of digit d in the tiles
// before it. Walks back from the nearest earlier tile, adding tile counts
// until it meets a tile that knows the counts of every tile up to itself.
__device__ std::uint32_t keys_before_tile(std::uint32_t* look_back, std::size_t tile, int digit) {
  std::uint32_t before = 0;
  std::size_t left = tile;  // tiles 0 .. left - 1 not yet added
  while (left > 0) {
    std::uint32_t window[kLookBackWindow];
#pragma unroll
    for (int i = 0; i < kLookBackWindow; ++i)
      window[i] =
          left > static_cast<std::size_t>(i)
              ? DeviceWord(look_back[(left - 1 - i) * kRadix + digit]).load(cuda::memory_order_relaxed)
              : kCountsUpTo;  // before tile 0: nothing
    // Add the window's words nearest first, up to the first that is not ready
    // or that already counts everything before it.
    int added = 0;
    bool complete = false;
#pragma unroll
    for (int i = 0; i < kLookBackWindow; ++i) {
      if (complete || added < i || window[i] == kNotReady) continue;
      before += window[i] & kValueMask;
      complete = (window[i] & ~kValueMask) == kCountsUpTo;
      added = i + 1;
    }
    if (complete) break;
    left -= added;
    if (added == 0) {  // the nearest has not published: wait for its word alone
      while (DeviceWord(look_back[(left - 1) * kRadix + digit]).load(cuda::memory_order_relaxed) ==
             kNotReady) {
      }
    }
  }
  return before;
}

// Blocks of a pass per SM that the register budget is cut for: for keys, 3
// (56 registers a thread: the keys, not their ranks, stay in registers); 2
// for pairs (80: the values and the ranks stay too). 3 x 384 threads need an
// SM of 1536 threads or more (sm_80 and later); sm_75's hold 1024.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kKeysBlocksPerSm = 2;
#else
constexpr int kKeysBlocksPerSm = 3;
#endif
constexpr int kPairsBlocksPerSm = 2;

// Step 2: one pass over every tile; with kWithValues, each value follows its key.
// kOnesweepThreads x kOnesweepItems keys per block, warp-striped as in the
// lab's load_tile: lane l's item k is key k * 32 + l of its warp's share.
template <bool kWithValues>
__global__ void __launch_bounds__(kOnesweepThreads, kWithValues ? kPairsBlocksPerSm : kKeysBlocksPerSm)
    onesweep_pass(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n, int shift,
                  const std::uint32_t* digit_starts, std::uint32_t* look_back, std::uint32_t* next_tile,
                  std::uint32_t* keys_out, std::uint32_t* values_out) {
  // Each warp's counters per digit; after the ranking (pairs only) each sorted
  // slot's digit, so that a value goes where its key went. 12 KB.
  __shared__ union {
    std::uint32_t warp_offsets[kWarps][kRadix];
    std::uint8_t slot_digits[kOnesweepTileSize];
  } counters;
  __shared__ std::uint32_t sorted[kOnesweepTileSize];  // the tile sorted by digit (35 KB)
  __shared__ std::uint32_t digit_base[kRadix];
  __shared__ std::uint32_t this_tile;
  const int lane = lane_index();
  const int warp = warp_index();
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kOnesweepThreads) (&counters.warp_offsets[0][0])[i] = 0;
  if (threadIdx.x == 0) this_tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  const std::size_t tile = this_tile;
  const std::size_t first = tile * kOnesweepTileSize;
  const int valid = n - first < static_cast<std::size_t>(kOnesweepTileSize) ? static_cast<int>(n - first)
                                                                            : kOnesweepTileSize;

  std::uint32_t items[kOnesweepItems];
  std::uint32_t values[kWithValues ? kOnesweepItems : 1];
#pragma unroll
  for (int k = 0; k < kOnesweepItems; ++k) {
    const int j = warp * kKeysPerWarp + k * kWarpSize + lane;
    items[k] = j < valid ? keys_in[first + j] : kKeyPastEnd;
  }
  if constexpr (kWithValues) {
    // Loaded now, so that their loads are in flight while the tile is ranked.
#pragma unroll
    for (int k = 0; k < kOnesweepItems; ++k) {
      const int j = warp * kKeysPerWarp + k * kWarpSize + lane;
      values[k] = j < valid ? values_in[first + j] : 0u;
    }
  }

  // (a) Each warp counts its keys' digits, keys past n included (as digit 255).
  std::uint32_t* my_counters = counters.warp_offsets[warp];
#pragma unroll
  for (int k = 0; k < kOnesweepItems; ++k) atomicAdd(&my_counters[digit_at(items[k], shift)], 1u);
  __syncthreads();

  // (b) Thread d < kRadix owns digit d: the tile's count of d, published at
  // once, so that later tiles' look-backs need not wait for this tile's
  // ranking; each warp's counter becomes its first place among the d's.
  const int digit = static_cast<int>(threadIdx.x);
  std::uint32_t* words = look_back + tile * kRadix;
  std::uint32_t total = 0;  // the tile's keys of digit d, past-n keys included
  std::uint32_t real = 0;   // the same, below n only
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t count = counters.warp_offsets[w][digit];
      counters.warp_offsets[w][digit] = total;
      total += count;
    }
    real = digit == kRadix - 1 ? total - static_cast<std::uint32_t>(kOnesweepTileSize - valid) : total;
    DeviceWord(words[digit]).store((tile == 0 ? kCountsUpTo : kTileCount) | real, cuda::memory_order_relaxed);
  }
  const std::uint32_t digit_start = block_exclusive_sum<kOnesweepThreads>(digit < kRadix ? total : 0u);
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) counters.warp_offsets[w][digit] += digit_start;
  }
  __syncthreads();

  // (c) Rank, warp by warp and item by item: a key's place in the sorted tile
  // is its warp's next place for its digit plus its peers in lower lanes. The
  // highest lane of each group of peers moves the counter for all of them
  // with one shared atomic and hands the old value on with a shuffle; each
  // key goes to the sorted tile at once, so no array of ranks is kept (for
  // keys alone).
  // nvcc would keep the digits of (a) alive until here, as many registers
  // again as the keys: an opaque copy of the shift makes it compute them again.
  int rank_shift = shift;
  asm volatile("" : "+r"(rank_shift));
  const unsigned lanes_up_to_me = kFullMask >> (kWarpSize - 1 - lane);
  std::uint32_t ranks[kWithValues ? kOnesweepItems : 1];
#pragma unroll
  for (int k = 0; k < kOnesweepItems; ++k) {
    const std::uint32_t d = digit_at(items[k], rank_shift);
    const unsigned peers = same_digit_lanes_ptx(d);
    const int highest = kWarpSize - 1 - __clz(peers);
    const std::uint32_t up_to_me = static_cast<std::uint32_t>(__popc(peers & lanes_up_to_me));
    std::uint32_t first_place = 0;
    if (lane == highest) first_place = atomicAdd(&my_counters[d], up_to_me);  // up_to_me: all its peers
    first_place = __shfl_sync(kFullMask, first_place, highest);
    const std::uint32_t rank = first_place + up_to_me - 1;
    sorted[rank] = items[k];
    if constexpr (kWithValues) ranks[k] = rank;
  }

  // (d) Look back, one thread per digit, while the other warps finish ranking;
  // then publish the running total for the tiles after this one.
  if (digit < kRadix) {
    const std::uint32_t before = tile > 0 ? keys_before_tile(look_back, tile, digit) : 0u;
    if (tile > 0) DeviceWord(words[digit]).store(kCountsUpTo | (before + real), cuda::memory_order_relaxed);
    // Key j of the sorted tile, of digit d, goes to d's first place + d's keys
    // in earlier tiles + (j - d's start in the tile) = digit_base[d] + j.
    digit_base[digit] = digit_starts[digit] + before - digit_start;
  }
  __syncthreads();

  // (e) Scatter: neighbouring threads take neighbouring keys of the sorted
  // tile, so the stores of a warp fall in few runs of neighbouring addresses.
  // Keys past n sort last in the tile: j < valid is exactly the real keys.
#pragma unroll
  for (int k = 0; k < kOnesweepItems; ++k) {
    const int j = k * kOnesweepThreads + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted[j];
      const std::uint32_t d = digit_at(key, shift);
      keys_out[digit_base[d] + static_cast<std::uint32_t>(j)] = key;
      if constexpr (kWithValues) counters.slot_digits[j] = static_cast<std::uint8_t>(d);
    }
  }
  if constexpr (kWithValues) {
    // The values cross the tile the same way, through the same shared array.
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kOnesweepItems; ++k) sorted[ranks[k]] = values[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kOnesweepItems; ++k) {
      const int j = k * kOnesweepThreads + static_cast<int>(threadIdx.x);
      if (j < valid)
        values_out[digit_base[counters.slot_digits[j]] + static_cast<std::uint32_t>(j)] = sorted[j];
    }
  }
}

std::size_t tiles_for_onesweep(std::size_t n) {
  return (n + kOnesweepTileSize - 1) / kOnesweepTileSize;
}

void check_arguments(std::size_t n, const OnesweepScratch& scratch, const char* caller,
                     std::initializer_list<std::pair<const void*, const char*>> arrays) {
  if (n > scratch.max_n()) {
    throw std::invalid_argument(std::string(caller) + ": n = " + std::to_string(n) +
                                ", but the OnesweepScratch was built for at most " +
                                std::to_string(scratch.max_n()) + "; construct it with a larger max_n");
  }
  for (const auto& [pointer, name] : arrays) {
    if (n > 0 && pointer == nullptr) {
      throw std::invalid_argument(std::string(caller) + ": " + name + " is nullptr but n = " +
                                  std::to_string(n) + "; pass a device array of n elements");
    }
  }
}

// The whole sort; values_in == nullptr sorts keys alone.
void onesweep_sort(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                   std::uint32_t* values_out, std::size_t n, OnesweepScratch& scratch, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t tiles = tiles_for_onesweep(n);
  const std::size_t words = scratch.look_back_words_per_pass();
  // The counts and every pass's look-back words and tile counter start at 0.
  CUDA_CHECK(cudaMemsetAsync(scratch.digit_starts(), 0, kPasses * kRadix * sizeof(std::uint32_t), stream));
  CUDA_CHECK(cudaMemsetAsync(scratch.look_back(), 0, kPasses * words * sizeof(std::uint32_t), stream));
  count_all_digits<<<scratch.histogram_blocks(), kRadix, 0, stream>>>(keys_in, n, scratch.digit_starts());
  CUDA_CHECK_LAUNCH("count_all_digits");
  digit_starts_of_passes<<<kPasses, kRadix, 0, stream>>>(scratch.digit_starts());
  CUDA_CHECK_LAUNCH("digit_starts_of_passes");
  const std::uint32_t* key_source = keys_in;
  const std::uint32_t* value_source = values_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    // Passes 0 and 2 write the scratch, 1 and 3 the output: in place works,
    // since the histograms read keys_in before pass 1 overwrites it.
    std::uint32_t* key_target = pass % 2 == 0 ? scratch.keys_temp() : keys_out;
    std::uint32_t* value_target = pass % 2 == 0 ? scratch.values_temp() : values_out;
    std::uint32_t* look_back = scratch.look_back() + pass * words;
    const std::uint32_t* starts = scratch.digit_starts() + pass * kRadix;
    const unsigned blocks = static_cast<unsigned>(tiles);
    if (values_in == nullptr) {
      onesweep_pass<false><<<blocks, kOnesweepThreads, 0, stream>>>(
          key_source, nullptr, n, pass * kRadixBits, starts, look_back, look_back + tiles * kRadix,
          key_target, nullptr);
    } else {
      onesweep_pass<true><<<blocks, kOnesweepThreads, 0, stream>>>(
          key_source, value_source, n, pass * kRadixBits, starts, look_back, look_back + tiles * kRadix,
          key_target, value_target);
    }
    CUDA_CHECK_LAUNCH("onesweep_pass");
    key_source = key_target;
    value_source = value_target;
  }
}

}  // namespace

OnesweepScratch::OnesweepScratch(std::size_t max_n, bool with_values)
    : max_n_(max_n),
      has_values_(with_values),
      words_per_pass_(tiles_for_onesweep(max_n) * kRadix + 1),
      histogram_blocks_(0) {
  if (max_n > kMaxKeys) {
    throw std::invalid_argument("OnesweepScratch: max_n = " + std::to_string(max_n) +
                                ", but the look-back's counts have 30 bits; build it for at most " +
                                std::to_string(kMaxKeys) + " keys");
  }
  if (max_n == 0) return;  // nothing to allocate: every sort of it is empty
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  histogram_blocks_ = static_cast<unsigned>(sms * kHistogramBlocksPerSm);
  digit_starts_ = workbook::DeviceBuffer<std::uint32_t>(kPasses * kRadix);
  look_back_ = workbook::DeviceBuffer<std::uint32_t>(kPasses * words_per_pass_);
  keys_temp_ = workbook::DeviceBuffer<std::uint32_t>(max_n);
  if (with_values) values_temp_ = workbook::DeviceBuffer<std::uint32_t>(max_n);
}

void onesweep_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
                        OnesweepScratch& scratch, cudaStream_t stream) {
  check_arguments(n, scratch, "onesweep_sort_keys", {{keys_in, "keys_in"}, {keys_out, "keys_out"}});
  onesweep_sort(keys_in, nullptr, keys_out, nullptr, n, scratch, stream);
}

void onesweep_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                         std::uint32_t* keys_out, std::uint32_t* values_out, std::size_t n,
                         OnesweepScratch& scratch, cudaStream_t stream) {
  if (!scratch.has_values()) {
    throw std::invalid_argument(
        "onesweep_sort_pairs: the scratch has no value buffer; construct it as OnesweepScratch(max_n, true)");
  }
  check_arguments(
      n, scratch, "onesweep_sort_pairs",
      {{keys_in, "keys_in"}, {values_in, "values_in"}, {keys_out, "keys_out"}, {values_out, "values_out"}});
  onesweep_sort(keys_in, values_in, keys_out, values_out, n, scratch, stream);
}

}  // namespace radix_sort
