// Issue 39's lab 03 search: which tiled-transpose shape comes closest to the
// copy on this GPU? Times an 8192 x 8192 float transpose (256 MiB each way)
// for several tile widths and block heights against cudaMemcpyAsync of the same
// bytes, each the median of 15 runs with the L2 emptied before each, as the
// speed test does. Not part of the course: a maintainer's sweep.
//
//   nvcc -O3 -arch=native -o build/transpose_sweep tools/sweeps/transpose_sweep.cu && build/transpose_sweep
//
// On an NVIDIA H200 (2026-11-29; copy 0.1279-0.1300 ms, about 4190 GB/s), two rounds each,
// agreeing within 0.6 points (% of the copy):
//   tile 32, 32 x 8 threads (the lab's reference until 2026-11-29)   85.3-85.4
//   the same, blocks taken down the rows first                      90.6-91.9
//   tile 32, 32 x 4 threads, down first (the reference since)       94.6-95.2  (88.4-89.1 plain)
//   tile 32, 32 x 2 threads, down first                             93.9-94.2  (87.5-88.9 plain)
//   tile 64, 32 x 16 threads, down first                            93.5-94.8  (90.2-90.9 plain)
//   tile 64, 32 x 8: 88.3-89.5 plain, 91.5-93.2 down first; 32 x 4: 90.0-91.2 plain
// The block order matters more than the tile: taking consecutive blocks down
// the rows of `in` puts their writes side by side in `out`. With it, the
// lab's 32 x 32 tile does as well as a 64-wide one.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "../probes/probe_common.cuh"

// A Tile x Tile tile, blocks of 32 x Rows threads; each thread moves
// (Tile / 32) x (Tile / Rows) elements. Pitch Tile + 1 keeps the column reads
// of phase 2 on 32 different banks.
// DownFirst: consecutive blocks take the tiles below each other (blockIdx.x
// walks down the rows of `in`), so that their writes land side by side in `out`.
template <int Tile, int Rows, bool Streaming, bool DownFirst = false>
__global__ void __launch_bounds__(32 * Rows) transpose_tile(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[Tile][Tile + 1];
  const int tile_row = (DownFirst ? blockIdx.x : blockIdx.y) * Tile;
  const int tile_col = (DownFirst ? blockIdx.y : blockIdx.x) * Tile;
#pragma unroll
  for (int k = 0; k < Tile; k += Rows)
#pragma unroll
    for (int c = 0; c < Tile; c += 32) {
      const int row = tile_row + threadIdx.y + k, col = tile_col + threadIdx.x + c;
      if (row < rows && col < cols)
        tile[threadIdx.y + k][threadIdx.x + c] = __ldg(&in[size_t(row) * cols + col]);
    }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < Tile; k += Rows)
#pragma unroll
    for (int c = 0; c < Tile; c += 32) {
      const int out_row = tile_col + threadIdx.y + k, out_col = tile_row + threadIdx.x + c;
      if (out_row < cols && out_col < rows) {
        float* p = &out[size_t(out_row) * rows + out_col];
        const float v = tile[threadIdx.x + c][threadIdx.y + k];
        if (Streaming)
          __stcs(p, v);
        else
          *p = v;
      }
    }
}

// Overwrites a buffer larger than the L2 before each timed run, as the speed test does.
struct L2Flush {
  void* buffer = nullptr;
  size_t bytes = size_t(256) << 20;
  int calls = 0;
  L2Flush() { PROBE_CHECK(cudaMalloc(&buffer, bytes)); }
  void operator()() { PROBE_CHECK(cudaMemsetAsync(buffer, ++calls, bytes)); }
};

// Median of 15 runs, each after an L2 flush.
template <typename Call>
float median_cold(L2Flush& flush, Call call) {
  return median_ms(call, 15, [&] { flush(); });
}

template <int Tile, int Rows, bool Streaming, bool DownFirst = false>
void row(L2Flush& flush, float* out, const float* in, int n, float copy_ms, const std::vector<float>& want) {
  const dim3 block(32, Rows), grid(n / Tile, n / Tile);
  const float ms = median_cold(
      flush, [&] { transpose_tile<Tile, Rows, Streaming, DownFirst><<<grid, block>>>(out, in, n, n); });
  std::vector<float> got(size_t(n) * n);
  PROBE_CHECK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
  int blocks_per_sm = 0;
  PROBE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks_per_sm, transpose_tile<Tile, Rows, Streaming, DownFirst>, 32 * Rows, 0));
  std::printf(
      "tile %3d, 32 x %2d threads, %2d elements each, %s: %.4f ms, %5.1f %% of the copy, %d blocks/SM, %s\n",
      Tile, Rows, Tile * Tile / (32 * Rows),
      Streaming ? "streaming" : (DownFirst ? "down first" : "plain     "), ms, 100.0 * copy_ms / ms,
      blocks_per_sm, got == want ? "ok" : "WRONG");
}

int main() {
  const int n = 8192;
  const size_t bytes = size_t(n) * n * 4;
  std::vector<float> host(size_t(n) * n), want(size_t(n) * n);
  for (size_t i = 0; i < host.size(); ++i) host[i] = float(i % 1000003);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) want[size_t(c) * n + r] = host[size_t(r) * n + c];
  float *in, *out, *copy;
  PROBE_CHECK(cudaMalloc(&in, bytes));
  PROBE_CHECK(cudaMalloc(&out, bytes));
  PROBE_CHECK(cudaMalloc(&copy, bytes));
  PROBE_CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaDeviceProp prop;
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  L2Flush flush;
  const float copy_ms =
      median_cold(flush, [&] { PROBE_CHECK(cudaMemcpyAsync(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("%s: copy of 256 MiB %.4f ms, %.1f GB/s (read + write)\n", prop.name, copy_ms,
              2.0 * bytes / copy_ms / 1e6);
  for (int round = 0; round < 2; ++round) {
    row<32, 8, false>(flush, out, in, n, copy_ms, want);  // the lab's reference
    row<32, 8, false, true>(flush, out, in, n, copy_ms, want);
    row<32, 4, false>(flush, out, in, n, copy_ms, want);
    row<32, 4, false, true>(flush, out, in, n, copy_ms, want);
    row<32, 2, false>(flush, out, in, n, copy_ms, want);
    row<32, 2, false, true>(flush, out, in, n, copy_ms, want);
    row<64, 4, false>(flush, out, in, n, copy_ms, want);
    row<64, 8, false>(flush, out, in, n, copy_ms, want);
    row<64, 16, false>(flush, out, in, n, copy_ms, want);
    row<64, 16, false, true>(flush, out, in, n, copy_ms, want);
    row<64, 8, false, true>(flush, out, in, n, copy_ms, want);
  }
  const float copy_again =
      median_cold(flush, [&] { PROBE_CHECK(cudaMemcpyAsync(copy, in, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("copy again: %.4f ms\n", copy_again);
  return 0;
}
