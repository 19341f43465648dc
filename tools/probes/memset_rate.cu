// How fast the GPU fills memory with cudaMemset, against a device-to-device
// copy of the same bytes: lab 01's check of its one guess (that writes alone
// stream slower than the copy's read-and-write mix).
//
//   nvcc -O2 -o build/memset_rate tools/probes/memset_rate.cu && build/memset_rate
//
// Prints the median of 21 timed calls of each (one untimed warm-up first).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    cudaError_t status = (call);                                                                             \
    if (status != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorName(status)); \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

template <typename Call>
static float median_ms(Call call) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  call();  // warm-up, untimed
  std::vector<float> times;
  for (int run = 0; run < 21; ++run) {
    CHECK(cudaEventRecord(start));
    call();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

int main() {
  const std::size_t bytes = (std::size_t{1} << 26) * 12;  // lab 01's record_thread_ids at n = 2^26
  void* a = nullptr;
  void* b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const float memset_ms = median_ms([&] { CHECK(cudaMemset(a, 0x5A, bytes)); });
  const float copy_ms = median_ms([&] { CHECK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("GPU: %s\n", prop.name);
  std::printf("cudaMemset of %.1f MB: %.3f ms, %.1f GB/s written\n", bytes / 1e6, memset_ms,
              bytes / (memset_ms * 1e6));
  std::printf("cudaMemcpy device to device of %.1f MB: %.3f ms, %.1f GB/s read + written\n", bytes / 1e6,
              copy_ms, 2.0 * bytes / (copy_ms * 1e6));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
