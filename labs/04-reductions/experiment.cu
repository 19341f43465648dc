// Lab 04 experiment: how fast is each way of reducing an array, and how
// repeatable is a float sum?
//   ./workbook bench reductions
// Prints tables 1, 3, 4 and 5 (table 2 is not in this file):
//   1. int32 sum of 2^28 elements (1 GiB): the block-level kernels of parts 1
//      and 2 on their own (repeated passes, each block's sum becoming one
//      element of the next pass's input, until one value is left), the
//      whole-array reductions of part 3 with both ways of combining the
//      blocks, and cub::DeviceReduce::Sum.
//   2. Not here: the whole-array reduction with 1, 2, 4, 8 and 16 loads in
//      flight per thread, and table 1's interleaved tree with a strided index,
//      would hold your TODO(2), (4), (5) and (8). `./workbook bench reductions
//      --solution` prints them in the full repository; the handout quotes them.
//   3. float sum, min and max of 2^26 elements, both combines, against CUB.
//   4. The float sum of the same data run repeatedly: with an atomic per block
//      the order of the block sums changes from run to run and so may the
//      result; with a second pass it cannot.
//   5. The int32 sum over n = 2^10, 2^12, ..., 2^28: reduce_sum() with both
//      combines and cub::DeviceReduce::Sum, from launch-bound to bandwidth-bound.
// Rates are bytes read per second (4 bytes per element), compared with CUB on
// the same buffer. Every result is checked, so a fast wrong kernel is flagged,
// and a wrong one makes the program exit 1. Every timed row is also recorded
// for ./workbook bench --all's charts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "reductions.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using reductions::Combine;
using workbook::DeviceBuffer;

// int inputs in [-7, 7]: no partial sum of 2^28 of them overflows an int.
__host__ __device__ int int_value(std::uint64_t i) {
  return static_cast<int>(workbook::hash_index(i) % 15u) - 7;
}

// float inputs in [0, 1): positive, so the sum grows and every addition rounds.
__host__ __device__ float float_value(std::uint64_t i) {
  return static_cast<float>(workbook::hash_index(i) >> 8) * (1.0f / 16777216.0f);
}

__global__ void fill_ints(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = int_value(i);
}

__global__ void fill_floats(float* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = float_value(i);
}

unsigned blocks_for(std::size_t n, int threads) {
  return static_cast<unsigned>((n + static_cast<std::size_t>(threads) - 1) /
                               static_cast<std::size_t>(threads));
}

using BlockLauncher = void (*)(const int*, int*, std::size_t, int, cudaStream_t);

// "A block-level kernel alone": pass after pass of the same kernel, each block
// writing one sum, until a single value is left (2^28 -> 2^20 -> 2^12 -> 16 -> 1
// with 256 threads per block). Returns the buffer that holds the result.
int* reduce_by_passes(BlockLauncher launch, const int* in, std::size_t n, int* scratch_a, int* scratch_b,
                      cudaStream_t stream, int* passes = nullptr) {
  const int* source = in;
  int* target = scratch_a;
  int count = 0;
  do {
    launch(source, target, n, reductions::kThreadsPerBlock, stream);
    n = blocks_for(n, reductions::kThreadsPerBlock);
    source = target;
    target = target == scratch_a ? scratch_b : scratch_a;
    ++count;
  } while (n > 1);
  if (passes != nullptr) *passes = count;
  return const_cast<int*>(source);
}

struct Measured {
  double ms;                      // the median
  double gbps;                    // bytes read over the median
  workbook::TimingResult timing;  // with the spread of the samples
};

Measured measure(const std::function<void(cudaStream_t)>& work, double bytes,
                 const workbook::TimingOptions& options = {}) {
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, workbook::gigabytes_per_second(bytes, timing.median_ms), timing};
}

// Rows whose check failed: main exits 1 when there is any.
int wrong_results = 0;

using workbook::spread_text;

void print_header() {
  std::printf("  %-60s %9s %9s %10s %7s   %s\n", "variant", "ms", "GB/s", "% of CUB", "spread", "check");
}

void print_row(const std::string& label, const Measured& m, double cub_gbps, bool ok) {
  if (!ok) ++wrong_results;
  std::printf("  %-60s %9.3f %9.1f %9.1f%% %s   %s\n", label.c_str(), m.ms, m.gbps, 100.0 * m.gbps / cub_gbps,
              spread_text(m.timing).c_str(), ok ? "ok" : "WRONG RESULT");
}

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const std::string& implementation, std::size_t n, const Measured& m) {
  workbook::record("04-reductions", {table, implementation, n, m.timing, m.gbps, "GB/s"});
}

template <typename T>
T read_one(const T* device_value) {
  T value{};
  CUDA_CHECK(cudaMemcpy(&value, device_value, sizeof(T), cudaMemcpyDeviceToHost));
  return value;
}

std::uint32_t bits_of(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

// Table 5: the int32 sum over n = 2^10, 2^12, ..., 2^28, as many as fit in half
// the free memory. Every size reads the front of one buffer, filled once, so
// the host's expected sums are running sums of the same values.
void sum_sweep() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::vector<std::size_t> sizes = workbook::sweep_sizes(10, 28, 2, sizeof(int), free_bytes / 2);
  if (sizes.empty()) return;
  // Small sizes take microseconds and their spread seldom falls under 3 %: a
  // shorter time budget than the default keeps the sweep to seconds.
  workbook::TimingOptions options;
  options.time_budget_ms = 500.0;

  DeviceBuffer<int> in(sizes.back());
  fill_ints<<<blocks_for(in.size(), 256), 256>>>(in.data(), in.size());
  CUDA_CHECK_LAUNCH("fill_ints");
  DeviceBuffer<int> result(1);
  DeviceBuffer<int> partials(reductions::kMaxGridBlocks);
  DeviceBuffer<int> cub_result(1);

  std::printf("5. int32 sum of n = 2^10 to 2^28 elements, 4 bytes read per element\n");
  std::printf("  %% of CUB: the time of cub::DeviceReduce::Sum at the same n over the row's\n");
  std::printf("  %-44s %5s %9s %9s %10s %7s   %s\n", "variant", "n", "ms", "GB/s", "% of CUB", "spread",
              "check");
  long long wide_sum = 0;  // in[0] + ... + in[summed - 1]
  std::size_t summed = 0;
  for (const std::size_t n : sizes) {
    for (; summed < n; ++summed) wide_sum += int_value(summed);
    const int expected = static_cast<int>(wide_sum);
    const double bytes = static_cast<double>(n * sizeof(int));

    reductions::yardstick::CubReduction<int> cub(reductions::yardstick::CubOperation::sum, in.data(), n,
                                                 cub_result.data());
    cub_result.fill_bytes(0x7F);
    const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); }, bytes, options);
    const bool cub_ok = read_one(cub_result.data()) == expected;

    const auto row = [&](const char* label, const Measured& m, bool ok) {
      if (!ok) ++wrong_results;
      std::printf("  %-44s %5s %9.4f %9.1f %9.1f%% %s   %s\n", label, power_text(n).c_str(), m.ms, m.gbps,
                  100.0 * cub_rate.ms / m.ms, spread_text(m.timing).c_str(), ok ? "ok" : "WRONG RESULT");
      record("int32 sum sweep", label, n, m);
    };
    for (const Combine combine : {Combine::atomic_per_block, Combine::second_pass}) {
      result.fill_bytes(0x7F);
      const Measured m = measure(
          [&](cudaStream_t stream) {
            reductions::reduce_sum(in.data(), n, result.data(), combine, partials.data(), stream);
          },
          bytes, options);
      row(combine == Combine::atomic_per_block ? "reduce_sum(), atomic per block"
                                               : "reduce_sum(), second pass",
          m, read_one(result.data()) == expected);
    }
    row("cub::DeviceReduce::Sum", cub_rate, cub_ok);
  }
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s\n", workbook::describe(gpu).c_str());
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    std::printf(
        "Whole-array reductions: %d threads per block, %d loads in flight per thread, %d blocks per SM "
        "(at most %d): %d blocks for the large inputs below\n",
        reductions::kThreadsPerBlock, reductions::kItemsPerThread, reductions::kBlocksPerSm,
        reductions::kMaxGridBlocks, reductions::reduction_grid_blocks(std::size_t{1} << 26));
    std::printf(
        "Rates count bytes read: 4 per element. The yardstick is cub::DeviceReduce on the same buffer.\n");
    std::printf("spread: interquartile range of the timed runs over their median.\n\n");

    // 2^28 ints and 2^26 floats; halved on a GPU with little memory.
    std::size_t n = std::size_t{1} << 28;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 6 * n > free_bytes / 4 * 3) n /= 2;
    const std::size_t float_n = std::min(n, std::size_t{1} << 26);

    // --- 1. int32 sum -----------------------------------------------------------------------
    {
      DeviceBuffer<int> in(n);
      fill_ints<<<blocks_for(n, 256), 256>>>(in.data(), n);
      CUDA_CHECK_LAUNCH("fill_ints");
      long long wide_sum = 0;
      for (std::size_t i = 0; i < n; ++i) wide_sum += int_value(i);
      const int expected = static_cast<int>(wide_sum);
      const double bytes = static_cast<double>(n * sizeof(int));

      DeviceBuffer<int> scratch_a(blocks_for(n, reductions::kThreadsPerBlock));
      DeviceBuffer<int> scratch_b(blocks_for(scratch_a.size(), reductions::kThreadsPerBlock));
      DeviceBuffer<int> result(1);
      DeviceBuffer<int> partials(reductions::kMaxGridBlocks);

      DeviceBuffer<int> cub_result(1);
      reductions::yardstick::CubReduction<int> cub(reductions::yardstick::CubOperation::sum, in.data(), n,
                                                   cub_result.data());
      const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); }, bytes);
      const bool cub_ok = read_one(cub_result.data()) == expected;

      std::printf("1. int32 sum of n = %zu elements (%.0f MB), values in [-7, 7]\n", n, bytes / 1.0e6);
      print_header();

      struct TreeVariant {
        const char* label;
        BlockLauncher launch;
      };
      const TreeVariant trees[] = {
          {"interleaved tree (part 1)", reductions::launch_block_sum_interleaved},
          {"sequential tree (part 1)", reductions::launch_block_sum_sequential},
          {"shuffle block reduce (part 2)", reductions::launch_block_sum_shuffle},
      };
      for (const TreeVariant& tree : trees) {
        int passes = 0;
        int* final_value = nullptr;
        scratch_a.fill_bytes(0x7F);
        scratch_b.fill_bytes(0x7F);
        const Measured m = measure(
            [&](cudaStream_t stream) {
              final_value = reduce_by_passes(tree.launch, in.data(), n, scratch_a.data(), scratch_b.data(),
                                             stream, &passes);
            },
            bytes);
        const std::string label = std::string(tree.label) + ", " + std::to_string(passes) + " passes";
        print_row(label, m, cub_rate.gbps, read_one(final_value) == expected);
        record("int32 sum", label, n, m);
      }
      for (const Combine combine : {Combine::atomic_per_block, Combine::second_pass}) {
        result.fill_bytes(0x7F);
        const Measured m = measure(
            [&](cudaStream_t stream) {
              reductions::reduce_sum(in.data(), n, result.data(), combine, partials.data(), stream);
            },
            bytes);
        const char* label = combine == Combine::atomic_per_block ? "grid-stride + atomic per block (part 3)"
                                                                 : "grid-stride + second pass (part 3)";
        print_row(label, m, cub_rate.gbps, read_one(result.data()) == expected);
        record("int32 sum", label, n, m);
      }
      print_row("cub::DeviceReduce::Sum", cub_rate, cub_rate.gbps, cub_ok);
      record("int32 sum", "cub::DeviceReduce::Sum", n, cub_rate);
      std::printf("\n");

      // Table 2, and table 1's tree with a strided index, are the reference's (see the top of this file).
      std::printf(
          "2. Loads in flight per thread, and table 1's interleaved tree with a strided index: ./workbook\n"
          "   bench reductions --solution, in the full repository\n\n");
    }

    // --- 3 and 4. floats ---------------------------------------------------------------------
    {
      DeviceBuffer<float> in(float_n);
      fill_floats<<<blocks_for(float_n, 256), 256>>>(in.data(), float_n);
      CUDA_CHECK_LAUNCH("fill_floats");
      double exact_sum = 0.0;
      float smallest = 1.0f, largest = 0.0f;
      for (std::size_t i = 0; i < float_n; ++i) {
        const float v = float_value(i);
        exact_sum += v;
        smallest = std::min(smallest, v);
        largest = std::max(largest, v);
      }
      const double bytes = static_cast<double>(float_n * sizeof(float));
      DeviceBuffer<float> result(1);
      DeviceBuffer<float> partials(reductions::kMaxGridBlocks);
      DeviceBuffer<float> cub_result(1);

      std::printf("3. float reductions of n = %zu elements (%.0f MB), values in [0, 1)\n", float_n,
                  bytes / 1.0e6);
      print_header();
      struct FloatVariant {
        const char* name;
        const char* cub_name;
        reductions::yardstick::CubOperation cub_operation;
        void (*reduce)(const float*, std::size_t, float*, Combine, float*, cudaStream_t);
      };
      const FloatVariant variants[] = {
          {"sum", "cub::DeviceReduce::Sum", reductions::yardstick::CubOperation::sum, reductions::reduce_sum},
          {"min", "cub::DeviceReduce::Min", reductions::yardstick::CubOperation::min, reductions::reduce_min},
          {"max", "cub::DeviceReduce::Max", reductions::yardstick::CubOperation::max, reductions::reduce_max},
      };
      // A float sum is right within 1e-5 of the double sum here; min and max are exact.
      const auto right = [&](const char* name, float got) {
        if (std::strcmp(name, "sum") == 0) return std::fabs(got - exact_sum) <= 1e-5 * exact_sum;
        return got == (std::strcmp(name, "min") == 0 ? smallest : largest);
      };
      for (const FloatVariant& variant : variants) {
        reductions::yardstick::CubReduction<float> cub(variant.cub_operation, in.data(), float_n,
                                                       cub_result.data());
        const Measured cub_rate = measure([&](cudaStream_t stream) { cub.run(stream); }, bytes);
        for (const Combine combine : {Combine::atomic_per_block, Combine::second_pass}) {
          result.fill_bytes(0xFF);
          const Measured m = measure(
              [&](cudaStream_t stream) {
                variant.reduce(in.data(), float_n, result.data(), combine, partials.data(), stream);
              },
              bytes);
          const std::string label =
              std::string(variant.name) +
              (combine == Combine::atomic_per_block ? ", atomic per block" : ", second pass");
          print_row(label, m, cub_rate.gbps, right(variant.name, read_one(result.data())));
          record("float reductions", label, float_n, m);
        }
        print_row(variant.cub_name, cub_rate, cub_rate.gbps,
                  right(variant.name, read_one(cub_result.data())));
        record("float reductions", variant.cub_name, float_n, cub_rate);
      }
      std::printf("\n");

      // Repeat the same float sum and look at the bits.
      constexpr int kRuns = 20;
      std::printf("4. The float sum of the same %zu values, run %d times (double-precision sum: %.6f)\n",
                  float_n, kRuns, exact_sum);
      for (const Combine combine : {Combine::atomic_per_block, Combine::second_pass}) {
        std::vector<float> sums;
        for (int run = 0; run < kRuns; ++run) {
          reductions::reduce_sum(in.data(), float_n, result.data(), combine, partials.data(), nullptr);
          sums.push_back(read_one(result.data()));
        }
        std::set<std::uint32_t> distinct;
        for (float s : sums) distinct.insert(bits_of(s));
        const auto [low, high] = std::minmax_element(sums.begin(), sums.end());
        std::printf("  %s:\n", combine == Combine::atomic_per_block ? "atomic per block" : "second pass");
        std::printf("    run 1: %.3f (bits 0x%08X), error %+.3f\n", sums[0], bits_of(sums[0]),
                    sums[0] - exact_sum);
        std::printf("    run 2: %.3f (bits 0x%08X), error %+.3f\n", sums[1], bits_of(sums[1]),
                    sums[1] - exact_sum);
        std::printf("    run 2 - run 1 = %+.3f; %zu distinct results in %d runs, spread %.3f\n",
                    static_cast<double>(sums[1]) - sums[0], distinct.size(), kRuns,
                    static_cast<double>(*high) - *low);
      }
      std::printf("  (one float ulp at this magnitude is %.3f)\n\n",
                  static_cast<double>(std::nextafter(static_cast<float>(exact_sum), INFINITY)) -
                      static_cast<float>(exact_sum));
    }

    sum_sweep();
    if (wrong_results > 0) {
      std::fprintf(stderr, "%d wrong result(s): see the rows marked WRONG RESULT\n", wrong_results);
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
