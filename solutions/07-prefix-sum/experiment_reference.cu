// Lab 07, the comparison kept beside the reference solution: the naive scan,
// Hillis-Steele over global memory with one kernel per step, one more row of
// the experiment's table 1 ("whole array") on the same 2^28 ints, to show what
// a work-inefficient scan without shared memory costs.
// It lives here and not in labs/07-prefix-sum/experiment.cu because its step is
// TODO(3)'s double-buffered Hillis-Steele step in global memory: the student's
// folder must not hold it.
//   ./workbook bench prefix-sum --solution   (the experiment, then this program)
// Rates count 8 bytes per element (one read, one write), against
// cub::DeviceScan::ExclusiveSum on the same input, timed here again.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "scan.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

constexpr char kLab[] = "07-prefix-sum";
constexpr std::uint64_t kSeed = 7;

// One step of the naive scan: every element adds the one d places before it,
// reading one global array and writing the other. log2(n) launches, each
// moving the whole array.
__global__ void hillis_steele_step(const int* from, int* to, std::size_t n, std::size_t d) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) to[i] = i >= d ? from[i] + from[i - d] : from[i];
}

// The exclusive result from an inclusive one: shift by one.
__global__ void shift_right(const int* inclusive, int* exclusive, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) exclusive[i] = i == 0 ? 0 : inclusive[i - 1];
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + 255) / 256);
}

// The naive scan: copy, log2(n) global steps ping-ponging two buffers, shift.
void naive_exclusive_scan(const int* in, int* out, int* ping, int* pong, std::size_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemcpyAsync(ping, in, n * sizeof(int), cudaMemcpyDeviceToDevice, stream));
  for (std::size_t d = 1; d < n; d *= 2) {
    hillis_steele_step<<<blocks_for(n), 256, 0, stream>>>(ping, pong, n, d);
    CUDA_CHECK_LAUNCH("hillis_steele_step");
    std::swap(ping, pong);
  }
  shift_right<<<blocks_for(n), 256, 0, stream>>>(ping, out, n);
  CUDA_CHECK_LAUNCH("shift_right");
}

// Whether out holds the exclusive scan of input.
bool is_exclusive_scan(const std::vector<int>& input, const DeviceBuffer<int>& out) {
  const std::vector<int> got = out.to_host();
  int running = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (got[i] != running) return false;
    running += input[i];
  }
  return true;
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    // The experiment's n: 2^28 ints, fewer on a GPU with little memory.
    std::size_t n = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 6 * n * sizeof(int) > free_bytes / 4 * 3) n /= 2;
    const double bytes = 8.0 * static_cast<double>(n);

    // Values in [-7, 7]: no prefix of 2^28 of them overflows an int.
    DeviceBuffer<int> in(n), out(n), cub_out(n), ping(n), pong(n);
    workbook::fill_random_ints(in.data(), n, kSeed, -7, 7);
    const std::vector<int> input = in.to_host();

    scan::yardstick::CubExclusiveSum cub(in.data(), cub_out.data(), n);
    const workbook::TimingResult cub_timing =
        workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });
    const double cub_gbps = workbook::gigabytes_per_second(bytes, cub_timing.median_ms);
    const bool cub_ok = is_exclusive_scan(input, cub_out);

    std::printf("\nBeside table 1, from solutions/07-prefix-sum/experiment_reference.cu\n");
    std::printf(
        "(n = %zu int32; cub::DeviceScan::ExclusiveSum timed again here: %.3f ms, %.1f GB/s, ok: %s)\n", n,
        cub_timing.median_ms, cub_gbps, cub_ok ? "yes" : "NO, a WRONG RESULT");
    workbook::print_rows_header("1b. The naive exclusive scan, one kernel per step", "GB/s", "CUB");
    out.fill_bytes(0x7F);
    const workbook::TimingResult naive = workbook::time_gpu([&](cudaStream_t stream) {
      naive_exclusive_scan(in.data(), out.data(), ping.data(), pong.data(), n, stream);
    });
    const workbook::BenchRow row{"whole array",
                                 "naive: Hillis-Steele over global memory",
                                 n,
                                 naive,
                                 workbook::gigabytes_per_second(bytes, naive.median_ms),
                                 "GB/s"};
    if (!workbook::print_and_record(kLab, row, cub_gbps, is_exclusive_scan(input, out)) || !cub_ok) {
      std::fprintf(stderr, "a WRONG RESULT: see above\n");
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
