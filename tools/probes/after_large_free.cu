// Lab 03's offset 0 against stride 1 (measurements.md): table 2's copies ran
// about 4.5 % slower than table 1's, on any buffers (tools/probes/
// offset_zero_order.cu). This probe asks what sets that: time in the process,
// an idle pause, a small or a large allocation freed. It times one copy
// kernel (the reference's strided_copy, stride 1, 2^26 floats, buffers kept
// throughout) again and again with workbook::time_gpu (cold L2), printing the
// seconds since the first row.
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab03_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ilabs/03-coalescing -Icommon/include \
//     -o build/probes/after_large_free tools/probes/after_large_free.cu \
//     build/default/liblab03_solution.a build/default/common/libworkbook_common.a
//   build/probes/after_large_free
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "coalescing.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

__global__ void fill_with_indices(float* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i & 0xFFFFFF);
}

}  // namespace

int main() {
  const std::size_t n = std::size_t{1} << 26;
  workbook::DeviceBuffer<float> in(n), out(n);
  fill_with_indices<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  const auto row = [&](const char* what) {
    const workbook::TimingResult t = workbook::time_gpu(
        [&](cudaStream_t s) { coalescing::launch_strided_copy(out.data(), in.data(), n, 1, s); });
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("  t=%6.2f s  %-40s %8.4f ms (%zu samples)\n", since, what, t.median_ms,
                static_cast<std::size_t>(t.samples));
  };
  for (int i = 0; i < 6; ++i) row("no free yet");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  row("after 2 s idle");
  { workbook::DeviceBuffer<float> small(1 << 20); }
  row("after a 4 MB alloc+free");
  for (int i = 0; i < 2; ++i) row("");
  { workbook::DeviceBuffer<float> large(32 * n); }
  row("after an 8.6 GB alloc+free");
  for (int i = 0; i < 4; ++i) row("");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  row("after 3 s idle");
  return 0;
}
