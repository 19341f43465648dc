// Lab 01 experiment: where does your code run, and in what order do threads print?
//   ./workbook bench hello
#include <cstdio>

#include "hello.cuh"
#include "workbook/device.hpp"

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s, compute capability %d.%d, %d SMs, max %d threads per block\n\n", gpu.name.c_str(),
                gpu.compute_major, gpu.compute_minor, gpu.sm_count, gpu.max_threads_per_block);
    for (int run = 1; run <= 2; ++run) {
      std::printf("Run %d: 2 blocks of 4 threads\n", run);
      std::fflush(stdout);
      hello::launch_hello(2, 4);
      std::printf("\n");
    }
    std::printf("Compare the two runs: the order of the blocks is not guaranteed.\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
