// The four arrays of lab 02's probes, shared by chunk_blocks_per_sm.cu and
// loop_elements_per_step.cu: n floats each, a = 2, b = 3, c = 1, so every
// element a kernel wrote holds d = a * b + c = 7. Freed on destruction.
#pragma once
#include "../../../tools/probes/probe_common.cuh"

__global__ void fill_floats(float* x, std::size_t n, float value) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

struct AbcArrays {
  std::size_t n;
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  float* d = nullptr;

  explicit AbcArrays(std::size_t count) : n(count) {
    for (float** p : {&a, &b, &c, &d}) PROBE_CHECK(cudaMalloc(p, n * sizeof(float)));
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    fill_floats<<<blocks, 256>>>(a, n, 2.0f);
    fill_floats<<<blocks, 256>>>(b, n, 3.0f);
    fill_floats<<<blocks, 256>>>(c, n, 1.0f);
    PROBE_CHECK(cudaGetLastError());
  }
  ~AbcArrays() {
    for (float* p : {a, b, c, d}) cudaFree(p);
  }
  AbcArrays(const AbcArrays&) = delete;
  AbcArrays& operator=(const AbcArrays&) = delete;

  // Whether the last element of d holds a * b + c = 7.
  bool last_is_seven() const {
    float last = 0;
    PROBE_CHECK(cudaMemcpy(&last, d + n - 1, sizeof last, cudaMemcpyDeviceToHost));
    return last == 7.0f;
  }
};
