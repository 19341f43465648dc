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
// A first attempt, not yet the Going-further reference issue 39 asks for. On an
// NVIDIA H200 (2026-11-29; three runs agreed within 3 points), % of CUB's time:
//                                              2^20    2^24    2^28
//   the lab's sort_keys (3 kernels per pass)   77-96   82-83   74
//   Onesweep, counts after ranking             97-99   68-69   63-64
//   Onesweep, counts before ranking            99-100  72-74   66-67
//   the same, look-back windows of 4 tiles     111     81      72
//   the same, windows of 16                    106     75      65
//   one warp looks back for all 256 digits      77-78   55      47-49
//   (sleeping 32-64 ns while a predecessor has not published: no change)
// One pass runs at about 1.2 TB/s of keys read and written (2^28: 1.76 ms),
// where CUB's four passes take 5.44 ms in all: the tile ranking
// (rank_tile_by_digit, 80 registers, 3 blocks of 256 per SM) and the
// look-back's round trips, not the bytes, set the time.
// Nsight Compute on one sort of 2^24 keys (build/onesweep_sweep --profile,
// H200, 2026-11-29), per pass: windows of 4: 0.116 ms, 70.4 M warp
// instructions (134 per key), issue slots 60.6 % busy with only 36 % of the
// SM's warps resident (3 blocks of 8 warps: 80 registers), every stall reason
// at or below 1.6 cycles per instruction, DRAM at 21 % of its peak. One warp
// looking back: 0.181 ms, the same 71.2 M instructions, barrier stalls 8.1.
// So the spinning is not where the instructions go: the pass is issue-bound
// on the tile ranking and scatter (rank_tile_by_digit: 8 ballots, a shared
// counter and two __syncwarp per key). Next to try: a ranking with fewer
// instructions per key, and more warps per SM.
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
    time_onesweep<false, false>("counts after ranking", in, out, n, cub_ms, expected, sms);
    time_onesweep<false, true>("counts after ranking, backoff", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, false>("counts before ranking", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, true>("counts before ranking, backoff", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, false, 4>("counts before, windows of 4", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, false, 16>("counts before, windows of 16", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, true, 16>("counts before, windows of 16, backoff", in, out, n, cub_ms, expected, sms);
    time_onesweep<true, false, 0>("counts before, one warp looks back", in, out, n, cub_ms, expected, sms);
    time_onesweep<false, false, 0>("counts after, one warp looks back", in, out, n, cub_ms, expected, sms);
  }
  return 0;
}
