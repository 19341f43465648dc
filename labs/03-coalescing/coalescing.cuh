/// @file coalescing.cuh
/// @brief Lab 03, coalescing: the contract between your code and the tests.
///
/// The same bytes can be moved fast or slowly depending on which thread
/// touches which address. These kernels copy with a stride and with an
/// offset, sum the rows and the columns of a matrix, and transpose a matrix
/// twice: naively, and through a tile in shared memory that makes both the
/// reads and the writes of global memory coalesced.
///
/// Matrices are stored row-major: element (r, c) of a matrix with `cols`
/// columns is at index r * cols + c. Indices into large matrices are
/// std::size_t, because rows * cols can exceed 2^31.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace coalescing {

/// @brief Threads per block of the one-dimensional copy kernels.
constexpr int kCopyThreadsPerBlock = 256;

/// @brief Threads per block of row_sums and column_sums. These kernels have
/// only one thread per row or per column (8192 threads for an 8192 x 8192
/// matrix), so smaller blocks spread them over more of the GPU's SMs.
constexpr int kSumThreadsPerBlock = 128;

/// @brief Side of the square tile of the matrix that one block of a transpose
/// kernel moves: 32, one element per lane of a warp along a tile row.
constexpr int kTileDim = 32;

/// @brief Rows of threads in a block of a transpose kernel. A block has
/// kTileDim x kBlockRows = 32 x 4 threads, and each thread moves
/// kTileDim / kBlockRows = 8 elements of its tile: 8 loads in flight per
/// thread instead of 4 with 32 x 8, and 16 small blocks per SM instead of 8,
/// so a block waiting at its barrier idles less (the handout's measurements).
constexpr int kBlockRows = 4;

/// @brief Number of shared-memory banks: consecutive 4-byte words sit in
/// consecutive banks, wrapping around after 32.
constexpr int kSharedBanks = 32;

/// @brief Row pitch, in floats, of the shared-memory tile of transpose_tiled:
/// one column more than the tile is wide, so that the elements of a tile
/// column fall into 32 different banks.
constexpr int kTilePitch = kTileDim + 1;

/// @brief Integer division rounded up: the number of blocks of @p d items
/// needed to cover @p n items.
/// @param[in] n Number of items, at least 0.
/// @param[in] d Items per block, at least 1.
/// @return The smallest b with b * d >= n.
__host__ __device__ constexpr std::size_t ceil_div(std::size_t n, std::size_t d) {
  return (n + d - 1) / d;
}

/// @brief Index of element (@p row, @p col) of a row-major matrix with
/// @p cols columns, computed in std::size_t so that it does not overflow for
/// matrices of more than 2^31 elements.
/// @param[in] row Row of the element, 0 or more.
/// @param[in] col Column of the element, 0 <= col < cols.
/// @param[in] cols Number of columns of the matrix (its row length).
/// @return row * cols + col.
__host__ __device__ std::size_t row_major_index(int row, int col, int cols);

/// @brief The shared-memory bank that holds element (@p row, @p col) of a
/// float array in shared memory whose rows are @p pitch floats apart.
/// @param[in] row Row of the element.
/// @param[in] col Column of the element.
/// @param[in] pitch Distance between the starts of two rows, in floats
///            (kTileDim for an unpadded tile, kTilePitch for a padded one).
/// @return The bank, 0 to kSharedBanks - 1: the element's word index modulo kSharedBanks.
__host__ __device__ int shared_bank(int row, int col, int pitch);

/// @brief Strided copy: out[i] = in[i * stride] for every i < n. The input
/// holds n * stride elements and only every stride-th one is copied, so the
/// useful bytes (n floats read, n written) are the same at every stride;
/// only the distance between the addresses that neighbouring threads read
/// changes.
/// @param[out] out Device array of n floats.
/// @param[in] in Device array of at least (n - 1) * stride + 1 floats.
/// @param[in] n Number of elements to copy.
/// @param[in] stride Distance, in elements, between two elements read; 1 or more.
__global__ void strided_copy(float* out, const float* in, std::size_t n, int stride);

/// @brief Launches strided_copy with one thread per output element,
/// kCopyThreadsPerBlock threads per block; checks the launch.
/// @param[out] out Device array of n floats.
/// @param[in] in Device array of at least (n - 1) * stride + 1 floats.
/// @param[in] n Number of elements to copy; 0 launches nothing.
/// @param[in] stride Distance between two elements read, 1 or more.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when stride < 1.
/// @throws workbook::CudaError when the launch fails.
void launch_strided_copy(float* out, const float* in, std::size_t n, int stride,
                         cudaStream_t stream = nullptr);

/// @brief Offset copy: out[i] = in[i + offset] for every i < n. With an offset
/// that is not a multiple of 8 floats (32 bytes) the reads of a warp start in
/// the middle of a memory sector: the access is misaligned.
/// @param[out] out Device array of n floats.
/// @param[in] in Device array of n + offset floats.
/// @param[in] n Number of elements to copy.
/// @param[in] offset How many elements the reads are shifted by; 0 or more.
__global__ void offset_copy(float* out, const float* in, std::size_t n, int offset);

/// @brief Launches offset_copy with one thread per output element,
/// kCopyThreadsPerBlock threads per block; checks the launch.
/// @param[out] out Device array of n floats.
/// @param[in] in Device array of n + offset floats.
/// @param[in] n Number of elements to copy; 0 launches nothing.
/// @param[in] offset Shift of the reads, 0 or more.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when offset < 0.
/// @throws workbook::CudaError when the launch fails.
void launch_offset_copy(float* out, const float* in, std::size_t n, int offset,
                        cudaStream_t stream = nullptr);

/// @brief Row sums with one thread per row: thread r adds up row r from left
/// to right, sums[r] = sum over c of matrix[r * cols + c]. At each step the
/// threads of a warp read addresses a whole row apart: the reads are not
/// coalesced.
/// @param[out] sums Device array of rows floats.
/// @param[in] matrix Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows.
/// @param[in] cols Number of columns (0 gives sums of 0).
__global__ void row_sums(float* sums, const float* matrix, int rows, int cols);

/// @brief Launches row_sums with one thread per row, kSumThreadsPerBlock
/// threads per block; checks the launch.
/// @param[out] sums Device array of rows floats.
/// @param[in] matrix Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows; 0 launches nothing.
/// @param[in] cols Number of columns; 0 sets every sum to 0.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_row_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream = nullptr);

/// @brief Column sums with one thread per column: thread c adds up column c
/// from top to bottom, sums[c] = sum over r of matrix[r * cols + c]. At each
/// step the threads of a warp read 32 neighbouring floats of one row: the
/// reads are coalesced.
/// @param[out] sums Device array of cols floats.
/// @param[in] matrix Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows (0 gives sums of 0).
/// @param[in] cols Number of columns.
__global__ void column_sums(float* sums, const float* matrix, int rows, int cols);

/// @brief Launches column_sums with one thread per column,
/// kSumThreadsPerBlock threads per block; checks the launch.
/// @param[out] sums Device array of cols floats.
/// @param[in] matrix Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows; 0 sets every sum to 0.
/// @param[in] cols Number of columns; 0 launches nothing.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_column_sums(float* sums, const float* matrix, int rows, int cols, cudaStream_t stream = nullptr);

/// @brief Naive transpose: out[c * rows + r] = in[r * cols + c]. A block of
/// kTileDim x kBlockRows threads handles one kTileDim x kTileDim tile, each
/// thread 8 elements of one tile column, reading straight from @p in and
/// writing straight to @p out. The reads are coalesced; the writes of a warp
/// land a whole output row apart.
/// @param[out] out Device array of cols * rows floats: the transpose, row-major.
/// @param[in] in Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows of @p in.
/// @param[in] cols Number of columns of @p in.
__global__ void transpose_naive(float* out, const float* in, int rows, int cols);

/// @brief Launches transpose_naive on a grid of ceil(cols / kTileDim) x
/// ceil(rows / kTileDim) blocks of kTileDim x kBlockRows threads; checks the launch.
/// @param[out] out Device array of cols * rows floats.
/// @param[in] in Device array of rows * cols floats.
/// @param[in] rows Number of rows of @p in; 0 launches nothing. The grid's y counts the
/// row tiles, so at most 65535 * kTileDim rows.
/// @param[in] cols Number of columns of @p in; 0 launches nothing.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_transpose_naive(float* out, const float* in, int rows, int cols, cudaStream_t stream = nullptr);

/// @brief Tiled transpose through shared memory: a block of kTileDim x
/// kBlockRows threads reads one kTileDim x kTileDim tile of @p in row by row
/// (coalesced) into a shared array of kTileDim rows of kTilePitch floats,
/// waits for the whole block, then writes the tile's columns as rows of
/// @p out (coalesced again). Each thread moves 8 elements in each phase.
/// Which block takes which tile is the launch's choice.
/// @param[out] out Device array of cols * rows floats: the transpose, row-major.
/// @param[in] in Device array of rows * cols floats, row-major.
/// @param[in] rows Number of rows of @p in.
/// @param[in] cols Number of columns of @p in.
__global__ void transpose_tiled(float* out, const float* in, int rows, int cols);

/// @brief Launches transpose_tiled with blocks of kTileDim x kBlockRows
/// threads, one block per kTileDim x kTileDim tile of @p in; checks the launch.
/// Which block takes which tile is the launch's choice; the order matters
/// for speed (the handout's Hints).
/// @param[out] out Device array of cols * rows floats.
/// @param[in] in Device array of rows * cols floats.
/// @param[in] rows Number of rows of @p in; 0 launches nothing.
/// @param[in] cols Number of columns of @p in; 0 launches nothing.
/// Whichever side your grid's y counts tiles of is at most 65535 * kTileDim.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_transpose_tiled(float* out, const float* in, int rows, int cols, cudaStream_t stream = nullptr);

}  // namespace coalescing
