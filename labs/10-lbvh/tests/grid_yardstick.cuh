/// @file grid_yardstick.cuh
/// @brief The yardstick of lab 10's query: a uniform grid, the textbook
/// broad phase for objects of one size at an even density. Its cell is (a
/// hair wider than) the largest box, each object is filed under the cell of its centroid,
/// and an object's overlapping boxes can then only be in the 27 cells around
/// its own (two boxes no wider than a cell overlap only when their centroids
/// are within one cell on every axis). The grid is built untimed, on the host
/// from host boxes or on the device from device boxes (rebuild(): the same
/// grid, for the speed test's new scene of every run); query() is one thread
/// per object in cell order, testing every object of the 27 cells and
/// reporting the pairs with the larger object index, like the lab's query,
/// with one atomicAdd per pair.
///
/// Not part of the student's file. Include it in one source file per program
/// (it defines kernels): the speed tests and the experiment.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>
#include <vector>

#include "lbvh.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"

namespace lbvh::yardstick {

/// @brief Cells per axis at most: a scene whose largest box is tiny compared
/// with the scene would need more, and is refused.
constexpr int kMaxGridCellsPerAxis = 1024;

/// @brief Threads of the one block of grid_bounds().
constexpr int kBoundsThreads = 1024;

/// @brief The cell, 0 .. cells - 1, of coordinate @p x on an axis of the grid
/// (grid_query() computes the same).
/// @param[in] x The coordinate.
/// @param[in] origin The grid's lowest coordinate on the axis.
/// @param[in] cell The width of a cell.
/// @param[in] cells Cells on the axis.
/// @return The cell, clamped to the grid.
__host__ __device__ inline int grid_cell_on(float x, float origin, float cell, int cells) {
  const int k = static_cast<int>((x - origin) / cell);
  return k < 0 ? 0 : (k > cells - 1 ? cells - 1 : k);
}

/// @brief The cell of a centroid, numbered x fastest, then y, then z.
/// @param[in] c The centroid.
/// @param[in] origin The grid's lowest corner.
/// @param[in] cell The width of a cell.
/// @param[in] dims Cells per axis.
/// @return The cell's index.
__host__ __device__ inline std::uint32_t grid_cell_of(float3 c, float3 origin, float cell, int3 dims) {
  const int x = grid_cell_on(c.x, origin.x, cell, dims.x);
  const int y = grid_cell_on(c.y, origin.y, cell, dims.y);
  const int z = grid_cell_on(c.z, origin.z, cell, dims.z);
  return static_cast<std::uint32_t>((z * dims.y + y) * dims.x + x);
}

/// @brief What the grid's geometry needs of a scene.
struct GridBounds {
  Aabb all;      ///< The box around all objects.
  float widest;  ///< The largest extent of any box on any axis.
};

/// @brief One block of kBoundsThreads threads: the bounds of n boxes into *out.
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of boxes.
/// @param[out] out Device pointer to the bounds.
__global__ void grid_bounds(const Aabb* boxes, std::uint32_t n, GridBounds* out) {
  __shared__ GridBounds partial[kBoundsThreads];
  GridBounds mine{empty_box(), 0.0f};
  for (std::uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
    const Aabb b = boxes[i];
    mine.all = merge(mine.all, b);
    mine.widest = max_of(mine.widest, max_of(b.hi.x - b.lo.x, max_of(b.hi.y - b.lo.y, b.hi.z - b.lo.z)));
  }
  partial[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      partial[threadIdx.x].all = merge(partial[threadIdx.x].all, partial[threadIdx.x + half].all);
      partial[threadIdx.x].widest = max_of(partial[threadIdx.x].widest, partial[threadIdx.x + half].widest);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = partial[0];
}

/// @brief One thread per object i: cells[i] = the cell of its centroid, ids[i] = i.
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of boxes.
/// @param[in] origin The grid's lowest corner.
/// @param[in] cell The width of a cell.
/// @param[in] dims Cells per axis.
/// @param[out] cells Device array of n cells.
/// @param[out] ids Device array of n object indices.
__global__ void grid_file(const Aabb* boxes, std::uint32_t n, float3 origin, float cell, int3 dims,
                          std::uint32_t* cells, std::uint32_t* ids) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cells[i] = grid_cell_of(centroid(boxes[i]), origin, cell, dims);
  ids[i] = static_cast<std::uint32_t>(i);
}

/// @brief One thread per position k: out[k] = boxes[ids[k]].
/// @param[in] boxes Device array of the boxes.
/// @param[in] ids Device array of n object indices.
/// @param[in] n Number of positions.
/// @param[out] out Device array of n boxes.
__global__ void grid_gather(const Aabb* boxes, const std::uint32_t* ids, std::uint32_t n, Aabb* out) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) out[k] = boxes[ids[k]];
}

/// @brief One thread per position k = 0 .. n of n sorted cells: cell_start[c]
/// = k for the cells c after the cell of position k - 1 up to that of k (n:
/// up to @p cells), so that cell_start[c] is the first position of cell c or later.
/// @param[in] sorted_cells Device array of n cells, ascending.
/// @param[in] n Number of positions, at least 1.
/// @param[in] cells Number of cells.
/// @param[out] cell_start Device array of cells + 1 offsets.
__global__ void grid_cell_starts(const std::uint32_t* sorted_cells, std::uint32_t n, std::uint32_t cells,
                                 std::uint32_t* cell_start) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > n) return;
  const std::uint32_t from = k == 0 ? 0 : sorted_cells[k - 1] + 1;
  const std::uint32_t to = k == n ? cells : sorted_cells[k];
  for (std::uint32_t c = from; c <= to; ++c) cell_start[c] = static_cast<std::uint32_t>(k);
}

/// @brief One thread per object (in cell order): tests the objects of the
/// 27 cells around its centroid's cell and reports each overlap with a larger
/// object index.
/// @param[in] boxes Device array of n boxes in cell order.
/// @param[in] ids Device array of n object indices in cell order.
/// @param[in] cell_start Device array of cells + 1 offsets into boxes and ids.
/// @param[in] n Number of objects.
/// @param[in] origin The grid's lowest corner.
/// @param[in] cell The width of a cell.
/// @param[in] dims Cells per axis.
/// @param[out] pairs Device array of capacity pairs.
/// @param[in] capacity Pairs that fit.
/// @param[in,out] pair_count Device counter, 0 at the launch.
__global__ void grid_query(const Aabb* boxes, const std::uint32_t* ids, const std::uint32_t* cell_start,
                           std::uint32_t n, float3 origin, float cell, int3 dims, Pair* pairs,
                           unsigned long long capacity, unsigned long long* pair_count) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const Aabb box = boxes[t];
  const std::uint32_t self = ids[t];
  const float3 c = centroid(box);
  const int cx = min(max(static_cast<int>((c.x - origin.x) / cell), 0), dims.x - 1);
  const int cy = min(max(static_cast<int>((c.y - origin.y) / cell), 0), dims.y - 1);
  const int cz = min(max(static_cast<int>((c.z - origin.z) / cell), 0), dims.z - 1);
  for (int z = max(cz - 1, 0); z <= min(cz + 1, dims.z - 1); ++z) {
    for (int y = max(cy - 1, 0); y <= min(cy + 1, dims.y - 1); ++y) {
      // The three cells of a row in x are neighbours in memory: one range.
      const int row = (z * dims.y + y) * dims.x;
      const std::uint32_t begin = cell_start[row + max(cx - 1, 0)];
      const std::uint32_t end = cell_start[row + min(cx + 1, dims.x - 1) + 1];
      for (std::uint32_t k = begin; k < end; ++k) {
        const std::uint32_t other = ids[k];
        if (other > self && overlaps(box, boxes[k])) {
          const unsigned long long slot = atomicAdd(pair_count, 1ull);
          if (slot < capacity) pairs[slot] = Pair{self, other};
        }
      }
    }
  }
}

/// @brief A uniform grid over a scene, on the device.
class UniformGrid {
 public:
  /// @brief An empty grid, for rebuild().
  UniformGrid() : pair_count_(1) {}

  /// @brief Files the objects by the cell of their centroid (a counting sort
  /// on the host) and uploads the grid.
  /// @param[in] boxes The objects' boxes.
  /// @throws std::invalid_argument when the grid would need more than
  ///         kMaxGridCellsPerAxis cells on an axis.
  explicit UniformGrid(const std::vector<Aabb>& boxes) : n_(static_cast<std::uint32_t>(boxes.size())) {
    GridBounds bounds{empty_box(), 0.0f};
    for (const Aabb& b : boxes) {
      bounds.all = merge(bounds.all, b);
      bounds.widest = std::max({bounds.widest, b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
    }
    set_geometry(bounds);
    const std::size_t cells = cell_count();
    std::vector<std::uint32_t> cell_of_object(boxes.size());
    std::vector<std::uint32_t> start(cells + 1, 0);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      cell_of_object[i] = grid_cell_of(centroid(boxes[i]), origin_, cell_, dims_);
      ++start[cell_of_object[i] + 1];
    }
    for (std::size_t k = 0; k < cells; ++k) start[k + 1] += start[k];
    std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
    std::vector<Aabb> sorted_boxes(boxes.size());
    std::vector<std::uint32_t> ids(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const std::uint32_t slot = next[cell_of_object[i]]++;
      sorted_boxes[slot] = boxes[i];
      ids[slot] = static_cast<std::uint32_t>(i);
    }
    boxes_ = workbook::to_device(sorted_boxes);
    ids_ = workbook::to_device(ids);
    cell_start_ = workbook::to_device(start);
    pair_count_ = workbook::DeviceBuffer<unsigned long long>(1);
  }

  /// @brief Files @p n boxes already on the device, on the device: the
  /// scene's bounds (one block, read back: the grid's size depends on them),
  /// then the cells sorted stably with their objects (CUB), so the grid is
  /// the one the host constructor makes of the same boxes. Allocates only
  /// when the grid outgrows its arrays; waits for the stream.
  /// @param[in] boxes Device array of n boxes (not written; not read by later queries).
  /// @param[in] n Number of boxes, below 2^31.
  /// @param[in] stream The stream.
  /// @throws std::invalid_argument when the grid would need more than
  ///         kMaxGridCellsPerAxis cells on an axis.
  void rebuild(const Aabb* boxes, std::size_t n, cudaStream_t stream) {
    n_ = static_cast<std::uint32_t>(n);
    if (n_ == 0) return;
    grid_bounds<<<1, kBoundsThreads, 0, stream>>>(boxes, n_, bounds_.data());
    CUDA_CHECK_LAUNCH("grid_bounds");
    GridBounds bounds{};
    CUDA_CHECK(cudaMemcpyAsync(&bounds, bounds_.data(), sizeof bounds, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    set_geometry(bounds);
    const std::size_t cells = cell_count();
    reserve(cell_start_, cells + 1);
    reserve(boxes_, n);
    reserve(ids_, n);
    reserve(cells_, n);
    reserve(sorted_cells_, n);
    reserve(filed_ids_, n);
    const unsigned blocks = (n_ + kThreadsPerBlock - 1) / kThreadsPerBlock;
    grid_file<<<blocks, kThreadsPerBlock, 0, stream>>>(boxes, n_, origin_, cell_, dims_, cells_.data(),
                                                       filed_ids_.data());
    CUDA_CHECK_LAUNCH("grid_file");
    // Only the bits a cell index can have; a radix sort is stable, so the
    // objects of a cell stay in index order, as in the host's counting sort.
    int end_bit = 1;
    while ((std::size_t{1} << end_bit) < cells) ++end_bit;
    std::size_t temp_bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, cells_.data(), sorted_cells_.data(),
                                               filed_ids_.data(), ids_.data(), static_cast<int>(n_), 0,
                                               end_bit, stream));
    reserve(sort_temp_, std::max<std::size_t>(temp_bytes, 1));  // never null: null asks for the size
    temp_bytes = sort_temp_.size();
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp_.data(), temp_bytes, cells_.data(),
                                               sorted_cells_.data(), filed_ids_.data(), ids_.data(),
                                               static_cast<int>(n_), 0, end_bit, stream));
    grid_gather<<<blocks, kThreadsPerBlock, 0, stream>>>(boxes, ids_.data(), n_, boxes_.data());
    CUDA_CHECK_LAUNCH("grid_gather");
    const unsigned start_blocks = (n_ + 1 + kThreadsPerBlock - 1) / kThreadsPerBlock;
    grid_cell_starts<<<start_blocks, kThreadsPerBlock, 0, stream>>>(
        sorted_cells_.data(), n_, static_cast<std::uint32_t>(cells), cell_start_.data());
    CUDA_CHECK_LAUNCH("grid_cell_starts");
  }

  /// @brief Zeroes the counter and launches grid_query(); asynchronous.
  /// @param[out] pairs Device array of @p capacity pairs.
  /// @param[in] capacity Pairs that fit.
  /// @param[in] stream The stream.
  void query(Pair* pairs, std::size_t capacity, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(pair_count_.data(), 0, sizeof(unsigned long long), stream));
    if (n_ == 0) return;
    const unsigned blocks = (n_ + kThreadsPerBlock - 1) / kThreadsPerBlock;
    grid_query<<<blocks, kThreadsPerBlock, 0, stream>>>(boxes_.data(), ids_.data(), cell_start_.data(), n_,
                                                        origin_, cell_, dims_, pairs, capacity,
                                                        pair_count_.data());
    CUDA_CHECK_LAUNCH("grid_query");
  }

  /// @brief The pairs the last query() found (waits for it).
  /// @return The count.
  std::size_t pairs_found() const { return static_cast<std::size_t>(pair_count_.to_host()[0]); }

  /// @brief What query() writes besides the pairs: its counter, which the
  /// speed harness overwrites with the pairs after each timed call.
  /// @return The counter.
  workbook::DeviceBytes query_output() { return workbook::bytes_of(pair_count_); }

  /// @brief Cells per axis.
  /// @return The grid's dimensions.
  int3 dims() const { return dims_; }

 private:
  // The origin, the cell and the cells per axis for a scene's bounds.
  void set_geometry(const GridBounds& bounds) {
    const Aabb& all = bounds.all;
    origin_ = all.lo;
    const float extent = std::max({all.hi.x - all.lo.x, all.hi.y - all.lo.y, all.hi.z - all.lo.z});
    // A little wider than the widest box, so that rounding in the cell
    // arithmetic can never put two overlapping boxes two cells apart.
    cell_ = bounds.widest > 0.0f ? bounds.widest * 1.001f : (extent > 0.0f ? extent : 1.0f);
    const auto cells_on = [this](float lo, float hi) {
      const double count = std::floor(static_cast<double>(hi - lo) / cell_) + 1.0;
      if (count > kMaxGridCellsPerAxis) {
        throw std::invalid_argument("UniformGrid: the largest box is too small for a grid over this scene (" +
                                    std::to_string(count) + " cells on an axis)");
      }
      return static_cast<int>(count);
    };
    dims_ = {cells_on(all.lo.x, all.hi.x), cells_on(all.lo.y, all.hi.y), cells_on(all.lo.z, all.hi.z)};
  }

  std::size_t cell_count() const { return static_cast<std::size_t>(dims_.x) * dims_.y * dims_.z; }

  // Makes @p buffer hold at least @p count elements (its content is lost when it grows).
  template <typename T>
  static void reserve(workbook::DeviceBuffer<T>& buffer, std::size_t count) {
    if (buffer.size() < count) buffer = workbook::DeviceBuffer<T>(count);
  }

  std::uint32_t n_ = 0;
  float3 origin_{};
  float cell_ = 1.0f;
  int3 dims_{};
  workbook::DeviceBuffer<Aabb> boxes_;
  workbook::DeviceBuffer<std::uint32_t> ids_;
  workbook::DeviceBuffer<std::uint32_t> cell_start_;
  workbook::DeviceBuffer<unsigned long long> pair_count_;
  // Only for rebuild(): the bounds, the unsorted cells and objects, the sorted cells, CUB's storage.
  workbook::DeviceBuffer<GridBounds> bounds_{1};
  workbook::DeviceBuffer<std::uint32_t> cells_;
  workbook::DeviceBuffer<std::uint32_t> filed_ids_;
  workbook::DeviceBuffer<std::uint32_t> sorted_cells_;
  workbook::DeviceBuffer<unsigned char> sort_temp_;
};

}  // namespace lbvh::yardstick
