// Lab 09's open part-3 miss (labs/09-histograms/README.md, "What to expect", Part 3's models;
// measurements.md, table 1): the one-copy kernel merged with atomics (histogram_shared_atomics(),
// count_bytes_merged) took 1.18 to 1.23 times the time of "a pass a word" on the three inputs.
// Hypothesis: its loads cost part of that, as a thread has one 16-byte vector in flight and counts
// it before it loads the next. Test: the same kernel with four 16-byte vectors in flight a thread
// (the lane copies' batches of 256 x 4 vectors, all four loaded before any is counted), one copy
// of the histogram as before. If the loads cost the rest, the four-load variant comes near a pass
// a word (0.404, 0.514, 0.255 ms on uniform, four bins, one bin); if not, it stays near the
// reference's 0.498, 0.605, 0.306 ms.
//
// Rows, on the experiment's inputs (experiment.cu's fill_bytes: workbook::hash_index bytes),
// n = 2^30, workbook::time_gpu with a cold L2, as the experiment times table 1:
//   histogram_shared_atomics()  the reference as the experiment runs it (memset + count_bytes_merged)
//   count_bytes_merged_copy     its kernel copied here (+ memset): a control for the build
//   count_bytes_merged_four     the same, four vectors in flight a thread (+ memset)
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab09_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/09-histograms -Icommon/include \
//     -c solutions/09-histograms/probes/one_copy_four_loads.cu -o build/probes/one_copy_four_loads.o
//   nvcc -arch=sm_90 -o build/probes/one_copy_four_loads build/probes/one_copy_four_loads.o \
//     build/default/liblab09_solution.a build/default/common/libworkbook_common.a
//   build/probes/one_copy_four_loads
// It lives beside the solution, not in tools/probes/, because it copies the reference's kernel
// (the student release's leak check refuses it).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "histogram.cuh"
#include "histogram_probe_input.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using histogram::kBins;
using histogram::kThreadsPerBlock;
using histogram::kVectorBytes;
using histogram::kVectorsPerThread;
using histogram::VectorSplit;

using histogram_probe::fill_bytes;
using histogram_probe::global_thread;
using histogram_probe::grid_threads;
using histogram_probe::Kind;
using histogram_probe::to_string;
__device__ int byte_of(std::uint32_t word, int k) {
  return static_cast<int>((word >> (8 * k)) & 0xFFu);
}
__device__ void count_word(std::uint32_t word, std::uint32_t* shared_bins) {
#pragma unroll
  for (int k = 0; k < 4; ++k) atomicAdd(&shared_bins[byte_of(word, k)], 1u);
}

// solutions/09-histograms/histogram.cu's count_bytes_merged (with add_share_to_block_histogram
// inlined), copied: one vector a thread a step, counted before the next is loaded.
__global__ void count_bytes_merged_copy(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  const VectorSplit split = histogram::split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  const std::size_t first = global_thread();
  const std::size_t step = grid_threads();
  for (std::size_t v = first; v < split.vectors; v += step) {
    const uint4 data = vectors[v];
    count_word(data.x, shared_bins);
    count_word(data.y, shared_bins);
    count_word(data.z, shared_bins);
    count_word(data.w, shared_bins);
  }
  if (first < split.head) atomicAdd(&shared_bins[in[first]], 1u);
  if (first < split.tail) atomicAdd(&shared_bins[in[split.head + split.vectors * kVectorBytes + first]], 1u);
  __syncthreads();
  const std::uint32_t count = shared_bins[threadIdx.x];
  if (count > 0) atomicAdd(&bins[threadIdx.x], count);
}

// The same one copy, with count_bytes_lane_copies' loads: block b takes batches b, b + gridDim.x,
// ... of 256 x 4 vectors; in a batch, thread t loads vectors t, t + 256, t + 512, t + 768, all
// four before it counts any.
__global__ void count_bytes_merged_four(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  const VectorSplit split = histogram::split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  constexpr std::size_t kChunkVectors = static_cast<std::size_t>(kThreadsPerBlock) * kVectorsPerThread;
  for (std::size_t chunk_start = blockIdx.x * kChunkVectors; chunk_start < split.vectors;
       chunk_start += gridDim.x * kChunkVectors) {
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
      count_word(data[k].x, shared_bins);
      count_word(data[k].y, shared_bins);
      count_word(data[k].z, shared_bins);
      count_word(data[k].w, shared_bins);
    }
  }
  const std::size_t first = global_thread();
  if (first < split.head) atomicAdd(&shared_bins[in[first]], 1u);
  if (first < split.tail) atomicAdd(&shared_bins[in[split.head + split.vectors * kVectorBytes + first]], 1u);
  __syncthreads();
  const std::uint32_t count = shared_bins[threadIdx.x];
  if (count > 0) atomicAdd(&bins[threadIdx.x], count);
}

int registers_of(const void* kernel) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.numRegs;
}

}  // namespace

int main() {
  const std::size_t n = std::size_t{1} << 30;
  workbook::DeviceBuffer<std::uint8_t> in(n);
  workbook::DeviceBuffer<std::uint32_t> bins(kBins);
  const unsigned grid = static_cast<unsigned>(histogram::grid_blocks(n));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s; n = 2^30 bytes, grid %u blocks of %d, workbook::time_gpu, cold L2\n", prop.name, grid,
              kThreadsPerBlock);
  std::printf("registers a thread: count_bytes_merged_copy %d, count_bytes_merged_four %d\n",
              registers_of(reinterpret_cast<const void*>(count_bytes_merged_copy)),
              registers_of(reinterpret_cast<const void*>(count_bytes_merged_four)));
  const auto with_memset = [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, kBins * sizeof(std::uint32_t), s));
  };
  struct Row {
    const char* name;
    std::function<void(cudaStream_t)> run;
  };
  const std::vector<Row> rows = {
      {"histogram_shared_atomics() (reference)",
       [&](cudaStream_t s) { histogram::histogram_shared_atomics(in.data(), n, bins.data(), s); }},
      {"count_bytes_merged_copy (+ memset)",
       [&](cudaStream_t s) {
         with_memset(s);
         count_bytes_merged_copy<<<grid, kThreadsPerBlock, 0, s>>>(in.data(), n, bins.data());
       }},
      {"count_bytes_merged_four (+ memset)",
       [&](cudaStream_t s) {
         with_memset(s);
         count_bytes_merged_four<<<grid, kThreadsPerBlock, 0, s>>>(in.data(), n, bins.data());
       }},
  };
  for (const Kind kind : {Kind::uniform, Kind::four_bins_one_bank, Kind::one_bin}) {
    fill_bytes<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n, kind);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::printf("%s\n", to_string(kind));
    std::vector<std::uint32_t> reference;
    double reference_ms = 0;
    for (const Row& row : rows) {
      workbook::TimingOptions options;
      options.time_budget_ms = 1000.0;
      const workbook::TimingResult t = workbook::time_gpu(row.run, options);
      row.run(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<std::uint32_t> got = bins.to_host();
      if (reference.empty()) {
        reference = got;
        reference_ms = t.median_ms;
      }
      std::printf("  %-40s %9.4f ms %8.1f GB/s  x%.3f of the reference  %s  %s\n", row.name, t.median_ms,
                  static_cast<double>(n) / t.median_ms / 1e6, t.median_ms / reference_ms,
                  got == reference ? "same bins" : "WRONG", t.summary().c_str());
    }
  }
  return 0;
}
