// Lab 03: coalescing. This is your file: fill in each TODO, then run
//   ./workbook grade coalescing
// The handout is labs/03-coalescing/README.md.
#include <stdexcept>

#include "coalescing.cuh"
#include "workbook/cuda_check.hpp"

namespace coalescing {

__host__ __device__ std::size_t row_major_index(int row, int col, int cols) {
  // TODO(1): Return the row-major index of element (row, col) of a matrix with `cols` columns.
  //          It must be exact past 2^31 elements (a 70000 x 70000 matrix): no int overflow on the way.
  return 0;
}

__host__ __device__ int shared_bank(int row, int col, int pitch) {
  // TODO(2): Return the bank, 0 to kSharedBanks - 1, that holds float (row, col) of a shared array
  //          whose rows are `pitch` floats apart.
  return 0;
}

__global__ void strided_copy(float* out, const float* in, std::size_t n, int stride) {
  // TODO(3): Each thread of the grid (one per output element) sets its element: out[i] = in[i * stride].
  //          No thread writes past out[n - 1]; indices must stay exact where n * stride exceeds 2^31.
}

void launch_strided_copy(float* out, const float* in, std::size_t n, int stride, cudaStream_t stream) {
  if (stride < 1) throw std::invalid_argument("launch_strided_copy: stride must be at least 1");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  strided_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, stride);
  CUDA_CHECK_LAUNCH("strided_copy");
}

__global__ void offset_copy(float* out, const float* in, std::size_t n, int offset) {
  // TODO(4): Each thread of the grid (one per output element) sets its element: out[i] = in[i + offset].
  //          No thread writes past out[n - 1].
}

void launch_offset_copy(float* out, const float* in, std::size_t n, int offset, cudaStream_t stream) {
  if (offset < 0) throw std::invalid_argument("launch_offset_copy: offset must be 0 or more");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  offset_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, offset);
  CUDA_CHECK_LAUNCH("offset_copy");
}

__global__ void row_sums(float* sums, const float* matrix, int rows, int cols) {
  // TODO(5): One thread per row of the grid: sums[r] must hold the float sum of row r, added up by
  //          that one thread, for every r < rows. Threads without a row write nothing.
  //          Index the matrix with row_major_index.
}

void launch_row_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(rows, kSumThreadsPerBlock));
  row_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("row_sums");
}

__global__ void column_sums(float* sums, const float* matrix, int rows, int cols) {
  // TODO(6): One thread per column of the grid: sums[c] must hold the float sum of column c, added up
  //          by that one thread, for every c < cols. Threads without a column write nothing.
  //          Index the matrix with row_major_index.
}

void launch_column_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (cols == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(cols, kSumThreadsPerBlock));
  column_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("column_sums");
}

__global__ void transpose_naive(float* out, const float* in, int rows, int cols) {
  // TODO(7): Copy this block's kTileDim x kTileDim tile of `in` (blockIdx.x counts tiles across the
  //          columns, blockIdx.y down the rows) transposed, straight into `out`: out(c, r) = in(r, c).
  //          The kTileDim x kBlockRows threads cover the whole tile; nothing outside the matrix is touched.
}

void launch_transpose_naive(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTileDim, kBlockRows);
  const dim3 grid(static_cast<unsigned>(ceil_div(cols, kTileDim)),
                  static_cast<unsigned>(ceil_div(rows, kTileDim)));
  transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
  CUDA_CHECK_LAUNCH("transpose_naive");
}

__global__ void transpose_tiled(float* out, const float* in, int rows, int cols) {
  // TODO(8): Transpose this block's kTileDim x kTileDim tile of `in` into `out` (which block takes which
  //          tile is up to you and your launch, TODO(9)), through a padded __shared__ tile (kTileDim rows of
  //          kTilePitch floats): global reads and writes both coalesced, no bank conflicts. Every thread
  //          reaches the barrier; nothing outside the matrix is touched.
}

void launch_transpose_tiled(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  // TODO(9): Launch transpose_tiled on `stream`: blocks of kTileDim x kBlockRows threads, one per tile of
  //          `in` (as your kernel expects), every element covered. Check it with CUDA_CHECK_LAUNCH.
}

}  // namespace coalescing
