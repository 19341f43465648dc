// Lab 09: histograms. This is your file: fill in each TODO, then run
//   ./workbook grade histograms
// The handout is labs/09-histograms/README.md. Write the histograms yourself:
// the grader refuses a file that uses CUB or Thrust (cub::DeviceHistogram is the
// yardstick you are timed against).
#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "histogram.cuh"
#include "workbook/cuda_check.hpp"

namespace histogram {

namespace {

// The calling thread's lane in its warp: blocks are whole warps, so it
// follows from threadIdx.x alone.
[[maybe_unused]] __device__ int lane_index() {
  return static_cast<int>(threadIdx.x) % kWarpSize;
}

// The calling thread's index in the grid, and the number of threads of the
// grid: the start and the step of every grid-stride loop.
[[maybe_unused]] __device__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
[[maybe_unused]] __device__ std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// The lowest lane of a nonempty mask: the leader of a group of lanes.
[[maybe_unused]] __device__ int leader_of(unsigned lanes) {
  return __ffs(static_cast<int>(lanes)) - 1;
}

// Byte k (0 = the lowest, the first in memory) of a 32-bit word.
[[maybe_unused]] __device__ int byte_of(std::uint32_t word, int k) {
  return static_cast<int>((word >> (8 * k)) & 0xFFu);
}

// The number of SMs of the current GPU, read once.
int sm_count() {
  static const int count = [] {
    int device = 0;
    int value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return value;
  }();
  return count;
}

// kBlocksPerSm blocks per SM, fewer when there is less work than that.
unsigned resident_grid(std::size_t blocks_wanted) {
  const std::size_t most = std::min<std::size_t>(static_cast<std::size_t>(sm_count()) * kBlocksPerSm,
                                                 static_cast<std::size_t>(kMaxGridBlocks));
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(blocks_wanted, most)));
}

// Every check happens before anything is launched, so a bad call never
// reaches the GPU. Counts are 32-bit: n = 2^32 equal bytes would wrap a bin to 0.
void check_arguments(const char* caller, const void* in, std::size_t n, const void* bins, const char* what) {
  const std::string name(caller);
  if (bins == nullptr) {
    throw std::invalid_argument(name + ": bins is nullptr; pass a device array of " + what);
  }
  if (in == nullptr && n > 0) {
    throw std::invalid_argument(name + ": the input is nullptr but n = " + std::to_string(n) +
                                "; pass a device array of n values (or n = 0)");
  }
  if (n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument(name + ": n = " + std::to_string(n) +
                                ", but the bins are 32-bit counts: at most 2^32 - 1 values per call; "
                                "split the input and add the histograms");
  }
}

}  // namespace

int grid_blocks(std::size_t n) {
  if (n == 0) return 0;
  return static_cast<int>(resident_grid((n + kChunkBytes - 1) / kChunkBytes));
}

// ---------------------------------------------------------------------------
// Part 1: global atomics

__global__ void count_bytes_with_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(1): Every byte in[i], i < n, adds 1 to its bin with a global atomicAdd, from its own thread (one
  //          thread per byte, std::size_t indices); threads past the end touch nothing.
}

void launch_count_bytes_with_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                            cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid configuration
  const auto blocks = static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
  count_bytes_with_global_atomics<<<blocks, kThreadsPerBlock, 0, stream>>>(in, n, bins);
  CUDA_CHECK_LAUNCH("count_bytes_with_global_atomics");
}

void histogram_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t stream) {
  check_arguments("histogram_global_atomics", in, n, bins, "kBins = 256 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  launch_count_bytes_with_global_atomics(in, n, bins, stream);
}

// ---------------------------------------------------------------------------
// Part 2: a private histogram per block, in shared memory

namespace {

// The four bytes of a word, each with a shared atomic.
[[maybe_unused]] __device__ void count_word(std::uint32_t word, std::uint32_t* shared_bins) {
#pragma unroll
  for (int k = 0; k < 4; ++k) atomicAdd(&shared_bins[byte_of(word, k)], 1u);
}

// Adds this thread's share of the input to the block's shared histogram:
// the whole vectors in a grid-stride loop, then at most one head byte and
// one tail byte per thread.
[[maybe_unused]] __device__ void add_share_to_block_histogram(const std::uint8_t* in, std::size_t n,
                                                              std::uint32_t* shared_bins) {
  // TODO(2): Add this thread's share of the n bytes to shared_bins with shared atomics, so that the grid
  //          together counts every byte exactly once, for any alignment of `in` and any n. The bulk must be
  //          read with 16-byte (uint4) loads: use split_for_vectors and the helpers above.
}

}  // namespace

__global__ void count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins) {
  // TODO(3): Block b counts its share (add_share_to_block_histogram) into a __shared__ histogram of kBins
  //          counts that starts at 0, then writes its kBins final counts to row b of block_bins. Every
  //          thread reaches every barrier.
}

__global__ void sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins) {
  // TODO(4): One block of kBins threads, one per bin: bins[k] = the sum of bin k over the first `blocks`
  //          rows of block_bins, every bin written (0 for blocks = 0). A warp's loads read whole lines; each
  //          thread keeps 8 loads in flight (#pragma unroll 8 on its loop).
}

__global__ void count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(5): The block's share counted as in count_bytes_per_block, then added to bins with global atomics:
  //          at most one per bin per block, none for an empty bin. Every thread reaches every barrier.
}

void launch_count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins,
                                  cudaStream_t stream) {
  if (n == 0) return;
  count_bytes_per_block<<<grid_blocks(n), kThreadsPerBlock, 0, stream>>>(in, n, block_bins);
  CUDA_CHECK_LAUNCH("count_bytes_per_block");
}

void launch_sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins,
                                 cudaStream_t stream) {
  sum_block_histograms<<<1, kBins, 0, stream>>>(block_bins, blocks, bins);
  CUDA_CHECK_LAUNCH("sum_block_histograms");
}

void launch_count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                               cudaStream_t stream) {
  if (n == 0) return;
  count_bytes_merged<<<grid_blocks(n), kThreadsPerBlock, 0, stream>>>(in, n, bins);
  CUDA_CHECK_LAUNCH("count_bytes_merged");
}

void histogram_two_phase(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                         std::uint32_t* block_bins, cudaStream_t stream) {
  check_arguments("histogram_two_phase", in, n, bins, "kBins = 256 counts");
  if (block_bins == nullptr) {
    throw std::invalid_argument(
        "histogram_two_phase: block_bins is nullptr; pass a device array of kMaxGridBlocks * kBins counts");
  }
  // TODO(6): Leave the histogram of in[0, n) in bins, on `stream`: phase 1 into block_bins, then phase 2
  //          over the histograms phase 1 wrote, with the launchers above. For n = 0 every bin must be 0.
}

void histogram_shared_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t stream) {
  check_arguments("histogram_shared_atomics", in, n, bins, "kBins = 256 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  launch_count_bytes_merged(in, n, bins, stream);
}

// ---------------------------------------------------------------------------
// Part 3: contention

__global__ void count_bytes_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(7): The result of count_bytes_merged, the bulk split as in add_share_to_block_histogram
  //          (split_for_vectors, one uint4 load per vector) but in a loop per warp, one vector per lane per
  //          round, and for each of a vector's 16 byte positions the lanes of a warp that hold equal
  //          bytes make one shared atomic together (__match_any_sync, leader_of). Every lane named in
  //          the mask of a *_sync call must execute it, also a lane with no vector left; the head and
  //          tail bytes need no match.
}

__host__ __device__ int lane_copy_slot(int bin, int lane) {
  // TODO(8): Return where lane `lane`'s count of `bin` lives among the kLaneCopySlots counts: one slot per
  //          (bin, lane), and the 32 lanes of a warp in 32 different banks, whatever bins they count.
  return 0;
}

__host__ __device__ int merge_lane(int bin, int step) {
  // TODO(9): Return which lane's copy the thread merging `bin` reads at step `step`: over the 32 steps each
  //          copy of the bin once; at every step a warp's threads (32 consecutive bins) in 32 banks.
  return 0;
}

// The grid asks for four blocks of 256 threads per SM (kBlocksPerSm): at most
// 64 registers per thread, so that registers never keep four blocks off an
// SM, even on sm_75 (1024 threads and 64 K registers per SM). Shared memory
// may: four blocks' 32 KiB of copies fit an H200's SM, an sm_75 SM (64 KiB)
// holds two.
constexpr int kLaneCopiesMinBlocksPerSm = 4;

__global__ void __launch_bounds__(kThreadsPerBlock, kLaneCopiesMinBlocksPerSm)
    count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(10): The result of count_bytes_merged, from kLaneCopies copies of the histogram in kLaneCopySlots
  //           shared counts, zeroed first (kLaneCopySlots / kThreadsPerBlock = 32 a thread, neighbouring
  //           threads on neighbouring slots): every byte adds 1 to its lane's copy (lane_copy_slot) with a
  //           shared atomicAdd, since lane l of all the block's warps shares that copy. The vectors of
  //           split_for_vectors come in batches of kThreadsPerBlock * kVectorsPerThread vectors (1024;
  //           kChunkBytes is only 256 vectors); block b takes batches b, b + gridDim.x, ...; in a batch,
  //           thread t loads vectors t, t + kThreadsPerBlock, ... (its kVectorsPerThread), all of them
  //           before it counts any. The head and tail bytes as in TODO(2), into the lane's copy. Thread k
  //           adds the copies of bin k, read in merge_lane() order, to bins[k]. Every thread reaches every
  //           barrier.
}

void launch_count_bytes_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                  cudaStream_t stream) {
  if (n == 0) return;
  count_bytes_match_any<<<grid_blocks(n), kThreadsPerBlock, 0, stream>>>(in, n, bins);
  CUDA_CHECK_LAUNCH("count_bytes_match_any");
}

void launch_count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                    cudaStream_t stream) {
  if (n == 0) return;
  count_bytes_lane_copies<<<grid_blocks(n), kThreadsPerBlock, 0, stream>>>(in, n, bins);
  CUDA_CHECK_LAUNCH("count_bytes_lane_copies");
}

void histogram_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins, cudaStream_t stream) {
  check_arguments("histogram_match_any", in, n, bins, "kBins = 256 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  launch_count_bytes_match_any(in, n, bins, stream);
}

void histogram_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins, cudaStream_t stream) {
  check_arguments("histogram_lane_copies", in, n, bins, "kBins = 256 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  launch_count_bytes_lane_copies(in, n, bins, stream);
}

// ---------------------------------------------------------------------------
// Part 4: an RGB image

__host__ __device__ int rgb_bin(std::uint32_t pixel, int channel) {
  // TODO(11): Return the bin of channel `channel` (0 red, 1 green, 2 blue) of `pixel` among the kRgbBins
  //           bins: the channel's own kBins bins, at the channel's byte (red is the byte first in memory).
  return 0;
}

__global__ void count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins) {
  // TODO(12): Each block counts its share of the pixels (every pixel once, one 4-byte load each) into a
  //           __shared__ histogram of kRgbBins counts that starts at 0, at rgb_bin() for red, green and blue,
  //           never alpha; then adds each nonzero count to bins with one global atomicAdd. Every thread
  //           reaches every barrier.
}

void launch_count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins,
                      cudaStream_t stream) {
  if (pixel_count == 0) return;
  count_rgb<<<grid_blocks(pixel_count * sizeof(std::uint32_t)), kThreadsPerBlock, 0, stream>>>(
      pixels, pixel_count, bins);
  CUDA_CHECK_LAUNCH("count_rgb");
}

void rgb_histogram(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins,
                   cudaStream_t stream) {
  check_arguments("rgb_histogram", pixels, pixel_count, bins, "kRgbBins = 768 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kRgbBins * sizeof(std::uint32_t), stream));
  launch_count_rgb(pixels, pixel_count, bins, stream);
}

// ---------------------------------------------------------------------------
// Part 5: many bins

__global__ void count_wide_match_any(const std::uint16_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(13): Add the histogram of in[0, n) to the kWideBins counts of bins, every value counted once, with
  //           global atomics (too many bins for shared memory); lanes of a warp holding equal values make
  //           one atomic together (__match_any_sync). The rounds start at the warp's first index (the grid
  //           index of its lane 0), step by the grid's threads times kWideItemsPerThread and run while their
  //           first index is below n. In a round each lane has kWideItemsPerThread loads in flight, a grid
  //           width apart, and at each of them the 32 lanes of a warp read 32 consecutive values (so that
  //           equal neighbours meet in one match); every lane named in a *_sync call's mask must execute it.
}

void launch_count_wide_match_any(const std::uint16_t* in, std::size_t n, std::uint32_t* bins,
                                 cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t per_block = static_cast<std::size_t>(kThreadsPerBlock) * kWideItemsPerThread;
  count_wide_match_any<<<resident_grid((n + per_block - 1) / per_block), kThreadsPerBlock, 0, stream>>>(in, n,
                                                                                                        bins);
  CUDA_CHECK_LAUNCH("count_wide_match_any");
}

void wide_histogram(const std::uint16_t* in, std::size_t n, std::uint32_t* bins, cudaStream_t stream) {
  check_arguments("wide_histogram", in, n, bins, "kWideBins = 65536 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kWideBins * sizeof(std::uint32_t), stream));
  launch_count_wide_match_any(in, n, bins, stream);
}

}  // namespace histogram
