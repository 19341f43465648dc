// Lab 09, the comparisons kept beside the reference solution, next to the
// experiment's tables 1 and 3 on the same inputs:
//   - 256 bins: a copy of the histogram per warp; runs of equal bytes counted
//     into one shared histogram; runs counted into the lane copies (the lab's
//     reference before it dropped the runs). Rows of tables "256 bins (...)".
//   - 65536 bins: one global atomic per value, and eight passes over 8192-bin
//     ranges in shared memory. Rows of tables "65536 bins (...)".
// They live here and not in labs/09-histograms/experiment.cu because each is a
// TODO of the lab under another name (the per-block share, the shared
// histogram merged with atomics, the lane copies and their slots, the global
// atomics): the student's folder must not hold them.
//   ./workbook bench histograms --solution   (the experiment, then this program)
// Rates are GB/s of input, against cub::DeviceHistogram on the same input,
// timed here again; every histogram is checked against one counted on the host.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "histogram.cuh"
#include "tests/cub_yardstick.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/timing.hpp"

namespace {

using histogram::kBins;
using histogram::kThreadsPerBlock;
using histogram::kWarpSize;
using workbook::DeviceBuffer;

constexpr char kLab[] = "09-histograms";
constexpr std::uint64_t kSeed = 9;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// ---- the inputs of the experiment's tables 1 and 3, by the names of its tables ----

// 0, 32, 64 or 96 from a uniform byte: four bins in shared-memory bank 0.
__global__ void keep_bits_5_and_6(std::uint8_t* bytes, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bytes[i] &= 0x60u;
}

// Value i of n in ascending order over the 65536 bins.
__global__ void fill_sorted(std::uint16_t* values, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) values[i] = static_cast<std::uint16_t>((static_cast<std::uint64_t>(i) << 16) / n);
}

// Fills `bytes` (n of them) as the input of that name: "uniform", "4 bins, 1
// bank", "one bin" as bytes; "uniform", "one bin", "sorted" as 16-bit values.
void fill_input(DeviceBuffer<std::uint8_t>& bytes, std::size_t n, const std::string& kind) {
  if (kind == "one bin") {
    bytes.fill_bytes(0xFF);  // every byte 255, every 16-bit value 65535
  } else if (kind == "sorted") {
    fill_sorted<<<blocks_for(n / 2), kThreadsPerBlock>>>(reinterpret_cast<std::uint16_t*>(bytes.data()),
                                                         n / 2);
    CUDA_CHECK_LAUNCH("fill_sorted");
  } else {
    workbook::fill_random_bytes(bytes.data(), n, kSeed);
    if (kind == "4 bins, 1 bank") {
      keep_bits_5_and_6<<<blocks_for(n), kThreadsPerBlock>>>(bytes.data(), n);
      CUDA_CHECK_LAUNCH("keep_bits_5_and_6");
    }
  }
}

template <typename T>
std::vector<std::uint32_t> host_histogram(const std::uint8_t* device_bytes, std::size_t count,
                                          std::size_t bins) {
  std::vector<T> values(count);
  CUDA_CHECK(cudaMemcpy(values.data(), device_bytes, count * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> counts(bins, 0);
  for (const T value : values) ++counts[value];
  return counts;
}

// ---- 256 bins: the same chunked loads as the lab's lane copies ----

__device__ int byte_of(std::uint32_t word, int k) {
  return static_cast<int>((word >> (8 * k)) & 0xFFu);
}

// Calls count_word(word) for every 32-bit word of the block's chunks of
// vectors (kVectorsPerThread per thread, all loaded first) and
// count_byte(byte) for this thread's head and tail bytes.
template <typename CountWord, typename CountByte>
__device__ void walk_bytes(const std::uint8_t* in, std::size_t n, CountWord count_word,
                           CountByte count_byte) {
  constexpr int kVectors = histogram::kVectorsPerThread;
  constexpr std::size_t kChunkVectors = static_cast<std::size_t>(kThreadsPerBlock) * kVectors;
  const histogram::VectorSplit split = histogram::split_for_vectors(in, n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + split.head);
  for (std::size_t chunk = blockIdx.x * kChunkVectors; chunk < split.vectors;
       chunk += gridDim.x * kChunkVectors) {
    uint4 data[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const std::size_t v = chunk + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
      data[k] = v < split.vectors ? vectors[v] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      if (chunk + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x >= split.vectors) continue;
      count_word(data[k].x);
      count_word(data[k].y);
      count_word(data[k].z);
      count_word(data[k].w);
    }
  }
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < split.head) count_byte(in[t]);
  if (t < split.tail) count_byte(in[split.head + split.vectors * histogram::kVectorBytes + t]);
}

// One copy of the histogram per warp: collisions between warps are gone,
// those inside a warp remain.
__global__ void count_warp_copies(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  __shared__ std::uint32_t copies[histogram::kWarpsPerBlock * kBins];
  for (int k = static_cast<int>(threadIdx.x); k < histogram::kWarpsPerBlock * kBins; k += kThreadsPerBlock) {
    copies[k] = 0;
  }
  __syncthreads();
  std::uint32_t* mine = copies + (threadIdx.x / kWarpSize) * kBins;
  walk_bytes(
      in, n,
      [&](std::uint32_t word) {
        for (int k = 0; k < 4; ++k) atomicAdd(&mine[byte_of(word, k)], 1u);
      },
      [&](int byte) { atomicAdd(&mine[byte], 1u); });
  __syncthreads();
  std::uint32_t count = 0;
  for (int w = 0; w < histogram::kWarpsPerBlock; ++w) count += copies[w * kBins + threadIdx.x];
  if (count > 0) atomicAdd(&bins[threadIdx.x], count);
}

// Runs of equal consecutive bytes per thread, into one shared histogram: a
// thread keeps a bin and a length in registers and adds a whole run with one
// atomic when the value changes; four equal bytes of a word cost one compare.
__global__ void count_runs_one_copy(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  __shared__ std::uint32_t shared_bins[kBins];
  shared_bins[threadIdx.x] = 0;
  __syncthreads();
  int run_bin = 0;
  std::uint32_t run_length = 0;
  walk_bytes(
      in, n,
      [&](std::uint32_t word) {
        if (word == static_cast<std::uint32_t>(run_bin) * 0x01010101u) {
          run_length += 4;
          return;
        }
        for (int k = 0; k < 4; ++k) {
          const int value = byte_of(word, k);
          if (value != run_bin) {
            if (run_length > 0) atomicAdd(&shared_bins[run_bin], run_length);
            run_bin = value;
            run_length = 0;
          }
          ++run_length;
        }
      },
      [&](int byte) { atomicAdd(&shared_bins[byte], 1u); });
  if (run_length > 0) atomicAdd(&shared_bins[run_bin], run_length);
  __syncthreads();
  if (shared_bins[threadIdx.x] > 0) atomicAdd(&bins[threadIdx.x], shared_bins[threadIdx.x]);
}

// The lab's reference before it dropped the runs: the lane copies (slot bin *
// 32 + lane, as lane_copy_slot) with runs of equal bytes per thread, as in
// count_runs_one_copy. The run survives from one word to the next, so on one
// bin a thread makes one shared atomic in the whole kernel.
__global__ void count_lane_copies_with_runs(const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
  __shared__ std::uint32_t copies[histogram::kLaneCopySlots];
  for (int k = static_cast<int>(threadIdx.x); k < histogram::kLaneCopySlots; k += kThreadsPerBlock)
    copies[k] = 0;
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int run_bin = 0;
  std::uint32_t run_length = 0;
  const auto flush = [&]() {
    if (run_length > 0) atomicAdd(&copies[run_bin * kWarpSize + lane], run_length);
  };
  walk_bytes(
      in, n,
      [&](std::uint32_t word) {
        if (word == static_cast<std::uint32_t>(run_bin) * 0x01010101u) {
          run_length += 4;
          return;
        }
        for (int k = 0; k < 4; ++k) {
          const int value = byte_of(word, k);
          if (value != run_bin) {
            flush();
            run_bin = value;
            run_length = 0;
          }
          ++run_length;
        }
      },
      [&](int byte) { atomicAdd(&copies[byte * kWarpSize + lane], 1u); });
  flush();
  __syncthreads();
  const int bin = static_cast<int>(threadIdx.x);
  std::uint32_t count = 0;
  for (int step = 0; step < kWarpSize; ++step) count += copies[bin * kWarpSize + (bin + step) % kWarpSize];
  if (count > 0) atomicAdd(&bins[bin], count);
}

// ---- 65536 bins: the two alternatives to the lab's wide_histogram() ----

// One global atomic per value, one thread per value.
__global__ void count_wide_global_atomics(const std::uint16_t* in, std::size_t n, std::uint32_t* bins) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i]], 1u);
}

// One pass of the multi-pass histogram: only the values in [first, first +
// kRangeBins) are counted, in shared memory, and merged with one global
// atomic per nonzero bin per block. 8 passes cover 65536 bins; each reads
// the whole input. The input is cudaMalloc'd (16-byte aligned): 8 values per load.
constexpr int kRangeBins = 8192;  // 32 KiB of counts

__global__ void count_wide_range(const std::uint16_t* in, std::size_t n, std::uint32_t* bins,
                                 unsigned first) {
  __shared__ std::uint32_t range[kRangeBins];
  for (int k = static_cast<int>(threadIdx.x); k < kRangeBins; k += kThreadsPerBlock) range[k] = 0;
  __syncthreads();
  const std::size_t vectors = n / 8;
  const uint4* data = reinterpret_cast<const uint4*>(in);
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const auto count = [&](unsigned value) {
    const unsigned offset = value - first;  // wraps to a large number below the range
    if (offset < kRangeBins) atomicAdd(&range[offset], 1u);
  };
  for (std::size_t v = start; v < vectors; v += step) {
    const uint4 vector = data[v];
    const std::uint32_t words[4] = {vector.x, vector.y, vector.z, vector.w};
    for (const std::uint32_t word : words) {
      count(word & 0xFFFFu);
      count(word >> 16);
    }
  }
  if (start < n - vectors * 8) count(in[vectors * 8 + start]);
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < kRangeBins; k += kThreadsPerBlock) {
    if (range[k] > 0) atomicAdd(&bins[first + k], range[k]);
  }
}

// ---- timing ----

// As the experiment times its tables; slow rows (a second per run) take fewer samples.
workbook::TimingResult time_row(const std::function<void(cudaStream_t)>& work, bool slow) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  if (slow) {
    options.warmup_runs = 1;
    options.min_samples = 3;
  }
  return workbook::time_gpu(work, options);
}

struct Variant {
  const char* label;
  std::function<void(cudaStream_t)> run;
  bool slow_on_contention;  // a second per run unless the input is uniform
};

// The rows of `variants` in table `table`, on the input `kind` of n bytes (n /
// sizeof(T) values), each histogram checked, with `cub` (named cub_name) as the
// yardstick; returns the number of wrong results.
template <typename T, typename Cub>
int compare_on(const std::string& table, const std::string& kind, DeviceBuffer<std::uint8_t>& in,
               std::size_t n, DeviceBuffer<std::uint32_t>& bins, std::size_t bin_count, Cub& cub,
               const char* cub_name, const std::vector<Variant>& variants) {
  const std::size_t count = n / sizeof(T);
  const std::vector<std::uint32_t> expected = host_histogram<T>(in.data(), count, bin_count);
  const auto check = [&]() {
    std::vector<std::uint32_t> got = bins.to_host();
    got.resize(bin_count);
    return got == expected;
  };
  const auto gbps = [&](const workbook::TimingResult& timing) {
    return static_cast<double>(n) / timing.median_ms / 1e6;
  };
  const workbook::TimingResult cub_timing = time_row([&](cudaStream_t s) { cub.run(s); }, false);
  const bool cub_ok = check();
  std::printf("\n");
  workbook::print_rows_header(table + ": " + std::to_string(count) + " values", "GB/s", "CUB");
  std::printf("  (%s timed again here: %.3f ms, %.1f GB/s of input, ok: %s)\n", cub_name,
              cub_timing.median_ms, gbps(cub_timing), cub_ok ? "yes" : "NO, a WRONG RESULT");
  int wrong = cub_ok ? 0 : 1;
  for (const Variant& variant : variants) {
    const workbook::TimingResult timing =
        time_row(variant.run, variant.slow_on_contention && kind != "uniform");
    const workbook::BenchRow row{table, variant.label, count, timing, gbps(timing), "GB/s"};
    if (!workbook::print_and_record(kLab, row, gbps(cub_timing), check())) ++wrong;
  }
  return wrong;
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    // The experiment's 1 GiB of input; halved on a GPU with less than 4 GiB free.
    std::size_t n = std::size_t{1} << 30;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 24) && 4 * n > free_bytes) n /= 2;
    const unsigned blocks = static_cast<unsigned>(histogram::grid_blocks(n));

    DeviceBuffer<std::uint8_t> in(n);
    DeviceBuffer<std::uint32_t> bins(histogram::kWideBins);
    const std::uint8_t* bytes = in.data();
    const auto* wide = reinterpret_cast<const std::uint16_t*>(in.data());
    std::uint32_t* out = bins.data();
    const auto zero_bins = [&](cudaStream_t stream, std::size_t count) {
      CUDA_CHECK(cudaMemsetAsync(out, 0, count * sizeof(std::uint32_t), stream));
    };
    std::printf("\nBeside tables 1 and 3, from solutions/09-histograms/experiment_reference.cu\n");
    std::printf("(n = %zu bytes; %u blocks of %d threads for the byte kernels)\n", n, blocks,
                kThreadsPerBlock);

    const std::vector<Variant> byte_variants = {
        {"a copy per warp (written here)",
         [&](cudaStream_t s) {
           zero_bins(s, kBins);
           count_warp_copies<<<blocks, kThreadsPerBlock, 0, s>>>(bytes, n, out);
           CUDA_CHECK_LAUNCH("count_warp_copies");
         },
         false},
        {"runs, one copy (written here)",
         [&](cudaStream_t s) {
           zero_bins(s, kBins);
           count_runs_one_copy<<<blocks, kThreadsPerBlock, 0, s>>>(bytes, n, out);
           CUDA_CHECK_LAUNCH("count_runs_one_copy");
         },
         false},
        {"lane copies + runs (written here)",
         [&](cudaStream_t s) {
           zero_bins(s, kBins);
           count_lane_copies_with_runs<<<blocks, kThreadsPerBlock, 0, s>>>(bytes, n, out);
           CUDA_CHECK_LAUNCH("count_lane_copies_with_runs");
         },
         false},
    };
    int wrong = 0;
    for (const char* kind : {"uniform", "4 bins, 1 bank", "one bin"}) {
      fill_input(in, n, kind);
      histogram::yardstick::CubByteHistogram cub(bytes, n, out);
      wrong += compare_on<std::uint8_t>(std::string("256 bins (") + kind + ")", kind, in, n, bins, kBins, cub,
                                        "cub::DeviceHistogram::HistogramEven", byte_variants);
    }

    const std::size_t values = n / 2;
    const std::vector<Variant> wide_variants = {
        {"global atomics, one per value (written here)",
         [&](cudaStream_t s) {
           zero_bins(s, histogram::kWideBins);
           count_wide_global_atomics<<<blocks_for(values), kThreadsPerBlock, 0, s>>>(wide, values, out);
           CUDA_CHECK_LAUNCH("count_wide_global_atomics");
         },
         true},
        {"8 passes of 8192 bins in shared memory (here)",
         [&](cudaStream_t s) {
           zero_bins(s, histogram::kWideBins);
           for (unsigned first = 0; first < static_cast<unsigned>(histogram::kWideBins);
                first += kRangeBins) {
             count_wide_range<<<blocks, kThreadsPerBlock, 0, s>>>(wide, values, out, first);
             CUDA_CHECK_LAUNCH("count_wide_range");
           }
         },
         false},
    };
    for (const char* kind : {"uniform", "one bin", "sorted"}) {
      fill_input(in, n, kind);
      histogram::yardstick::CubWideHistogram cub(wide, values, out);
      wrong += compare_on<std::uint16_t>(std::string("65536 bins (") + kind + ")", kind, in, n, bins,
                                         histogram::kWideBins, cub,
                                         "cub::DeviceHistogram::HistogramEven, 65536 bins", wide_variants);
    }
    if (wrong > 0) {
      std::fprintf(stderr, "%d check(s) found a WRONG RESULT\n", wrong);
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
