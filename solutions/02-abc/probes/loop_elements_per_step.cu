// Lab 02's answer 1 leaves open why the grid-stride loop (one float of each
// array a step) reached 95 % of the copy bandwidth, not 100 %: a float4 loop
// closes the gap, but it both widens each load and puts more bytes in flight.
// This probe separates the two: the loop with 1, 2 and 4 float elements a step
// (all loads of a step issued before its stores; element k of a step is k x
// the grid's threads further on, so each warp load stays coalesced), the float4
// loop, and a device-to-device cudaMemcpy of 256 MB, in one run: 2^26 elements,
// 8 blocks of 256 per SM (the loop's grid in the experiment), cold L2 (a 2 x L2
// memset before each call), medians of 21. GB/s counts read plus written bytes.
// It copies the grid-stride loop a student writes in a TODO, so it stays out of
// the student release.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o build/probes/loop_elements_per_step \
//     solutions/02-abc/probes/loop_elements_per_step.cu
//   build/probes/loop_elements_per_step
#include "abc_arrays.cuh"

template <int kPerStep>
__global__ void abc_loop(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kPerStep - 1) * threads < n; i += kPerStep * threads) {
    float x[kPerStep], y[kPerStep], z[kPerStep];
#pragma unroll
    for (int k = 0; k < kPerStep; ++k) {
      x[k] = a[i + k * threads];
      y[k] = b[i + k * threads];
      z[k] = c[i + k * threads];
    }
#pragma unroll
    for (int k = 0; k < kPerStep; ++k) d[i + k * threads] = x[k] * y[k] + z[k];
  }
  for (; i < n; i += threads) d[i] = a[i] * b[i] + c[i];
}

__global__ void abc_loop_float4(const float4* a, const float4* b, const float4* c, float4* d,
                                std::size_t n4) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += threads) {
    const float4 x = a[i], y = b[i], z = c[i];
    d[i] = make_float4(x.x * y.x + z.x, x.y * y.y + z.y, x.z * y.z + z.z, x.w * y.w + z.w);
  }
}

int main() {
  const std::size_t n = std::size_t{1} << 26;
  const AbcArrays arrays(n);
  float *a = arrays.a, *b = arrays.b, *c = arrays.c, *d = arrays.d;
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const unsigned blocks = static_cast<unsigned>(prop.multiProcessorCount * 8);
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(prop.l2CacheSize);
  void* flush = nullptr;
  PROBE_CHECK(cudaMalloc(&flush, flush_bytes));
  int round = 0;
  const auto cold = [&] { PROBE_CHECK(cudaMemsetAsync(flush, ++round & 0xFF, flush_bytes)); };
  std::printf(
      "GPU: %s; 2^26 elements, %u blocks of 256; cold L2; medians of 21; GB/s = bytes read + written / "
      "time\n",
      prop.name, blocks);
  const float copy_ms = median_ms(
      [&] { PROBE_CHECK(cudaMemcpyAsync(d, a, n * sizeof(float), cudaMemcpyDeviceToDevice)); }, 21, cold);
  const double copy_gbps = 2.0 * 4.0 * static_cast<double>(n) / (copy_ms * 1e6);
  std::printf("  %-40s %8.4f ms %8.1f GB/s\n", "cudaMemcpy device to device, 256 MB", copy_ms, copy_gbps);
  bool ok = true;
  const auto row = [&](const char* label, float ms) {
    ok = ok && arrays.last_is_seven();
    const double gbps = 16.0 * static_cast<double>(n) / (ms * 1e6);
    std::printf("  %-40s %8.4f ms %8.1f GB/s %6.1f %% of the copy\n", label, ms, gbps,
                100.0 * gbps / copy_gbps);
    PROBE_CHECK(cudaMemset(d, 0, n * sizeof(float)));
  };
  row("loop, 1 float element a step",
      median_ms([&] { abc_loop<1><<<blocks, 256>>>(a, b, c, d, n); }, 21, cold));
  row("loop, 2 float elements a step",
      median_ms([&] { abc_loop<2><<<blocks, 256>>>(a, b, c, d, n); }, 21, cold));
  row("loop, 4 float elements a step",
      median_ms([&] { abc_loop<4><<<blocks, 256>>>(a, b, c, d, n); }, 21, cold));
  row("loop, one float4 a step", median_ms(
                                     [&] {
                                       abc_loop_float4<<<blocks, 256>>>(reinterpret_cast<const float4*>(a),
                                                                        reinterpret_cast<const float4*>(b),
                                                                        reinterpret_cast<const float4*>(c),
                                                                        reinterpret_cast<float4*>(d), n / 4);
                                     },
                                     21, cold));
  PROBE_CHECK(cudaFree(flush));
  std::printf("check: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
