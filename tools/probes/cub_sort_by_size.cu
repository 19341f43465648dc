// Lab 08 compares CUB's SortKeys on the H200 with Merrill and Grimshaw's sort,
// whose rates are means over inputs of 32M keys (2^25) and more, while the
// lab's experiment times only 2^20, 2^24 and 2^28. This probe times
// cub::DeviceRadixSort::SortKeys on uniform random 32-bit keys at every power
// of two from 2^20 to 2^28 (cold L2, median of 11), so the two can be compared
// at the paper's sizes. With `--profile LOG2N` it sorts 2^LOG2N keys once, for
// Nsight Compute (tools/ncu_probe.sh ... 'Onesweep' METRICS -- --profile 28).
// The item count is passed as an int, as lab 08's yardstick passes it
// (tests/cub_yardstick.cuh): CUB compiles another kernel for 64-bit counts.
//
//   nvcc -O3 -std=c++17 -arch=native -o build/cub_sort_by_size tools/probes/cub_sort_by_size.cu
//   build/cub_sort_by_size
#include <cub/device/device_radix_sort.cuh>
#include <cstring>

#include "probe_common.cuh"

// A splitmix-style hash of the index: the same uniform keys on every run.
__global__ void fill_random_keys(unsigned* keys, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  unsigned long long z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  keys[i] = static_cast<unsigned>(z ^ (z >> 31));
}

struct Sorter {
  std::size_t n;
  unsigned* in = nullptr;
  unsigned* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;

  explicit Sorter(std::size_t count) : n(count) {
    PROBE_CHECK(cudaMalloc(&in, n * sizeof(unsigned)));
    PROBE_CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
    fill_random_keys<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in, n);
    PROBE_CHECK(cudaGetLastError());
    PROBE_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, static_cast<int>(n)));
    PROBE_CHECK(cudaMalloc(&temp, temp_bytes));
  }
  ~Sorter() {
    cudaFree(in);
    cudaFree(out);
    cudaFree(temp);
  }
  void sort() { PROBE_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, static_cast<int>(n))); }
};

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--profile") == 0) {
    Sorter sorter(std::size_t{1} << std::atoi(argv[2]));
    sorter.sort();
    PROBE_CHECK(cudaDeviceSynchronize());
    return 0;
  }
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  // Writing a buffer twice the L2's size before each timed sort evicts the keys.
  const std::size_t flush_bytes = 2 * static_cast<std::size_t>(prop.l2CacheSize);
  void* flush = nullptr;
  PROBE_CHECK(cudaMalloc(&flush, flush_bytes));
  std::printf("%s, cub::DeviceRadixSort::SortKeys, uniform random 32-bit keys, cold L2, median of 11\n",
              prop.name);
  std::printf("  %-6s %10s %10s\n", "n", "ms", "Gkeys/s");
  for (int log2n = 20; log2n <= 28; ++log2n) {
    Sorter sorter(std::size_t{1} << log2n);
    const float ms = median_ms([&] { sorter.sort(); }, 11,
                               [&] { PROBE_CHECK(cudaMemsetAsync(flush, log2n, flush_bytes)); });
    std::printf("  2^%-4d %10.4f %10.2f\n", log2n, ms, static_cast<double>(sorter.n) / (ms * 1.0e6));
  }
  PROBE_CHECK(cudaFree(flush));
  return 0;
}
