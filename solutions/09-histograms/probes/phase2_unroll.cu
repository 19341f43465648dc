// Lab 09's phase 2 (sum_block_histograms: one block, thread k sums bin k over
// the 528 block rows, 8 loads in flight by #pragma unroll 8) took 0.50 us a
// round of 8 loads, more than one idle load latency (0.433 us). Hypothesis: a
// thread's 8 loads do not fully overlap. Test: the same kernel (a copy of the
// reference's) unrolled 1, 2, 4, 8 and 16 times, rows cold in DRAM (a 256 MB
// write before each run). If the time falls in proportion to the unroll, the
// loads overlap; if it falls less, they do not fully.
//
//   nvcc -O2 -arch=native -o build/phase2_unroll solutions/09-histograms/probes/phase2_unroll.cu
//   build/phase2_unroll
#include <cstdint>

// It copies a kernel a student writes in a TODO, so it stays out of the student release.
#include "../../../tools/probes/probe_common.cuh"

constexpr int kBins = 256;

template <int kUnroll>
__global__ void sum_block_histograms(const std::uint32_t* block_bins, int blocks, std::uint32_t* bins) {
  const int bin = static_cast<int>(threadIdx.x);
  std::uint32_t total = 0;
#pragma unroll kUnroll
  for (int b = 0; b < blocks; ++b) total += block_bins[static_cast<std::size_t>(b) * kBins + bin];
  bins[bin] = total;
}

__global__ void fill_ones(std::uint32_t* x, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1;
}

template <int kUnroll>
void time_row(const std::uint32_t* rows, int blocks, std::uint32_t* bins, void* flush,
              std::size_t flush_bytes) {
  const float ms = median_ms([&] { sum_block_histograms<kUnroll><<<1, kBins>>>(rows, blocks, bins); }, 21,
                             [&] { PROBE_CHECK(cudaMemsetAsync(flush, kUnroll, flush_bytes)); });
  std::uint32_t out[kBins];
  PROBE_CHECK(cudaMemcpy(out, bins, sizeof out, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (std::uint32_t v : out) ok = ok && v == static_cast<std::uint32_t>(blocks);
  std::printf("  unroll %-3d %10.4f ms %10.3f us a round of %d loads   %s\n", kUnroll, ms,
              ms * 1000.0f / ((blocks + kUnroll - 1) / kUnroll), kUnroll, ok ? "ok" : "WRONG");
}

int main() {
  const int blocks = 528;  // 66 rounds of 8: the rows lab 09's phase 2 sums on the H200
  const std::size_t words = static_cast<std::size_t>(blocks) * kBins;
  const std::size_t flush_bytes = std::size_t{256} << 20;
  std::uint32_t *rows, *bins;
  void* flush;
  PROBE_CHECK(cudaMalloc(&rows, words * sizeof(std::uint32_t)));
  PROBE_CHECK(cudaMalloc(&bins, kBins * sizeof(std::uint32_t)));
  PROBE_CHECK(cudaMalloc(&flush, flush_bytes));
  fill_ones<<<static_cast<unsigned>((words + 255) / 256), 256>>>(rows, words);
  PROBE_CHECK(cudaGetLastError());
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU: %s; phase 2 over %d rows of %d bins, cold L2, medians of 21 (kernel and its launch)\n",
              prop.name, blocks, kBins);
  time_row<1>(rows, blocks, bins, flush, flush_bytes);
  time_row<2>(rows, blocks, bins, flush, flush_bytes);
  time_row<4>(rows, blocks, bins, flush, flush_bytes);
  time_row<8>(rows, blocks, bins, flush, flush_bytes);
  time_row<16>(rows, blocks, bins, flush, flush_bytes);
  PROBE_CHECK(cudaFree(rows));
  PROBE_CHECK(cudaFree(bins));
  PROBE_CHECK(cudaFree(flush));
  return 0;
}
