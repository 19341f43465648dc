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
  // TODO(1): One thread per byte: with i = blockIdx.x * blockDim.x + threadIdx.x (as a std::size_t),
  //          a thread with i < n adds 1 to bins[in[i]] with atomicAdd.
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
  // TODO(2): With split = split_for_vectors(in, n) and vectors = the uint4s that start at in + split.head
  //          (reinterpret_cast<const uint4*>):
  //          1. a grid-stride loop, v from global_thread() in steps of grid_threads() while
  //             v < split.vectors: load vectors[v] (ONE 16-byte load) and count_word() its .x, .y, .z, .w;
  //          2. the edges, fewer than 16 bytes each, one byte per thread: a thread with index
  //             t = global_thread() < split.head counts in[t], and one with t < split.tail counts
  //             in[split.head + split.vectors * kVectorBytes + t] (with a shared atomicAdd of 1).
}

}  // namespace

__global__ void count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins) {
  // TODO(3): 1. A __shared__ array of kBins counts; thread t sets count t to 0; __syncthreads().
  //          2. add_share_to_block_histogram(); __syncthreads() (every count must be final).
  //          3. Thread t writes count t to block_bins[blockIdx.x * kBins + t] (a plain store).
}

__global__ void sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins) {
  // TODO(4): Thread k (one block of kBins threads) adds block_bins[b * kBins + k] over b < blocks
  //          and writes the sum to bins[k]. At every b the 32 lanes of a warp read 32 neighbouring
  //          counts: one 128-byte line per warp.
}

__global__ void count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(5): Steps 1 and 2 of count_bytes_per_block; then thread t adds count t to bins[t] with one
  //          global atomicAdd, only when it is nonzero (an empty bin costs nothing).
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
  // TODO(6): Two launches on `stream`: launch_count_bytes_per_block() into block_bins, then
  //          launch_sum_block_histograms() of the grid_blocks(n) histograms it wrote into bins.
  //          For n = 0 the first launches nothing and the second, with 0 blocks, writes 256 zeros.
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
  // TODO(7): As count_bytes_merged, with a different grid-stride loop over the vectors: every lane of
  //          a warp must reach each __match_any_sync, so the loop runs over the warp's first vector,
  //          warp_first = global_thread() - lane, which is the same in all 32 lanes:
  //            for (base = warp_first; base < split.vectors; base += grid_threads()) {
  //              v = base + lane; valid = __ballot_sync(kFullMask, v < split.vectors);
  //              if (v < split.vectors) { load vectors[v]; for each of its 16 bytes:
  //                peers = __match_any_sync(valid, byte); the lane leader_of(peers) adds
  //                __popc(peers) to the shared count of that byte; } }
  //          The head and tail bytes as in part 2, one plain shared atomicAdd each (no match).
}

__host__ __device__ int lane_copy_slot(int bin, int lane) {
  // TODO(8): The 32 copies of one bin side by side: bin * kLaneCopies + lane. Slot s lies in bank
  //          s % 32 = lane, so the lanes of a warp never share a bank, whatever their bins.
  return 0;
}

__host__ __device__ int merge_lane(int bin, int step) {
  // TODO(9): (bin + step) % kLaneCopies: at each step the threads of a warp (32 consecutive bins)
  //          read 32 different lanes' copies, so 32 different banks; reading copy `step` in every
  //          thread would put the whole warp in one bank.
  return 0;
}

// Why no run-length counting: with a copy per lane two lanes of a warp never
// share a bank or a word (slot bin * 32 + lane lies in bank lane), so there
// is no collision left for runs to remove, and counting runs costs a compare
// and a branch per byte. Measured on an H100 (2^30 bytes, % of CUB on uniform
// / four bins in one bank / one bin): this kernel 132 / 157 / 105, the same
// kernel with runs 59 / 65 / 109 (experiment.cu keeps that variant).

// Four blocks of 256 threads per SM on every GPU the workbook supports
// (sm_75 has at most 1024 threads per SM): no more than 64 registers per thread.
constexpr int kLaneCopiesMinBlocksPerSm = 4;

__global__ void __launch_bounds__(kThreadsPerBlock, kLaneCopiesMinBlocksPerSm)
    count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // TODO(10): 1. __shared__ std::uint32_t copies[kLaneCopySlots]: every thread zeroes the slots
  //             threadIdx.x, threadIdx.x + kThreadsPerBlock, ... (neighbouring threads, neighbouring
  //             banks); __syncthreads().
  //          2. Block b takes the chunks of kThreadsPerBlock * kVectorsPerThread vectors b, b + gridDim.x,
  //             ...; in a chunk, thread t first LOADS its vectors chunk_start + k * kThreadsPerBlock + t
  //             for k < kVectorsPerThread (those < split.vectors) into a uint4 array, then counts each
  //             of their 16 bytes with one shared atomicAdd of 1 at lane_copy_slot(byte, lane).
  //          3. The head and tail bytes as in part 2, each with one atomicAdd of 1 to this lane's copy
  //             of its bin; __syncthreads().
  //          4. Thread k sums the 32 copies of bin k, copy merge_lane(k, step) at step 0 .. 31, and adds
  //             a nonzero sum to bins[k] with one global atomicAdd.
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
  // TODO(11): The channel's byte is (pixel >> (8 * channel)) & 0xFF (red is the low byte: the first in
  //          memory); its bin is channel * kBins + that byte.
  return 0;
}

__global__ void count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins) {
  // TODO(12): 1. A __shared__ array of kRgbBins counts, zeroed by the block (3 counts per thread);
  //             __syncthreads().
  //          2. A grid-stride loop over the pixels: one 4-byte load per pixel, then a shared atomicAdd
  //             of 1 at rgb_bin(pixel, c) for c = 0, 1, 2. Alpha (the high byte) is never counted.
  //          3. __syncthreads(); each nonzero count k goes to bins[k] with one global atomicAdd.
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
  // TODO(13): 65536 counts (256 KiB) do not fit in shared memory: count in global memory, aggregated
  //          in the warp. With lane, warp_first = global_thread() - lane and step = grid_threads(),
  //          the rounds start at base = warp_first, warp_first + step * kWideItemsPerThread, ...
  //          while base < n. In a round, item k of a lane is element i = base + k * step + lane:
  //          1. load every item first (values[k] = in[i] when i < n);
  //          2. then for each k: valid = __ballot_sync(kFullMask, i < n); a lane with i < n takes
  //             peers = __match_any_sync(valid, values[k]), and its leader_of(peers) adds __popc(peers)
  //             to bins[values[k]] with one global atomicAdd.
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
