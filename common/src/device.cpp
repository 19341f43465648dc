#include "workbook/device.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace workbook {

bool nvidia_driver_installed() {
  // The kernel module shows itself in /proc (a container sees the host's);
  // the user-space driver is libcuda (WSL has only that one).
  if (::access("/proc/driver/nvidia", F_OK) == 0) return true;
  void* library = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) return false;
  ::dlclose(library);
  return true;
}

bool cuda_device_available(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return true;
  if (reason != nullptr) {
    // Without any driver the runtime says cudaErrorInsufficientDriver, which
    // reads as "update your driver": say what is the case instead.
    if (status != cudaSuccess && !nvidia_driver_installed()) {
      *reason = "no NVIDIA GPU or driver found (no /proc/driver/nvidia, no libcuda.so.1)";
    } else {
      *reason = std::string("no CUDA device: cudaGetDeviceCount ") +
                (status != cudaSuccess ? std::string("failed with ") + cudaGetErrorName(status) + " (" +
                                             cudaGetErrorString(status) + ")"
                                       : std::string("found 0 devices"));
    }
  }
  cudaGetLastError();  // Do not leave the error behind for the next check.
  return false;
}

DeviceInfo current_device_info() {
  DeviceInfo info;
  CUDA_CHECK(cudaGetDevice(&info.id));
  cudaDeviceProp props{};
  CUDA_CHECK(cudaGetDeviceProperties(&props, info.id));
  info.name = props.name;
  info.compute_major = props.major;
  info.compute_minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(props.l2CacheSize);
  info.global_bytes = props.totalGlobalMem;
  info.max_threads_per_block = props.maxThreadsPerBlock;
  info.shared_per_block = props.sharedMemPerBlock;
  return info;
}

std::string describe(const DeviceInfo& info) {
  char line[256];
  std::snprintf(line, sizeof line, "%s, compute capability %d.%d, %d SMs, L2 %.1f MB, %.1f GB of memory",
                info.name.c_str(), info.compute_major, info.compute_minor, info.sm_count,
                static_cast<double>(info.l2_bytes) / 1.0e6, static_cast<double>(info.global_bytes) / 1.0e9);
  return line;
}

bool have_device_for_experiment() {
  std::string reason;
  if (cuda_device_available(&reason)) return true;
  std::fprintf(stderr,
               "%s.\nThis experiment measures a GPU; run it on a machine with one (README.md, \"No GPU?\", "
               "says where to find one).\n",
               reason.c_str());
  return false;
}

double copy_bandwidth_gbps() {
  static const double measured = [] {
    // 512 MiB each way: ten times the largest L2 of current GPUs, and small
    // enough to fit next to a lab's own buffers.
    std::size_t bytes = std::size_t(512) << 20;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    bytes = std::min(bytes, free_bytes / 4);
    DeviceBuffer<unsigned char> source(bytes);
    DeviceBuffer<unsigned char> destination(bytes);
    source.fill_bytes(1);
    TimingOptions options;
    options.max_relative_spread = 0.01;
    const TimingResult timing = time_gpu(
        [&](cudaStream_t stream) {
          CUDA_CHECK(
              cudaMemcpyAsync(destination.data(), source.data(), bytes, cudaMemcpyDeviceToDevice, stream));
        },
        options);
    const double gbps = gigabytes_per_second(2.0 * static_cast<double>(bytes), timing.median_ms);
    // Under ./workbook bench --all: the roof of the lab's GB/s charts
    // (tools/bench_charts.py draws it as a horizontal line).
    record("", BenchRow{"roof", "device-to-device copy", bytes, timing, gbps, "GB/s"});
    return gbps;
  }();
  return measured;
}

}  // namespace workbook
