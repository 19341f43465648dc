// Lab 09's misses that were left open (labs/09-histograms/measurements.md, section
// "Follow-up probes of the misses"; the handout's verdicts under table 1): the lane
// copies 14 % over the memory bound, uniform global atomics 90 times the model,
// four bins only 1.72 times as fast as one, phase 2's 0.035 ms against the
// predicted 0.029 ms, RGB at 3.05 times the bytes' bound.
// Measured on an NVIDIA H200, 2026-11-29: labs/09-histograms/figures/ncu-probe.txt,
// the blocks "Follow-up probe (Open misses: ...)".
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab09_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/09-histograms -Icommon/include \
//     -c solutions/09-histograms/probes/histogram_open_misses.cu -o build/probes/histogram_open_misses.o
//   nvcc -arch=sm_90 -o build/probes/histogram_open_misses build/probes/histogram_open_misses.o \
//     build/default/liblab09_solution.a build/default/common/libworkbook_common.a
//   build/probes/histogram_open_misses time
// tools/probes/open_misses.sh builds and runs it (and the probes of labs 05 and 06). It lives
// beside the solution, not in tools/probes/, because it copies the reference's kernels (the
// student release's leak check refuses them).
// The kernels are the code as first measured; the input and grid helpers it shared with
// one_copy_four_loads.cu now live in histogram_probe_input.cuh (same code).
//
// The misses of labs/09-histograms/measurements.md ("Follow-up probes of the misses"), with the reference
// solution (liblab09_solution.a) and a few variants written here, on the
// experiment's inputs (workbook::hash_index bytes). Groups:
//   lanes   n = 2^30 uniform bytes: histogram_lane_copies() (count_bytes_lane_copies), and
//           lane_loads_only: the same grid (grid_blocks(n)), the same loads (batches of 256 x 4
//           uint4 per block, all four loaded before use), no counting: memory alone at that pattern
//   phase2  histogram_two_phase() on uniform bytes, then launch_sum_block_histograms() alone, and
//           an empty kernel <<<1, 256>>>: a launch's fixed cost in the same timing
//   rgb     2^28 uniform pixels: rgb_histogram() (count_rgb), count_rgb_copy (the solution's code
//           copied here, a control) and count_rgb_uint4 (the same, four pixels per 16-byte load)
//   atomics (once only, and only when named) histogram_global_atomics() at 2^30 on uniform,
//           four bins, one bin (the experiment's table 1 launches, one each)
//   spread  n = 2^26 uniform bytes, one global atomicAdd per byte to bins[(byte & (k-1)) * stride]
//           (one thread per byte, as count_bytes_with_global_atomics): k counters, on one line
//           (stride 1, k <= 32) or each on its own 128-byte line (stride 32)
//           once: stride 32, k = 1, 2, 4, ..., 256, then stride 1, k = 4, 256 (11 launches)
//           time: stride 32 and stride 1, k = 1 ... 256
// Usage: histogram_open_misses once|time [group ...]   (default: every group)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "histogram.cuh"
#include "histogram_probe_input.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using histogram::kBins;
using histogram::kRgbBins;
using histogram::kThreadsPerBlock;

using histogram_probe::fill_bytes;
using histogram_probe::global_thread;
using histogram_probe::grid_threads;
using histogram_probe::Kind;
using histogram_probe::to_string;

constexpr int kVectorsPerThread = histogram::kVectorsPerThread;

// count_bytes_lane_copies' loads without its counting (n a multiple of 16, aligned).
__global__ void __launch_bounds__(kThreadsPerBlock, 4)
    lane_loads_only(const uint4* vectors, std::size_t vector_count, std::uint32_t* sink) {
  constexpr std::size_t kChunkVectors = static_cast<std::size_t>(kThreadsPerBlock) * kVectorsPerThread;
  std::uint32_t acc = 0;
  for (std::size_t chunk_start = blockIdx.x * kChunkVectors; chunk_start < vector_count;
       chunk_start += gridDim.x * kChunkVectors) {
    uint4 data[kVectorsPerThread];
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const std::size_t v = chunk_start + static_cast<std::size_t>(k) * kThreadsPerBlock + threadIdx.x;
      data[k] = v < vector_count ? vectors[v] : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) acc += data[k].x ^ data[k].y ^ data[k].z ^ data[k].w;
  }
  if (acc == 0x9E3779B9u) sink[0] = acc;  // keeps the loads; practically never true
}

__global__ void empty_kernel() {}

__device__ int rgb_bin(std::uint32_t pixel, int channel) {
  return channel * kBins + static_cast<int>((pixel >> (8 * channel)) & 0xFFu);
}

// solutions/09-histograms/histogram.cu's count_rgb, copied.
__global__ void count_rgb_copy(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins) {
  __shared__ std::uint32_t shared_bins[kRgbBins];
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) shared_bins[k] = 0;
  __syncthreads();
  const std::size_t step = grid_threads();
  for (std::size_t p = global_thread(); p < pixel_count; p += step) {
    const std::uint32_t pixel = pixels[p];
#pragma unroll
    for (int channel = 0; channel < histogram::kRgbChannels; ++channel)
      atomicAdd(&shared_bins[rgb_bin(pixel, channel)], 1u);
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) {
    if (shared_bins[k] > 0) atomicAdd(&bins[k], shared_bins[k]);
  }
}

// The same with one 16-byte load of four pixels per step (pixel_count a multiple of 4, aligned).
__global__ void count_rgb_uint4(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins) {
  __shared__ std::uint32_t shared_bins[kRgbBins];
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) shared_bins[k] = 0;
  __syncthreads();
  const uint4* quads = reinterpret_cast<const uint4*>(pixels);
  const std::size_t quad_count = pixel_count / 4;
  const std::size_t step = grid_threads();
  for (std::size_t q = global_thread(); q < quad_count; q += step) {
    const uint4 four = quads[q];
    const std::uint32_t px[4] = {four.x, four.y, four.z, four.w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
      for (int channel = 0; channel < histogram::kRgbChannels; ++channel)
        atomicAdd(&shared_bins[rgb_bin(px[j], channel)], 1u);
    }
  }
  __syncthreads();
  for (int k = static_cast<int>(threadIdx.x); k < kRgbBins; k += kThreadsPerBlock) {
    if (shared_bins[k] > 0) atomicAdd(&bins[k], shared_bins[k]);
  }
}

// One global atomic per byte, as count_bytes_with_global_atomics, into k counters `stride` words apart.
__global__ void global_atomics_spread(const std::uint8_t* in, std::size_t n, std::uint32_t* bins,
                                      std::uint32_t mask, std::uint32_t stride) {
  const std::size_t i = global_thread();
  if (i < n) atomicAdd(&bins[(in[i] & mask) * stride], 1u);
}

workbook::TimingResult time_it(const std::function<void(cudaStream_t)>& work, double budget_ms = 1000.0,
                               bool slow = false) {
  workbook::TimingOptions options;
  options.time_budget_ms = budget_ms;
  if (slow) {
    options.warmup_runs = 1;
    options.min_samples = 3;
  }
  return workbook::time_gpu(work, options);
}

void row(const char* name, const workbook::TimingResult& t, double bytes) {
  std::printf("  %-58s %9.4f ms  %7.1f GB/s  %s\n", name, t.median_ms, bytes / t.median_ms / 1e6,
              t.summary().c_str());
}

bool wants(const std::vector<std::string>& groups, const char* g) {
  if (groups.empty()) return true;
  for (const std::string& s : groups)
    if (s == g) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "once") == 0;
  std::vector<std::string> groups;
  for (int a = 2; a < argc; ++a) groups.emplace_back(argv[a]);
  const std::size_t n = std::size_t{1} << 30;
  workbook::DeviceBuffer<std::uint8_t> in(n);
  workbook::DeviceBuffer<std::uint32_t> bins(32 * kBins);  // room for 256 counters 128 bytes apart
  workbook::DeviceBuffer<std::uint32_t> block_bins(static_cast<std::size_t>(histogram::kMaxGridBlocks) *
                                                   kBins);
  const auto fill = [&](std::size_t count, Kind kind) {
    fill_bytes<<<static_cast<unsigned>((count + 255) / 256), 256>>>(in.data(), count, kind);
    CUDA_CHECK(cudaDeviceSynchronize());
  };
  if (!once) std::printf("lab 09 probe: workbook::time_gpu, cold L2\n");

  if (wants(groups, "lanes")) {
    fill(n, Kind::uniform);
    const auto lanes = [&](cudaStream_t s) {
      histogram::histogram_lane_copies(in.data(), n, bins.data(), s);
    };
    const auto loads = [&](cudaStream_t s) {
      lane_loads_only<<<histogram::grid_blocks(n), kThreadsPerBlock, 0, s>>>(
          reinterpret_cast<const uint4*>(in.data()), n / 16, bins.data() + 31 * kBins);
    };
    if (once) {
      lanes(nullptr);
      loads(nullptr);
    } else {
      std::printf("lanes: 2^30 uniform bytes, grid %d blocks of %d\n", histogram::grid_blocks(n),
                  kThreadsPerBlock);
      row("histogram_lane_copies() (memset + count_bytes_lane_copies)", time_it(lanes),
          static_cast<double>(n));
      row("lane_loads_only (its loads, no counting)", time_it(loads), static_cast<double>(n));
    }
  }

  if (wants(groups, "phase2")) {
    fill(n, Kind::uniform);
    const int blocks = histogram::grid_blocks(n);
    histogram::histogram_two_phase(in.data(), n, bins.data(), block_bins.data(), nullptr);
    const auto phase2 = [&](cudaStream_t s) {
      histogram::launch_sum_block_histograms(block_bins.data(), blocks, bins.data(), s);
    };
    const auto empty = [&](cudaStream_t s) { empty_kernel<<<1, kThreadsPerBlock, 0, s>>>(); };
    if (once) {
      phase2(nullptr);
      empty(nullptr);
    } else {
      std::printf("phase2: %d per-block histograms of %d counts (%.3f MB)\n", blocks, kBins,
                  blocks * kBins * 4.0 / 1e6);
      row("launch_sum_block_histograms() alone", time_it(phase2), blocks * kBins * 4.0);
      row("empty_kernel<<<1, 256>>>", time_it(empty), 0.0);
      workbook::TimingOptions warm;
      warm.time_budget_ms = 1000.0;
      warm.flush_l2 = false;
      row("launch_sum_block_histograms() alone, warm L2", workbook::time_gpu(phase2, warm),
          blocks * kBins * 4.0);
      row("empty_kernel<<<1, 256>>>, no L2 flush", workbook::time_gpu(empty, warm), 0.0);
    }
  }

  if (wants(groups, "rgb")) {
    fill(n, Kind::uniform);
    const std::size_t pixels = n / 4;
    const auto* image = reinterpret_cast<const std::uint32_t*>(in.data());
    const unsigned grid = static_cast<unsigned>(histogram::grid_blocks(pixels * 4));
    const auto solution = [&](cudaStream_t s) { histogram::rgb_histogram(image, pixels, bins.data(), s); };
    const auto copy = [&](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, kRgbBins * sizeof(std::uint32_t), s));
      count_rgb_copy<<<grid, kThreadsPerBlock, 0, s>>>(image, pixels, bins.data());
    };
    const auto quads = [&](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, kRgbBins * sizeof(std::uint32_t), s));
      count_rgb_uint4<<<grid, kThreadsPerBlock, 0, s>>>(image, pixels, bins.data());
    };
    if (once) {
      solution(nullptr);
      copy(nullptr);
      quads(nullptr);
    } else {
      std::printf("rgb: 2^28 uniform pixels, grid %u blocks of %d\n", grid, kThreadsPerBlock);
      std::vector<std::uint32_t> reference;
      const auto checked = [&](const char* name, const std::function<void(cudaStream_t)>& f) {
        const workbook::TimingResult t = time_it(f);
        f(nullptr);
        std::vector<std::uint32_t> got = bins.to_host();
        got.resize(kRgbBins);
        if (reference.empty()) reference = got;
        std::printf(
            "%s", got == reference ? "" : "  (the histogram below differs from rgb_histogram()'s: WRONG)\n");
        row(name, t, static_cast<double>(n));
      };
      checked("rgb_histogram() (memset + count_rgb)", solution);
      checked("count_rgb_copy (+ memset)", copy);
      checked("count_rgb_uint4 (+ memset)", quads);
    }
  }

  if (once && wants(groups, "atomics") && !groups.empty()) {
    for (const Kind kind : {Kind::uniform, Kind::four_bins_one_bank, Kind::one_bin}) {
      fill(n, kind);
      histogram::histogram_global_atomics(in.data(), n, bins.data(), nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
    }
  }

  if (wants(groups, "spread")) {
    const std::size_t m = std::size_t{1} << 26;
    fill(m, Kind::uniform);
    const auto spread = [&](cudaStream_t s, std::uint32_t k, std::uint32_t stride) {
      global_atomics_spread<<<static_cast<unsigned>(m / kThreadsPerBlock), kThreadsPerBlock, 0, s>>>(
          in.data(), m, bins.data(), k - 1, stride);
    };
    if (once) {
      for (std::uint32_t k = 1; k <= 256; k *= 2) spread(nullptr, k, 32);
      spread(nullptr, 4, 1);
      spread(nullptr, 256, 1);
      CUDA_CHECK(cudaDeviceSynchronize());
    } else {
      std::printf("spread: 2^26 uniform bytes, one global atomicAdd per byte into k counters\n");
      std::printf("  %6s %5s %10s %14s %10s   %s\n", "stride", "k", "ms", "ns per update", "vs k=1",
                  "timing");
      for (const std::uint32_t stride : {32u, 1u}) {
        double first = 0;
        for (std::uint32_t k = 1; k <= 256; k *= 2) {
          const workbook::TimingResult t =
              time_it([&](cudaStream_t s) { spread(s, k, stride); }, 300.0, true);
          if (k == 1) first = t.median_ms;
          std::printf("  %6u %5u %10.3f %14.4f %10.2f   %s\n", stride, k, t.median_ms,
                      t.median_ms * 1e6 / static_cast<double>(m), first / t.median_ms, t.summary().c_str());
        }
      }
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}
