// SOLUTION-ONLY: Lab 09 reference solution. labs/09-histograms/histogram.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 09: histograms. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade histograms
// STUDENT-ONLY: The handout is labs/09-histograms/README.md. Write the histograms yourself:
// STUDENT-ONLY: the grader refuses a file that uses CUB or Thrust (cub::DeviceHistogram is the
// STUDENT-ONLY: yardstick you are timed against).
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

// WALKTHROUGH: global-atomics
__global__ void count_bytes_with_global_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // HOLE: Every byte in[i], i < n, adds 1 to its bin with a global atomicAdd, from its own thread (one
  // HOLE: thread per byte, std::size_t indices); threads past the end touch nothing.
  const std::size_t i = global_thread();
  // Every byte is an atomic in L2; bytes of one value queue up on one counter.
  if (i < n) atomicAdd(&bins[in[i]], 1u);
  // END HOLE
}
// END WALKTHROUGH: global-atomics

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
// WALKTHROUGH: block-share
[[maybe_unused]] __device__ void add_share_to_block_histogram(const std::uint8_t* in, std::size_t n,
                                                              std::uint32_t* shared_bins) {
  // HOLE: Add this thread's share of the n bytes to shared_bins with shared atomics, so that the grid
  // HOLE: together counts every byte exactly once, for any alignment of `in` and any n. The bulk must be
  // HOLE: read with 16-byte (uint4) loads: use split_for_vectors and the helpers above.
  const VectorSplit split = split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  const std::size_t first = global_thread();
  const std::size_t step = grid_threads();
  // One 16-byte load per thread per step: a warp reads 512 consecutive bytes
  // with one instruction, four times fewer loads than reading words.
  for (std::size_t v = first; v < split.vectors; v += step) {
    const uint4 data = vectors[v];
    count_word(data.x, shared_bins);
    count_word(data.y, shared_bins);
    count_word(data.z, shared_bins);
    count_word(data.w, shared_bins);
  }
  // The grid has at least 256 threads: enough for the 15 bytes at each end.
  if (first < split.head) atomicAdd(&shared_bins[in[first]], 1u);
  if (first < split.tail) atomicAdd(&shared_bins[in[split.head + split.vectors * kVectorBytes + first]], 1u);
  // END HOLE
}
// END WALKTHROUGH: block-share

}  // namespace

// WALKTHROUGH: per-block
__global__ void count_bytes_per_block(const std::uint8_t* in, std::size_t n, std::uint32_t* block_bins) {
  // HOLE: Block b counts its share (add_share_to_block_histogram) into a __shared__ histogram of kBins
  // HOLE: counts that starts at 0, then writes its kBins final counts to row b of block_bins. Every
  // HOLE: thread reaches every barrier.
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  add_share_to_block_histogram(in, n, shared_bins);
  __syncthreads();
  block_bins[static_cast<std::size_t>(blockIdx.x) * kBins + threadIdx.x] = shared_bins[threadIdx.x];
  // END HOLE
}
// END WALKTHROUGH: per-block

// WALKTHROUGH: sum-blocks
__global__ void sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins) {
  // HOLE: One block of kBins threads, one per bin: bins[k] = the sum of bin k over the first `blocks`
  // HOLE: rows of block_bins, every bin written (0 for blocks = 0). A warp's loads read whole lines; each
  // HOLE: thread keeps 8 loads in flight (#pragma unroll 8 on its loop).
  const int bin = static_cast<int>(threadIdx.x);
  std::uint32_t total = 0;
  // The loads are independent: unrolled, several are in flight at once.
#pragma unroll 8
  for (int b = 0; b < blocks; ++b) total += block_bins[static_cast<std::size_t>(b) * kBins + bin];
  bins[bin] = total;
  // END HOLE
}
// END WALKTHROUGH: sum-blocks

// WALKTHROUGH: merged
__global__ void count_bytes_merged(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // HOLE: The block's share counted as in count_bytes_per_block, then added to bins with global atomics:
  // HOLE: at most one per bin per block, none for an empty bin. Every thread reaches every barrier.
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  add_share_to_block_histogram(in, n, shared_bins);
  __syncthreads();
  const std::uint32_t count = shared_bins[threadIdx.x];
  // At most 256 global atomics per block, on 256 different addresses.
  if (count > 0) atomicAdd(&bins[threadIdx.x], count);
  // END HOLE
}
// END WALKTHROUGH: merged

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

// WALKTHROUGH: two-phase
void histogram_two_phase(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                         std::uint32_t* block_bins, cudaStream_t stream) {
  check_arguments("histogram_two_phase", in, n, bins, "kBins = 256 counts");
  if (block_bins == nullptr) {
    throw std::invalid_argument(
        "histogram_two_phase: block_bins is nullptr; pass a device array of kMaxGridBlocks * kBins counts");
  }
  // HOLE: Leave the histogram of in[0, n) in bins, on `stream`: phase 1 into block_bins, then phase 2
  // HOLE: over the histograms phase 1 wrote, with the launchers above. For n = 0 every bin must be 0.
  launch_count_bytes_per_block(in, n, block_bins, stream);
  launch_sum_block_histograms(block_bins, grid_blocks(n), bins, stream);
  // END HOLE
}
// END WALKTHROUGH: two-phase

void histogram_shared_atomics(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                              cudaStream_t stream) {
  check_arguments("histogram_shared_atomics", in, n, bins, "kBins = 256 counts");
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  launch_count_bytes_merged(in, n, bins, stream);
}

// ---------------------------------------------------------------------------
// Part 3: contention

// WALKTHROUGH: match-any
__global__ void count_bytes_match_any(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // HOLE: The result of count_bytes_merged, the bulk split as in add_share_to_block_histogram
  // HOLE: (split_for_vectors, one uint4 load per vector) but in a loop per warp, one vector per lane per
  // HOLE: round, and for each of a vector's 16 byte positions the lanes of a warp that hold equal
  // HOLE: bytes make one shared atomic together (__match_any_sync, leader_of). Every lane named in
  // HOLE: the mask of a *_sync call must execute it, also a lane with no vector left; the head and
  // HOLE: tail bytes need no match.
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  const VectorSplit split = split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  const int lane = lane_index();
  const std::size_t step = grid_threads();
  // base is the same in all 32 lanes, so the warp runs the loop as one: every
  // lane reaches every vote, also a lane whose own vector is past the end.
  for (std::size_t base = global_thread() - lane; base < split.vectors; base += step) {
    const std::size_t v = base + lane;
    const unsigned valid = __ballot_sync(kFullMask, v < split.vectors);
    if (v < split.vectors) {
      const uint4 data = vectors[v];
      const std::uint32_t words[4] = {data.x, data.y, data.z, data.w};
#pragma unroll
      for (int k = 0; k < kVectorBytes; ++k) {
        const int value = byte_of(words[k / 4], k % 4);
        // The lanes (among the valid ones) holding this value; one of them counts for all.
        const unsigned peers = __match_any_sync(valid, value);
        if (lane == leader_of(peers))
          atomicAdd(&shared_bins[value], static_cast<std::uint32_t>(__popc(peers)));
      }
    }
  }
  const std::size_t first = global_thread();
  if (first < split.head) atomicAdd(&shared_bins[in[first]], 1u);
  if (first < split.tail) atomicAdd(&shared_bins[in[split.head + split.vectors * kVectorBytes + first]], 1u);
  __syncthreads();
  const std::uint32_t count = shared_bins[threadIdx.x];
  if (count > 0) atomicAdd(&bins[threadIdx.x], count);
  // END HOLE
}
// END WALKTHROUGH: match-any

// WALKTHROUGH: lane-slots
__host__ __device__ int lane_copy_slot(int bin, int lane) {
  // HOLE: Return where lane `lane`'s count of `bin` lives among the kLaneCopySlots counts: one slot per
  // HOLE: (bin, lane), and the 32 lanes of a warp in 32 different banks, whatever bins they count.
  // STUB: return 0;
  return bin * kLaneCopies + lane;
  // END HOLE
}

__host__ __device__ int merge_lane(int bin, int step) {
  // HOLE: Return which lane's copy the thread merging `bin` reads at step `step`: over the 32 steps each
  // HOLE: copy of the bin once; at every step a warp's threads (32 consecutive bins) in 32 banks.
  // STUB: return 0;
  return (bin + step) % kLaneCopies;
  // END HOLE
}
// END WALKTHROUGH: lane-slots

// SOLUTION-ONLY: No run-length counting here: why, with the measured figures, is table question 4 of
// SOLUTION-ONLY: solutions/09-histograms/ANSWERS.md (the experiment's row "lane copies + runs").
// The grid asks for four blocks of 256 threads per SM (kBlocksPerSm): at most
// 64 registers per thread, so that registers never keep four blocks off an
// SM, even on sm_75 (1024 threads and 64 K registers per SM). Shared memory
// may: four blocks' 32 KiB of copies fit an H200's SM, an sm_75 SM (64 KiB)
// holds two.
constexpr int kLaneCopiesMinBlocksPerSm = 4;

// WALKTHROUGH: lane-copies
__global__ void __launch_bounds__(kThreadsPerBlock, kLaneCopiesMinBlocksPerSm)
    count_bytes_lane_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  // HOLE: The result of count_bytes_merged, from kLaneCopies copies of the histogram in kLaneCopySlots
  // HOLE: shared counts, zeroed first (kLaneCopySlots / kThreadsPerBlock = 32 a thread, neighbouring
  // HOLE: threads on neighbouring slots): every byte adds 1 to its lane's copy (lane_copy_slot) with a
  // HOLE: shared atomicAdd, since lane l of all the block's warps shares that copy. The vectors of
  // HOLE: split_for_vectors come in batches of kThreadsPerBlock * kVectorsPerThread vectors (1024;
  // HOLE: kChunkBytes is only 256 vectors); block b takes batches b, b + gridDim.x, ...; in a batch,
  // HOLE: thread t loads vectors t, t + kThreadsPerBlock, ... (its kVectorsPerThread), all of them
  // HOLE: before it counts any. The head and tail bytes as in TODO(2), into the lane's copy. Thread k
  // HOLE: adds the copies of bin k, read in merge_lane() order, to bins[k]. Every thread reaches every
  // HOLE: barrier.
  __shared__ std::uint32_t copies[kLaneCopySlots];
  for (int slot = static_cast<int>(threadIdx.x); slot < kLaneCopySlots; slot += kThreadsPerBlock)
    copies[slot] = 0;
  __syncthreads();

  const int lane = lane_index();
  const VectorSplit split = split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  constexpr std::size_t kChunkVectors = static_cast<std::size_t>(kThreadsPerBlock) * kVectorsPerThread;
  for (std::size_t chunk_start = blockIdx.x * kChunkVectors; chunk_start < split.vectors;
       chunk_start += gridDim.x * kChunkVectors) {
    // All loads first, then the counting: each thread has 64 bytes in flight
    // while the shared atomics of the previous chunk are still being served.
    uint4 data[kVectorsPerThread];
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const std::size_t v = chunk_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
      data[k] = v < split.vectors ? vectors[v] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const std::size_t v = chunk_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
      if (v >= split.vectors) continue;  // a zero there is not a byte of the input
      const std::uint32_t words[4] = {data[k].x, data[k].y, data[k].z, data[k].w};
      // One shared atomic per byte, into this lane's copy: whatever the input,
      // the 32 lanes of a warp hit 32 banks and never one word together.
#pragma unroll
      for (int b = 0; b < kVectorBytes; ++b)
        atomicAdd(&copies[lane_copy_slot(byte_of(words[b / 4], b % 4), lane)], 1u);
    }
  }
  const std::size_t first = global_thread();
  if (first < split.head) atomicAdd(&copies[lane_copy_slot(in[first], lane)], 1u);
  if (first < split.tail) {
    atomicAdd(&copies[lane_copy_slot(in[split.head + split.vectors * kVectorBytes + first], lane)], 1u);
  }
  __syncthreads();

  // Thread k merges bin k. Its 32 copies lie in 32 banks; the skewed order
  // makes the 32 threads of a warp read 32 different banks at every step.
  const int bin = static_cast<int>(threadIdx.x);
  std::uint32_t count = 0;
#pragma unroll 8
  for (int step = 0; step < kLaneCopies; ++step) count += copies[lane_copy_slot(bin, merge_lane(bin, step))];
  if (count > 0) atomicAdd(&bins[bin], count);
  // END HOLE
}
// END WALKTHROUGH: lane-copies

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

// WALKTHROUGH: rgb
__host__ __device__ int rgb_bin(std::uint32_t pixel, int channel) {
  // HOLE: Return the bin of channel `channel` (0 red, 1 green, 2 blue) of `pixel` among the kRgbBins
  // HOLE: bins: the channel's own kBins bins, at the channel's byte (red is the byte first in memory).
  // STUB: return 0;
  return channel * kBins + static_cast<int>((pixel >> (8 * channel)) & 0xFFu);
  // END HOLE
}

__global__ void count_rgb(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins) {
  // HOLE: Each block counts its share of the pixels (every pixel once, one 4-byte load each) into a
  // HOLE: __shared__ histogram of kRgbBins counts that starts at 0, at rgb_bin() for red, green and blue,
  // HOLE: never alpha; then adds each nonzero count to bins with one global atomicAdd. Every thread
  // HOLE: reaches every barrier.
  __shared__ std::uint32_t shared_bins[kRgbBins];
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) shared_bins[k] = 0;
  __syncthreads();
  const std::size_t step = grid_threads();
  for (std::size_t p = global_thread(); p < pixel_count; p += step) {
    // One load brings all four channels: a warp reads 128 consecutive bytes.
    const std::uint32_t pixel = pixels[p];
#pragma unroll
    for (int channel = 0; channel < kRgbChannels; ++channel)
      atomicAdd(&shared_bins[rgb_bin(pixel, channel)], 1u);
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) {
    if (shared_bins[k] > 0) atomicAdd(&bins[k], shared_bins[k]);
  }
  // END HOLE
}
// END WALKTHROUGH: rgb

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

// WALKTHROUGH: wide
__global__ void count_wide_match_any(const std::uint16_t* in, std::size_t n, std::uint32_t* bins) {
  // HOLE: Add the histogram of in[0, n) to the kWideBins counts of bins, every value counted once, with
  // HOLE: global atomics (too many bins for shared memory); lanes of a warp holding equal values make
  // HOLE: one atomic together (__match_any_sync). The rounds start at the warp's first index (the grid
  // HOLE: index of its lane 0), step by the grid's threads times kWideItemsPerThread and run while their
  // HOLE: first index is below n. In a round each lane has kWideItemsPerThread loads in flight, a grid
  // HOLE: width apart, and at each of them the 32 lanes of a warp read 32 consecutive values (so that
  // HOLE: equal neighbours meet in one match); every lane named in a *_sync call's mask must execute it.
  const int lane = lane_index();
  const std::size_t step = grid_threads();
  const std::size_t round = step * kWideItemsPerThread;
  for (std::size_t base = global_thread() - lane; base < n; base += round) {
    unsigned values[kWideItemsPerThread];
    // All loads of the round first: each thread keeps kWideItemsPerThread of
    // them in flight instead of waiting for one load per atomic.
#pragma unroll
    for (int k = 0; k < kWideItemsPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * step + lane;
      values[k] = i < n ? in[i] : 0u;
    }
#pragma unroll
    for (int k = 0; k < kWideItemsPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * step + lane;
      const unsigned valid = __ballot_sync(kFullMask, i < n);
      if (i < n) {
        const unsigned peers = __match_any_sync(valid, values[k]);
        // Equal values in a warp become one atomic in L2: a hot bin is hit
        // once per warp instead of 32 times.
        if (lane == leader_of(peers)) atomicAdd(&bins[values[k]], static_cast<std::uint32_t>(__popc(peers)));
      }
    }
  }
  // END HOLE
}
// END WALKTHROUGH: wide

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
