// Lab 01 experiment: where does your code run, and in what order do threads print?
//   ./workbook bench hello                   2 runs of 2 blocks of 4 threads
//   ./workbook bench hello -- BLOCKS THREADS   2 runs of that shape (e.g. -- 64 1)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hello.cuh"
#include "workbook/device.hpp"

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
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
