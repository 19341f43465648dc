// SOLUTION-ONLY: Lab 02 reference solution. labs/02-abc/abc.cu is generated from this
// SOLUTION-ONLY: file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 02: a*b+c. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade abc
// STUDENT-ONLY: The handout is labs/02-abc/README.md.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "abc.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"

namespace abc {

// WALKTHROUGH: one-per-element
__global__ void abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  // HOLE: Each thread of the grid owns one element i: d[i] = a[i] * b[i] + c[i] when i < n, and
  // HOLE: a thread past the end writes nothing. The index must not overflow for any n.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) d[i] = a[i] * b[i] + c[i];
  // END HOLE
}
// END WALKTHROUGH: one-per-element

// WALKTHROUGH: grid-stride
__global__ void abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  // HOLE: With a grid of any size, the threads together write d[i] = a[i] * b[i] + c[i] for
  // HOLE: every i < n, each once, and nothing past n; no index may overflow. The accesses of a
  // HOLE: warp stay coalesced at every step.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    d[i] = a[i] * b[i] + c[i];
  }
  // END HOLE
}
// END WALKTHROUGH: grid-stride

// WALKTHROUGH: sm-count
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
// END WALKTHROUGH: sm-count

// WALKTHROUGH: launch-one-per-element
void launch_abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  if (n == 0) return;
  // HOLE: Launch abc_one_per_element in blocks of kThreadsPerBlock threads, with a thread for
  // HOLE: every one of the n elements; check the launch with CUDA_CHECK_LAUNCH.
  const std::size_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  abc_one_per_element<<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(a, b, c, d, n);
  CUDA_CHECK_LAUNCH("abc_one_per_element");
  // END HOLE
}
// END WALKTHROUGH: launch-one-per-element

// WALKTHROUGH: launch-grid-stride
void launch_abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  if (n == 0) return;
  // HOLE: Launch abc_grid_stride in blocks of kThreadsPerBlock threads on a grid sized for the GPU
  // HOLE: (kGridStrideBlocksPerSm blocks per SM; sm_count() gives the SMs), but never more blocks
  // HOLE: than n needs; check the launch with CUDA_CHECK_LAUNCH.
  const std::size_t blocks_needed = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const std::size_t blocks =
      std::min<std::size_t>(blocks_needed, static_cast<std::size_t>(sm_count()) * kGridStrideBlocksPerSm);
  abc_grid_stride<<<static_cast<unsigned>(blocks), kThreadsPerBlock>>>(a, b, c, d, n);
  CUDA_CHECK_LAUNCH("abc_grid_stride");
  // END HOLE
}
// END WALKTHROUGH: launch-grid-stride

// WALKTHROUGH: round-trip
std::vector<float> abc_on_gpu(const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>& c) {
  if (a.size() != b.size() || a.size() != c.size()) {
    throw std::invalid_argument("abc_on_gpu: a, b and c must have the same size; got " +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + " and " +
                                std::to_string(c.size()));
  }
  // HOLE: Return d = a * b + c as a host vector, computed on the GPU by launch_abc_grid_stride.
  // HOLE: Device memory lives in workbook::DeviceBuffer (workbook::to_device helps), so none leaks.
  // STUB: return {};
  const workbook::DeviceBuffer<float> device_a = workbook::to_device(a);
  const workbook::DeviceBuffer<float> device_b = workbook::to_device(b);
  const workbook::DeviceBuffer<float> device_c = workbook::to_device(c);
  workbook::DeviceBuffer<float> device_d(a.size());
  launch_abc_grid_stride(device_a.data(), device_b.data(), device_c.data(), device_d.data(), a.size());
  return device_d.to_host();  // cudaMemcpy waits for the kernel to finish.
  // END HOLE
}
// END WALKTHROUGH: round-trip

}  // namespace abc
