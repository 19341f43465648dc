// Lab 03's answer 5: the tiled transpose (0.138 ms) beats the stride-1 copy
// (0.202 ms) on the same 2^26 floats, and the handout guesses why: each of its
// threads has 8 loads in flight before its first store, the copy's 1. This
// probe times a plain copy of 2^26 floats with 1, 2, 4, 8 and 16 loads in
// flight a thread (all loads, then all stores; load k of a thread is
// k x the grid's threads further on, so every warp load stays coalesced), cold
// L2, median of 21, in one run. The 1-load copy is TODO(3) at stride 1, so the
// probe lives beside the solutions and is not shipped.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o build/probes/copy_loads_per_thread \
//     solutions/03-coalescing/probes/copy_loads_per_thread.cu
//   build/probes/copy_loads_per_thread
#include "../../../tools/probes/probe_common.cuh"

template <int kItems>
__global__ void copy_items(float* out, const float* in, std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float values[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::size_t i = first + k * threads;
    values[k] = i < n ? in[i] : 0.0f;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::size_t i = first + k * threads;
    if (i < n) out[i] = values[k];
  }
}

template <int kItems>
void time_copy(float* out, const float* in, std::size_t n, void* flush, std::size_t flush_bytes) {
  const unsigned blocks = static_cast<unsigned>((n + 256 * kItems - 1) / (256 * kItems));
  const float ms = median_ms([&] { copy_items<kItems><<<blocks, 256>>>(out, in, n); }, 21,
                             [&] { PROBE_CHECK(cudaMemsetAsync(flush, kItems, flush_bytes)); });
  std::printf("  %2d load(s) a thread  %8u blocks of 256  %8.4f ms  %7.1f GB/s\n", kItems, blocks, ms,
              2.0 * 4.0 * static_cast<double>(n) / (ms * 1.0e6));
}

int main() {
  const std::size_t n = std::size_t{1} << 26;
  float *in = nullptr, *out = nullptr;
  PROBE_CHECK(cudaMalloc(&in, n * sizeof(float)));
  PROBE_CHECK(cudaMalloc(&out, n * sizeof(float)));
  PROBE_CHECK(cudaMemset(in, 0, n * sizeof(float)));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(prop.l2CacheSize);
  void* flush = nullptr;
  PROBE_CHECK(cudaMalloc(&flush, flush_bytes));
  std::printf(
      "%s: a copy of 2^26 floats, k loads in flight a thread, cold L2, median of 21; GB/s = read + written\n",
      prop.name);
  time_copy<1>(out, in, n, flush, flush_bytes);
  time_copy<2>(out, in, n, flush, flush_bytes);
  time_copy<4>(out, in, n, flush, flush_bytes);
  time_copy<8>(out, in, n, flush, flush_bytes);
  time_copy<16>(out, in, n, flush, flush_bytes);
  PROBE_CHECK(cudaFree(flush));
  PROBE_CHECK(cudaFree(out));
  PROBE_CHECK(cudaFree(in));
  return 0;
}
