/// @file histogram.cuh
/// @brief Lab 09, histograms: the contract between your code and the tests.
///
/// A histogram counts how many input values fall into each bin: the 256-bin
/// histogram of the bytes {7, 0, 7, 255} has bins[0] = 1, bins[7] = 2,
/// bins[255] = 1 and 0 everywhere else. Unlike a reduction or a scan, the
/// place a value goes to is only known once the value is read, so threads
/// that read equal values collide on the same counter: the lab is about
/// those collisions.
///
/// The lab builds the same 256-bin byte histogram five ways (parts 1 to 3), then an RGB and a
/// 65536-bin histogram (parts 4 and 5):
///   1. one global atomicAdd per byte (the baseline);
///   2. a private histogram per block in shared memory, written out and summed
///      by a second kernel, or merged with one global atomicAdd per bin per block;
///   3. against collisions in shared memory: __match_any_sync aggregation
///      inside a warp, and the reference's design, one copy of the histogram
///      per lane in shared memory, laid out so that the 32 lanes of a warp
///      never share a bank;
///   4. the three 256-bin histograms of an RGBA image, one pixel (4 bytes) per load;
///   5. 65536 bins of 16-bit values, too many for shared memory: global atomics
///      aggregated in the warp.
///
/// Conventions of the whole lab:
/// - Bins are std::uint32_t counts in device memory; so n (bytes, pixels or
///   16-bit values) must stay below 2^32.
/// - Every host function histogram_*() sets the bins to the histogram of its
///   input (it zeroes them first where its kernels add to them), for any n
///   including 0, and for any alignment of the input. It is asynchronous on
///   the stream it is given and allocates nothing.
/// - Arguments are checked on the host before anything is launched: null
///   bins (whatever n), a null input with n > 0, or n of 2^32 or more, throws
///   std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace histogram {

/// @brief Bins of a byte histogram: one per byte value.
constexpr int kBins = 256;

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask naming all 32 lanes of a warp, for the *_sync intrinsics.
constexpr unsigned kFullMask = 0xFFFFFFFFu;

/// @brief Banks of shared memory: word w of a shared array lies in bank w % 32,
/// and the lanes of one warp instruction that touch different words of one
/// bank are served one after another.
constexpr int kSharedBanks = 32;

/// @brief Threads per block of every kernel of the lab: one thread per bin,
/// so that zeroing and merging a block's 256 bins is one step per thread.
constexpr int kThreadsPerBlock = 256;

/// @brief Warps per block.
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

/// @brief Bytes of one vector load: a uint4, the widest load a thread can
/// issue on the H200. One warp instruction then reads 512 consecutive bytes.
constexpr int kVectorBytes = 16;

/// @brief Bytes a block reads in one step of a grid-stride loop with one
/// vector per thread (part 2).
constexpr int kChunkBytes = kThreadsPerBlock * kVectorBytes;

/// @brief Blocks per SM of the byte-histogram grids: a few, so that the GPU
/// is full while the per-block work at the end (merging 256 bins) is paid
/// only a few times per SM.
constexpr int kBlocksPerSm = 4;

/// @brief The most blocks a byte-histogram kernel launches, whatever the GPU:
/// the per-block histograms of histogram_two_phase() need kMaxGridBlocks *
/// kBins counts of scratch.
constexpr int kMaxGridBlocks = 2048;

/// @brief Copies of the histogram per block in count_bytes_lane_copies: one
/// per lane of a warp, shared by the warps of the block.
constexpr int kLaneCopies = kWarpSize;

/// @brief Counts in the shared memory of count_bytes_lane_copies: 256 bins
/// times 32 copies, 32 KiB.
constexpr int kLaneCopySlots = kBins * kLaneCopies;

/// @brief Vectors each thread of count_bytes_lane_copies loads before it
/// counts any of them: 64 bytes in flight per thread.
constexpr int kVectorsPerThread = 4;

/// @brief Channels counted in an RGBA pixel: red, green and blue (alpha is ignored).
constexpr int kRgbChannels = 3;

/// @brief Bins of an RGB histogram: 256 for red, then 256 for green, then 256 for blue.
constexpr int kRgbBins = kRgbChannels * kBins;

/// @brief Bins of the wide histogram: one per 16-bit value.
constexpr int kWideBins = 65536;

/// @brief 16-bit values each thread of count_wide_match_any loads before it
/// counts any of them.
constexpr int kWideItemsPerThread = 4;

static_assert(kThreadsPerBlock == kBins, "the kernels zero and merge their bins one per thread");
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks must consist of whole warps");

/// @brief How the bytes of an input split for 16-byte loads: a uint4 load
/// must start at an address that is a multiple of 16, so the bytes before
/// the first such address (the head) and after the last whole vector (the
/// tail) are counted one by one.
struct VectorSplit {
  std::size_t head = 0;     ///< Bytes before the first 16-byte boundary: 0 to 15.
  std::size_t vectors = 0;  ///< Whole 16-byte vectors after the head.
  std::size_t tail = 0;     ///< Bytes after the last vector: 0 to 15.
};

/// @brief Splits the @p n bytes at @p in into a head, aligned vectors and a
/// tail: head + 16 * vectors + tail = n, and in + head is a multiple of 16
/// (when vectors > 0).
/// @param[in] in The first byte (any alignment).
/// @param[in] n Number of bytes.
/// @return The split.
__host__ __device__ inline VectorSplit split_for_vectors(const void* in, std::size_t n) {
  const std::size_t misalignment =
      static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(in) % kVectorBytes);
  const std::size_t to_boundary = misalignment == 0 ? 0 : kVectorBytes - misalignment;
  VectorSplit split;
  split.head = to_boundary < n ? to_boundary : n;
  split.vectors = (n - split.head) / kVectorBytes;
  split.tail = n - split.head - split.vectors * kVectorBytes;
  return split;
}

/// @brief The grid of the byte-histogram kernels of parts 2 and 3:
/// kBlocksPerSm blocks per SM of the current GPU, never more than one block
/// per kChunkBytes of input, never more than kMaxGridBlocks.
/// @param[in] n Number of bytes.
/// @return 0 for n = 0, otherwise 1 to kMaxGridBlocks.
/// @throws workbook::CudaError when there is no GPU.
int grid_blocks(std::size_t n);

// ---------------------------------------------------------------------------
// Part 1: global atomics

/// @brief One thread per byte: thread i adds 1 to bins[in[i]] with a global
/// atomicAdd.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes.
/// @param[in,out] bins Device array of kBins counts, added to.
__global__ void count_bytes_with_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins);

/// @brief Launches count_bytes_with_global_atomics with one thread per byte,
/// kThreadsPerBlock threads per block; checks the launch.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes; 0 launches nothing.
/// @param[in,out] bins Device array of kBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_bytes_with_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                            cudaStream_t stream = nullptr);

/// @brief The baseline: bins = the histogram of the n bytes at @p in, by one
/// global atomic per byte. Zeroes the bins, then launches.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes, below 2^32.
/// @param[out] bins Device array of kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, in is null with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void histogram_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: a private histogram per block, in shared memory

/// @brief Phase 1 of the two-phase histogram: block b counts its share of
/// the input (a grid-stride loop over 16-byte vectors, plus the head and tail
/// bytes of split_for_vectors) into a histogram of kBins counts in shared
/// memory with shared atomics, then writes it to block_bins[b * kBins .. b *
/// kBins + kBins - 1]. Which bytes a block counts is up to the kernel; every
/// byte is counted by exactly one block.
/// @param[in] in Device array of n bytes (any alignment).
/// @param[in] n Number of bytes.
/// @param[out] block_bins Device array of gridDim.x * kBins counts.
__global__ void count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins);

/// @brief Phase 2: bins[k] = the sum over b < @p blocks of block_bins[b * kBins + k].
/// Runs as one block of kBins threads, one per bin.
/// @param[in] block_bins Device array of blocks * kBins counts.
/// @param[in] blocks Number of per-block histograms (0: every bin is 0).
/// @param[out] bins Device array of kBins counts, overwritten.
__global__ void sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins);

/// @brief Phase 1 with the merge built in: every block counts its share as
/// count_bytes_per_block does, then adds each of its nonzero bins to
/// bins[k] with one global atomicAdd.
/// @param[in] in Device array of n bytes (any alignment).
/// @param[in] n Number of bytes.
/// @param[in,out] bins Device array of kBins counts, added to.
__global__ void count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins);

/// @brief Launches count_bytes_per_block with grid_blocks(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes; 0 launches nothing.
/// @param[out] block_bins Device array of grid_blocks(n) * kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins,
                                  cudaStream_t stream = nullptr);

/// @brief Launches sum_block_histograms with one block of kBins threads; checks the launch.
/// @param[in] block_bins Device array of blocks * kBins counts.
/// @param[in] blocks Number of per-block histograms, 0 to kMaxGridBlocks.
/// @param[out] bins Device array of kBins counts, overwritten.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins,
                                 cudaStream_t stream = nullptr);

/// @brief Launches count_bytes_merged with grid_blocks(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes; 0 launches nothing.
/// @param[in,out] bins Device array of kBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                               cudaStream_t stream = nullptr);

/// @brief The two-phase histogram: count_bytes_per_block into @p block_bins,
/// then sum_block_histograms of those grid_blocks(n) histograms into @p bins.
/// Writes every bin (no zeroing needed); for n = 0 every bin is 0.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes, below 2^32.
/// @param[out] bins Device array of kBins counts.
/// @param[out] block_bins Device scratch of kMaxGridBlocks * kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins or block_bins is null, in is null
///         with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a launch fails.
void histogram_two_phase(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                         std::uint32_t* block_bins, cudaStream_t stream = nullptr);

/// @brief Per-block histograms merged with one global atomicAdd per nonzero
/// bin per block: zeroes the bins, then launches count_bytes_merged.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes, below 2^32.
/// @param[out] bins Device array of kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, in is null with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void histogram_shared_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3: contention

/// @brief Like count_bytes_merged, but before each shared atomic the lanes of
/// a warp that hold the same byte find each other with __match_any_sync, and
/// only the lowest of them adds their number: one shared atomic per distinct
/// value per warp instead of one per byte.
/// @param[in] in Device array of n bytes (any alignment).
/// @param[in] n Number of bytes.
/// @param[in,out] bins Device array of kBins counts, added to.
__global__ void count_bytes_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins);

/// @brief Where the count of @p bin for lane @p lane lives in the kLaneCopySlots
/// shared counts of count_bytes_lane_copies: a different slot for every
/// (bin, lane), and whatever bins the 32 lanes of a warp count, their 32
/// slots lie in 32 different banks.
/// @param[in] bin 0 to kBins - 1.
/// @param[in] lane 0 to kLaneCopies - 1.
/// @return A slot, 0 to kLaneCopySlots - 1.
__host__ __device__ int lane_copy_slot(int bin, int lane);

/// @brief Which lane's copy the thread merging @p bin reads at step @p step
/// (0 to 31) of the merge. Thread k merges bin k; at every step the 32
/// threads of a warp (32 consecutive bins) read 32 different banks, at
/// lane_copy_slot(bin, merge_lane(bin, step)), and over the 32 steps each
/// thread reads every copy of its bin once.
/// @param[in] bin 0 to kBins - 1.
/// @param[in] step 0 to kLaneCopies - 1.
/// @return A lane, 0 to kLaneCopies - 1: the copy of @p bin read at @p step.
__host__ __device__ int merge_lane(int bin, int step);

/// @brief The reference's fast 256-bin histogram. Each block keeps
/// kLaneCopies copies of the histogram in shared memory (lane l of every
/// warp adds to copy l, at lane_copy_slot()); each thread loads
/// kVectorsPerThread vectors at a time, then counts each of their bytes with
/// one shared atomicAdd into its lane's copy; at the end the block sums the
/// copies of each bin (in the order of merge_lane()) and adds every nonzero
/// bin to bins[k] with one global atomicAdd.
/// @param[in] in Device array of n bytes (any alignment).
/// @param[in] n Number of bytes.
/// @param[in,out] bins Device array of kBins counts, added to.
__global__ void count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins);

/// @brief Launches count_bytes_match_any with grid_blocks(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes; 0 launches nothing.
/// @param[in,out] bins Device array of kBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_bytes_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                  cudaStream_t stream = nullptr);

/// @brief Launches count_bytes_lane_copies with grid_blocks(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes; 0 launches nothing.
/// @param[in,out] bins Device array of kBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                    cudaStream_t stream = nullptr);

/// @brief Warp-aggregated per-block histograms: zeroes the bins, then
/// launches count_bytes_match_any.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes, below 2^32.
/// @param[out] bins Device array of kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, in is null with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void histogram_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                         cudaStream_t stream = nullptr);

/// @brief The lab's fast 256-bin histogram, timed against
/// cub::DeviceHistogram::HistogramEven: zeroes the bins, then launches
/// count_bytes_lane_copies.
/// @param[in] in Device array of n bytes.
/// @param[in] n Number of bytes, below 2^32.
/// @param[out] bins Device array of kBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, in is null with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void histogram_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                           cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 4: an RGB image

/// @brief The bin of one channel of an RGBA pixel in the kRgbBins bins of an
/// RGB histogram. A pixel is 4 bytes in memory, R, G, B, A, read as one
/// little-endian uint32: red is its low byte, alpha its high byte.
/// @param[in] pixel The pixel as a uint32.
/// @param[in] channel 0 (red), 1 (green) or 2 (blue).
/// @return The channel's bin, 0 to 767: red's 256 bins first, then green's,
/// then blue's, each channel's byte in its own 256.
__host__ __device__ int rgb_bin(std::uint32_t pixel, int channel);

/// @brief Each block counts its share of the pixels (a grid-stride loop, one
/// 4-byte pixel per load) into kRgbBins shared counts, red, green and blue at
/// rgb_bin(), ignoring alpha, then adds each nonzero bin to bins[k] with one
/// global atomicAdd.
/// @param[in] pixels Device array of pixel_count RGBA pixels.
/// @param[in] pixel_count Number of pixels.
/// @param[in,out] bins Device array of kRgbBins counts, added to.
__global__ void count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins);

/// @brief Launches count_rgb with grid_blocks(4 * pixel_count) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] pixels Device array of pixel_count pixels.
/// @param[in] pixel_count Number of pixels; 0 launches nothing.
/// @param[in,out] bins Device array of kRgbBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins,
                      cudaStream_t stream = nullptr);

/// @brief The RGB histogram of an RGBA image: bins[0 .. 255] count the red
/// bytes, bins[256 .. 511] the green, bins[512 .. 767] the blue; alpha is
/// not counted. Zeroes the bins, then launches count_rgb.
/// @param[in] pixels Device array of pixel_count RGBA pixels.
/// @param[in] pixel_count Number of pixels, below 2^32.
/// @param[out] bins Device array of kRgbBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, pixels is null with
///         pixel_count > 0, or pixel_count >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void rgb_histogram(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins,
                   cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 5: many bins

/// @brief The histogram of 16-bit values in kWideBins bins, which do not fit
/// in shared memory: global atomics, aggregated in the warp. Each lane loads
/// kWideItemsPerThread values (a grid-stride loop whose rounds the whole warp
/// takes together), then for each value the lanes holding the same value find
/// each other with __match_any_sync and the lowest of them adds their number
/// to bins[value] with one global atomicAdd.
/// @param[in] in Device array of n 16-bit values.
/// @param[in] n Number of values.
/// @param[in,out] bins Device array of kWideBins counts, added to.
__global__ void count_wide_match_any(const std::uint16_t* in, std::size_t n, std::uint32_t* bins);

/// @brief Launches count_wide_match_any with kBlocksPerSm blocks per SM
/// (fewer for a small n) of kThreadsPerBlock threads; checks the launch.
/// @param[in] in Device array of n values.
/// @param[in] n Number of values; 0 launches nothing.
/// @param[in,out] bins Device array of kWideBins counts, added to.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_wide_match_any(const std::uint16_t* in, std::size_t n, std::uint32_t* bins,
                                 cudaStream_t stream = nullptr);

/// @brief The kWideBins-bin histogram of n 16-bit values: zeroes the bins,
/// then launches count_wide_match_any.
/// @param[in] in Device array of n values.
/// @param[in] n Number of values, below 2^32.
/// @param[out] bins Device array of kWideBins counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when bins is null, in is null with n > 0, or n >= 2^32.
/// @throws workbook::CudaError when a CUDA call or launch fails.
void wide_histogram(const std::uint16_t* in, std::size_t n, std::uint32_t* bins,
                    cudaStream_t stream = nullptr);

}  // namespace histogram
