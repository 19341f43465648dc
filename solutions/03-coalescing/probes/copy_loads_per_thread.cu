// Lab 03's answer 5: the tiled transpose (0.138 ms) beats the stride-1 copy
// (0.202 ms) on the same 2^26 floats, and the handout guesses why: each of its
// threads has 8 loads in flight before its first store, the copy's 1. This
// probe times a plain copy of 2^26 floats with 1, 2, 4, 8 and 16 loads in
// flight a thread (all loads, then all stores; load k of a thread is
// k x the grid's threads further on, so every warp load stays coalesced), cold
// L2, median of 21, in one run. The 1-load copy is TODO(3) at stride 1, so the
// probe lives beside the solutions and is not shipped.
//
// Answer 1's open remainders (stride 1's 0.027 ms over its rounds, stride 2's
// 0.035 ms over its bytes bound; we suspect the waits) get the rows after the
// first five: stride 1 with 4 elements a thread copied one at a time (the
// 4-load row's blocks, 1 load in flight: fewer blocks alone, or the loads in
// flight?), and stride 2 (out[i] = in[2 i], reading every sector) with 1, 2 and
// 4 loads a thread, each against its bytes at cudaMemcpy's rate timed here.
// Every output is checked against the host.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o build/probes/copy_loads_per_thread \
//     solutions/03-coalescing/probes/copy_loads_per_thread.cu
//   build/probes/copy_loads_per_thread
#include "../../../tools/probes/probe_common.cuh"

// kOneAtATime: each element is stored before the next is loaded, so a thread
// has one load in flight (no __restrict__: the loads cannot move up).
template <int kItems, int kStride = 1, bool kOneAtATime = false>
__global__ void copy_items(float* out, const float* in, std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if constexpr (kOneAtATime) {
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = first + k * threads;
      if (i < n) out[i] = in[i * kStride];
    }
  } else {
    float values[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = first + k * threads;
      values[k] = i < n ? in[i * kStride] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = first + k * threads;
      if (i < n) out[i] = values[k];
    }
  }
}

__global__ void fill_pattern(float* in, std::size_t count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) in[i] = static_cast<float>(i % 1000003);
}

bool all_correct = true;

// out[i] must be in[i * stride]; out was set to NaNs before the timing.
void check_output(const float* out, std::size_t n, int stride, const char* what) {
  std::vector<float> host(n);
  PROBE_CHECK(cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) {
    if (host[i] != static_cast<float>((i * stride) % 1000003)) {
      std::printf("  WRONG: %s, out[%zu] = %g\n", what, i, host[i]);
      all_correct = false;
      return;
    }
  }
}

// Returns the median ms; prints the row only when asked to (the first five rows'
// format is fixed by the recorded blocks).
template <int kItems, int kStride = 1, bool kOneAtATime = false>
float time_copy(float* out, const float* in, std::size_t n, void* flush, std::size_t flush_bytes,
                bool print = true) {
  const unsigned blocks = static_cast<unsigned>((n + 256 * kItems - 1) / (256 * kItems));
  PROBE_CHECK(cudaMemset(out, 0xFF, n * sizeof(float)));
  const float ms = median_ms([&] { copy_items<kItems, kStride, kOneAtATime><<<blocks, 256>>>(out, in, n); },
                             21, [&] { PROBE_CHECK(cudaMemsetAsync(flush, kItems, flush_bytes)); });
  if (print)
    std::printf("  %2d load(s) a thread  %8u blocks of 256  %8.4f ms  %7.1f GB/s\n", kItems, blocks, ms,
                2.0 * 4.0 * static_cast<double>(n) / (ms * 1.0e6));
  check_output(out, n, kStride, "a copy");
  return ms;
}

int main() {
  const std::size_t n = std::size_t{1} << 26;
  float *in = nullptr, *out = nullptr;
  PROBE_CHECK(cudaMalloc(&in, 2 * n * sizeof(float)));  // stride 2 reads 2n floats
  PROBE_CHECK(cudaMalloc(&out, n * sizeof(float)));
  fill_pattern<<<static_cast<unsigned>(2 * n / 256), 256>>>(in, 2 * n);
  PROBE_CHECK(cudaGetLastError());
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

  // Answer 1: each time against its bytes (DRAM reads + writes) at cudaMemcpy's rate.
  const float memcpy_ms =
      median_ms([&] { PROBE_CHECK(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDeviceToDevice)); },
                21, [&] { PROBE_CHECK(cudaMemsetAsync(flush, 1, flush_bytes)); });
  const double bytes_per_ms = 2.0 * 4.0 * static_cast<double>(n) / memcpy_ms;
  const double stride1_bound = 2.0 * 4.0 * static_cast<double>(n) / bytes_per_ms;
  const double stride2_bound =
      3.0 * 4.0 * static_cast<double>(n) / bytes_per_ms;  // 2 sectors read, 1 written
  std::printf("answer 1 (x bound = ms / (DRAM bytes at cudaMemcpy's rate)): cudaMemcpy %.4f ms\n", memcpy_ms);
  const auto row = [](const char* what, float ms, double bound) {
    std::printf("  %-34s %8.4f ms  %5.2f x bound (%.4f ms)\n", what, ms, ms / bound, bound);
  };
  row("stride 1, 1 load a thread", time_copy<1>(out, in, n, flush, flush_bytes, false), stride1_bound);
  row("stride 1, 4 loads a thread", time_copy<4>(out, in, n, flush, flush_bytes, false), stride1_bound);
  row("stride 1, 4 a thread one at a time", time_copy<4, 1, true>(out, in, n, flush, flush_bytes, false),
      stride1_bound);
  row("stride 2, 1 load a thread", time_copy<1, 2>(out, in, n, flush, flush_bytes, false), stride2_bound);
  row("stride 2, 2 loads a thread", time_copy<2, 2>(out, in, n, flush, flush_bytes, false), stride2_bound);
  row("stride 2, 4 loads a thread", time_copy<4, 2>(out, in, n, flush, flush_bytes, false), stride2_bound);
  row("stride 2, 4 a thread one at a time", time_copy<4, 2, true>(out, in, n, flush, flush_bytes, false),
      stride2_bound);
  std::printf(
      "# key: 4 one at a time near 1 load = the loads in flight set the remainder; near 4 loads = the block "
      "count "
      "does; stride 2 near 1.0x bound with 4 loads = its 0.035 ms was waits, still ~1.18x = its bytes\n");
  std::printf("outputs %s\n", all_correct ? "correct" : "WRONG");
  PROBE_CHECK(cudaFree(flush));
  PROBE_CHECK(cudaFree(out));
  PROBE_CHECK(cudaFree(in));
  return all_correct ? 0 : 1;
}
