// SOLUTION-ONLY: Lab 06 reference solution. labs/06-compaction/compaction.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 06: stream compaction. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade compaction
// STUDENT-ONLY: The handout is labs/06-compaction/README.md. Write the compaction yourself:
// STUDENT-ONLY: the grader refuses a file that uses CUB or Thrust (cub::DeviceSelect is the
// STUDENT-ONLY: yardstick you are timed against).
#include <limits>
#include <stdexcept>
#include <string>

#include "compaction.cuh"
#include "workbook/cuda_check.hpp"

namespace compaction {

namespace {

// The calling thread's lane in its warp, and its warp in the block: blocks
// are whole warps, so both follow from threadIdx.x alone.
[[maybe_unused]] __device__ int lane_index() {
  return static_cast<int>(threadIdx.x) % kWarpSize;
}
[[maybe_unused]] __device__ int warp_index() {
  return static_cast<int>(threadIdx.x) / kWarpSize;
}

// Grids: one thread per element for part 1, one block per tile for the rest.
unsigned blocks_for_elements(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}
unsigned blocks_for_tiles(std::size_t n) {
  return static_cast<unsigned>(tiles_for(n));
}

void check_capacity(std::size_t n, const CompactionScratch& scratch, const char* caller) {
  if (n > scratch.max_n()) {
    throw std::invalid_argument(std::string(caller) + ": n = " + std::to_string(n) +
                                " elements, but the scratch was built for at most " +
                                std::to_string(scratch.max_n()) +
                                "; construct the CompactionScratch with a larger max_n");
  }
}

// Counts and offsets are 32-bit: a larger input could have more kept elements
// than a count can hold.
std::size_t checked_max_n(std::size_t max_n) {
  if (max_n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("CompactionScratch: max_n = " + std::to_string(max_n) +
                                ", but counts are 32-bit: at most 2^32 - 1 elements");
  }
  return max_n;
}

}  // namespace

CompactionScratch::CompactionScratch(std::size_t max_n)
    : max_n_(checked_max_n(max_n)),
      tile_counts_(tiles_for(max_n)),
      count_scan_(tiles_for(max_n)),
      kept_count_(1) {}

// ---------------------------------------------------------------------------
// Part 1: positions inside a warp

// WALKTHROUGH: warp-positions
__host__ __device__ int rank_among_kept(unsigned kept, int lane) {
  // HOLE: Return how many lanes below `lane` are set in the vote `kept` (the lane's own bit does not
  // HOLE: count): 0 to lane, for every lane 0 to 31, with no undefined shift. Use the header's
  // HOLE: popcount(): the host tests call this function too.
  // STUB: return 0;
  return popcount(kept & ((1u << lane) - 1u));
  // END HOLE
}

__global__ void warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                      std::uint32_t* warp_counts) {
  // HOLE: For every element i < n: positions[i] = its rank among its warp's kept elements, or -1 when it
  // HOLE: is not kept; warp_counts[i / kWarpSize] = the number its warp keeps. Touch memory only for
  // HOLE: i < n, yet every lane that kFullMask names executes every *_sync call.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool is_kept = i < n && keep(in[i]);
  // All 32 lanes exist (blocks are whole warps) and all vote before any returns, so
  // kFullMask names exactly the lanes that take part. (CUDA's rule: every lane named in
  // the mask that has not exited must execute this same call; an exited lane adds a 0 bit.)
  const unsigned kept = __ballot_sync(kFullMask, is_kept);
  if (i >= n) return;
  const int lane = lane_index();
  positions[i] = is_kept ? rank_among_kept(kept, lane) : -1;
  if (lane == 0) warp_counts[i / kWarpSize] = static_cast<std::uint32_t>(popcount(kept));
  // END HOLE
}
// END WALKTHROUGH: warp-positions

void launch_warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                  std::uint32_t* warp_counts, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid configuration
  warp_output_positions<<<blocks_for_elements(n), kThreadsPerBlock, 0, stream>>>(in, n, keep, positions,
                                                                                 warp_counts);
  CUDA_CHECK_LAUNCH("warp_output_positions");
}

// ---------------------------------------------------------------------------
// Part 2: the three phases. Block b handles tile b; thread t owns items
// k = 0 .. kItemsPerThread-1 of it, item k being element
//   b * kTileSize + k * kThreadsPerBlock + t.
// For each k, the 32 lanes of a warp hold 32 neighbouring elements: a "piece"
// of a row. The tile in input order is row 0 (pieces of warps 0..7), row 1, ...

namespace {

// Loads the calling thread's items of this block's tile and decides which of
// them are kept. Elements at or past n are not read and not kept.
// WALKTHROUGH: load-tile
[[maybe_unused]] __device__ void load_tile(const int* in, std::size_t n, KeepIf keep,
                                           int (&items)[kItemsPerThread], bool (&kept)[kItemsPerThread]) {
  // HOLE: For each item k the thread owns (see the Part 2 comment above): items[k] = the element and
  // HOLE: kept[k] = whether keep keeps it; past n, items[k] = 0 and kept[k] = false, with nothing read.
  // HOLE: std::size_t indices; every load issued before any is used; items[] and kept[] stay in
  // HOLE: registers.
  const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * kTileSize;
  // Sixteen independent loads per thread, all issued before any is used: the
  // SM then has enough bytes in flight to cover the memory's latency. Each
  // load instruction of a warp reads 32 neighbouring ints: one 128-byte line.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = tile_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
    items[k] = i < n ? in[i] : 0;
  }
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = tile_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
    kept[k] = i < n && keep(items[k]);
  }
  // END HOLE
}
// END WALKTHROUGH: load-tile

}  // namespace

// WALKTHROUGH: count-per-tile
__global__ void count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts) {
  // HOLE: tile_counts[blockIdx.x] = the number of elements of this block's tile that keep keeps, written
  // HOLE: by one thread. Use load_tile(); count each item's __ballot_sync with popcount(), not with a
  // HOLE: per-thread loop over kept[]. Every lane reaches every vote, and every thread of the block
  // HOLE: reaches every barrier.
  __shared__ std::uint32_t warp_counts[kWarpsPerBlock];
  int items[kItemsPerThread];
  bool kept[kItemsPerThread];
  load_tile(in, n, keep, items, kept);
  // A vote counts the 32 elements of a piece at once: no per-thread counters to add up.
  std::uint32_t warp_count = 0;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    warp_count += static_cast<std::uint32_t>(popcount(__ballot_sync(kFullMask, kept[k])));
  }
  if (lane_index() == 0) warp_counts[warp_index()] = warp_count;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t tile_count = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) tile_count += warp_counts[w];
    tile_counts[blockIdx.x] = tile_count;
  }
  // END HOLE
}
// END WALKTHROUGH: count-per-tile

namespace {

// ranks[k] = the position of item k among the kept elements of the tile, in
// input order (meaningful only where kept[k]). Every thread of the block must
// call it, once per kernel: it uses a shared array and two barriers.
// WALKTHROUGH: ranks-in-tile
[[maybe_unused]] __device__ void rank_kept_in_tile(const bool (&kept)[kItemsPerThread],
                                                   std::uint32_t (&ranks)[kItemsPerThread]) {
  // HOLE: ranks[k] = the number of kept elements of the tile that come before item k in input order
  // HOLE: (used only where kept[k]). One __shared__ array; every thread of the block reaches every
  // HOLE: barrier, and every lane that a *_sync mask names executes that call.
  constexpr int kPieces = kItemsPerThread * kWarpsPerBlock;
  constexpr int kPiecesPerLane = kPieces / kWarpSize;
  __shared__ std::uint32_t piece_offsets[kPieces];
  const int lane = lane_index();
  const int warp = warp_index();
  unsigned votes[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    votes[k] = __ballot_sync(kFullMask, kept[k]);
    if (lane == 0) piece_offsets[k * kWarpsPerBlock + warp] = static_cast<std::uint32_t>(popcount(votes[k]));
  }
  __syncthreads();
  if (warp == 0) {
    // 128 counts are too few to be worth more than one warp: 4 per lane in
    // registers, then a shuffle scan of the 32 lane sums without any barrier.
    std::uint32_t counts[kPiecesPerLane];
    std::uint32_t lane_sum = 0;
#pragma unroll
    for (int j = 0; j < kPiecesPerLane; ++j) {
      counts[j] = piece_offsets[lane * kPiecesPerLane + j];
      lane_sum += counts[j];
    }
    std::uint32_t inclusive = lane_sum;
#pragma unroll
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
      const std::uint32_t below = __shfl_up_sync(kFullMask, inclusive, offset);
      if (lane >= offset) inclusive += below;
    }
    std::uint32_t running = inclusive - lane_sum;
#pragma unroll
    for (int j = 0; j < kPiecesPerLane; ++j) {
      piece_offsets[lane * kPiecesPerLane + j] = running;
      running += counts[j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    // Every lane of the warp reads the same word: a broadcast, no bank conflict.
    ranks[k] = piece_offsets[k * kWarpsPerBlock + warp] +
               static_cast<std::uint32_t>(rank_among_kept(votes[k], lane));
  }
  // END HOLE
}
// END WALKTHROUGH: ranks-in-tile

}  // namespace

// WALKTHROUGH: stable-scatter
__global__ void scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                             int* out) {
  // HOLE: Write the kept elements of this block's tile, in input order, to consecutive places of out
  // HOLE: from tile_offsets[blockIdx.x] on; nothing else of out is written. Use load_tile() and
  // HOLE: rank_kept_in_tile() (every thread calls it), with std::size_t output indices.
  const std::size_t offset = tile_offsets[blockIdx.x];
  int items[kItemsPerThread];
  bool kept[kItemsPerThread];
  load_tile(in, n, keep, items, kept);
  std::uint32_t ranks[kItemsPerThread];
  rank_kept_in_tile(kept, ranks);
  // The kept lanes of a piece write neighbouring words, and the pieces of a
  // tile follow each other in the output: the stores coalesce as far as the
  // kept elements allow.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    if (kept[k]) out[offset + ranks[k]] = items[k];
  }
  // END HOLE
}
// END WALKTHROUGH: stable-scatter

void launch_count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts,
                                cudaStream_t stream) {
  if (n == 0) return;
  count_kept_per_tile<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(in, n, keep, tile_counts);
  CUDA_CHECK_LAUNCH("count_kept_per_tile");
}

void launch_scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                         int* out, cudaStream_t stream) {
  if (n == 0) return;
  scatter_kept<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(in, n, keep, tile_offsets, out);
  CUDA_CHECK_LAUNCH("scatter_kept");
}

// WALKTHROUGH: three-phases
void compact(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
             std::uint32_t* kept_count, cudaStream_t stream) {
  check_capacity(n, scratch, "compact");
  // HOLE: The three phases, all on `stream`: nothing allocated, nothing waited for. Use the launchers
  // HOLE: above and the scratch (its tile_counts() and count_scan(); phase (b) scans tiles_for(n)
  // HOLE: counts, one per tile). *kept_count ends as the number kept, n = 0 included: phase (b) gives
  // HOLE: it, no kernel of yours.
  launch_count_kept_per_tile(in, n, keep, scratch.tile_counts(), stream);
  scratch.count_scan().exclusive(scratch.tile_counts(), scratch.tile_counts(), tiles_for(n), kept_count,
                                 stream);
  launch_scatter_kept(in, n, keep, scratch.tile_counts(), out, stream);
  // END HOLE
}
// END WALKTHROUGH: three-phases

// ---------------------------------------------------------------------------
// Part 3: the count on the host, and key-value pairs

std::size_t compact_and_count(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
                              cudaStream_t stream) {
  // HOLE: Return the number of elements compact() keeps, with scratch.kept_count() as its device count.
  // HOLE: The host reads that count only after the GPU has written it: wait for `stream` alone, not the
  // HOLE: whole device. Wrap every CUDA call in CUDA_CHECK.
  // STUB: return 0;
  compact(in, n, keep, out, scratch, scratch.kept_count(), stream);
  std::uint32_t count = 0;
  CUDA_CHECK(cudaMemcpyAsync(&count, scratch.kept_count(), sizeof count, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return count;
  // END HOLE
}

// WALKTHROUGH: pairs
__global__ void scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                                   const std::uint32_t* tile_offsets, int* out_keys, int* out_values) {
  // HOLE: scatter_kept for pairs: the keys decide, and each kept key and its value go to the same index
  // HOLE: of out_keys and out_values, in input order. Only kept pairs read their value, and every value
  // HOLE: load is issued before the first global store.
  const std::size_t offset = tile_offsets[blockIdx.x];
  const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * kTileSize;
  int items[kItemsPerThread];
  bool kept[kItemsPerThread];
  load_tile(keys, n, keep, items, kept);
  // Only kept pairs read their value; these loads are in flight while the tile is ranked.
  int kept_values[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = tile_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
    kept_values[k] = kept[k] ? values[i] : 0;
  }
  std::uint32_t ranks[kItemsPerThread];
  rank_kept_in_tile(kept, ranks);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    if (kept[k]) {
      out_keys[offset + ranks[k]] = items[k];
      out_values[offset + ranks[k]] = kept_values[k];
    }
  }
  // END HOLE
}
// END WALKTHROUGH: pairs

void launch_scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                               const std::uint32_t* tile_offsets, int* out_keys, int* out_values,
                               cudaStream_t stream) {
  if (n == 0) return;
  scatter_kept_pairs<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(
      keys, values, n, keep, tile_offsets, out_keys, out_values);
  CUDA_CHECK_LAUNCH("scatter_kept_pairs");
}

void compact_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep, int* out_keys,
                   int* out_values, CompactionScratch& scratch, std::uint32_t* kept_count,
                   cudaStream_t stream) {
  check_capacity(n, scratch, "compact_pairs");
  // HOLE: compact() for pairs: the keys decide, *kept_count ends as the number of kept pairs, all on
  // HOLE: `stream` without waiting; the last phase is launch_scatter_kept_pairs().
  launch_count_kept_per_tile(keys, n, keep, scratch.tile_counts(), stream);
  scratch.count_scan().exclusive(scratch.tile_counts(), scratch.tile_counts(), tiles_for(n), kept_count,
                                 stream);
  launch_scatter_kept_pairs(keys, values, n, keep, scratch.tile_counts(), out_keys, out_values, stream);
  // END HOLE
}

// ---------------------------------------------------------------------------
// Part 4: without order

// WALKTHROUGH: unordered
__global__ void scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                       std::uint32_t* out_count) {
  // HOLE: Append every kept element of this block's tile to out, at a place of its own reserved from
  // HOLE: *out_count (warps in any order, a warp's pieces in row order, no gaps), with ONE atomicAdd per
  // HOLE: warp that keeps anything. Use load_tile(). Warps work alone (no __syncthreads()); all 32 lanes
  // HOLE: reach every *_sync call.
  int items[kItemsPerThread];
  bool kept[kItemsPerThread];
  load_tile(in, n, keep, items, kept);
  const int lane = lane_index();
  unsigned votes[kItemsPerThread];
  std::uint32_t warp_total = 0;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    votes[k] = __ballot_sync(kFullMask, kept[k]);
    warp_total += static_cast<std::uint32_t>(popcount(votes[k]));
  }
  // One atomic for the warp's 512 elements. Lane 0 always exists and took part
  // in every vote, so it can be the leader without looking for one.
  std::uint32_t base = 0;
  if (lane == 0 && warp_total > 0) base = atomicAdd(out_count, warp_total);
  std::uint32_t position = __shfl_sync(kFullMask, base, 0);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    if (kept[k]) out[static_cast<std::size_t>(position) + rank_among_kept(votes[k], lane)] = items[k];
    position += static_cast<std::uint32_t>(popcount(votes[k]));
  }
  // END HOLE
}
// END WALKTHROUGH: unordered

void launch_scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                   std::uint32_t* out_count, cudaStream_t stream) {
  if (n == 0) return;
  scatter_kept_unordered<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(in, n, keep, out, out_count);
  CUDA_CHECK_LAUNCH("scatter_kept_unordered");
}

void compact_unordered(const int* in, std::size_t n, KeepIf keep, int* out, std::uint32_t* kept_count,
                       cudaStream_t stream) {
  if (kept_count == nullptr) {
    throw std::invalid_argument("compact_unordered: kept_count is the atomic counter and may not be nullptr");
  }
  CUDA_CHECK(cudaMemsetAsync(kept_count, 0, sizeof(std::uint32_t), stream));
  launch_scatter_kept_unordered(in, n, keep, out, kept_count, stream);
}

}  // namespace compaction
