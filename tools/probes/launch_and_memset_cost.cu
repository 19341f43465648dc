// Labs 06 and 07 price a call's fixed cost t0 at "about 3 us a launch" and
// guess that lab 07's single pass (two cudaMemsetAsync of a few bytes, then one
// kernel) costs less than reduce-then-scan's three kernels because a memset is
// cheaper than a launch. This probe times, with CUDA events on one stream, the
// sequences themselves with kernels that do nothing: medians of 101.
//
//   nvcc -O2 -arch=native -o build/launch_and_memset_cost tools/probes/launch_and_memset_cost.cu
//   build/launch_and_memset_cost
#include "probe_common.cuh"

__global__ void empty_kernel(int* sink) {
  if (sink != nullptr && threadIdx.x == 1024) *sink = 0;  // never true: keeps the launch
}

int main() {
  int* scratch = nullptr;
  PROBE_CHECK(cudaMalloc(&scratch, 1 << 20));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  auto launch = [&](int blocks) { empty_kernel<<<blocks, 256>>>(scratch); };
  auto memset = [&](std::size_t bytes) { PROBE_CHECK(cudaMemsetAsync(scratch, 0, bytes)); };
  struct Row {
    const char* label;
    float ms;
  };
  const int full = prop.multiProcessorCount * 8;  // a full wave of blocks of 256
  const Row rows[] = {
      {"1 empty kernel, 1 block", median_ms([&] { launch(1); }, 101)},
      {"1 empty kernel, a full wave", median_ms([&] { launch(full); }, 101)},
      {"2 empty kernels, 1 block each", median_ms(
                                            [&] {
                                              launch(1);
                                              launch(1);
                                            },
                                            101)},
      {"3 empty kernels, 1 block each", median_ms(
                                            [&] {
                                              launch(1);
                                              launch(1);
                                              launch(1);
                                            },
                                            101)},
      {"1 memset of 8 bytes", median_ms([&] { memset(8); }, 101)},
      {"2 memsets (8 B, 4 B), 1 kernel", median_ms(
                                             [&] {
                                               memset(8);
                                               memset(4);
                                               launch(1);
                                             },
                                             101)},
      {"2 memsets (300 KB, 4 B), 1 kernel", median_ms(
                                                [&] {
                                                  memset(300000);
                                                  memset(4);
                                                  launch(1);
                                                },
                                                101)},
  };
  std::printf("GPU: %s; CUDA-event time of each sequence on one stream, medians of 101\n", prop.name);
  for (const Row& r : rows) std::printf("  %-36s %8.2f us\n", r.label, r.ms * 1000.0f);
  PROBE_CHECK(cudaFree(scratch));
  return 0;
}
