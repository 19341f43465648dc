/// @file scan.cuh
/// @brief Lab 07, prefix sum: the contract between your code and the tests.
///
/// A scan (prefix sum) turns x0, x1, x2, ... into running totals. The
/// inclusive scan gives x0, x0+x1, x0+x1+x2, ...; the exclusive scan gives
/// 0, x0, x0+x1, ...: element i is the sum of everything before i. Scans are
/// the workhorse of parallel algorithms: the output position of each kept
/// element in a compaction, of each key in a radix sort pass, of each node in
/// a tree are all exclusive scans of counts.
///
/// The lab builds the scan in layers:
/// 1. Block scans: each block scans its own slice of the input, three ways
///    (Hillis-Steele, Blelloch, warp shuffles).
/// 2. A scan of the whole array by reduce-then-scan: every block sums its
///    range, the block sums are scanned, every block scans its range again
///    starting from its block's offset. Three kernels; the input is read twice.
/// 3. A single-pass scan with decoupled look-back (Merrill and Garland,
///    2016): every tile publishes its sum, then looks back at the tiles
///    before it for its offset. One kernel; the input is read once.
///
/// Conventions of the whole lab:
/// - Sums of int32 are computed in int32. The caller keeps every prefix sum in
///   range (the tests do); an overflow is undefined behaviour, as for int in C++.
/// - Sums of floats are rounded at every step, and the result depends on the
///   order of the additions; the tests compare with a double-precision scan
///   within a relative tolerance (a fraction of each prefix) that grows with
///   log2(n) (the handout's *What the tests check*).
/// - The output never overlaps the input (no in-place scans), and the input
///   is never written.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "workbook/buffers.hpp"

namespace scan {

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask of a warp-wide shuffle or vote in which all 32 lanes take part.
constexpr unsigned kFullWarpMask = 0xFFFFFFFFu;

/// @brief The largest block a CUDA GPU accepts.
constexpr int kMaxThreadsPerBlock = 1024;

/// @brief Threads per block of reduce-then-scan (part 2): 8 warps.
constexpr int kThreadsPerBlock = 256;

/// @brief Consecutive elements each thread of reduce-then-scan owns. With
/// 16 the per-thread serial scan does most of the work (cheap adds in
/// registers) and the block-wide part, with its shuffles and barrier, runs
/// once per 16 elements.
constexpr int kItemsPerThread = 16;

/// @brief Elements in one tile: what one block of reduce-then-scan scans at a
/// time (4096 int32, 16 KiB).
constexpr int kTileSize = kThreadsPerBlock * kItemsPerThread;

/// @brief Threads per block of the single-pass scan (part 3).
constexpr int kSinglePassThreads = 256;

/// @brief Ints moved by one 16-byte load or store (an int4): the single pass
/// reads and writes its tile four elements at a time.
constexpr int kVectorWidth = 4;

/// @brief Elements each thread of the single pass owns: 7 groups of
/// kVectorWidth. Every tile pays for a ticket and a look-back, so larger tiles
/// pay for them over more elements. Chosen on an H100 with a maintainers'
/// sweep whose kept results are 256 x 24, 256 x 28 and 384 x 24 (measurements.md,
/// "How the single pass got its shape").
constexpr int kSinglePassItems = 28;

/// @brief Elements in one tile of the single-pass scan (7168).
constexpr int kSinglePassTileSize = kSinglePassThreads * kSinglePassItems;

/// @brief Blocks per SM of the reduce-then-scan grid. 8 blocks of 256 threads
/// would fill a Hopper SM's 2048 thread slots, but registers let fewer run at
/// once (scan_ranges: 4, at 64 registers per thread); the others start as
/// blocks finish.
constexpr int kBlocksPerSm = 8;

/// @brief The most blocks a reduce-then-scan launches, whatever the GPU; its
/// @p block_sums buffer must hold this many values.
constexpr int kMaxGridBlocks = 2048;

/// @brief Which scan: element i of the output includes element i of the input, or not.
enum class ScanKind {
  inclusive,  ///< out[i] = in[0] + ... + in[i].
  exclusive,  ///< out[i] = in[0] + ... + in[i - 1]; out[0] = 0.
};

// ---------------------------------------------------------------------------
// Part 1: block scans. Each block scans its own slice, independently of the
// other blocks: block b's slice starts at b * (elements per block).

/// @brief The inclusive scan of one value per lane of a warp, with
/// __shfl_up_sync: lane k gets the sum of the values of lanes 0..k. Every lane
/// of the warp must call it.
/// @param[in] value This lane's value.
/// @return The sum of the values of this lane and every lane below it.
__device__ int warp_inclusive_scan(int value);

/// @brief Warp scans: each warp inclusive-scans 32 consecutive elements
/// (elements past n count as 0 and are not written).
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements.
__global__ void warp_scans(const int* in, int* out, std::size_t n);

/// @brief Block inclusive scan, **Hillis-Steele**: in the step with distance
/// d = 1, 2, 4, ..., every element adds the element d places before it. Each
/// step reads one buffer and writes the other (double buffering), because
/// element i must read element i - d before that one is overwritten. Block b
/// scans the blockDim.x elements from b * blockDim.x; any block size. Needs
/// 2 * blockDim.x ints of dynamic shared memory.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements.
__global__ void block_scan_hillis_steele(const int* in, int* out, std::size_t n);

/// @brief Block exclusive scan, **Blelloch** (work-efficient): an up-sweep
/// builds a tree of partial sums in place, the root is cleared, and a
/// down-sweep pushes the prefixes back down. Each thread handles two
/// elements: block b scans the 2 * blockDim.x elements from
/// b * 2 * blockDim.x. blockDim.x must be a power of two. Needs
/// 2 * blockDim.x ints of dynamic shared memory.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements.
__global__ void block_scan_blelloch(const int* in, int* out, std::size_t n);

/// @brief Block inclusive scan built from warp scans: every warp scans its
/// 32 values, the warps' totals are scanned, and each warp adds the total of
/// the warps before it. Block b scans the blockDim.x elements from
/// b * blockDim.x; blockDim.x must be whole warps.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements.
__global__ void block_scan_shuffle(const int* in, int* out, std::size_t n);

/// @brief Launches warp_scans with kThreadsPerBlock threads per block; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_warp_scans(const int* in, int* out, std::size_t n, cudaStream_t stream = nullptr);

/// @brief Launches block_scan_hillis_steele with @p threads_per_block threads
/// (and elements) per block; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] threads_per_block 1 to kMaxThreadsPerBlock.
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when threads_per_block is out of range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_scan_hillis_steele(const int* in, int* out, std::size_t n, int threads_per_block,
                                     cudaStream_t stream = nullptr);

/// @brief Launches block_scan_blelloch with @p threads_per_block threads per
/// block, each block scanning 2 * threads_per_block elements; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] threads_per_block A power of two, 1 to kMaxThreadsPerBlock.
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when threads_per_block is not a power of two in range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_scan_blelloch(const int* in, int* out, std::size_t n, int threads_per_block,
                                cudaStream_t stream = nullptr);

/// @brief Launches block_scan_shuffle with @p threads_per_block threads (and
/// elements) per block; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[out] out Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] threads_per_block A multiple of kWarpSize, up to kMaxThreadsPerBlock.
/// @param[in] stream The stream to launch on.
/// @throws std::invalid_argument when threads_per_block is not whole warps in range.
/// @throws workbook::CudaError when the launch fails.
void launch_block_scan_shuffle(const int* in, int* out, std::size_t n, int threads_per_block,
                               cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: reduce-then-scan of the whole array.

/// @brief The most blocks a reduce-then-scan of @p n elements launches (its
/// grid cap): kBlocksPerSm per SM of the current GPU, never more than one per
/// tile of input, never more than kMaxGridBlocks, at least 1. The launch may
/// use fewer: each range takes ceil(tiles / cap) tiles, so ceil(tiles / that)
/// blocks launch (on an H200 at 2^28: a cap of 1056, 1041 ranges of 63 tiles).
/// @param[in] n Number of elements.
/// @return The grid cap, 1 to kMaxGridBlocks.
/// @throws workbook::CudaError when there is no GPU.
int reduce_then_scan_blocks(std::size_t n);

/// @brief Scan of the whole array in three kernels. The input is cut into at
/// most reduce_then_scan_blocks(n) contiguous ranges of whole tiles, one per
/// block (the last range may be shorter): every block sums its range into
/// block_sums, one block scans block_sums (exclusive), and every block scans
/// its range tile by tile starting from its range's offset. Asynchronous.
/// @param[in] in Device array of n ints (not written).
/// @param[out] out Device array of n ints, not overlapping @p in.
/// @param[in] n Number of elements; 0 does nothing.
/// @param[in] kind Inclusive or exclusive.
/// @param[out] block_sums Device scratch of kMaxGridBlocks ints.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when block_sums is nullptr and n > 0.
/// @throws workbook::CudaError when a launch fails.
void reduce_then_scan(const int* in, int* out, std::size_t n, ScanKind kind, int* block_sums,
                      cudaStream_t stream = nullptr);

/// @brief The same scan of floats, summed in float. The order of additions
/// differs from a left-to-right sum, so the last bits may differ from one.
/// @param[in] in Device array of n floats (not written).
/// @param[out] out Device array of n floats, not overlapping @p in.
/// @param[in] n Number of elements; 0 does nothing.
/// @param[in] kind Inclusive or exclusive.
/// @param[out] block_sums Device scratch of kMaxGridBlocks floats.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when block_sums is nullptr and n > 0.
/// @throws workbook::CudaError when a launch fails.
void reduce_then_scan(const float* in, float* out, std::size_t n, ScanKind kind, float* block_sums,
                      cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3: single pass with decoupled look-back.

/// @brief What a tile has published in its status word so far.
enum class TileState : std::uint32_t {
  invalid = 0,    ///< Nothing yet: readers must wait (0, so a zeroed array is all invalid).
  aggregate = 1,  ///< The sum of the tile's own elements.
  prefix = 2,     ///< The inclusive prefix: the sum of this tile and every tile before it.
};

/// @brief A tile's status word: the state in the high 32 bits, the value's
/// bits in the low 32. State and value travel in one 64-bit word, so a reader
/// that sees a state always sees the value that came with it.
/// @param[in] state What the value is.
/// @param[in] value The tile's aggregate or inclusive prefix.
/// @return The packed word.
__host__ __device__ inline std::uint64_t make_tile_status(TileState state, int value) {
  return (static_cast<std::uint64_t>(state) << 32) | static_cast<std::uint32_t>(value);
}

/// @brief The state of a status word.
/// @param[in] word A word made by make_tile_status().
/// @return Its state.
__host__ __device__ inline TileState tile_status_state(std::uint64_t word) {
  return static_cast<TileState>(word >> 32);
}

/// @brief The value of a status word.
/// @param[in] word A word made by make_tile_status().
/// @return Its value.
__host__ __device__ inline int tile_status_value(std::uint64_t word) {
  return static_cast<int>(static_cast<std::uint32_t>(word & 0xFFFFFFFFu));
}

/// @brief The scratch of single_pass_scan(): one status word per tile and the
/// counter that hands out tile ids. Allocated once; each scan resets it.
struct LookbackScratch {
  /// @brief Allocates room for scans of up to @p max_n elements.
  /// @param[in] max_n The largest n that will be scanned with this scratch.
  explicit LookbackScratch(std::size_t max_n)
      : tile_status((max_n + kSinglePassTileSize - 1) / kSinglePassTileSize + 1),
        tile_counter(1),
        max_n(max_n) {}
  workbook::DeviceBuffer<unsigned long long> tile_status;  ///< One status word per tile.
  workbook::DeviceBuffer<unsigned> tile_counter;           ///< The next tile id to hand out.
  std::size_t max_n;                                       ///< The capacity, in elements.
};

/// @brief Single-pass scan with decoupled look-back: one block of
/// kSinglePassThreads threads per tile of kSinglePassTileSize elements. Each
/// block takes its tile id from an atomic counter, sums its tile, publishes
/// its aggregate, looks back at the status words of the tiles before it until
/// it finds an inclusive prefix (adding the aggregates it passes), publishes
/// its own inclusive prefix, and then scans its tile from its offset. Reads and writes 16 bytes at a time
/// when @p in and @p out are 16-byte aligned (cudaMalloc's are), 4 otherwise.
/// Asynchronous.
/// @param[in] in Device array of n ints (not written).
/// @param[out] out Device array of n ints, not overlapping @p in.
/// @param[in] n Number of elements; 0 does nothing.
/// @param[in] kind Inclusive or exclusive.
/// @param[in,out] scratch Status words and tile counter, built for at least n elements.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n exceeds the scratch's capacity.
/// @throws workbook::CudaError when a launch fails.
void single_pass_scan(const int* in, int* out, std::size_t n, ScanKind kind, LookbackScratch& scratch,
                      cudaStream_t stream = nullptr);

}  // namespace scan
