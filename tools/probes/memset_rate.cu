// How fast the GPU fills memory with cudaMemset, against a device-to-device
// copy of the same bytes: lab 01's check of its one guess (that writes alone
// stream slower than the copy's read-and-write mix).
//
//   nvcc -O2 -o build/memset_rate tools/probes/memset_rate.cu && build/memset_rate
//
// Prints the median of 21 timed calls of each (one untimed warm-up first).
#include "probe_common.cuh"

int main() {
  const std::size_t bytes = (std::size_t{1} << 26) * 12;  // lab 01's record_thread_ids at n = 2^26
  void* a = nullptr;
  void* b = nullptr;
  PROBE_CHECK(cudaMalloc(&a, bytes));
  PROBE_CHECK(cudaMalloc(&b, bytes));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const float memset_ms = median_ms([&] { PROBE_CHECK(cudaMemset(a, 0x5A, bytes)); });
  const float copy_ms = median_ms([&] { PROBE_CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("GPU: %s\n", prop.name);
  std::printf("cudaMemset of %.1f MB: %.3f ms, %.1f GB/s written\n", bytes / 1e6, memset_ms,
              bytes / (memset_ms * 1e6));
  std::printf("cudaMemcpy device to device of %.1f MB: %.3f ms, %.1f GB/s read + written\n", bytes / 1e6,
              copy_ms, 2.0 * bytes / (copy_ms * 1e6));
  PROBE_CHECK(cudaFree(a));
  PROBE_CHECK(cudaFree(b));
  return 0;
}
