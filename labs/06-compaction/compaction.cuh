/// @file compaction.cuh
/// @brief Lab 06, stream compaction: the contract between your code and the tests.
///
/// Stream compaction keeps the elements of an array that pass a test and
/// packs them, in their input order, at the front of an output array: keep
/// the nonzero values of {0, 7, 0, 0, 3, 9} and get {7, 3, 9}, and the count
/// 3. It is the "filter" of lab 05 with one more promise, **stability**: the
/// kept elements keep their relative order.
///
/// The lab builds it in three phases over tiles of kTileSize elements (one
/// tile per block), after Billeter, Olsson and Assarsson:
///   (a) every tile counts its kept elements (count_kept_per_tile);
///   (b) an exclusive scan of the tile counts gives every tile the offset of
///       its first kept element in the output (the harness's workbook::CountScan);
///   (c) every tile writes its kept elements at its offset, in input order
///       (scatter_kept).
/// Inside a tile, the position of a kept element comes from warp votes: a
/// lane's rank among the kept lanes of its warp is the number of kept lanes
/// below it, __popc of the __ballot_sync mask under the lane's bit.
///
/// Conventions of the whole lab:
/// - Elements are int (keys and values of pairs too); counts and offsets are
///   std::uint32_t, so n must stay below 2^32.
/// - Outputs hold n elements; only the first kept-count are written, nothing
///   after them.
/// - Every host function is asynchronous on the stream it is given, except
///   compact_and_count(), which waits for the count; none allocates memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "workbook/buffers.hpp"
#include "workbook/count_scan.cuh"

namespace compaction {

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask naming all 32 lanes of a warp, for the *_sync intrinsics.
constexpr unsigned kFullMask = 0xFFFFFFFFu;

/// @brief Threads per block of every kernel of the lab: 8 whole warps, so
/// that every warp can vote with kFullMask. An SM holds at most 2048 / 256 = 8
/// such blocks where it runs 2048 threads (A100, H100, H200) and 1024 / 256 = 4
/// on a T4 (Turing: 1024 threads per SM), registers and shared memory allowing.
constexpr int kThreadsPerBlock = 256;

/// @brief Warps per block.
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

/// @brief Elements each thread loads per tile. All of a thread's loads are
/// issued before the first is used, so each thread keeps 16 loads (64 bytes)
/// in flight, and a tile is large enough that the per-tile work (a barrier,
/// a scan of 128 counts, one count and one offset in global memory) is paid
/// once per 4096 elements.
constexpr int kItemsPerThread = 16;

/// @brief Elements per tile, the unit of phases (a) and (c): one block of
/// kThreadsPerBlock threads handles one tile of kThreadsPerBlock *
/// kItemsPerThread elements.
constexpr int kTileSize = kThreadsPerBlock * kItemsPerThread;

static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must consist of whole warps");
static_assert(kItemsPerThread * kWarpsPerBlock % kWarpSize == 0,
              "the per-warp counts of a tile are scanned by one warp, the same number per lane");

/// @brief The number of tiles that cover @p n elements: the grid of phases
/// (a) and (c), and the number of tile counts.
/// @param[in] n Number of elements.
/// @return ceil(n / kTileSize); 0 for n = 0.
__host__ __device__ constexpr std::size_t tiles_for(std::size_t n) {
  return (n + kTileSize - 1) / kTileSize;
}

/// @brief The number of 1 bits of @p bits: __popc on the device, the
/// compiler's builtin on the host, so that warp arithmetic can be tested on
/// the host.
/// @param[in] bits A 32-bit mask.
/// @return 0 to 32.
__host__ __device__ inline int popcount(unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __popc(bits);
#else
  return __builtin_popcount(bits);
#endif
}

/// @brief The test a compaction applies to each element (for pairs, to each key).
enum class Rule {
  nonzero,    ///< Keep x when x != 0.
  less_than,  ///< Keep x when x < threshold.
};

/// @brief The predicate of every compaction of the lab: a plain struct passed
/// by value to the kernels.
struct KeepIf {
  Rule rule = Rule::nonzero;  ///< Which test.
  int threshold = 0;          ///< The bound of Rule::less_than; ignored by Rule::nonzero.

  /// @brief Whether @p value is kept.
  /// @param[in] value An element (or a key).
  /// @return value != 0 for Rule::nonzero, value < threshold for Rule::less_than.
  __host__ __device__ bool operator()(int value) const {
    return rule == Rule::nonzero ? value != 0 : value < threshold;
  }
};

/// @brief Scratch memory of the stable compactions, allocated once for inputs
/// of up to max_n() elements, so that a compaction inside a timed loop
/// allocates nothing: one count per tile (scanned in place into the tiles'
/// offsets), the scanner, and one count for compact_and_count(). Move-only,
/// like the buffers it holds. One compaction at a time: two compactions in
/// flight on different streams need a scratch each.
class CompactionScratch {
 public:
  /// @brief Allocates the scratch for inputs of up to @p max_n elements.
  /// @param[in] max_n The largest n the compactions will be given, below 2^32.
  /// @throws std::invalid_argument when max_n is 2^32 or more.
  /// @throws workbook::CudaError when an allocation fails.
  explicit CompactionScratch(std::size_t max_n);

  /// @brief The largest n this scratch was built for.
  /// @return max_n as given at construction.
  std::size_t max_n() const noexcept { return max_n_; }

  /// @brief Device array of tiles_for(max_n()) counts: phase (a) writes one
  /// count per tile, phase (b) turns them into offsets in place.
  /// @return The device pointer.
  std::uint32_t* tile_counts() noexcept { return tile_counts_.data(); }

  /// @brief The scanner of phase (b), built for tiles_for(max_n()) counts.
  /// @return The scanner.
  workbook::CountScan& count_scan() noexcept { return count_scan_; }

  /// @brief Device pointer to one count, where compact_and_count() has the
  /// kept count written before it copies it to the host.
  /// @return The device pointer.
  std::uint32_t* kept_count() noexcept { return kept_count_.data(); }

 private:
  std::size_t max_n_;
  workbook::DeviceBuffer<std::uint32_t> tile_counts_;
  workbook::CountScan count_scan_;
  workbook::DeviceBuffer<std::uint32_t> kept_count_;
};

// ---------------------------------------------------------------------------
// Part 1: positions inside a warp

/// @brief The rank of @p lane among the kept lanes of its warp: how many
/// lanes below it are kept, the number of 1 bits of @p kept under bit
/// @p lane. A kept lane writes at its warp's base + this rank.
/// @param[in] kept The warp's vote: bit k set when lane k keeps its element.
/// @param[in] lane 0 to 31.
/// @return 0 to lane.
__host__ __device__ int rank_among_kept(unsigned kept, int lane);

/// @brief One thread per element: each warp votes on its 32 consecutive
/// elements with __ballot_sync, every element gets its position among the
/// kept elements of its warp, and lane 0 writes the warp's kept count.
/// Element i belongs to warp i / 32 (kThreadsPerBlock is a multiple of 32).
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[in] keep The predicate.
/// @param[out] positions Device array of n ints: rank_among_kept() of the
///             element when it is kept, -1 when it is not.
/// @param[out] warp_counts Device array of ceil(n / 32) counts: the number
///             of kept elements of each warp's 32 (the last warp: fewer).
__global__ void warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                      std::uint32_t* warp_counts);

/// @brief Launches warp_output_positions with one thread per element,
/// kThreadsPerBlock threads per block; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] keep The predicate.
/// @param[out] positions Device array of n ints.
/// @param[out] warp_counts Device array of ceil(n / 32) counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_warp_output_positions(const int* in, std::size_t n, KeepIf keep, int* positions,
                                  std::uint32_t* warp_counts, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: the three phases

/// @brief Phase (a): block b counts the kept elements of tile b, elements
/// b * kTileSize to (b + 1) * kTileSize - 1 (the last tile stops at n), and
/// writes the count to tile_counts[b].
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[in] keep The predicate.
/// @param[out] tile_counts Device array of tiles_for(n) counts.
__global__ void count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts);

/// @brief Phase (c): block b writes the kept elements of tile b, in input
/// order, to out[tile_offsets[b]], out[tile_offsets[b] + 1], ...
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[in] keep The predicate.
/// @param[in] tile_offsets Device array of tiles_for(n) offsets: the number
///            of kept elements in all tiles before each tile.
/// @param[out] out Device array with room for every kept element.
__global__ void scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                             int* out);

/// @brief Launches count_kept_per_tile with tiles_for(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] keep The predicate.
/// @param[out] tile_counts Device array of tiles_for(n) counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_kept_per_tile(const int* in, std::size_t n, KeepIf keep, std::uint32_t* tile_counts,
                                cudaStream_t stream = nullptr);

/// @brief Launches scatter_kept with tiles_for(n) blocks of kThreadsPerBlock
/// threads; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] keep The predicate.
/// @param[in] tile_offsets Device array of tiles_for(n) offsets.
/// @param[out] out Device array with room for every kept element.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_scatter_kept(const int* in, std::size_t n, KeepIf keep, const std::uint32_t* tile_offsets,
                         int* out, cudaStream_t stream = nullptr);

/// @brief Stable compaction: out[0 .. k-1] = the k elements of in[0 .. n-1]
/// that @p keep keeps, in input order, and *kept_count = k. The three
/// phases on @p stream: count_kept_per_tile into scratch.tile_counts(), the
/// exclusive scan of those counts in place (which also writes the total to
/// @p kept_count), scatter_kept. Fully asynchronous: the count stays in
/// device memory, so the call can be timed with events like a library call.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements, at most scratch.max_n(); 0 writes only *kept_count = 0.
/// @param[in] keep The predicate.
/// @param[out] out Device array of at least n ints; nothing past the kept count is written.
/// @param[in,out] scratch Scratch memory built for at least n elements.
/// @param[out] kept_count Device pointer to one count, or nullptr when the count is not wanted.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n().
/// @throws workbook::CudaError when a launch fails.
void compact(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
             std::uint32_t* kept_count, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3: the count on the host, and key-value pairs

/// @brief compact(), then the kept count copied to the host: the one call of
/// the lab that waits for the GPU (the stream is synchronised).
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements, at most scratch.max_n().
/// @param[in] keep The predicate.
/// @param[out] out Device array of at least n ints.
/// @param[in,out] scratch Scratch memory built for at least n elements; its
///                kept_count() receives the count on the device.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @return The number of kept elements.
/// @throws std::invalid_argument when n is larger than scratch.max_n().
/// @throws workbook::CudaError when a launch or the copy fails.
std::size_t compact_and_count(const int* in, std::size_t n, KeepIf keep, int* out, CompactionScratch& scratch,
                              cudaStream_t stream = nullptr);

/// @brief Phase (c) for key-value pairs: as scatter_kept, deciding on the key
/// and writing each kept key and its value at the same position.
/// @param[in] keys Device array of n keys, tested by @p keep.
/// @param[in] values Device array of n values.
/// @param[in] n Number of pairs.
/// @param[in] keep The predicate, applied to the keys.
/// @param[in] tile_offsets Device array of tiles_for(n) offsets.
/// @param[out] out_keys Device array with room for every kept key.
/// @param[out] out_values Device array with room for every kept value.
__global__ void scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                                   const std::uint32_t* tile_offsets, int* out_keys, int* out_values);

/// @brief Launches scatter_kept_pairs with tiles_for(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] keys Device array of n keys.
/// @param[in] values Device array of n values.
/// @param[in] n Number of pairs; 0 launches nothing.
/// @param[in] keep The predicate, applied to the keys.
/// @param[in] tile_offsets Device array of tiles_for(n) offsets.
/// @param[out] out_keys Device array with room for every kept key.
/// @param[out] out_values Device array with room for every kept value.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_scatter_kept_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep,
                               const std::uint32_t* tile_offsets, int* out_keys, int* out_values,
                               cudaStream_t stream = nullptr);

/// @brief Stable compaction of key-value pairs: the pairs whose key @p keep
/// keeps, in input order, keys to @p out_keys and values to @p out_values;
/// *kept_count = their number. Asynchronous, like compact().
/// @param[in] keys Device array of n keys.
/// @param[in] values Device array of n values.
/// @param[in] n Number of pairs, at most scratch.max_n().
/// @param[in] keep The predicate, applied to the keys.
/// @param[out] out_keys Device array of at least n ints.
/// @param[out] out_values Device array of at least n ints.
/// @param[in,out] scratch Scratch memory built for at least n elements.
/// @param[out] kept_count Device pointer to one count, or nullptr.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n().
/// @throws workbook::CudaError when a launch fails.
void compact_pairs(const int* keys, const int* values, std::size_t n, KeepIf keep, int* out_keys,
                   int* out_values, CompactionScratch& scratch, std::uint32_t* kept_count,
                   cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 4: without order

/// @brief Unordered compaction in one pass: each warp loads its elements of
/// a tile as the stable kernels do, ranks its kept elements with its votes,
/// reserves room for all of them with ONE atomicAdd on @p out_count, and
/// writes them there. The output holds the kept elements, each once, in an
/// order that depends on which warp reached the counter first.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[in] keep The predicate.
/// @param[out] out Device array with room for every kept element.
/// @param[in,out] out_count Device pointer to the output's length (0 for an
///                empty output); advanced by the number kept.
__global__ void scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                       std::uint32_t* out_count);

/// @brief Launches scatter_kept_unordered with tiles_for(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements; 0 launches nothing.
/// @param[in] keep The predicate.
/// @param[out] out Device array with room for every kept element.
/// @param[in,out] out_count Device pointer to one count, advanced.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_scatter_kept_unordered(const int* in, std::size_t n, KeepIf keep, int* out,
                                   std::uint32_t* out_count, cudaStream_t stream = nullptr);

/// @brief Unordered compaction: out[0 .. k-1] = the k kept elements in some
/// order, *kept_count = k. Sets *kept_count to 0, then launches
/// scatter_kept_unordered; asynchronous, needs no scratch.
/// @param[in] in Device array of n ints.
/// @param[in] n Number of elements.
/// @param[in] keep The predicate.
/// @param[out] out Device array of at least n ints.
/// @param[out] kept_count Device pointer to one count (required: it is the atomic counter).
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when kept_count is nullptr.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void compact_unordered(const int* in, std::size_t n, KeepIf keep, int* out, std::uint32_t* kept_count,
                       cudaStream_t stream = nullptr);

}  // namespace compaction
