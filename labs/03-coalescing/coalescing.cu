// Lab 03: coalescing. This is your file: fill in each TODO, then run
//   ./workbook grade coalescing
// The handout is labs/03-coalescing/README.md.
#include <stdexcept>

#include "coalescing.cuh"
#include "workbook/cuda_check.hpp"

namespace coalescing {

__host__ __device__ std::size_t row_major_index(int row, int col, int cols) {
  // TODO(1): Return row * cols + col. Convert to std::size_t BEFORE multiplying:
  //          an 8192 x 8192 matrix is fine in int, but 70000 x 70000 is not.
  return 0;
}

__host__ __device__ int shared_bank(int row, int col, int pitch) {
  // TODO(2): The element's word index in the shared array is row * pitch + col;
  //          its bank is that index modulo kSharedBanks.
  return 0;
}

__global__ void strided_copy(float* out, const float* in, std::size_t n, int stride) {
  // TODO(3): One thread per output element: compute the global index i as a std::size_t
  //          (n can exceed 2^31 / stride), and if i < n copy in[i * stride] to out[i].
}

void launch_strided_copy(float* out, const float* in, std::size_t n, int stride, cudaStream_t stream) {
  if (stride < 1) throw std::invalid_argument("launch_strided_copy: stride must be at least 1");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  strided_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, stride);
  CUDA_CHECK_LAUNCH("strided_copy");
}

__global__ void offset_copy(float* out, const float* in, std::size_t n, int offset) {
  // TODO(4): One thread per output element: if its index i < n, copy in[i + offset] to out[i].
}

void launch_offset_copy(float* out, const float* in, std::size_t n, int offset, cudaStream_t stream) {
  if (offset < 0) throw std::invalid_argument("launch_offset_copy: offset must be 0 or more");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  offset_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, offset);
  CUDA_CHECK_LAUNCH("offset_copy");
}

__global__ void row_sums(float* sums, const float* matrix, int rows, int cols) {
  // TODO(5): Thread r (its global index) adds up row r, columns 0 to cols - 1, in a
  //          float, and writes the total to sums[r]. Threads with r >= rows do nothing.
  //          Use row_major_index for the element's index.
}

void launch_row_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(rows, kSumThreadsPerBlock));
  row_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("row_sums");
}

__global__ void column_sums(float* sums, const float* matrix, int rows, int cols) {
  // TODO(6): Thread c (its global index) adds up column c, rows 0 to rows - 1, in a
  //          float, and writes the total to sums[c]. Threads with c >= cols do nothing.
}

void launch_column_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (cols == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(cols, kSumThreadsPerBlock));
  column_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("column_sums");
}

__global__ void transpose_naive(float* out, const float* in, int rows, int cols) {
  // TODO(7): This block's tile starts at row blockIdx.y * kTileDim, column blockIdx.x * kTileDim
  //          of `in`. The thread's column is tile column + threadIdx.x; it handles the rows
  //          tile row + threadIdx.y + k for k = 0, kBlockRows, 2 * kBlockRows, ... < kTileDim.
  //          For each (row, col) inside the matrix: out[col * rows + row] = in[row * cols + col].
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
  // TODO(8): 1. Declare a __shared__ float tile of kTileDim rows of kTilePitch floats
  //             (the extra column keeps a tile column in 32 different banks).
  //          2. Read this block's kTileDim x kTileDim tile of `in` row by row: thread (x, y)
  //             copies in(tile row + y + k, tile col + x) to tile[y + k][x], k = 0, 8, 16, 24,
  //             skipping elements outside the matrix.
  //          3. __syncthreads(): every element must be in the tile before anyone reads it.
  //          4. Write the tile transposed: the output tile starts at row (tile col), column
  //             (tile row) of `out`, which has `rows` columns; thread (x, y) writes
  //             out(tile col + y + k, tile row + x) = tile[x][y + k], again skipping the outside.
}

void launch_transpose_tiled(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  // TODO(9): Launch transpose_tiled on `stream` with blocks of kTileDim x kBlockRows threads and
  //          one block per kTileDim x kTileDim tile (x over columns, y over rows; round up),
  //          then check the launch with CUDA_CHECK_LAUNCH("transpose_tiled").
}

}  // namespace coalescing
