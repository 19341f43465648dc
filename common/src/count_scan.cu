// workbook::CountScan: reduce-then-scan of uint32 counts (see count_scan.cuh).
#include <stdexcept>
#include <string>

#include "workbook/count_scan.cuh"
#include "workbook/cuda_check.hpp"

namespace workbook {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = static_cast<int>(kCountScanTile) / kThreads;
constexpr int kWarps = kThreads / 32;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

static_assert(kThreads * kItems == static_cast<int>(kCountScanTile), "a tile is kThreads x kItems counts");

// Inclusive scan of one value per lane.
__device__ std::uint32_t warp_inclusive_scan(std::uint32_t value) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int offset = 1; offset < 32; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, value, offset);
    if (lane >= offset) value += below;
  }
  return value;
}

// Exclusive scan of one value per thread of the block; *block_total gets the sum.
__device__ std::uint32_t block_exclusive_scan(std::uint32_t value, std::uint32_t* block_total) {
  __shared__ std::uint32_t warp_totals[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const std::uint32_t inclusive = warp_inclusive_scan(value);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  std::uint32_t warp_offset = 0;
  std::uint32_t total = 0;
  for (int w = 0; w < kWarps; ++w) {
    if (w == warp) warp_offset = total;
    total += warp_totals[w];
  }
  *block_total = total;
  return warp_offset + inclusive - value;
}

// Block b writes the sum of its tile of counts to tile_sums[b].
__global__ void sum_tiles(const std::uint32_t* counts, std::size_t n, std::uint32_t* tile_sums) {
  const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * kCountScanTile;
  std::uint32_t sum = 0;
  for (int k = 0; k < kItems; ++k) {
    const std::size_t i = tile_start + static_cast<std::size_t>(k) * kThreads + threadIdx.x;
    if (i < n) sum += counts[i];
  }
  std::uint32_t total = 0;
  block_exclusive_scan(sum, &total);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// Block b scans its tile, starting at tile_offsets[b] (0 without offsets), and
// a single-block launch may write the grand total. `in` may equal `out`: every
// block reads its whole tile before it writes any of it.
__global__ void scan_tiles(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                           const std::uint32_t* tile_offsets, std::uint32_t* total) {
  __shared__ std::uint32_t tile[kCountScanTile];
  const std::size_t tile_start = static_cast<std::size_t>(blockIdx.x) * kCountScanTile;
  // Coalesced loads into shared memory; then each thread owns kItems consecutive counts.
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + static_cast<int>(threadIdx.x);
    tile[j] = tile_start + j < n ? in[tile_start + j] : 0u;
  }
  __syncthreads();
  const int first = static_cast<int>(threadIdx.x) * kItems;
  std::uint32_t thread_sum = 0;
  for (int k = 0; k < kItems; ++k) thread_sum += tile[first + k];
  std::uint32_t block_total = 0;
  std::uint32_t running = block_exclusive_scan(thread_sum, &block_total);
  if (tile_offsets != nullptr) running += tile_offsets[blockIdx.x];
  for (int k = 0; k < kItems; ++k) {
    const std::uint32_t count = tile[first + k];
    tile[first + k] = running;
    running += count;
  }
  __syncthreads();
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + static_cast<int>(threadIdx.x);
    if (tile_start + j < n) out[tile_start + j] = tile[j];
  }
  if (total != nullptr && threadIdx.x == 0) *total = block_total;
}

std::size_t tiles_for(std::size_t n) {
  return (n + kCountScanTile - 1) / kCountScanTile;
}

}  // namespace

CountScan::CountScan(std::size_t max_count) : max_count_(max_count) {
  for (std::size_t count = max_count; count > kCountScanTile;) {
    count = tiles_for(count);
    level_sums_.emplace_back(count);
  }
}

void CountScan::exclusive(const std::uint32_t* counts, std::uint32_t* offsets, std::size_t n,
                          std::uint32_t* total, cudaStream_t stream) {
  if (n > max_count_) {
    throw std::invalid_argument("CountScan::exclusive: n = " + std::to_string(n) +
                                " counts, but this scanner was built for at most " +
                                std::to_string(max_count_) + "; construct it with a larger max_count");
  }
  if (n == 0) {
    if (total != nullptr) CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(std::uint32_t), stream));
    return;
  }
  // Down the levels: sum the tiles of each level into the next, until one
  // tile holds them all. level_n[d] counts the values of level d (level 0 is
  // the input; level d > 0 lives in level_sums_[d - 1]).
  constexpr int kMaxDepth = 8;  // 2048^7 counts: more than any memory holds.
  std::size_t level_n[kMaxDepth] = {n};
  int depth = 0;
  while (level_n[depth] > kCountScanTile) {
    level_n[depth + 1] = tiles_for(level_n[depth]);
    sum_tiles<<<static_cast<unsigned>(level_n[depth + 1]), kThreads, 0, stream>>>(
        level_input(counts, depth), level_n[depth], level_output(depth + 1));
    CUDA_CHECK_LAUNCH("CountScan: sum_tiles");
    ++depth;
  }
  // The top level fits in one tile: one block scans it and writes the total.
  scan_tiles<<<1, kThreads, 0, stream>>>(level_input(counts, depth), level_output_or(offsets, depth),
                                         level_n[depth], nullptr, total);
  CUDA_CHECK_LAUNCH("CountScan: scan_tiles (top level)");
  // Up the levels: the scanned sums of level d + 1 are the tile offsets of level d.
  for (int d = depth - 1; d >= 0; --d) {
    scan_tiles<<<static_cast<unsigned>(level_n[d + 1]), kThreads, 0, stream>>>(
        level_input(counts, d), level_output_or(offsets, d), level_n[d], level_output(d + 1), nullptr);
    CUDA_CHECK_LAUNCH("CountScan: scan_tiles");
  }
}

const std::uint32_t* CountScan::level_input(const std::uint32_t* counts, int depth) const {
  return depth == 0 ? counts : level_sums_[depth - 1].data();
}

std::uint32_t* CountScan::level_output(int depth) {
  return level_sums_[depth - 1].data();
}

std::uint32_t* CountScan::level_output_or(std::uint32_t* offsets, int depth) {
  // Level 0's scan goes to the caller's offsets; the levels above are scanned in place.
  return depth == 0 ? offsets : level_output(depth);
}

}  // namespace workbook
