// Lab 06: stream compaction. This is your file: fill in each TODO, then run
//   ./workbook grade compaction
// The handout is labs/06-compaction/README.md. Write the compaction yourself:
// the grader refuses a file that uses CUB or Thrust (cub::DeviceSelect is the
// yardstick you are timed against).
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

__host__ __device__ int rank_among_kept(unsigned kept, int lane) {
  // TODO(1): The kept lanes below `lane` are the 1 bits of kept under bit `lane`: keep only
  //          those bits with the mask (1u << lane) - 1u (no bits at all for lane 0) and count
  //          them with popcount().
  return 0;
}

__global__ void warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                      std::uint32_t* warp_counts) {
  // TODO(2): Every lane must reach the vote, also a lane whose i is past n (it votes false):
  //          no return before it.
  //          1. kept = __ballot_sync(kFullMask, i < n && keep(in[i])) (read in[i] only when i < n).
  //          2. A lane with i < n writes positions[i]: rank_among_kept(kept, lane) when its own
  //             element is kept, -1 when not.
  //          3. Lane 0 (with i < n) writes popcount(kept) to warp_counts[i / kWarpSize].
}

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
[[maybe_unused]] __device__ void load_tile(const int* in, std::size_t n, KeepIf keep,
                                           int (&items)[kItemsPerThread], bool (&kept)[kItemsPerThread]) {
  // TODO(3): With tile_start = blockIdx.x * kTileSize (a std::size_t) and, for item k,
  //          i = tile_start + k * kThreadsPerBlock + threadIdx.x:
  //          1. a loop that only loads: items[k] = in[i] when i < n, else 0;
  //          2. a second loop that decides: kept[k] = i < n && keep(items[k]).
  //          Put #pragma unroll before both loops, so that items[] and kept[] stay in registers.
}

}  // namespace

__global__ void count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts) {
  // TODO(4): 1. load_tile() into items[kItemsPerThread] and kept[kItemsPerThread].
  //          2. Each warp counts its kept elements with one vote per item: the sum over k of
  //             popcount(__ballot_sync(kFullMask, kept[k])), the same number in every lane.
  //          3. Lane 0 of warp w stores that count in a __shared__ array of kWarpsPerBlock
  //             counts at [w]; __syncthreads(); thread 0 adds the kWarpsPerBlock counts and
  //             writes the sum to tile_counts[blockIdx.x].
}

namespace {

// ranks[k] = the position of item k among the kept elements of the tile, in
// input order (meaningful only where kept[k]). Every thread of the block must
// call it, once per kernel: it uses a shared array and two barriers.
[[maybe_unused]] __device__ void rank_kept_in_tile(const bool (&kept)[kItemsPerThread],
                                                   std::uint32_t (&ranks)[kItemsPerThread]) {
  // TODO(5): 1. For each item k: votes[k] = __ballot_sync(kFullMask, kept[k]); lane 0 of warp w
  //             stores popcount(votes[k]) in a __shared__ array of kItemsPerThread * kWarpsPerBlock
  //             counts at [k * kWarpsPerBlock + w]. That index is the input order of the pieces.
  //          2. __syncthreads(). Warp 0 replaces the counts by their exclusive prefix sums: each
  //             lane adds up its own consecutive counts (128 / 32 = 4 of them), the lanes scan
  //             those sums with __shfl_up_sync (offsets 1, 2, 4, 8, 16), and each lane writes its
  //             counts' offsets back. __syncthreads().
  //          3. ranks[k] = offset of piece (k, w) + rank_among_kept(votes[k], lane): the kept
  //             elements of all earlier pieces, then the kept lanes below this one in its piece.
}

}  // namespace

__global__ void scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                             int* out) {
  // TODO(6): Read this tile's offset, tile_offsets[blockIdx.x], first (its load then overlaps the
  //          tile's loads). Then load_tile(), rank_kept_in_tile(), and every kept item k writes
  //          items[k] to out[offset + ranks[k]], with the offset as a std::size_t.
}

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

void compact(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
             std::uint32_t* kept_count, cudaStream_t stream) {
  check_capacity(n, scratch, "compact");
  // TODO(7): The three phases, all on `stream`, nothing allocated, nothing waited for:
  //          (a) launch_count_kept_per_tile() into scratch.tile_counts();
  //          (b) scratch.count_scan().exclusive() of the tiles_for(n) counts, in place (counts
  //              and offsets the same array), with kept_count as its total: the sum of the tile
  //              counts IS the kept count;
  //          (c) launch_scatter_kept() with those offsets.
  //          For n = 0 the launchers launch nothing and the scan writes only *kept_count = 0.
}

// ---------------------------------------------------------------------------
// Part 3: the count on the host, and key-value pairs

std::size_t compact_and_count(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
                              cudaStream_t stream) {
  // TODO(8): compact() with scratch.kept_count() as the count; copy that one std::uint32_t to the
  //          host with cudaMemcpyAsync on `stream`; wait with cudaStreamSynchronize(stream) (the
  //          host cannot know the count before the GPU has computed it); return it.
  return 0;
}

__global__ void scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                                   const std::uint32_t* tile_offsets, int* out_keys, int* out_values) {
  // TODO(9): As scatter_kept, with the keys as the items. A kept item k also moves its value:
  //          load values[i] (i = its input index, as in load_tile) for every kept item into a
  //          register array BEFORE any store (a load after a store to a pointer that might
  //          alias it cannot be moved ahead of that store, so the loads would wait one by one),
  //          then write out_keys[offset + ranks[k]] and out_values[offset + ranks[k]].
}

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
  // TODO(10): The three phases of compact(): count the kept KEYS per tile, scan the counts in place
  //          with kept_count as the total, then launch_scatter_kept_pairs().
}

// ---------------------------------------------------------------------------
// Part 4: without order

__global__ void scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                       std::uint32_t* out_count) {
  // TODO(11): 1. load_tile(), and one vote per item: votes[k] = __ballot_sync(kFullMask, kept[k]).
  //          2. The warp's total is the sum of popcount(votes[k]). Lane 0 reserves that many places
  //             with ONE atomicAdd(out_count, total) (none when the total is 0); __shfl_sync hands
  //             the base it returned to every lane.
  //          3. Walk the items in order with a running position that starts at the base: a kept
  //             item k writes items[k] to out[position + rank_among_kept(votes[k], lane)], then
  //             position += popcount(votes[k]). No __syncthreads(): every warp works on its own.
}

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
