// Lab 07's open miss (README, "What to expect"): reduce-then-scan runs 0.065 ms
// over its bytes bound at 2^28 ints, 0.057 ms of it in scan_ranges (Nsight
// Compute: 0.568 ms against 8 bytes an int at the copy bandwidth, 0.511 ms).
// Its warps wait mostly on memory, but scan_tile's block_scan adds barriers
// and shuffles between a tile's loads and its stores.
//
// The run that splits it: scan_ranges as the reference launches it (after
// reduce_ranges and scan_block_sums have left the offsets), and a copy of it
// with the in-block scan removed: the same launch bounds (4 blocks of 256
// threads per SM), the same offset load, load_tile and store_tile through the
// same staging, each item only offset by the range's carry. Both are timed in
// one run beside this run's copy bandwidth, so each excess is taken against
// this run's own bytes time; the scan's share of scan_ranges' excess is
// (with scan - without) / (with scan - bytes).
//
// It #includes the reference scan.cu (its file-local helpers are needed), so
// it stays in solutions/ and out of the student release. From the repository root:
//   WORKBOOK_BUILD_TARGET="workbook_common" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/07-prefix-sum -Icommon/include \
//     -o build/probes/scan_ranges_without_scan solutions/07-prefix-sum/probes/scan_ranges_without_scan.cu \
//     build/default/common/libworkbook_common.a
//   build/probes/scan_ranges_without_scan
#include <cstdio>
#include <vector>

#include "../scan.cu"
#include "workbook/buffers.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace scan {
namespace {

// scan_ranges with scan_tile removed: the same loads, stores and staging.
template <typename T>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scan_ranges_without_scan(const T* in, T* out, std::size_t n, std::size_t tiles_per_block,
                             const T* block_offsets) {
  __shared__ T staging[kWarpsPerBlock][kStagingPerWarp];
  T* warp_staging = staging[threadIdx.x / kWarpSize];
  const T carry = block_offsets[blockIdx.x];
  const std::size_t first_tile = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  for (std::size_t tile = first_tile; tile < first_tile + tiles_per_block && tile * kTileSize < n; ++tile) {
    T items[kItemsPerThread];
    load_tile(in, n, tile * kTileSize, items, warp_staging);
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) items[k] += carry;
    store_tile(out, n, tile * kTileSize, items, warp_staging);
  }
}

__global__ void fill_small(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<int>(i % 7) - 3;
}

template <typename Kernel>
void print_kernel(const char* name, Kernel kernel) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kThreadsPerBlock, 0));
  std::printf("  %s: %d registers, %zu B local, %zu B shared, %d blocks of %d per SM\n", name,
              attributes.numRegs, attributes.localSizeBytes, attributes.sharedSizeBytes, blocks_per_sm,
              kThreadsPerBlock);
}

}  // namespace
}  // namespace scan

int main() {
  using namespace scan;
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  const double copy_gbps = workbook::copy_bandwidth_gbps();
  std::printf(
      "lab 07 probe: scan_ranges with and without its in-block scan; workbook::time_gpu, cold L2\n"
      "  copy bandwidth in this run: %.1f GB/s\n",
      copy_gbps);
  print_kernel("scan_ranges<int>", scan_ranges<int>);
  print_kernel("scan_ranges_without_scan<int>", scan_ranges_without_scan<int>);
  for (const int log2n : {26, 28}) {
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t tiles = ceil_div(n, kTileSize);
    const std::size_t tiles_per_block = ceil_div(tiles, static_cast<std::size_t>(reduce_then_scan_blocks(n)));
    const unsigned blocks = static_cast<unsigned>(ceil_div(tiles, tiles_per_block));
    workbook::DeviceBuffer<int> in(n), out(n), block_sums(kMaxGridBlocks);
    fill_small<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill_small");
    const double whole_ms =
        workbook::time_gpu(
            [&](cudaStream_t s) {
              reduce_then_scan(in.data(), out.data(), n, ScanKind::exclusive, block_sums.data(), s);
            },
            options)
            .median_ms;
    // reduce_then_scan() has left the offsets in block_sums; both kernels reuse them.
    const double with_ms =
        workbook::time_gpu(
            [&](cudaStream_t s) {
              scan_ranges<int><<<blocks, kThreadsPerBlock, 0, s>>>(in.data(), out.data(), n, tiles_per_block,
                                                                   block_sums.data(), ScanKind::exclusive);
              CUDA_CHECK_LAUNCH("scan_ranges");
            },
            options)
            .median_ms;
    // The check: the exclusive scan's last element is the sum of all but the last input.
    CUDA_CHECK(cudaDeviceSynchronize());
    long long expected = 0;
    for (std::size_t i = 0; i + 1 < n; ++i) expected += static_cast<int>(i % 7) - 3;
    const std::vector<int> scanned = out.to_host();
    const bool ok = scanned[n - 1] == static_cast<int>(expected);
    const double without_ms = workbook::time_gpu(
                                  [&](cudaStream_t s) {
                                    scan_ranges_without_scan<int><<<blocks, kThreadsPerBlock, 0, s>>>(
                                        in.data(), out.data(), n, tiles_per_block, block_sums.data());
                                    CUDA_CHECK_LAUNCH("scan_ranges_without_scan");
                                  },
                                  options)
                                  .median_ms;
    const double bytes_ms = 8.0 * static_cast<double>(n) / (copy_gbps * 1e6);
    std::printf("  n = 2^%d: %u blocks of %zu tiles\n", log2n, blocks, tiles_per_block);
    std::printf("    reduce_then_scan() %.4f ms (12 B an int at copy: %.4f ms)\n", whole_ms, 1.5 * bytes_ms);
    std::printf("    scan_ranges %.4f ms (check %s); without its scan %.4f ms; 8 B an int at copy %.4f ms\n",
                with_ms, ok ? "ok" : "FAILED", without_ms, bytes_ms);
    std::printf(
        "    excess over the bytes: %.4f ms with the scan, %.4f ms without; the scan's share %.1f %%\n",
        with_ms - bytes_ms, without_ms - bytes_ms, 100.0 * (with_ms - without_ms) / (with_ms - bytes_ms));
  }
  return 0;
}
