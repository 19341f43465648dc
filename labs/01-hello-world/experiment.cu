// Lab 01 experiment: where does your code run, and in what order do threads print?
// Then what bounds a kernel: how fast memory is, next to how fast the lanes are.
//   ./workbook bench hello                   2 runs of 2 blocks of 4 threads
//   ./workbook bench hello -- BLOCKS THREADS   2 runs of that shape (e.g. -- 64 1)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hello.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

// A positive int from the command line, or `fallback` when absent; exits with a
// message when it is not one.
int shape_argument(int argc, char** argv, int index, int fallback, const char* what) {
  if (index >= argc) return fallback;
  char* end = nullptr;
  const long value = std::strtol(argv[index], &end, 10);
  if (*argv[index] == '\0' || *end != '\0' || value < 1 || value > 1 << 20) {
    std::fprintf(stderr, "lab01_experiment: %s must be a whole number from 1 to 1048576, got '%s'\n", what,
                 argv[index]);
    std::exit(1);
  }
  return static_cast<int>(value);
}

// FP32 lanes per SM (the CUDA C++ Programming Guide's table of arithmetic
// throughput): 64 on compute capability 7.x and 8.0, 128 on 8.6 and newer.
int fp32_lanes_per_sm(int major, int minor) {
  if (major < 8 || (major == 8 && minor == 0)) return 64;
  return 128;
}

// The handout's "Speed of light" and "What to expect": the copy bandwidth, the
// largest test's record_thread_ids timed against it, and how many floats per
// second the lanes could consume next to how many memory delivers.
void bandwidth_and_lanes(const workbook::DeviceInfo& gpu) {
  const double copy_gbps = workbook::copy_bandwidth_gbps();
  std::printf("\nDevice-to-device copy bandwidth (read + write): %.1f GB/s\n", copy_gbps);

  const int n = 1 << 26;  // the largest test's size
  const double bytes = static_cast<double>(n) * sizeof(hello::ThreadRecord);
  workbook::DeviceBuffer<hello::ThreadRecord> records(n);
  const workbook::TimingResult timing =
      workbook::time_gpu([&](cudaStream_t) { hello::launch_record_thread_ids(records.data(), n, 256); });
  const double gbps = workbook::gigabytes_per_second(bytes, timing.median_ms);
  std::printf(
      "record_thread_ids, n = 2^26, 256 threads per block: %.1f MB written in %.3f ms (%s), "
      "%.1f GB/s, %.1f%% of the copy\n",
      bytes / 1e6, timing.median_ms, workbook::spread_text(timing).c_str(), gbps, 100.0 * gbps / copy_gbps);

  int clock_khz = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, gpu.id));
  const int lanes = gpu.sm_count * fp32_lanes_per_sm(gpu.compute_major, gpu.compute_minor);
  const double lane_gbps = lanes * 4.0 * clock_khz / 1e6;  // one 4-byte operand per lane per clock
  std::printf(
      "FP32 lanes: %d SMs x %d = %d, at most %.0f MHz: one float each per clock is %.0f GB/s, "
      "%.1f times the copy bandwidth\n",
      gpu.sm_count, fp32_lanes_per_sm(gpu.compute_major, gpu.compute_minor), lanes, clock_khz / 1e3,
      lane_gbps, lane_gbps / copy_gbps);
}

int main(int argc, char** argv) {
  try {
    const int blocks = shape_argument(argc, argv, 1, 2, "BLOCKS");
    const int threads = shape_argument(argc, argv, 2, 4, "THREADS");
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s, compute capability %d.%d, %d SMs, max %d threads per block\n\n", gpu.name.c_str(),
                gpu.compute_major, gpu.compute_minor, gpu.sm_count, gpu.max_threads_per_block);
    for (int run = 1; run <= 2; ++run) {
      std::printf("Run %d: %d blocks of %d threads\n", run, blocks, threads);
      std::fflush(stdout);
      hello::launch_hello(blocks, threads);
      std::printf("\n");
    }
    std::printf("Compare the two runs: the order of the blocks is not guaranteed.\n");
    bandwidth_and_lanes(gpu);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
