// Lab 04, the comparisons kept beside the reference solution, next to the
// experiment's tables 1 and 2 on the same int32 sum:
//   - the interleaved tree with its index remapped (2s * t): no divergence in
//     the first warps, but bank conflicts. One more row of table 1, "int32 sum".
//   - the grid-stride sum with 1, 2, 4, 8 and 16 loads in flight per thread:
//     why kItemsPerThread is not 1. Table 2, "loads in flight".
// They live here and not in labs/04-reductions/experiment.cu because the first
// is TODO(2) with another index and the second holds TODO(4), (5) and (8): the
// student's folder must not hold them.
//   ./workbook bench reductions --solution   (the experiment, then this program)
// Rates are bytes read per second (4 per element), against cub::DeviceReduce::Sum
// on the same buffer, timed here again.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "reductions.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

constexpr char kLab[] = "04-reductions";
constexpr std::uint64_t kSeed = 4;

unsigned blocks_for(std::size_t n, int threads) {
  return static_cast<unsigned>((n + static_cast<std::size_t>(threads) - 1) /
                               static_cast<std::size_t>(threads));
}

// The interleaved tree with the index remapped so that the working threads are
// contiguous (2s * t instead of "t is a multiple of 2s"): no divergence inside
// the first warps, but the words they read are 2s apart, so they collide in the
// shared-memory banks. Any block size.
__global__ void block_sum_interleaved_strided_index(const int* in, int* partials, std::size_t n) {
  extern __shared__ int shared[];
  const int t = static_cast<int>(threadIdx.x);
  const int size = static_cast<int>(blockDim.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  shared[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = 1; s < size; s *= 2) {
    const int index = 2 * s * t;
    if (index + s < size) shared[index] += shared[index + s];
    __syncthreads();
  }
  if (t == 0) partials[blockIdx.x] = shared[0];
}

// The experiment's table 1 times each block-level kernel alone: pass after
// pass, each block's sum one element of the next pass's input, until one value
// is left (2^28 -> 2^20 -> 2^12 -> 16 -> 1 with 256 threads per block). The
// same here. Returns the buffer that holds the result.
int* sum_by_passes_strided_index(const int* in, std::size_t n, int* scratch_a, int* scratch_b, int* passes,
                                 cudaStream_t stream) {
  constexpr int kThreads = reductions::kThreadsPerBlock;
  const int* source = in;
  int* target = scratch_a;
  *passes = 0;
  do {
    block_sum_interleaved_strided_index<<<blocks_for(n, kThreads), kThreads, kThreads * sizeof(int),
                                          stream>>>(source, target, n);
    CUDA_CHECK_LAUNCH("block_sum_interleaved_strided_index");
    n = blocks_for(n, kThreads);
    source = target;
    target = target == scratch_a ? scratch_b : scratch_a;
    ++*passes;
  } while (n > 1);
  return const_cast<int*>(source);
}

// The whole-array sum with kItems loads in flight per thread and an atomic
// per block (the lab's kernel is fixed at kItemsPerThread).
template <int kItems>
__global__ void sum_grid_stride_items(const int* in, std::size_t n, int* result) {
  __shared__ int warp_sums[reductions::kMaxThreadsPerBlock / reductions::kWarpSize];
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int sum = 0;
  for (; i + (kItems - 1) * stride < n; i += kItems * stride) {
    int values[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) values[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < kItems; ++k) sum += values[k];
  }
  for (; i < n; i += stride) sum += in[i];
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(reductions::kFullWarpMask, sum, offset);
  const int lane = static_cast<int>(threadIdx.x) % reductions::kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / reductions::kWarpSize;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < static_cast<int>(blockDim.x) / reductions::kWarpSize ? warp_sums[lane] : 0;
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(reductions::kFullWarpMask, sum, offset);
    if (lane == 0) atomicAdd(result, sum);
  }
}

template <int kItems>
void launch_sum_grid_stride_items(const int* in, std::size_t n, int* result, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(reductions::reduction_grid_blocks(n));
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(int), stream));
  sum_grid_stride_items<kItems><<<blocks, reductions::kThreadsPerBlock, 0, stream>>>(in, n, result);
  CUDA_CHECK_LAUNCH("sum_grid_stride_items");
}

int read_one(const int* device_value) {
  int value = 0;
  CUDA_CHECK(cudaMemcpy(&value, device_value, sizeof(int), cudaMemcpyDeviceToHost));
  return value;
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    // The experiment's n: 2^28 ints, halved on a GPU with little memory.
    std::size_t n = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 6 * n > free_bytes / 4 * 3) n /= 2;
    const double bytes = static_cast<double>(n * sizeof(int));

    // Values in [-7, 7]: no partial sum of 2^28 of them overflows an int.
    DeviceBuffer<int> in(n);
    workbook::fill_random_ints(in.data(), n, kSeed, -7, 7);
    long long wide_sum = 0;
    for (const int value : in.to_host()) wide_sum += value;
    const int expected = static_cast<int>(wide_sum);

    DeviceBuffer<int> cub_result(1);
    reductions::yardstick::CubReduction<int> cub(reductions::yardstick::CubOperation::sum, in.data(), n,
                                                 cub_result.data());
    const workbook::TimingResult cub_timing =
        workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });
    const double cub_gbps = workbook::gigabytes_per_second(bytes, cub_timing.median_ms);
    const bool cub_ok = read_one(cub_result.data()) == expected;
    int wrong = cub_ok ? 0 : 1;
    const auto row = [&](const char* table, const std::string& label, const workbook::TimingResult& timing,
                         bool ok) {
      const workbook::BenchRow bench_row{
          table, label, n, timing, workbook::gigabytes_per_second(bytes, timing.median_ms), "GB/s"};
      if (!workbook::print_and_record(kLab, bench_row, cub_gbps, ok)) ++wrong;
    };

    std::printf("\nBeside tables 1 and 2, from solutions/04-reductions/experiment_reference.cu\n");
    std::printf("(n = %zu int32; cub::DeviceReduce::Sum timed again here: %.3f ms, %.1f GB/s, ok: %s)\n", n,
                cub_timing.median_ms, cub_gbps, cub_ok ? "yes" : "NO, a WRONG RESULT");
    workbook::print_rows_header("1b. A block-level tree alone, pass after pass, as in table 1", "GB/s",
                                "CUB");
    {
      DeviceBuffer<int> scratch_a(blocks_for(n, reductions::kThreadsPerBlock));
      DeviceBuffer<int> scratch_b(blocks_for(scratch_a.size(), reductions::kThreadsPerBlock));
      scratch_a.fill_bytes(0x7F);
      scratch_b.fill_bytes(0x7F);
      int passes = 0;
      int* final_value = nullptr;
      const workbook::TimingResult timing = workbook::time_gpu([&](cudaStream_t stream) {
        final_value =
            sum_by_passes_strided_index(in.data(), n, scratch_a.data(), scratch_b.data(), &passes, stream);
      });
      row("int32 sum",
          "interleaved tree, strided index (bank conflicts), " + std::to_string(passes) + " passes", timing,
          read_one(final_value) == expected);
    }

    std::printf("\n");
    workbook::print_rows_header(
        "2. The same sum, grid-stride + atomic per block, with k loads in flight per thread", "GB/s", "CUB");
    DeviceBuffer<int> result(1);
    const auto loads_in_flight = [&](int items, void (*launch)(const int*, std::size_t, int*, cudaStream_t)) {
      result.fill_bytes(0x7F);
      const workbook::TimingResult timing =
          workbook::time_gpu([&](cudaStream_t stream) { launch(in.data(), n, result.data(), stream); });
      const std::string label =
          "k = " + std::to_string(items) + (items == reductions::kItemsPerThread ? " (kItemsPerThread)" : "");
      row("loads in flight", label, timing, read_one(result.data()) == expected);
    };
    loads_in_flight(1, launch_sum_grid_stride_items<1>);
    loads_in_flight(2, launch_sum_grid_stride_items<2>);
    loads_in_flight(4, launch_sum_grid_stride_items<4>);
    loads_in_flight(8, launch_sum_grid_stride_items<8>);
    loads_in_flight(16, launch_sum_grid_stride_items<16>);
    if (wrong > 0) {
      std::fprintf(stderr, "%d wrong result(s): see the rows marked WRONG RESULT\n", wrong);
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
