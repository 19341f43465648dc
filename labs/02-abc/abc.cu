// Lab 02: a*b+c. This is your file: fill in each TODO, then run
//   ./workbook grade abc
// The handout is labs/02-abc/README.md.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "abc.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"

namespace abc {

__global__ void abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  // TODO(1): Compute the global index i (as std::size_t, so that large n cannot
  //          overflow an int) and, if i < n, write d[i] = a[i] * b[i] + c[i].
}

__global__ void abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  // TODO(2): Start at the global index and step by the number of threads in the
  //          whole grid (gridDim.x * blockDim.x) until you pass n. Neighbouring
  //          threads then touch neighbouring elements in every step: coalesced.
}

namespace {
// The number of SMs of the current GPU, read once.
[[maybe_unused]] int sm_count() {
  static const int count = [] {
    int device = 0;
    int value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return value;
  }();
  return count;
}
}  // namespace

void launch_abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  if (n == 0) return;
  // TODO(3): Launch abc_one_per_element with kThreadsPerBlock threads per block and
  //          enough blocks for n elements (round up), then CUDA_CHECK_LAUNCH.
}

void launch_abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  if (n == 0) return;
  // TODO(4): Launch abc_grid_stride with kThreadsPerBlock threads per block and
  //          kGridStrideBlocksPerSm blocks per SM, but never more blocks than n
  //          needs; then CUDA_CHECK_LAUNCH. The SM count comes from sm_count().
}

std::vector<float> abc_on_gpu(const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>& c) {
  if (a.size() != b.size() || a.size() != c.size()) {
    throw std::invalid_argument("abc_on_gpu: a, b and c must have the same size; got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + " and " +
                                std::to_string(c.size()));
  }
  // TODO(5): Copy a, b and c to the device (workbook::to_device), allocate a
  //          DeviceBuffer<float> for d, run launch_abc_grid_stride and return d
  //          copied back to the host. The buffers free themselves at the end of scope.
  return {};
}

}  // namespace abc
