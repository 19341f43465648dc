// Lab 08's open hypothesis (measurements.md, "One sort under Nsight Compute"):
// phase (c), scatter_by_digit, takes 1.303 ms a pass at 2^28 keys against its
// bytes' 0.530 ms, and we said the ranking, not DRAM, binds it, untested.
//
// The test: the same scatter with the ranking taken out. A first, untimed
// kernel ranks every tile with the reference's rank_tile_by_digit and stores
// each key's place in its sorted tile (2 bytes; a tile holds 4096 keys) where
// the key itself lies, and each tile's 256 digit starts. The timed kernel is
// scatter_by_digit with rank_tile_by_digit replaced by loads of those: the
// same tile in shared memory, the same barrier, the same coalesced stores. It
// moves 2 bytes a key more (10.5 B a key against 8.25). If the ranking binds
// (c), it runs near its bytes' time; if the shared-memory sort or the stores
// bind it, it runs near (c)'s. A third kernel stores each sorted tile back
// where it was read (coalesced, no scatter) to tell those two apart.
//
// It #includes the reference radix_sort.cu (its file-local helpers are
// needed), so it stays in solutions/ and out of the student release. From the
// repository root:
//   WORKBOOK_BUILD_TARGET="workbook_common" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/08-radix-sort -Icommon/include \
//     -o build/probes/scatter_precomputed_ranks solutions/08-radix-sort/probes/scatter_precomputed_ranks.cu \
//     build/default/common/libworkbook_common.a
//   build/probes/scatter_precomputed_ranks [once]
// With "once": 2^28 keys only, each of the three kernels launched once, untimed (for Nsight Compute).
#include <cstdio>
#include <string>
#include <vector>

#include "../radix_sort.cu"
#include "workbook/buffers.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace radix_sort {
namespace {

// Untimed: each key's place in its sorted tile, stored at the key's own
// position, and the tile's digit starts (digit-major, as the offsets).
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    precompute_ranks(const std::uint32_t* keys_in, std::size_t n, int shift, std::uint16_t* places,
                     std::uint32_t* digit_starts) {
  std::uint32_t items[kItemsPerThread];
  load_tile(keys_in, n, items);
  std::uint32_t positions[kItemsPerThread];
  const std::uint32_t digit_start = rank_tile_by_digit(items, shift, positions);
  const int valid = keys_in_tile(n);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    if (j < valid) places[tile_start() + j] = static_cast<std::uint16_t>(positions[k]);
  }
  digit_starts[threadIdx.x * tiles_for(n) + blockIdx.x] = digit_start;
}

// scatter_by_digit with the ranking read, not computed.
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_with_places(const std::uint32_t* keys_in, std::size_t n, int shift,
                        const std::uint32_t* digit_offsets, const std::uint16_t* places,
                        const std::uint32_t* digit_starts, std::uint32_t* keys_out) {
  __shared__ std::uint32_t sorted_keys[kTileSize];
  __shared__ std::uint32_t digit_base[kRadix];
  const std::size_t at = threadIdx.x * tiles_for(n) + blockIdx.x;
  const std::uint32_t offset = digit_offsets[at];
  const std::uint32_t digit_start = digit_starts[at];
  std::uint32_t items[kItemsPerThread];
  load_tile(keys_in, n, items);
  const int valid = keys_in_tile(n);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    if (j < valid) sorted_keys[places[tile_start() + j]] = items[k];
  }
  digit_base[threadIdx.x] = offset - digit_start;
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kThreadsPerBlock + static_cast<int>(threadIdx.x);
    if (j < valid) {
      const std::uint32_t key = sorted_keys[j];
      keys_out[digit_base[digit_of(key, shift)] + static_cast<std::uint32_t>(j)] = key;
    }
  }
}

// scatter_with_places, but each sorted tile is stored where the tile was
// read: the same loads, shared-memory sort and barrier, coalesced stores.
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    sort_tiles_in_place(const std::uint32_t* keys_in, std::size_t n, const std::uint16_t* places,
                        std::uint32_t* keys_out) {
  __shared__ std::uint32_t sorted_keys[kTileSize];
  std::uint32_t items[kItemsPerThread];
  load_tile(keys_in, n, items);
  const int valid = keys_in_tile(n);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = item_in_tile(k);
    if (j < valid) sorted_keys[places[tile_start() + j]] = items[k];
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kThreadsPerBlock + static_cast<int>(threadIdx.x);
    if (j < valid) keys_out[tile_start() + j] = sorted_keys[j];
  }
}

__global__ void fill_keys(std::uint32_t* keys, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = workbook::hash_index(i);
}

__global__ void copy_keys(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

}  // namespace
}  // namespace radix_sort

int main(int argc, char** argv) {
  using namespace radix_sort;
  const bool once = argc > 1 && std::string(argv[1]) == "once";
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  std::printf(
      "lab 08 probe: one pass's phase (c), ranking computed against ranking read; shift 0; "
      "uniform keys; workbook::time_gpu, cold L2\n");
  for (const int log2n : {24, 28}) {
    if (once && log2n != 28) continue;
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t tiles = tiles_for(n);
    const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
    workbook::DeviceBuffer<std::uint32_t> keys(n), out(n), out_read(n), copy(n), starts(digit_counts_for(n));
    workbook::DeviceBuffer<std::uint16_t> places(n);
    RadixSortScratch scratch(n);
    fill_keys<<<blocks, 256>>>(keys.data(), n);
    CUDA_CHECK_LAUNCH("fill_keys");
    launch_count_digits(keys.data(), n, 0, scratch.digit_counts(), nullptr);
    scratch.count_scan().exclusive(scratch.digit_counts(), scratch.digit_counts(), digit_counts_for(n),
                                   nullptr, nullptr);
    precompute_ranks<<<static_cast<unsigned>(tiles), kThreadsPerBlock>>>(keys.data(), n, 0, places.data(),
                                                                         starts.data());
    CUDA_CHECK_LAUNCH("precompute_ranks");
    if (once) {
      launch_scatter_by_digit(keys.data(), n, 0, scratch.digit_counts(), out.data(), nullptr);
      scatter_with_places<<<static_cast<unsigned>(tiles), kThreadsPerBlock>>>(
          keys.data(), n, 0, scratch.digit_counts(), places.data(), starts.data(), out_read.data());
      CUDA_CHECK_LAUNCH("scatter_with_places");
      sort_tiles_in_place<<<static_cast<unsigned>(tiles), kThreadsPerBlock>>>(keys.data(), n, places.data(),
                                                                              copy.data());
      CUDA_CHECK_LAUNCH("sort_tiles_in_place");
      CUDA_CHECK(cudaDeviceSynchronize());
      std::printf("  once: outputs %s\n", out.to_host() == out_read.to_host() ? "identical" : "DIFFER");
      continue;
    }
    const double computed_ms =
        workbook::time_gpu(
            [&](cudaStream_t s) {
              launch_scatter_by_digit(keys.data(), n, 0, scratch.digit_counts(), out.data(), s);
            },
            options)
            .median_ms;
    const double read_ms =
        workbook::time_gpu(
            [&](cudaStream_t s) {
              scatter_with_places<<<static_cast<unsigned>(tiles), kThreadsPerBlock, 0, s>>>(
                  keys.data(), n, 0, scratch.digit_counts(), places.data(), starts.data(), out_read.data());
              CUDA_CHECK_LAUNCH("scatter_with_places");
            },
            options)
            .median_ms;
    const double in_place_ms =
        workbook::time_gpu(
            [&](cudaStream_t s) {
              sort_tiles_in_place<<<static_cast<unsigned>(tiles), kThreadsPerBlock, 0, s>>>(
                  keys.data(), n, places.data(), copy.data());
              CUDA_CHECK_LAUNCH("sort_tiles_in_place");
            },
            options)
            .median_ms;
    const double copy_ms = workbook::time_gpu(
                               [&](cudaStream_t s) {
                                 copy_keys<<<blocks, 256, 0, s>>>(keys.data(), copy.data(), n);
                                 CUDA_CHECK_LAUNCH("copy_keys");
                               },
                               options)
                               .median_ms;
    CUDA_CHECK(cudaDeviceSynchronize());
    const bool same = out.to_host() == out_read.to_host();
    const double key_count = static_cast<double>(n);
    const double count_bytes = 4.0 * kRadix * static_cast<double>(tiles);
    const auto row = [&](const char* what, double ms, double bytes) {
      std::printf("    %-44s %8.4f ms %6.2f B a key %8.1f GB/s\n", what, ms, bytes / key_count,
                  bytes / ms / 1e6);
    };
    std::printf("  n = 2^%d (outputs of the two scatters %s)\n", log2n, same ? "identical" : "DIFFER");
    row("copy, one thread a key", copy_ms, 8.0 * key_count);
    std::printf("    the course's copy bandwidth (workbook::copy_bandwidth_gbps): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    row("scatter_by_digit (ranks computed)", computed_ms, 8.0 * key_count + count_bytes);
    row("scatter_with_places (ranks read)", read_ms, 10.0 * key_count + 2.0 * count_bytes);
    row("sort_tiles_in_place (ranks read, no scatter)", in_place_ms, 10.0 * key_count);
  }
  return 0;
}
