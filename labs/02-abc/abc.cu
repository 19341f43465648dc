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
  // TODO(1): Each thread of the grid owns one element i: d[i] = a[i] * b[i] + c[i] when i < n, and
  //          a thread past the end writes nothing. The index must not overflow for any n.
}

__global__ void abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  // TODO(2): With a grid of any size, the threads together write d[i] = a[i] * b[i] + c[i] for
  //          every i < n, each once, and nothing past n; no index may overflow. The accesses of a
  //          warp stay coalesced at every step.
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
  // TODO(3): Launch abc_one_per_element in blocks of kThreadsPerBlock threads, with a thread for
  //          every one of the n elements; check the launch with CUDA_CHECK_LAUNCH.
}

void launch_abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  if (n == 0) return;
  // TODO(4): Launch abc_grid_stride in blocks of kThreadsPerBlock threads on a grid sized for the GPU
  //          (kGridStrideBlocksPerSm blocks per SM; sm_count() gives the SMs), but never more blocks
  //          than n needs; check the launch with CUDA_CHECK_LAUNCH.
}

std::vector<float> abc_on_gpu(const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>& c) {
  if (a.size() != b.size() || a.size() != c.size()) {
    throw std::invalid_argument("abc_on_gpu: a, b and c must have the same size; got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + " and " +
                                std::to_string(c.size()));
  }
  // TODO(5): Return d = a * b + c as a host vector, computed on the GPU by launch_abc_grid_stride.
  //          Device memory lives in workbook::DeviceBuffer (workbook::to_device helps), so none leaks.
  return {};
}

}  // namespace abc
