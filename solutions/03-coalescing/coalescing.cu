// SOLUTION-ONLY: Lab 03 reference solution. labs/03-coalescing/coalescing.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 03: coalescing. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade coalescing
// STUDENT-ONLY: The handout is labs/03-coalescing/README.md.
#include <stdexcept>

#include "coalescing.cuh"
#include "workbook/cuda_check.hpp"

namespace coalescing {

// WALKTHROUGH: indices
__host__ __device__ std::size_t row_major_index(int row, int col, int cols) {
  // HOLE: Return the row-major index of element (row, col) of a matrix with `cols` columns.
  // HOLE: It must be exact past 2^31 elements (a 70000 x 70000 matrix): no int overflow on the way.
  // STUB: return 0;
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
  // END HOLE
}

__host__ __device__ int shared_bank(int row, int col, int pitch) {
  // HOLE: Return the bank, 0 to kSharedBanks - 1, that holds float (row, col) of a shared array
  // HOLE: whose rows are `pitch` floats apart.
  // STUB: return 0;
  return (row * pitch + col) % kSharedBanks;
  // END HOLE
}
// END WALKTHROUGH: indices

// WALKTHROUGH: strided-copy
__global__ void strided_copy(float* out, const float* in, std::size_t n, int stride) {
  // HOLE: Each thread of the grid (one per output element) sets its element: out[i] = in[i * stride].
  // HOLE: No thread writes past out[n - 1]; indices must stay exact where n * stride exceeds 2^31.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Neighbouring threads read addresses stride * 4 bytes apart: at stride 8 and
  // more, every thread of a warp needs a 32-byte sector of its own.
  if (i < n) out[i] = in[i * static_cast<std::size_t>(stride)];
  // END HOLE
}

void launch_strided_copy(float* out, const float* in, std::size_t n, int stride, cudaStream_t stream) {
  if (stride < 1) throw std::invalid_argument("launch_strided_copy: stride must be at least 1");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  strided_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, stride);
  CUDA_CHECK_LAUNCH("strided_copy");
}
// END WALKTHROUGH: strided-copy

// WALKTHROUGH: offset-copy
__global__ void offset_copy(float* out, const float* in, std::size_t n, int offset) {
  // HOLE: Each thread of the grid (one per output element) sets its element: out[i] = in[i + offset].
  // HOLE: No thread writes past out[n - 1].
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // A warp still reads 128 contiguous bytes, but unless offset is a multiple of
  // 8 floats they straddle five 32-byte sectors instead of four.
  if (i < n) out[i] = in[i + static_cast<std::size_t>(offset)];
  // END HOLE
}

void launch_offset_copy(float* out, const float* in, std::size_t n, int offset, cudaStream_t stream) {
  if (offset < 0) throw std::invalid_argument("launch_offset_copy: offset must be 0 or more");
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kCopyThreadsPerBlock));
  offset_copy<<<blocks, kCopyThreadsPerBlock, 0, stream>>>(out, in, n, offset);
  CUDA_CHECK_LAUNCH("offset_copy");
}
// END WALKTHROUGH: offset-copy

// WALKTHROUGH: row-sums
__global__ void row_sums(float* sums, const float* matrix, int rows, int cols) {
  // HOLE: One thread per row of the grid: sums[r] must hold the float sum of row r, added up by
  // HOLE: that one thread, for every r < rows. Threads without a row write nothing.
  // HOLE: Index the matrix with row_major_index.
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (row >= rows) return;
  float sum = 0.0f;
  // At each step the 32 threads of a warp read 32 different rows: 32 sectors
  // for 32 useful floats, and the other 7 floats of each sector must wait in
  // the cache until this thread's next steps come for them.
  for (int col = 0; col < cols; ++col) sum += matrix[row_major_index(row, col, cols)];
  sums[row] = sum;
  // END HOLE
}
// END WALKTHROUGH: row-sums

void launch_row_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(rows, kSumThreadsPerBlock));
  row_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("row_sums");
}

// WALKTHROUGH: column-sums
__global__ void column_sums(float* sums, const float* matrix, int rows, int cols) {
  // HOLE: One thread per column of the grid: sums[c] must hold the float sum of column c, added up
  // HOLE: by that one thread, for every c < cols. Threads without a column write nothing.
  // HOLE: Index the matrix with row_major_index.
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= cols) return;
  float sum = 0.0f;
  // At each step the threads of a warp read neighbouring floats of one row:
  // 128 contiguous bytes, four full sectors, every byte of them used.
  for (int row = 0; row < rows; ++row) sum += matrix[row_major_index(row, col, cols)];
  sums[col] = sum;
  // END HOLE
}
// END WALKTHROUGH: column-sums

void launch_column_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream) {
  if (cols == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(cols, kSumThreadsPerBlock));
  column_sums<<<blocks, kSumThreadsPerBlock, 0, stream>>>(sums, matrix, rows, cols);
  CUDA_CHECK_LAUNCH("column_sums");
}

// WALKTHROUGH: naive-transpose
__global__ void transpose_naive(float* out, const float* in, int rows, int cols) {
  // HOLE: Copy this block's kTileDim x kTileDim tile of `in` (blockIdx.x counts tiles across the
  // HOLE: columns, blockIdx.y down the rows) transposed, straight into `out`: out(c, r) = in(r, c).
  // HOLE: The kTileDim x kBlockRows threads cover the whole tile; nothing outside the matrix is touched.
  const int col = static_cast<int>(blockIdx.x) * kTileDim + static_cast<int>(threadIdx.x);
  const int tile_row = static_cast<int>(blockIdx.y) * kTileDim;
  if (col >= cols) return;
  for (int k = 0; k < kTileDim; k += kBlockRows) {
    const int row = tile_row + static_cast<int>(threadIdx.y) + k;
    // The read is coalesced (a warp reads 32 neighbours in one row); the write
    // is not: neighbouring threads write to output rows that are `rows` floats apart.
    if (row < rows) out[row_major_index(col, row, rows)] = in[row_major_index(row, col, cols)];
  }
  // END HOLE
}
// END WALKTHROUGH: naive-transpose

void launch_transpose_naive(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTileDim, kBlockRows);
  const dim3 grid(static_cast<unsigned>(ceil_div(cols, kTileDim)),
                  static_cast<unsigned>(ceil_div(rows, kTileDim)));
  transpose_naive<<<grid, block, 0, stream>>>(out, in, rows, cols);
  CUDA_CHECK_LAUNCH("transpose_naive");
}

// WALKTHROUGH: tiled-kernel
__global__ void transpose_tiled(float* out, const float* in, int rows, int cols) {
  // HOLE: Transpose this block's kTileDim x kTileDim tile of `in` into `out` (which block takes which
  // HOLE: tile is up to you and your launch, TODO(9)), through a padded __shared__ tile (kTileDim rows of
  // HOLE: kTilePitch floats): global reads and writes both coalesced, no bank conflicts. Every thread
  // HOLE: reaches the barrier; nothing outside the matrix is touched.
  // Padding: tile[x][j] for x = 0..31 is the word x * kTilePitch + j. With a pitch of 32
  // these 32 words would all sit in bank j and the warp's reads would be served one at a
  // time; with a pitch of 33 they sit in banks (x + j) % 32, all different.
  // WALKTHROUGH: tile-declaration
  __shared__ float tile[kTileDim][kTilePitch];
  // END WALKTHROUGH: tile-declaration

  // blockIdx.x counts the tiles DOWN the rows of `in`, blockIdx.y across: blocks
  // launched one after another (x varies fastest) take tiles below each other,
  // which land side by side in one band of rows of `out`, so their writes fill
  // whole DRAM pages together. Across the columns first, neighbouring blocks
  // write 32 rows of `out` a whole output row apart. Measured on an H200
  // (tools/sweeps/transpose_sweep.cu): 95 % of the copy against 89 %.
  const int tile_row = static_cast<int>(blockIdx.x) * kTileDim;  // first row of `in` in this tile
  const int tile_col = static_cast<int>(blockIdx.y) * kTileDim;  // first column of `in` in this tile
  const int x = static_cast<int>(threadIdx.x);
  const int y = static_cast<int>(threadIdx.y);

  // 32 x 4 threads, 8 elements each: each thread has 8 independent loads in
  // flight, the index arithmetic and the barrier are paid once per 8 elements,
  // and 16 blocks of 128 fit on an SM, so one block waiting at its barrier
  // leaves 15 others moving data.
  // WALKTHROUGH: tile-read
  // Phase 1: a warp (fixed y) reads 32 neighbours of one row of `in`: coalesced.
  for (int k = 0; k < kTileDim; k += kBlockRows) {
    const int row = tile_row + y + k;
    const int col = tile_col + x;
    if (row < rows && col < cols) tile[y + k][x] = in[row_major_index(row, col, cols)];
  }
  // END WALKTHROUGH: tile-read
  // WALKTHROUGH: tile-sync
  // Threads now read elements that other warps wrote.
  __syncthreads();
  // END WALKTHROUGH: tile-sync
  // WALKTHROUGH: tile-write
  // Phase 2: a warp writes 32 neighbours of one row of `out`: coalesced again.
  // The transposition happens in shared memory, where reading a column is cheap.
  for (int k = 0; k < kTileDim; k += kBlockRows) {
    const int out_row = tile_col + y + k;  // a column of `in`
    const int out_col = tile_row + x;      // a row of `in`
    if (out_row < cols && out_col < rows) out[row_major_index(out_row, out_col, rows)] = tile[x][y + k];
  }
  // END WALKTHROUGH: tile-write
  // END HOLE
}
// END WALKTHROUGH: tiled-kernel

// WALKTHROUGH: tiled-launch
void launch_transpose_tiled(float* out, const float* in, int rows, int cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  // HOLE: Launch transpose_tiled on `stream`: blocks of kTileDim x kBlockRows threads, one per tile of
  // HOLE: `in` (as your kernel expects), every element covered. Check it with CUDA_CHECK_LAUNCH.
  const dim3 block(kTileDim, kBlockRows);
  // x counts the tiles down the rows (the kernel's blockIdx.x), y across the columns.
  const dim3 grid(static_cast<unsigned>(ceil_div(rows, kTileDim)),
                  static_cast<unsigned>(ceil_div(cols, kTileDim)));
  transpose_tiled<<<grid, block, 0, stream>>>(out, in, rows, cols);
  CUDA_CHECK_LAUNCH("transpose_tiled");
  // END HOLE
}
// END WALKTHROUGH: tiled-launch

}  // namespace coalescing
