// Lab 07's open hypothesis (measurements.md, "Sizing the look-back waits"):
// the single pass takes 0.136 ms more than reduce-then-scan's share of copy
// would give it at 2^28 ints; the ticket and the look-back's round trips
// explain at most about half. Hypothesis: warp 0 spins on tiles still
// `invalid`, one more round trip per spin, 2.7 spins a tile on average.
//
// The count that settles it: a copy of the reference's single pass whose
// look-back counts, per tile, the windows it read, the re-reads of a window
// that still held an invalid word (spins), and the nanoseconds between entering
// the look-back and leaving it (%globaltimer). Lane 0 stores three numbers a
// tile at the end, so the copy costs almost nothing more; its time is printed
// beside the unchanged single_pass_scan()'s.
//
// With the same kernel told to skip its look-back (every tile takes 0 as the
// sum before it: wrong sums, the same loads, stores and barriers), the time
// that is left over sizes how much of the look-back's wait the other blocks'
// streaming does not hide.
//
// It #includes the reference scan.cu (its file-local helpers are needed), so
// it stays in solutions/ and out of the student release. From the repository root:
//   WORKBOOK_BUILD_TARGET="workbook_common" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/07-prefix-sum -Icommon/include \
//     -o build/probes/look_back_waits solutions/07-prefix-sum/probes/look_back_waits.cu \
//     build/default/common/libworkbook_common.a
//   build/probes/look_back_waits
#include <cstdio>
#include <vector>

#include "../scan.cu"
#include "workbook/buffers.hpp"
#include "workbook/timing.hpp"

namespace scan {
namespace {

struct LookBackCounts {
  unsigned* windows;       // windows of 32 status words read, per tile
  unsigned* spins;         // re-reads of a window that still held an invalid word, per tile
  unsigned long long* ns;  // time inside the look-back, per tile
};

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// look_back() with three counters; the logic is unchanged.
__device__ int look_back_counted(const unsigned long long* tile_status, long long tile, unsigned& windows,
                                 unsigned& spins) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int exclusive = 0;
  for (long long window_end = tile;; window_end -= kWarpSize) {
    ++windows;
    const long long predecessor = window_end - kWarpSize + lane;
    std::uint64_t word =
        predecessor >= 0 ? read_status(&tile_status[predecessor]) : make_tile_status(TileState::prefix, 0);
    while (__any_sync(kFullWarpMask, tile_status_state(word) == TileState::invalid)) {
      ++spins;
      if (tile_status_state(word) == TileState::invalid) word = read_status(&tile_status[predecessor]);
    }
    const unsigned prefix_lanes = __ballot_sync(kFullWarpMask, tile_status_state(word) == TileState::prefix);
    if (prefix_lanes != 0) {
      const int nearest = kWarpSize - 1 - __clz(prefix_lanes);
      return exclusive + warp_sum(lane >= nearest ? tile_status_value(word) : 0);
    }
    exclusive += warp_sum(tile_status_value(word));
  }
}

// scan_single_pass() of the reference, look_back() replaced by the counted one.
__global__ void __launch_bounds__(kSinglePassThreads, kMinBlocksPerSmSinglePass)
    scan_single_pass_counted(const int* in, int* out, std::size_t n, ScanKind kind, bool aligned,
                             unsigned long long* tile_status, unsigned* tile_counter, LookBackCounts counts,
                             bool skip_look_back) {
  __shared__ int4 parked[kSinglePassWarps][kGroupsPerThread][kWarpSize];
  __shared__ int warp_offsets[kSinglePassWarps];
  __shared__ unsigned tile_id;
  __shared__ int tile_prefix;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  if (threadIdx.x == 0) tile_id = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_id;
  const std::size_t tile_start = static_cast<std::size_t>(tile) * kSinglePassTileSize;
  const std::size_t lane_start = tile_start + static_cast<std::size_t>(warp) * kSinglePassWarpTile +
                                 static_cast<std::size_t>(kVectorWidth * lane);
  const bool vector_ok = aligned && tile_start + kSinglePassTileSize <= n;
  int group_offsets[kGroupsPerThread];
  int warp_total = 0;
#pragma unroll
  for (int g = 0; g < kGroupsPerThread; ++g) {
    const int4 group = load_group(in, n, lane_start + g * kWarpGroup, vector_ok);
    parked[warp][g][lane] = group;
    const int sum = group.x + group.y + group.z + group.w;
    const int inclusive = warp_scan(sum);
    group_offsets[g] = warp_total + inclusive - sum;
    warp_total += __shfl_sync(kFullWarpMask, inclusive, kWarpSize - 1);
  }
  if (lane == 0) warp_offsets[warp] = warp_total;
  __syncthreads();
  if (warp == 0) {
    const int own = lane < kSinglePassWarps ? warp_offsets[lane] : 0;
    const int inclusive = warp_scan(own);
    if (lane < kSinglePassWarps) warp_offsets[lane] = inclusive - own;
    const int tile_total = __shfl_sync(kFullWarpMask, inclusive, kWarpSize - 1);
    if (lane == 0) publish_status(&tile_status[tile], TileState::aggregate, tile_total);
    unsigned windows = 0, spins = 0;
    const unsigned long long entered = global_ns();
    const int before =
        skip_look_back ? 0 : look_back_counted(tile_status, static_cast<long long>(tile), windows, spins);
    const unsigned long long left = global_ns();
    if (lane == 0) {
      tile_prefix = before;
      publish_status(&tile_status[tile], TileState::prefix, before + tile_total);
      counts.windows[tile] = windows;
      counts.spins[tile] = spins;
      counts.ns[tile] = left - entered;
    }
  }
  __syncthreads();
  const int warp_prefix = tile_prefix + warp_offsets[warp];
#pragma unroll
  for (int g = 0; g < kGroupsPerThread; ++g) {
    const int4 result = scan_group(parked[warp][g][lane], warp_prefix + group_offsets[g], kind);
    store_group(out, n, lane_start + g * kWarpGroup, result, vector_ok);
  }
}

__global__ void fill_ones(int* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<int>(i % 7) - 3;
}

}  // namespace
}  // namespace scan

int main() {
  using namespace scan;
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  std::printf("lab 07 probe: the single pass's look-back, counted per tile; workbook::time_gpu, cold L2\n");
  for (const int log2n : {24, 26, 28}) {
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t tiles = ceil_div(n, kSinglePassTileSize);
    workbook::DeviceBuffer<int> in(n), out(n);
    workbook::DeviceBuffer<unsigned> windows(tiles), spins(tiles);
    workbook::DeviceBuffer<unsigned long long> ns(tiles);
    LookbackScratch scratch(n);
    fill_ones<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n);
    CUDA_CHECK_LAUNCH("fill_ones");
    const LookBackCounts counts{windows.data(), spins.data(), ns.data()};
    const auto run_copy = [&](cudaStream_t s, bool skip_look_back) {
      CUDA_CHECK(cudaMemsetAsync(scratch.tile_status.data(), 0, tiles * sizeof(unsigned long long), s));
      CUDA_CHECK(cudaMemsetAsync(scratch.tile_counter.data(), 0, sizeof(unsigned), s));
      scan_single_pass_counted<<<static_cast<unsigned>(tiles), kSinglePassThreads, 0, s>>>(
          in.data(), out.data(), n, ScanKind::inclusive, true, scratch.tile_status.data(),
          scratch.tile_counter.data(), counts, skip_look_back);
      CUDA_CHECK_LAUNCH("scan_single_pass_counted");
    };
    const auto counted = [&](cudaStream_t s) { run_copy(s, false); };
    const auto skipped = [&](cudaStream_t s) { run_copy(s, true); };
    const double plain_ms = workbook::time_gpu(
                                [&](cudaStream_t s) {
                                  single_pass_scan(in.data(), out.data(), n, ScanKind::inclusive, scratch, s);
                                },
                                options)
                                .median_ms;
    const double counted_ms = workbook::time_gpu(counted, options).median_ms;
    const double skipped_ms = workbook::time_gpu(skipped, options).median_ms;
    // One more counted run, untimed, whose counters are read.
    counted(nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned> w = windows.to_host(), sp = spins.to_host();
    const std::vector<unsigned long long> t = ns.to_host();
    double sum_w = 0, sum_s = 0, sum_ns = 0, spun = 0, max_s = 0;
    for (std::size_t i = 0; i < tiles; ++i) {
      sum_w += w[i];
      sum_s += sp[i];
      sum_ns += static_cast<double>(t[i]);
      spun += sp[i] > 0 ? 1 : 0;
      max_s = sp[i] > max_s ? sp[i] : max_s;
    }
    const int blocks_per_sm = kMinBlocksPerSmSinglePass;
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const double waves = static_cast<double>(tiles) / (static_cast<double>(blocks_per_sm) * sms);
    std::printf("  n = 2^%d: %zu tiles, %.1f waves of %d x %d blocks\n", log2n, tiles, waves, blocks_per_sm,
                sms);
    std::printf(
        "    single_pass_scan() %.4f ms; the counted copy %.4f ms; the copy without its look-back %.4f ms\n",
        plain_ms, counted_ms, skipped_ms);
    std::printf(
        "    per tile: %.2f windows, %.2f spins (%.1f %% of tiles spun at least once, at most %.0f), "
        "%.3f us in the look-back\n",
        sum_w / tiles, sum_s / tiles, 100.0 * spun / tiles, max_s, sum_ns / tiles / 1e3);
    std::printf("    look-back time summed over tiles / resident blocks: %.4f ms\n",
                sum_ns / 1e6 / (static_cast<double>(blocks_per_sm) * sms));
  }
  return 0;
}
