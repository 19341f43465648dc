// Shared by the probes in tools/probes: one checking macro and a median timer.
// The probes are single files a student can build with nvcc alone, so they do
// not use the course's harness in common/.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define PROBE_CHECK(call)                                                         \
  do {                                                                            \
    cudaError_t status_ = (call);                                                 \
    if (status_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorName(status_));                                    \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// The median of `runs` timed calls, after one untimed warm-up. before_each
// runs before every timed call, outside the timed span (an L2 flush, a reset).
template <typename Call, typename Before>
float median_ms(Call call, int runs, Before before_each) {
  cudaEvent_t start, stop;
  PROBE_CHECK(cudaEventCreate(&start));
  PROBE_CHECK(cudaEventCreate(&stop));
  call();
  PROBE_CHECK(cudaGetLastError());
  std::vector<float> times;
  for (int run = 0; run < runs; ++run) {
    before_each();
    PROBE_CHECK(cudaEventRecord(start));
    call();
    PROBE_CHECK(cudaEventRecord(stop));
    PROBE_CHECK(cudaEventSynchronize(stop));
    PROBE_CHECK(cudaGetLastError());
    float ms = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  PROBE_CHECK(cudaEventDestroy(start));
  PROBE_CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

template <typename Call>
float median_ms(Call call, int runs = 21) {
  return median_ms(call, runs, [] {});
}
