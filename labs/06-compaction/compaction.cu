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
  // TODO(1): Return how many lanes below `lane` are set in the vote `kept` (the lane's own bit does not
  //          count): 0 to lane, for every lane 0 to 31, with no undefined shift. Use the header's
  //          popcount(): the host tests call this function too.
  return 0;
}

__global__ void warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                      std::uint32_t* warp_counts) {
  // TODO(2): For every element i < n: positions[i] = its rank among its warp's kept elements, or -1 when it
  //          is not kept; warp_counts[i / kWarpSize] = the number its warp keeps. Touch memory only for
  //          i < n, yet every lane that kFullMask names executes every *_sync call.
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
  // TODO(3): For each item k the thread owns (see the Part 2 comment above): items[k] = the element and
  //          kept[k] = whether keep keeps it; past n, items[k] = 0 and kept[k] = false, with nothing read.
  //          std::size_t indices; every load issued before any is used; items[] and kept[] stay in
  //          registers.
}

}  // namespace

__global__ void count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts) {
  // TODO(4): tile_counts[blockIdx.x] = the number of elements of this block's tile that keep keeps, written
  //          by one thread. Use load_tile(); count each item's __ballot_sync with popcount(), not with a
  //          per-thread loop over kept[]. Every lane reaches every vote, and every thread of the block
  //          reaches every barrier.
}

namespace {

// ranks[k] = the position of item k among the kept elements of the tile, in
// input order (meaningful only where kept[k]). Every thread of the block must
// call it, once per kernel: it uses a shared array and two barriers.
[[maybe_unused]] __device__ void rank_kept_in_tile(const bool (&kept)[kItemsPerThread],
                                                   std::uint32_t (&ranks)[kItemsPerThread]) {
  // TODO(5): ranks[k] = the number of kept elements of the tile that come before item k in input order
  //          (used only where kept[k]). One __shared__ array; every thread of the block reaches every
  //          barrier, and every lane that a *_sync mask names executes that call.
}

}  // namespace

__global__ void scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                             int* out) {
  // TODO(6): Write the kept elements of this block's tile, in input order, to consecutive places of out
  //          from tile_offsets[blockIdx.x] on; nothing else of out is written. Use load_tile() and
  //          rank_kept_in_tile() (every thread calls it), with std::size_t output indices.
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
  // TODO(7): The three phases, all on `stream`: nothing allocated, nothing waited for. Use the launchers
  //          above and the scratch (its tile_counts() and count_scan(); phase (b) scans tiles_for(n)
  //          counts, one per tile). *kept_count ends as the number kept, n = 0 included: phase (b) gives
  //          it, no kernel of yours.
}

// ---------------------------------------------------------------------------
// Part 3: the count on the host, and key-value pairs

std::size_t compact_and_count(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
                              cudaStream_t stream) {
  // TODO(8): Return the number of elements compact() keeps, with scratch.kept_count() as its device count.
  //          The host reads that count only after the GPU has written it: wait for `stream` alone, not the
  //          whole device. Wrap every CUDA call in CUDA_CHECK.
  return 0;
}

__global__ void scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                                   const std::uint32_t* tile_offsets, int* out_keys, int* out_values) {
  // TODO(9): scatter_kept for pairs: the keys decide, and each kept key and its value go to the same index
  //          of out_keys and out_values, in input order. Only kept pairs read their value, and every value
  //          load is issued before the first global store.
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
  // TODO(10): compact() for pairs: the keys decide, *kept_count ends as the number of kept pairs, all on
  //           `stream` without waiting; the last phase is launch_scatter_kept_pairs().
}

// ---------------------------------------------------------------------------
// Part 4: without order

__global__ void scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                       std::uint32_t* out_count) {
  // TODO(11): Append every kept element of this block's tile to out, at a place of its own reserved from
  //           *out_count (warps in any order, a warp's pieces in row order, no gaps), with ONE atomicAdd per
  //           warp that keeps anything. Use load_tile(). Warps work alone (no __syncthreads()); all 32 lanes
  //           reach every *_sync call.
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
