// Lab 02's contiguous chunk per thread ran at 45 % of the copy bandwidth, a
// slow DRAM rate its measurements.md left open. Hypothesis: each SM's queue of
// outstanding loads, full of one-sector requests, sets the pace. Test: the same
// kernel (a copy of labs/02-abc/experiment.cu's) on 2^26 elements with 1, 2, 4
// and 8 blocks of 256 threads per SM (8 fill an H200 SM), beside the coalesced
// grid-stride loop at the same grids. If the chunk's time stops falling once a
// few blocks share an SM, while the loop's keeps falling, the queue, not the
// threads in flight, sets it.
//
//   nvcc -O2 -arch=native -o build/chunk_blocks_per_sm solutions/02-abc/probes/chunk_blocks_per_sm.cu
//   build/chunk_blocks_per_sm
// It copies a kernel a student writes in a TODO, so it stays out of the student release.
#include "abc_arrays.cuh"

__global__ void abc_chunk_per_thread(const float* a, const float* b, const float* c, float* d,
                                     std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t chunk = (n + threads - 1) / threads;
  const std::size_t begin = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  for (std::size_t i = begin; i < begin + chunk && i < n; ++i) d[i] = a[i] * b[i] + c[i];
}

__global__ void abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = a[i] * b[i] + c[i];
}

int main() {
  const std::size_t n = std::size_t{1} << 26;
  const AbcArrays arrays(n);
  float *a = arrays.a, *b = arrays.b, *c = arrays.c, *d = arrays.d;
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("GPU: %s, %d SMs; 2^26 elements, 16 bytes each; medians of 11; GB/s = 16 n / time\n", prop.name,
              sms);
  std::printf("  %-14s %10s %10s %10s %10s\n", "blocks per SM", "chunk ms", "GB/s", "loop ms", "GB/s");
  bool ok = true;
  for (const int per_sm : {1, 2, 4, 8}) {
    const unsigned blocks = static_cast<unsigned>(sms * per_sm);
    const float chunk_ms = median_ms([&] { abc_chunk_per_thread<<<blocks, 256>>>(a, b, c, d, n); }, 11);
    ok = ok && arrays.last_is_seven();
    const float loop_ms = median_ms([&] { abc_grid_stride<<<blocks, 256>>>(a, b, c, d, n); }, 11);
    std::printf("  %-14d %10.3f %10.1f %10.3f %10.1f\n", per_sm, chunk_ms, 16.0 * n / (chunk_ms * 1e6),
                loop_ms, 16.0 * n / (loop_ms * 1e6));
  }
  std::printf("check: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
