// Lab 02 experiment: how fast is a*b+c, and which launch configurations reach
// the memory's speed of light? Run: ./workbook bench abc
// Besides your two kernels it times two deliberately poor variants, written
// here, so you can see what the speed test guards against.
#include <cstdio>
#include <functional>
#include <string>

#include "abc.cuh"
#include "workbook/buffers.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

// Each thread owns a contiguous chunk: in each step neighbouring threads touch
// addresses a chunk apart, so a warp's 32 loads hit 32 different sectors.
__global__ void abc_chunk_per_thread(const float* a, const float* b, const float* c, float* d,
                                     std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t chunk = (n + threads - 1) / threads;
  const std::size_t begin = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  for (std::size_t i = begin; i < begin + chunk && i < n; ++i) d[i] = a[i] * b[i] + c[i];
}

void print_row(const char* name, double ms, double gbps, double copy_gbps) {
  std::printf("| %-46s | %8.3f | %7.0f | %5.1f%% |\n", name, ms, gbps, 100.0 * gbps / copy_gbps);
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    const std::size_t n = std::size_t{1} << 26;
    const double bytes = 16.0 * static_cast<double>(n);
    workbook::DeviceBuffer<float> a(n), b(n), c(n), d(n);
    a.fill_bytes(0);
    b.fill_bytes(0);
    c.fill_bytes(0);
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    std::printf("GPU: %s (%d SMs, %.0f MB L2); n = 2^26 floats, 16 bytes per element, cold L2\n",
                gpu.name.c_str(), gpu.sm_count, gpu.l2_bytes / 1e6);
    std::printf("Device-to-device copy bandwidth: %.0f GB/s\n\n", copy_gbps);
    std::printf("| %-46s | %8s | %7s | %6s |\n", "variant", "ms", "GB/s", "% copy");
    std::printf("|%s|%s|%s|%s|\n", std::string(48, '-').c_str(), std::string(10, '-').c_str(),
                std::string(9, '-').c_str(), std::string(8, '-').c_str());

    auto run = [&](const char* name, const std::function<void()>& launch) {
      const workbook::TimingResult t = workbook::time_gpu([&](cudaStream_t) { launch(); });
      print_row(name, t.median_ms, workbook::gigabytes_per_second(bytes, t.median_ms), copy_gbps);
    };
    run("your one thread per element",
        [&] { abc::launch_abc_one_per_element(a.data(), b.data(), c.data(), d.data(), n); });
    run("your grid-stride loop",
        [&] { abc::launch_abc_grid_stride(a.data(), b.data(), c.data(), d.data(), n); });
    for (int blocks_per_sm : {1, 2, 4, 8, 16}) {
      const std::string name = "grid-stride, " + std::to_string(blocks_per_sm) + " block(s) of 256 per SM";
      run(name.c_str(), [&] {
        abc::abc_grid_stride<<<gpu.sm_count * blocks_per_sm, 256>>>(a.data(), b.data(), c.data(), d.data(),
                                                                    n);
        CUDA_CHECK_LAUNCH("abc_grid_stride");
      });
    }
    run("grid-stride, a single block of 256", [&] {
      abc::abc_grid_stride<<<1, 256>>>(a.data(), b.data(), c.data(), d.data(), n);
      CUDA_CHECK_LAUNCH("abc_grid_stride");
    });
    run("contiguous chunk per thread (uncoalesced)", [&] {
      abc_chunk_per_thread<<<gpu.sm_count * 8, 256>>>(a.data(), b.data(), c.data(), d.data(), n);
      CUDA_CHECK_LAUNCH("abc_chunk_per_thread");
    });
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
