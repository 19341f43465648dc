// Issue 39's lab 08 search: how close does a plain single-pass (Onesweep)
// radix sort, built from the lab's own tile ranking, come to
// cub::DeviceRadixSort::SortKeys? Sorts uniform random uint32 keys at 2^20,
// 2^24 and 2^28 three ways: CUB, the lab's reference sort_keys (three kernels
// per pass) and this file's Onesweep (one histogram pass over the keys for all
// four digits, then one kernel per digit that ranks its tile, finds its
// place with decoupled look-back over the per-digit counts and scatters), each
// the median of 15 runs, every result checked against CUB's.
// Not part of the course: a maintainer's sweep. It includes the lab's
// reference solution as source, so that it can call its tile helpers.
//
//   nvcc -O3 -arch=native -std=c++17 -I labs/08-radix-sort -I common/include -o build/onesweep_sweep \
//     tools/sweeps/onesweep_sweep.cu common/src/count_scan.cu common/src/cuda_check.cpp &&
//     build/onesweep_sweep
//
// Two rounds (NVIDIA H200, 2026-11-29; the second round's output is recorded in
// labs/08-radix-sort/figures/onesweep-sweep.txt). % of CUB's time, 2^20 / 2^24 / 2^28:
//   the lab's sort_keys (3 kernels per pass)                       85-96 / 82-84 / 75
//   round 1, the lab's rank_tile_by_digit, tiles of 4096:
//     counts after ranking                                        97-99 / 68-69 / 63-64
//     counts before ranking, look-back windows of 4               111-116 / 81-82 / 72-73
//     (windows of 16: 106 / 75 / 65; one warp looks back: 77 / 55 / 48; backoff: no change)
//   round 2 (onesweep_pass_v2), CUB's order: each warp counts its digits first,
//   then ranks in one pass (one shared atomic per group of peers, a shuffle):
//     384 x 23 keys, 2 blocks per SM (80 registers)                107-110 / 90-92 / 82-83
//     + keys to the sorted tile while ranking: 56 registers, 3 blocks 108-110 / 95-97 / 88-90
//     + the peer vote in PTX (4 instructions a bit, not 7)         119-120 / 124-126 / 119
//     (every lane adding 0 instead of a branch: 117-118 / 119 / 112; __match_any_sync:
//     92 / 53 / 48; 256 x 28 at 4 blocks, PTX vote: 112 / 120 / 116; 384 x 16 (first form): 109 / 83 / 72)
//   pairs, 384 x 23, 2 blocks: 120 / 115 / 117 % of SortPairs (384 x 16, 3 blocks: 113 / 103 / 95).
// Nsight Compute, one sort of 2^24 keys (--profile v2 | cub | nothing, figures/ncu-probe.txt),
// per pass: round 1 0.148 ms, 69.4 M warp instructions, 36 % of warps resident (80
// registers); round 2 final 0.091 ms, 46.4 M, 53 % (56 registers), issue slots 68 % busy;
// CUB's DeviceRadixSortOnesweepKernel 0.111 ms, 44.3 M, 54 %, issue 54 %. The vote in C++
// cost nvcc about 7 instructions a bit (the bit computed twice, as the vote's predicate and
// as a select mask): some 56 of round 2's first kernel's 116 SASS instructions per key.
// The reference built from round 2 is solutions/08-radix-sort/going_further/onesweep.cu.
#include <cub/device/device_radix_sort.cuh>
#include <cuda/atomic>
#include <random>
#include <string>
#include <vector>

#include "../../solutions/08-radix-sort/radix_sort.cu"
#include "../probes/probe_common.cuh"

namespace radix_sort {
namespace {

// A tile's word in the look-back array, one per (tile, digit): the top two
// bits say what the low 30 bits hold. One 32-bit word carries flag and value
// together, so relaxed atomic loads and stores suffice: no fence orders it
// with anything else. 30 bits bound n below 2^30.
constexpr std::uint32_t kNotReady = 0u;
constexpr std::uint32_t kTileCount = 1u << 30;   // this tile's count of the digit
constexpr std::uint32_t kCountsUpTo = 2u << 30;  // the counts of all tiles up to this one
constexpr std::uint32_t kValueMask = (1u << 30) - 1u;
constexpr int kHistogramBlocksPerSm = 2;

using DeviceWord = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;

// Pass 0 of Onesweep: the counts of every digit of every pass, in one read of
// the keys. Each block adds its keys into shared counters, then adds those to
// the global ones: kPasses x kRadix atomics per block.
__global__ void __launch_bounds__(kThreadsPerBlock)
    count_all_digits(const std::uint32_t* keys, std::size_t n, std::uint32_t* counts) {
  __shared__ std::uint32_t block_counts[kPasses][kRadix];
  for (int p = 0; p < kPasses; ++p) block_counts[p][threadIdx.x] = 0;
  __syncthreads();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // Four keys per load (16 bytes), so that few threads keep the DRAM busy.
  const std::size_t quads = n / 4;
  const auto* keys4 = reinterpret_cast<const uint4*>(keys);
  for (std::size_t q = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < quads;
       q += stride) {
    const uint4 four = keys4[q];
    const std::uint32_t k[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int p = 0; p < kPasses; ++p) atomicAdd(&block_counts[p][digit_of(k[j], p * kRadixBits)], 1u);
  }
  for (std::size_t i = quads * 4 + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    for (int p = 0; p < kPasses; ++p) atomicAdd(&block_counts[p][digit_of(keys[i], p * kRadixBits)], 1u);
  __syncthreads();
  for (int p = 0; p < kPasses; ++p)
    atomicAdd(&counts[p * kRadix + threadIdx.x], block_counts[p][threadIdx.x]);
}

// Each pass's counts become the first position of each digit: block p scans pass p.
__global__ void __launch_bounds__(kThreadsPerBlock) digit_starts_of_passes(std::uint32_t* counts) {
  std::uint32_t& mine = counts[blockIdx.x * kRadix + threadIdx.x];
  mine = block_exclusive_sum(mine);
}

// One pass: each block takes the next tile (in the order blocks start, so
// every earlier tile belongs to a block already running), ranks it with the
// lab's rank_tile_by_digit, publishes its counts per digit, looks back over
// the earlier tiles' words for its offsets, and scatters the sorted tile.
// kEarlyCounts: count the tile's digits with shared atomics and publish them
// before ranking it, so that later tiles' look-backs need not wait for the
// ranking. kBackoff: a thread whose predecessor has not published sleeps a
// little before it asks again, instead of flooding the L2 with loads.
template <bool kEarlyCounts, bool kBackoff, int kWindow = 1>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    onesweep_pass(const std::uint32_t* keys_in, std::size_t n, int shift, const std::uint32_t* digit_starts,
                  std::uint32_t* look_back, std::uint32_t* next_tile, std::uint32_t* keys_out) {
  __shared__ std::uint32_t sorted_keys[kTileSize];
  __shared__ std::uint32_t digit_base[kRadix];
  __shared__ std::uint32_t tile_digit_starts[kRadix];
  __shared__ std::uint32_t this_tile;
  if (threadIdx.x == 0) this_tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  const std::size_t tile = this_tile;
  const std::size_t first = tile * kTileSize;
  const int valid = n - first < static_cast<std::size_t>(kTileSize) ? static_cast<int>(n - first) : kTileSize;

  std::uint32_t items[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    items[k] = j < valid ? keys_in[first + j] : kKeyPastEnd;
  }
  const int digit = static_cast<int>(threadIdx.x);
  std::uint32_t* words = look_back + tile * kRadix;
  std::uint32_t count = 0;
  if (kEarlyCounts) {
    __shared__ std::uint32_t tile_counts[kRadix];
    tile_counts[digit] = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k)
      if (item_in_tile(k) < valid) atomicAdd(&tile_counts[digit_of(items[k], shift)], 1u);
    __syncthreads();
    count = tile_counts[digit];
    DeviceWord(words[digit])
        .store((tile == 0 ? kCountsUpTo : kTileCount) | count, cuda::memory_order_relaxed);
  }
  std::uint32_t positions[kItemsPerThread];
  const std::uint32_t digit_start = rank_tile_by_digit(items, shift, positions);
  if (!kEarlyCounts) {
    tile_digit_starts[digit] = digit_start;
    __syncthreads();
    // Keys past n are digit 255 and sort last, so the next digit's start (or
    // `valid` for digit 255) ends this digit's real keys.
    const std::uint32_t end =
        digit == kRadix - 1 ? static_cast<std::uint32_t>(valid) : tile_digit_starts[digit + 1];
    count = end - digit_start;
    DeviceWord(words[digit])
        .store((tile == 0 ? kCountsUpTo : kTileCount) | count, cuda::memory_order_relaxed);
  }

  std::uint32_t before = 0;
  if (kWindow == 0) {
    // Look back by one warp: lane l handles digits l, l + 32, ..., and the
    // other warps wait at the barrier instead of spinning on loads.
    __shared__ std::uint32_t digit_before[kRadix];
    __shared__ std::uint32_t digit_counts[kRadix];
    digit_counts[digit] = count;
    __syncthreads();
    if (warp_index() == 0 && tile > 0) {
      constexpr int kPerLane = kRadix / kWarpSize;
      const int lane = lane_index();
      std::uint32_t sums[kPerLane] = {};
      unsigned pending = (1u << kPerLane) - 1u;  // bit j: digit lane + 32 j still adding
      for (std::size_t t = tile; pending != 0u;) {
        std::uint32_t word[kPerLane];
        bool ready = true;
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          word[j] = (pending >> j) & 1u ? DeviceWord(look_back[(t - 1) * kRadix + lane + kWarpSize * j])
                                              .load(cuda::memory_order_relaxed)
                                        : kCountsUpTo;
          ready = ready && word[j] != kNotReady;
        }
        if (!ready) continue;  // ask again for the same tile
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          if (((pending >> j) & 1u) == 0u) continue;
          sums[j] += word[j] & kValueMask;
          if ((word[j] & ~kValueMask) == kCountsUpTo) pending &= ~(1u << j);
        }
        --t;
      }
#pragma unroll
      for (int j = 0; j < kPerLane; ++j) {
        const int d = lane + kWarpSize * j;
        digit_before[d] = sums[j];
        DeviceWord(words[d]).store(kCountsUpTo | (sums[j] + digit_counts[d]), cuda::memory_order_relaxed);
      }
    }
    __syncthreads();
    before = tile > 0 ? digit_before[digit] : 0u;
  } else if (kWindow > 0) {
    // Look back: thread d adds up digit d's counts of the tiles before this
    // one until it meets a tile that already knows its running total, then
    // publishes this tile's running total for the tiles after it.
    // kWindow earlier tiles' words are loaded at once, so that a walk over many
    // tiles costs a round trip per window, not per tile. Where the nearest tile
    // not yet added has not published, only its word is asked for again.
    std::size_t left = tile;  // tiles 0 .. left - 1 not yet added
    while (left > 0) {
      std::uint32_t window[kWindow > 0 ? kWindow : 1];
#pragma unroll
      for (int i = 0; i < kWindow; ++i)
        window[i] =
            left > static_cast<std::size_t>(i)
                ? DeviceWord(look_back[(left - 1 - i) * kRadix + digit]).load(cuda::memory_order_relaxed)
                : kCountsUpTo;  // before tile 0: nothing
      int added = 0;
      bool complete = false;
#pragma unroll
      for (int i = 0; i < kWindow; ++i) {
        if (complete || added < i || window[i] == kNotReady) continue;
        before += window[i] & kValueMask;
        complete = (window[i] & ~kValueMask) == kCountsUpTo;
        added = i + 1;
      }
      if (complete) break;
      left -= added;
      if (added == 0) {  // the nearest has not published: wait for it alone
        while (DeviceWord(look_back[(left - 1) * kRadix + digit]).load(cuda::memory_order_relaxed) ==
               kNotReady) {
          if (kBackoff) __nanosleep(32);
        }
      }
    }
    if (tile > 0) DeviceWord(words[digit]).store(kCountsUpTo | (before + count), cuda::memory_order_relaxed);
  }

  // As in scatter_by_digit: key j of the sorted tile, of digit d, goes to
  // d's first position + d's keys in earlier tiles + (j - d's start in the tile).
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) sorted_keys[positions[k]] = items[k];
  digit_base[digit] = digit_starts[digit] + before - digit_start;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kThreadsPerBlock + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted_keys[j];
      keys_out[digit_base[digit_of(key, shift)] + static_cast<std::uint32_t>(j)] = key;
    }
  }
}

// Onesweep's device memory: the four passes' digit starts, one look-back
// word per (tile, digit) and the tile counter, reused by every pass, and a
// second buffer for the keys.
struct OnesweepScratch {
  explicit OnesweepScratch(std::size_t max_n)
      : tiles(tiles_for(max_n)), starts(kPasses * kRadix), words(tiles * kRadix + 1), keys_temp(max_n) {}
  std::size_t tiles;
  workbook::DeviceBuffer<std::uint32_t> starts, words, keys_temp;
};

template <bool kEarlyCounts, bool kBackoff, int kWindow>
void onesweep_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
                        OnesweepScratch& scratch, int sms) {
  const std::size_t tiles = tiles_for(n);
  PROBE_CHECK(cudaMemsetAsync(scratch.starts.data(), 0, kPasses * kRadix * sizeof(std::uint32_t)));
  count_all_digits<<<sms * kHistogramBlocksPerSm * 4, kThreadsPerBlock>>>(keys_in, n, scratch.starts.data());
  digit_starts_of_passes<<<kPasses, kThreadsPerBlock>>>(scratch.starts.data());
  const std::uint32_t* source = keys_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::uint32_t* target = pass % 2 == 0 ? scratch.keys_temp.data() : keys_out;
    std::uint32_t* words = scratch.words.data();
    PROBE_CHECK(cudaMemsetAsync(words, 0, (tiles * kRadix + 1) * sizeof(std::uint32_t)));
    onesweep_pass<kEarlyCounts, kBackoff, kWindow><<<static_cast<unsigned>(tiles), kThreadsPerBlock>>>(
        source, n, pass * kRadixBits, scratch.starts.data() + pass * kRadix, words, words + tiles * kRadix,
        target);
    source = target;
  }
  PROBE_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------
// Second round (session 46): CUB's ranking with early counts. Each warp counts
// its keys' digits first (shared atomics into its own histogram), the block
// turns those counts into each warp's first position per digit, and only then
// ranks: per key, one peer vote, and the group's highest lane moves the warp's
// counter with one shared atomic and hands the old value to its peers with a
// shuffle. One pass over the items instead of the lab's two (no second read
// of the counters, no __syncwarp pair per key). kThreads x kItems keys a tile
// (CUB's sm_90 tuning for 4-byte keys: 384 x 23).
// The lanes whose digit equals this lane's, as same_digit_lanes, in four
// instructions a bit: written in C++, nvcc computed each bit twice (once as a
// predicate for the vote, once as a mask for the select), seven a bit.
__device__ unsigned same_digit_lanes_ptx(std::uint32_t digit) {
  unsigned peers = kFullMask;
#pragma unroll
  for (int b = 0; b < kRadixBits; ++b) {
    unsigned agree;  // bit l: lane l's bit b equals this lane's
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

template <int kThreads>
__device__ std::uint32_t block_exclusive_sum_of(std::uint32_t value) {
  constexpr int kWarps = kThreads / kWarpSize;
  __shared__ std::uint32_t warp_totals[kWarps];
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

template <int kThreads, int kItems, int kWindow, bool kMatchAny, int kMinBlocks = (kThreads >= 384 ? 2 : 3),
          bool kStoreWhileRanking = false, bool kPtxMatch = false, bool kEveryLaneAdds = false>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    onesweep_pass_v2(const std::uint32_t* keys_in, std::size_t n, int shift,
                     const std::uint32_t* digit_starts, std::uint32_t* look_back, std::uint32_t* next_tile,
                     std::uint32_t* keys_out) {
  constexpr int kWarps = kThreads / kWarpSize;
  constexpr int kTile = kThreads * kItems;
  constexpr int kWarpTile = kWarpSize * kItems;
  // The warps' counters are done with before the sorted tile is written.
  // kStoreWhileRanking: each key goes to the sorted tile as soon as it is
  // ranked, so that no array of ranks stays in registers (more blocks fit an
  // SM), at the price of the counters' own 12 KB of shared memory.
  struct Apart {
    std::uint32_t warp_offsets[kWarps][kRadix];
    std::uint32_t sorted_keys[kTile];
  };
  union Aliased {
    std::uint32_t warp_offsets[kWarps][kRadix];
    std::uint32_t sorted_keys[kTile];
  };
  __shared__ std::conditional_t<kStoreWhileRanking, Apart, Aliased> shared;
  __shared__ std::uint32_t digit_base[kRadix];
  __shared__ std::uint32_t this_tile;
  const int lane = lane_index();
  const int warp = warp_index();
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&shared.warp_offsets[0][0])[i] = 0;
  if (threadIdx.x == 0) this_tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  const std::size_t tile = this_tile;
  const std::size_t first = tile * kTile;
  const int valid = n - first < static_cast<std::size_t>(kTile) ? static_cast<int>(n - first) : kTile;

  // Warp-striped: item k of lane l is key k * 32 + l of the warp's share.
  std::uint32_t items[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = warp * kWarpTile + k * kWarpSize + lane;
    items[k] = j < valid ? keys_in[first + j] : kKeyPastEnd;
  }
  // 1. Early counts: each warp's digits, keys past n included (as digit 255).
  std::uint32_t* my_counts = shared.warp_offsets[warp];
#pragma unroll
  for (int k = 0; k < kItems; ++k) atomicAdd(&my_counts[digit_of(items[k], shift)], 1u);
  __syncthreads();
  // 2. Thread d < 256 owns digit d: the tile's count, published at once so
  // that later tiles need not wait for this one's ranking; the warps' first
  // positions of d within the digit.
  const int digit = static_cast<int>(threadIdx.x);
  std::uint32_t total = 0;
  std::uint32_t real = 0;  // the tile's keys of this digit below n
  std::uint32_t* words = look_back + tile * kRadix;
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t c = shared.warp_offsets[w][digit];
      shared.warp_offsets[w][digit] = total;
      total += c;
    }
    real = digit == kRadix - 1 ? total - static_cast<std::uint32_t>(kTile - valid) : total;
    DeviceWord(words[digit]).store((tile == 0 ? kCountsUpTo : kTileCount) | real, cuda::memory_order_relaxed);
  }
  const std::uint32_t digit_start = block_exclusive_sum_of<kThreads>(digit < kRadix ? total : 0u);
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) shared.warp_offsets[w][digit] += digit_start;
  }
  __syncthreads();
  // 3. Rank: the key's place = its warp's next place for the digit + its
  // peers in lower lanes. The group's highest lane takes the places for all.
  std::uint32_t ranks[kStoreWhileRanking ? 1 : kItems];
  // nvcc would keep the kItems digits of step 1 alive to here, as many
  // registers again as the keys; an opaque copy of the shift makes it
  // compute them again (two instructions a key) instead.
  int rank_shift = shift;
  asm volatile("" : "+r"(rank_shift));
  const unsigned lanes_up_to_me = 0xFFFFFFFFu >> (kWarpSize - 1 - lane);
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::uint32_t d = digit_of(items[k], rank_shift);
    const unsigned peers = kMatchAny   ? __match_any_sync(kFullMask, d)
                           : kPtxMatch ? same_digit_lanes_ptx(d)
                                       : same_digit_lanes(d);
    const int leader = kWarpSize - 1 - __clz(peers);
    const std::uint32_t up_to_me = static_cast<std::uint32_t>(__popc(peers & lanes_up_to_me));
    std::uint32_t base = 0;
    if (kEveryLaneAdds) {
      // 30 of 32 random digits differ: nearly every lane leads its group, so
      // every lane adds (0 unless it leads) and no branch splits the warp.
      base = atomicAdd(&my_counts[d], lane == leader ? up_to_me : 0u);
    } else if (lane == leader) {
      base = atomicAdd(&my_counts[d], up_to_me);
    }
    base = __shfl_sync(kFullMask, base, leader);
    if (kStoreWhileRanking)
      shared.sorted_keys[base + up_to_me - 1] = items[k];
    else
      ranks[kStoreWhileRanking ? 0 : k] = base + up_to_me - 1;
  }
  // 4. Look back (threads of digits only), while the ranks are written.
  std::uint32_t before = 0;
  if (digit < kRadix) {
    std::size_t left = tile;
    while (left > 0) {
      std::uint32_t window[kWindow];
#pragma unroll
      for (int i = 0; i < kWindow; ++i)
        window[i] =
            left > static_cast<std::size_t>(i)
                ? DeviceWord(look_back[(left - 1 - i) * kRadix + digit]).load(cuda::memory_order_relaxed)
                : kCountsUpTo;
      int added = 0;
      bool complete = false;
#pragma unroll
      for (int i = 0; i < kWindow; ++i) {
        if (complete || added < i || window[i] == kNotReady) continue;
        before += window[i] & kValueMask;
        complete = (window[i] & ~kValueMask) == kCountsUpTo;
        added = i + 1;
      }
      if (complete) break;
      left -= added;
      if (added == 0) {
        while (DeviceWord(look_back[(left - 1) * kRadix + digit]).load(cuda::memory_order_relaxed) ==
               kNotReady) {
        }
      }
    }
    if (tile > 0) DeviceWord(words[digit]).store(kCountsUpTo | (before + real), cuda::memory_order_relaxed);
    digit_base[digit] = digit_starts[digit] + before - digit_start;
  }
  __syncthreads();  // every warp is done with its counters: the tile may overwrite them
  if (!kStoreWhileRanking) {
#pragma unroll
    for (int k = 0; k < kItems; ++k) shared.sorted_keys[ranks[kStoreWhileRanking ? 0 : k]] = items[k];
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = shared.sorted_keys[j];
      keys_out[digit_base[digit_of(key, shift)] + static_cast<std::uint32_t>(j)] = key;
    }
  }
}

template <int kThreads, int kItems>
std::size_t tiles_v2(std::size_t n) {
  return (n + kThreads * kItems - 1) / (kThreads * kItems);
}

template <int kThreads, int kItems, int kWindow, bool kMatchAny, int kMinBlocks = (kThreads >= 384 ? 2 : 3),
          bool kStoreWhileRanking = false, bool kPtxMatch = false, bool kEveryLaneAdds = false>
void onesweep_v2_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
                           OnesweepScratch& scratch, int sms) {
  const std::size_t tiles = tiles_v2<kThreads, kItems>(n);
  PROBE_CHECK(cudaMemsetAsync(scratch.starts.data(), 0, kPasses * kRadix * sizeof(std::uint32_t)));
  count_all_digits<<<sms * kHistogramBlocksPerSm * 4, kThreadsPerBlock>>>(keys_in, n, scratch.starts.data());
  digit_starts_of_passes<<<kPasses, kThreadsPerBlock>>>(scratch.starts.data());
  const std::uint32_t* source = keys_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::uint32_t* target = pass % 2 == 0 ? scratch.keys_temp.data() : keys_out;
    std::uint32_t* words = scratch.words.data();
    PROBE_CHECK(cudaMemsetAsync(words, 0, (tiles * kRadix + 1) * sizeof(std::uint32_t)));
    onesweep_pass_v2<kThreads, kItems, kWindow, kMatchAny, kMinBlocks, kStoreWhileRanking, kPtxMatch,
                     kEveryLaneAdds><<<static_cast<unsigned>(tiles), kThreads>>>(
        source, n, pass * kRadixBits, scratch.starts.data() + pass * kRadix, words, words + tiles * kRadix,
        target);
    source = target;
  }
  PROBE_CHECK(cudaGetLastError());
}

// Pairs: the keys' pass, and each value follows its key. The values are
// loaded with the keys (their loads in flight while the tile is ranked), and
// cross the tile through the same shared array after the keys have left it;
// each slot's digit is kept (one byte, in the counters' place) so that the
// value goes where its key went.
template <int kThreads, int kItems, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    onesweep_pairs_pass(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n,
                        int shift, const std::uint32_t* digit_starts, std::uint32_t* look_back,
                        std::uint32_t* next_tile, std::uint32_t* keys_out, std::uint32_t* values_out) {
  constexpr int kWarps = kThreads / kWarpSize;
  constexpr int kTile = kThreads * kItems;
  constexpr int kWarpTile = kWarpSize * kItems;
  __shared__ union {
    std::uint32_t warp_offsets[kWarps][kRadix];
    std::uint8_t slot_digits[kTile];
  } counters;
  __shared__ std::uint32_t sorted[kTile];
  __shared__ std::uint32_t digit_base[kRadix];
  __shared__ std::uint32_t this_tile;
  const int lane = lane_index();
  const int warp = warp_index();
  for (int i = threadIdx.x; i < kWarps * kRadix; i += kThreads) (&counters.warp_offsets[0][0])[i] = 0;
  if (threadIdx.x == 0) this_tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  const std::size_t tile = this_tile;
  const std::size_t first = tile * kTile;
  const int valid = n - first < static_cast<std::size_t>(kTile) ? static_cast<int>(n - first) : kTile;
  std::uint32_t items[kItems];
  std::uint32_t values[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = warp * kWarpTile + k * kWarpSize + lane;
    items[k] = j < valid ? keys_in[first + j] : kKeyPastEnd;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = warp * kWarpTile + k * kWarpSize + lane;
    values[k] = j < valid ? values_in[first + j] : 0u;
  }
  std::uint32_t* my_counts = counters.warp_offsets[warp];
#pragma unroll
  for (int k = 0; k < kItems; ++k) atomicAdd(&my_counts[digit_of(items[k], shift)], 1u);
  __syncthreads();
  const int digit = static_cast<int>(threadIdx.x);
  std::uint32_t total = 0;
  std::uint32_t real = 0;
  std::uint32_t* words = look_back + tile * kRadix;
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t c = counters.warp_offsets[w][digit];
      counters.warp_offsets[w][digit] = total;
      total += c;
    }
    real = digit == kRadix - 1 ? total - static_cast<std::uint32_t>(kTile - valid) : total;
    DeviceWord(words[digit]).store((tile == 0 ? kCountsUpTo : kTileCount) | real, cuda::memory_order_relaxed);
  }
  const std::uint32_t digit_start = block_exclusive_sum_of<kThreads>(digit < kRadix ? total : 0u);
  if (digit < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) counters.warp_offsets[w][digit] += digit_start;
  }
  __syncthreads();
  int rank_shift = shift;
  asm volatile("" : "+r"(rank_shift));
  const unsigned lanes_up_to_me = 0xFFFFFFFFu >> (kWarpSize - 1 - lane);
  std::uint32_t ranks[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::uint32_t d = digit_of(items[k], rank_shift);
    const unsigned peers = same_digit_lanes_ptx(d);
    const int leader = kWarpSize - 1 - __clz(peers);
    const std::uint32_t up_to_me = static_cast<std::uint32_t>(__popc(peers & lanes_up_to_me));
    std::uint32_t base = 0;
    if (lane == leader) base = atomicAdd(&my_counts[d], up_to_me);
    base = __shfl_sync(kFullMask, base, leader);
    ranks[k] = base + up_to_me - 1;
    sorted[ranks[k]] = items[k];
  }
  std::uint32_t before = 0;
  if (digit < kRadix) {
    std::size_t left = tile;
    while (left > 0) {
      constexpr int kWindow = 4;
      std::uint32_t window[kWindow];
#pragma unroll
      for (int i = 0; i < kWindow; ++i)
        window[i] =
            left > static_cast<std::size_t>(i)
                ? DeviceWord(look_back[(left - 1 - i) * kRadix + digit]).load(cuda::memory_order_relaxed)
                : kCountsUpTo;
      int added = 0;
      bool complete = false;
#pragma unroll
      for (int i = 0; i < kWindow; ++i) {
        if (complete || added < i || window[i] == kNotReady) continue;
        before += window[i] & kValueMask;
        complete = (window[i] & ~kValueMask) == kCountsUpTo;
        added = i + 1;
      }
      if (complete) break;
      left -= added;
      if (added == 0) {
        while (DeviceWord(look_back[(left - 1) * kRadix + digit]).load(cuda::memory_order_relaxed) ==
               kNotReady) {
        }
      }
    }
    if (tile > 0) DeviceWord(words[digit]).store(kCountsUpTo | (before + real), cuda::memory_order_relaxed);
    digit_base[digit] = digit_starts[digit] + before - digit_start;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted[j];
      const std::uint32_t d = digit_of(key, shift);
      keys_out[digit_base[d] + static_cast<std::uint32_t>(j)] = key;
      counters.slot_digits[j] = static_cast<std::uint8_t>(d);
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) sorted[ranks[k]] = values[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + static_cast<int>(threadIdx.x);
    if (j < valid)
      values_out[digit_base[counters.slot_digits[j]] + static_cast<std::uint32_t>(j)] = sorted[j];
  }
}

template <int kThreads, int kItems, int kMinBlocks>
void onesweep_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                         std::uint32_t* keys_out, std::uint32_t* values_out, std::size_t n,
                         OnesweepScratch& scratch, std::uint32_t* values_temp, int sms) {
  const std::size_t tiles = tiles_v2<kThreads, kItems>(n);
  PROBE_CHECK(cudaMemsetAsync(scratch.starts.data(), 0, kPasses * kRadix * sizeof(std::uint32_t)));
  count_all_digits<<<sms * kHistogramBlocksPerSm * 4, kThreadsPerBlock>>>(keys_in, n, scratch.starts.data());
  digit_starts_of_passes<<<kPasses, kThreadsPerBlock>>>(scratch.starts.data());
  const std::uint32_t* key_source = keys_in;
  const std::uint32_t* value_source = values_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    std::uint32_t* key_target = pass % 2 == 0 ? scratch.keys_temp.data() : keys_out;
    std::uint32_t* value_target = pass % 2 == 0 ? values_temp : values_out;
    std::uint32_t* words = scratch.words.data();
    PROBE_CHECK(cudaMemsetAsync(words, 0, (tiles * kRadix + 1) * sizeof(std::uint32_t)));
    onesweep_pairs_pass<kThreads, kItems, kMinBlocks><<<static_cast<unsigned>(tiles), kThreads>>>(
        key_source, value_source, n, pass * kRadixBits, scratch.starts.data() + pass * kRadix, words,
        words + tiles * kRadix, key_target, value_target);
    key_source = key_target;
    value_source = value_target;
  }
  PROBE_CHECK(cudaGetLastError());
}

}  // namespace
}  // namespace radix_sort

namespace {

// Times one variant of Onesweep at n and checks it against CUB's output.
template <bool kEarlyCounts, bool kBackoff, int kWindow = 1>
void time_onesweep(const char* name, const workbook::DeviceBuffer<std::uint32_t>& in,
                   workbook::DeviceBuffer<std::uint32_t>& out, std::size_t n, float cub_ms,
                   const std::vector<std::uint32_t>& expected, int sms) {
  using namespace radix_sort;
  OnesweepScratch scratch(n);
  PROBE_CHECK(cudaMemset(out.data(), 0, n * 4));
  const float ms = median_ms(
      [&] { onesweep_sort_keys<kEarlyCounts, kBackoff, kWindow>(in.data(), out.data(), n, scratch, sms); },
      15);
  std::vector<std::uint32_t> got(n);
  PROBE_CHECK(cudaMemcpy(got.data(), out.data(), n * 4, cudaMemcpyDeviceToHost));
  const std::size_t tiles = tiles_for(n);
  const float pass_ms = median_ms(
      [&] {
        PROBE_CHECK(cudaMemsetAsync(scratch.words.data(), 0, (tiles * kRadix + 1) * sizeof(std::uint32_t)));
        onesweep_pass<kEarlyCounts, kBackoff, kWindow><<<static_cast<unsigned>(tiles), kThreadsPerBlock>>>(
            in.data(), n, 0, scratch.starts.data(), scratch.words.data(),
            scratch.words.data() + tiles * kRadix, out.data());
      },
      15);
  std::printf(
      "    Onesweep, %-34s %8.3f ms (%5.1f%% of CUB) %s; one pass with its memset %.3f ms (%.0f GB/s)\n",
      name, ms, 100.0 * cub_ms / ms, got == expected ? "ok" : "WRONG", pass_ms, 8.0 * n / pass_ms / 1e6);
}

// Times one configuration of the second round at n, checked against CUB.
template <int kThreads, int kItems, int kWindow, bool kMatchAny, int kMinBlocks = (kThreads >= 384 ? 2 : 3),
          bool kStoreWhileRanking = false, bool kPtxMatch = false, bool kEveryLaneAdds = false>
void time_v2(const char* name, const workbook::DeviceBuffer<std::uint32_t>& in,
             workbook::DeviceBuffer<std::uint32_t>& out, std::size_t n, float cub_ms,
             const std::vector<std::uint32_t>& expected, int sms) {
  using namespace radix_sort;
  OnesweepScratch scratch(n);
  PROBE_CHECK(cudaMemset(out.data(), 0, n * 4));
  const float ms = median_ms(
      [&] {
        onesweep_v2_sort_keys<kThreads, kItems, kWindow, kMatchAny, kMinBlocks, kStoreWhileRanking, kPtxMatch,
                              kEveryLaneAdds>(in.data(), out.data(), n, scratch, sms);
      },
      15);
  std::vector<std::uint32_t> got(n);
  PROBE_CHECK(cudaMemcpy(got.data(), out.data(), n * 4, cudaMemcpyDeviceToHost));
  const std::size_t tiles = tiles_v2<kThreads, kItems>(n);
  const float pass_ms = median_ms(
      [&] {
        PROBE_CHECK(cudaMemsetAsync(scratch.words.data(), 0, (tiles * kRadix + 1) * sizeof(std::uint32_t)));
        onesweep_pass_v2<kThreads, kItems, kWindow, kMatchAny, kMinBlocks, kStoreWhileRanking, kPtxMatch,
                         kEveryLaneAdds><<<static_cast<unsigned>(tiles), kThreads>>>(
            in.data(), n, 0, scratch.starts.data(), scratch.words.data(),
            scratch.words.data() + tiles * kRadix, out.data());
      },
      15);
  std::printf("    v2 %-44s %8.3f ms (%5.1f%% of CUB) %s; one pass with its memset %.3f ms (%.0f GB/s)\n",
              name, ms, 100.0 * cub_ms / ms, got == expected ? "ok" : "WRONG", pass_ms,
              8.0 * n / pass_ms / 1e6);
}

// Times one configuration of the pairs' Onesweep, checked against CUB's SortPairs.
template <int kThreads, int kItems, int kMinBlocks>
void time_pairs(const char* name, const workbook::DeviceBuffer<std::uint32_t>& keys,
                const workbook::DeviceBuffer<std::uint32_t>& values, std::size_t n, float cub_ms,
                const std::vector<std::uint32_t>& want_keys, const std::vector<std::uint32_t>& want_values,
                int sms) {
  using namespace radix_sort;
  OnesweepScratch scratch(n);
  workbook::DeviceBuffer<std::uint32_t> keys_out(n), values_out(n), values_temp(n);
  const float ms = median_ms(
      [&] {
        onesweep_sort_pairs<kThreads, kItems, kMinBlocks>(keys.data(), values.data(), keys_out.data(),
                                                          values_out.data(), n, scratch, values_temp.data(),
                                                          sms);
      },
      15);
  std::vector<std::uint32_t> got_keys(n), got_values(n);
  PROBE_CHECK(cudaMemcpy(got_keys.data(), keys_out.data(), n * 4, cudaMemcpyDeviceToHost));
  PROBE_CHECK(cudaMemcpy(got_values.data(), values_out.data(), n * 4, cudaMemcpyDeviceToHost));
  std::printf("    pairs %-41s %8.3f ms (%5.1f%% of CUB) %s\n", name, ms, 100.0 * cub_ms / ms,
              got_keys == want_keys && got_values == want_values ? "ok" : "WRONG");
}
}  // namespace

int main(int argc, char** argv) {
  using namespace radix_sort;
  cudaDeviceProp prop;
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  if (argc > 1 && std::string(argv[1]) == "--profile") {
    // For Nsight Compute: one sort of 2^24 keys by the best variant (windows of 4), nothing else.
    const std::size_t n = std::size_t{1} << 24;
    std::vector<std::uint32_t> host(n);
    std::mt19937 rng(20261129u);
    for (auto& k : host) k = rng();
    workbook::DeviceBuffer<std::uint32_t> in(n), out(n);
    PROBE_CHECK(cudaMemcpy(in.data(), host.data(), n * 4, cudaMemcpyHostToDevice));
    OnesweepScratch scratch(n);
    if (argc > 2 && std::string(argv[2]) == "v2")
      onesweep_v2_sort_keys<384, 23, 4, false, 3, true, true>(in.data(), out.data(), n, scratch, sms);
    else if (argc > 2 && std::string(argv[2]) == "cub") {
      std::size_t bytes = 0;
      PROBE_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, in.data(), out.data(), n));
      workbook::DeviceBuffer<unsigned char> temp(bytes);
      PROBE_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, in.data(), out.data(), n));
    } else
      onesweep_sort_keys<true, false, 4>(in.data(), out.data(), n, scratch, sms);
    PROBE_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  std::printf("%s, %d SMs; uniform random uint32 keys, median of 15 runs\n", prop.name, sms);
  for (int log_n : {20, 24, 28}) {
    const std::size_t n = std::size_t{1} << log_n;
    std::vector<std::uint32_t> host(n);
    std::mt19937 rng(20261129u + log_n);
    for (auto& k : host) k = rng();
    workbook::DeviceBuffer<std::uint32_t> in(n), out(n), want(n);
    PROBE_CHECK(cudaMemcpy(in.data(), host.data(), n * 4, cudaMemcpyHostToDevice));

    std::size_t cub_bytes = 0;
    PROBE_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, in.data(), want.data(), n));
    workbook::DeviceBuffer<unsigned char> cub_temp(cub_bytes);
    const float cub_ms = median_ms(
        [&] {
          PROBE_CHECK(cub::DeviceRadixSort::SortKeys(cub_temp.data(), cub_bytes, in.data(), want.data(), n));
        },
        15);
    std::vector<std::uint32_t> expected(n), got(n);
    PROBE_CHECK(cudaMemcpy(expected.data(), want.data(), n * 4, cudaMemcpyDeviceToHost));

    RadixSortScratch lab_scratch(n);
    const float lab_ms = median_ms([&] { sort_keys(in.data(), out.data(), n, lab_scratch); }, 15);
    PROBE_CHECK(cudaMemcpy(got.data(), out.data(), n * 4, cudaMemcpyDeviceToHost));
    std::printf("  2^%d: CUB SortKeys %.3f ms; the lab's sort_keys %.3f ms (%.1f%% of CUB) %s\n", log_n,
                cub_ms, lab_ms, 100.0 * cub_ms / lab_ms, got == expected ? "ok" : "WRONG");
    OnesweepScratch scratch(n);
    const float histogram_ms = median_ms(
        [&] {
          PROBE_CHECK(cudaMemsetAsync(scratch.starts.data(), 0, kPasses * kRadix * sizeof(std::uint32_t)));
          count_all_digits<<<sms * kHistogramBlocksPerSm * 4, kThreadsPerBlock>>>(in.data(), n,
                                                                                  scratch.starts.data());
          digit_starts_of_passes<<<kPasses, kThreadsPerBlock>>>(scratch.starts.data());
        },
        15);
    std::printf("    Onesweep's histograms of all four digits: %.3f ms (%.0f GB/s of keys)\n", histogram_ms,
                4.0 * n / histogram_ms / 1e6);
    time_onesweep<true, false, 4>("counts before, windows of 4", in, out, n, cub_ms, expected, sms);
    time_v2<384, 23, 4, false, 3, true>("384 x 23, 3 blocks, store while ranking", in, out, n, cub_ms,
                                        expected, sms);
    time_v2<384, 23, 4, false, 3, true, true>("+ PTX match", in, out, n, cub_ms, expected, sms);
    time_v2<384, 23, 4, false, 3, true, true, true>("+ PTX match, every lane adds", in, out, n, cub_ms,
                                                    expected, sms);
    time_v2<256, 23, 4, false, 4, true, true, true>("256 x 23, 4 blocks, both", in, out, n, cub_ms, expected,
                                                    sms);
    time_v2<256, 28, 4, false, 4, true, true, true>("256 x 28, 4 blocks, both", in, out, n, cub_ms, expected,
                                                    sms);
    time_v2<384, 20, 4, false, 3, true, true, true>("384 x 20, 3 blocks, both", in, out, n, cub_ms, expected,
                                                    sms);
    time_v2<384, 20, 4, false, 3, true, true>("384 x 20, 3 blocks, PTX match", in, out, n, cub_ms, expected,
                                              sms);
    time_v2<256, 28, 4, false, 4, true, true>("256 x 28, 4 blocks, PTX match", in, out, n, cub_ms, expected,
                                              sms);
    time_v2<384, 23, 8, false, 3, true, true>("384 x 23, 3 blocks, PTX match, w8", in, out, n, cub_ms,
                                              expected, sms);

    std::vector<std::uint32_t> host_values(n);
    for (std::size_t i = 0; i < n; ++i) host_values[i] = static_cast<std::uint32_t>(i);
    workbook::DeviceBuffer<std::uint32_t> values(n), want_values(n);
    PROBE_CHECK(cudaMemcpy(values.data(), host_values.data(), n * 4, cudaMemcpyHostToDevice));
    std::size_t pair_bytes = 0;
    PROBE_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, pair_bytes, in.data(), want.data(), values.data(),
                                                want_values.data(), n));
    workbook::DeviceBuffer<unsigned char> pair_temp(pair_bytes);
    const float cub_pairs_ms = median_ms(
        [&] {
          PROBE_CHECK(cub::DeviceRadixSort::SortPairs(pair_temp.data(), pair_bytes, in.data(), want.data(),
                                                      values.data(), want_values.data(), n));
        },
        15);
    std::vector<std::uint32_t> expected_values(n);
    PROBE_CHECK(cudaMemcpy(expected_values.data(), want_values.data(), n * 4, cudaMemcpyDeviceToHost));
    RadixSortScratch pair_scratch(n, true);
    workbook::DeviceBuffer<std::uint32_t> lab_values(n);
    const float lab_pairs_ms = median_ms(
        [&] { sort_pairs(in.data(), values.data(), out.data(), lab_values.data(), n, pair_scratch); }, 15);
    std::printf("  2^%d pairs: CUB SortPairs %.3f ms; the lab's sort_pairs %.3f ms (%.1f%% of CUB)\n", log_n,
                cub_pairs_ms, lab_pairs_ms, 100.0 * cub_pairs_ms / lab_pairs_ms);
    time_pairs<384, 23, 2>("384 x 23, 2 blocks", in, values, n, cub_pairs_ms, expected, expected_values, sms);
    time_pairs<384, 16, 3>("384 x 16, 3 blocks", in, values, n, cub_pairs_ms, expected, expected_values, sms);
    time_pairs<256, 23, 3>("256 x 23, 3 blocks", in, values, n, cub_pairs_ms, expected, expected_values, sms);
    time_pairs<256, 16, 4>("256 x 16, 4 blocks", in, values, n, cub_pairs_ms, expected, expected_values, sms);
  }
  return 0;
}
