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
// The rows after them test the open 70 % (measurements.md, "Reduce-then-scan's
// three kernels": the same loads and stores alone ran 0.0416 ms over their
// bytes; untested candidate, 4 bytes an access where the single pass moves
// 16). Two more copies with the scan removed, the same grid, ranges and
// offset, held to scan_ranges' 4 blocks per SM (48 KiB of unused dynamic
// shared memory each: the int4 copy needs only 31 registers), no staging:
// each warp moves its 512 ints straight from in to out, as 16 coalesced
// 4-byte accesses a thread or as 4 coalesced 16-byte (int4) ones, the single
// pass's layout. Staged 4 B -> direct 4 B prices the staging; direct 4 B ->
// direct 16 B prices the access width. All three copies' outputs are checked
// against the host (in[i] + its range's offset).
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
#include <utility>
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

// The no-scan copy without staging: each warp's 512 ints move in kWords
// coalesced accesses a thread of Access (int: 16 of 4 B; int4: 4 of 16 B),
// each item offset by the range's carry. Tiles that end past n go one int at
// a time.
template <typename Access>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    copy_ranges_direct(const int* in, int* out, std::size_t n, std::size_t tiles_per_block,
                       const int* block_offsets) {
  constexpr int kInts = sizeof(Access) / sizeof(int);
  constexpr int kWords = kItemsPerThread / kInts;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int carry = block_offsets[blockIdx.x];
  const std::size_t first_tile = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  for (std::size_t tile = first_tile; tile < first_tile + tiles_per_block && tile * kTileSize < n; ++tile) {
    const std::size_t warp_start =
        tile * kTileSize + static_cast<std::size_t>(threadIdx.x / kWarpSize) * kWarpTile;
    if (warp_start + kWarpTile <= n) {
      const Access* warp_in = reinterpret_cast<const Access*>(in + warp_start);
      Access* warp_out = reinterpret_cast<Access*>(out + warp_start);
      Access words[kWords];
#pragma unroll
      for (int k = 0; k < kWords; ++k) words[k] = warp_in[k * kWarpSize + lane];
#pragma unroll
      for (int k = 0; k < kWords; ++k) {
        int* ints = reinterpret_cast<int*>(&words[k]);
#pragma unroll
        for (int i = 0; i < kInts; ++i) ints[i] += carry;
        warp_out[k * kWarpSize + lane] = words[k];
      }
    } else {
      for (std::size_t i = warp_start + lane; i < n && i < warp_start + kWarpTile; i += kWarpSize) {
        out[i] = in[i] + carry;
      }
    }
  }
}

// Unused dynamic shared memory that holds a direct copy to 4 blocks per SM:
// 4 x (48 + 1) KiB fit in an H200 SM's 228 KiB, 5 do not.
constexpr std::size_t kHoldToFourBlocks = 48 * 1024;

__global__ void fill_small(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<int>(i % 7) - 3;
}

template <typename Kernel>
void print_kernel(const char* name, Kernel kernel, std::size_t dynamic_shared = 0) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int blocks_per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kThreadsPerBlock,
                                                           dynamic_shared));
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
  bool all_ok = true;
  print_kernel("scan_ranges<int>", scan_ranges<int>);
  print_kernel("scan_ranges_without_scan<int>", scan_ranges_without_scan<int>);
  print_kernel("copy_ranges_direct<int>", copy_ranges_direct<int>, kHoldToFourBlocks);
  print_kernel("copy_ranges_direct<int4>", copy_ranges_direct<int4>, kHoldToFourBlocks);
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

    // The no-scan copies: out[i] = in[i] + its range's offset, each checked after its timing.
    const std::vector<int> offsets = block_sums.to_host();
    const std::size_t range = tiles_per_block * kTileSize;
    auto copy_ok = [&] {
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<int> copied = out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        if (copied[i] != static_cast<int>(i % 7) - 3 + offsets[i / range]) return false;
      }
      return true;
    };
    all_ok = all_ok && ok;
    const bool without_ok = copy_ok();
    auto time_direct = [&](auto kernel, const char* name) {
      CUDA_CHECK(cudaMemset(out.data(), 0, n * sizeof(int)));
      const double ms = workbook::time_gpu(
                            [&](cudaStream_t s) {
                              kernel<<<blocks, kThreadsPerBlock, kHoldToFourBlocks, s>>>(
                                  in.data(), out.data(), n, tiles_per_block, block_sums.data());
                              CUDA_CHECK_LAUNCH(name);
                            },
                            options)
                            .median_ms;
      return std::make_pair(ms, copy_ok());
    };
    const auto [direct4_ms, direct4_ok] = time_direct(copy_ranges_direct<int>, "copy_ranges_direct<int>");
    const auto [direct16_ms, direct16_ok] = time_direct(copy_ranges_direct<int4>, "copy_ranges_direct<int4>");
    all_ok = all_ok && without_ok && direct4_ok && direct16_ok;
    std::printf(
        "    no-scan copies, ms (excess over 8 B an int): staged 4 B %.4f (%.4f, check %s), "
        "direct 4 B %.4f (%.4f, check %s), direct 16 B %.4f (%.4f, check %s)\n",
        without_ms, without_ms - bytes_ms, without_ok ? "ok" : "FAILED", direct4_ms, direct4_ms - bytes_ms,
        direct4_ok ? "ok" : "FAILED", direct16_ms, direct16_ms - bytes_ms, direct16_ok ? "ok" : "FAILED");
    std::printf(
        "    of the no-scan excess %.4f ms: staging %.1f %%, 4 B accesses %.1f %%, left at 16 B %.1f %%\n",
        without_ms - bytes_ms, 100.0 * (without_ms - direct4_ms) / (without_ms - bytes_ms),
        100.0 * (direct4_ms - direct16_ms) / (without_ms - bytes_ms),
        100.0 * (direct16_ms - bytes_ms) / (without_ms - bytes_ms));
  }
  std::printf(
      "Reading: direct 16 B near 8 B an int (excess near 0), staged 4 B not: the open 70 %% is in the\n");
  std::printf(
      "  4-byte accesses or their staging (the split says which); all three alike: it is in neither.\n");
  return all_ok ? 0 : 1;
}
