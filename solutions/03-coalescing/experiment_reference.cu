// Lab 03, the comparison kept beside the reference solution: the tiled
// transpose WITHOUT the padding column of its shared tile, on the 8192 x 8192
// matrix of the experiment's table 4, so that the cost of the bank conflicts
// the padding removes can be read off one more row of that table.
// It lives here and not in labs/03-coalescing/experiment.cu because it is
// TODO(8) less one column: the student's folder must not hold it.
//   ./workbook bench coalescing --solution   (the experiment, then this program)
// Its row is recorded in table "transpose", as before it moved.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "coalescing.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr char kLab[] = "03-coalescing";
constexpr int kRows = 8192;
constexpr int kCols = 8192;
constexpr std::uint64_t kSeed = 3;

// row * cols + col (the lab's row_major_index is a device function of another
// file, which a kernel here cannot call).
__host__ __device__ std::size_t index_of(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

// The tiled transpose with a tile of kTileDim x kTileDim floats, no padding:
// reading a tile column makes all 32 threads of a warp hit the same bank.
// Otherwise the reference's kernel: blocks down the rows first.
__global__ void transpose_tiled_unpadded(float* out, const float* in, int rows, int cols) {
  __shared__ float tile[coalescing::kTileDim][coalescing::kTileDim];
  const int tile_row = static_cast<int>(blockIdx.x) * coalescing::kTileDim;
  const int tile_col = static_cast<int>(blockIdx.y) * coalescing::kTileDim;
  const int x = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);
  for (int k = 0; k < coalescing::kTileDim; k += coalescing::kBlockRows) {
    if (tile_row + y + k < rows && tile_col + x < cols) {
      tile[y + k][x] = in[index_of(tile_row + y + k, tile_col + x, cols)];
    }
  }
  __syncthreads();
  for (int k = 0; k < coalescing::kTileDim; k += coalescing::kBlockRows) {
    if (tile_col + y + k < cols && tile_row + x < rows) {
      out[index_of(tile_col + y + k, tile_row + x, rows)] = tile[x][y + k];
    }
  }
}

void launch_transpose_tiled_unpadded(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  const dim3 block(coalescing::kTileDim, coalescing::kBlockRows);
  const dim3 grid(static_cast<unsigned>(coalescing::ceil_div(rows, coalescing::kTileDim)),
                  static_cast<unsigned>(coalescing::ceil_div(cols, coalescing::kTileDim)));
  transpose_tiled_unpadded<<<grid, block, 0, stream>>>(out, in, rows, cols);
  CUDA_CHECK_LAUNCH("transpose_tiled_unpadded");
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    const std::size_t elements = static_cast<std::size_t>(kRows) * kCols;
    const double bytes = 2.0 * static_cast<double>(elements * sizeof(float));
    // Random bits: a misplaced element almost never holds the value that belongs
    // there. The kernel moves floats and never computes with them: NaN bits survive.
    workbook::DeviceBuffer<std::uint32_t> in(elements), out(elements);
    workbook::fill_random_u32(in.data(), elements, kSeed);
    const std::vector<std::uint32_t> want = in.to_host();

    std::printf("\nBeside table 4, from solutions/03-coalescing/experiment_reference.cu:\n");
    workbook::print_rows_header("4b. The tiled transpose without the padding column, " +
                                    std::to_string(kRows) + " x " + std::to_string(kCols) + " floats",
                                "GB/s", "copy");
    out.fill_bytes(0xFF);
    const workbook::TimingResult timing = workbook::time_gpu([&](cudaStream_t stream) {
      launch_transpose_tiled_unpadded(reinterpret_cast<float*>(out.data()),
                                      reinterpret_cast<const float*>(in.data()), kRows, kCols, stream);
    });
    const std::vector<std::uint32_t> got = out.to_host();
    bool ok = true;
    for (int r = 0; r < kRows && ok; ++r) {
      for (int c = 0; c < kCols && ok; ++c) ok = got[index_of(c, r, kRows)] == want[index_of(r, c, kCols)];
    }
    const workbook::BenchRow row{"transpose",
                                 "tiled, no padding (for comparison)",
                                 elements,
                                 timing,
                                 workbook::gigabytes_per_second(bytes, timing.median_ms),
                                 "GB/s"};
    if (!workbook::print_and_record(kLab, row, copy_gbps, ok)) {
      std::fprintf(stderr, "a WRONG RESULT: see the row above\n");
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
