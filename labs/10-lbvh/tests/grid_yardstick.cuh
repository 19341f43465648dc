/// @file grid_yardstick.cuh
/// @brief The yardstick of lab 10's query: a uniform grid, the textbook
/// broad phase for objects of one size at an even density. Its cell is (a
/// hair wider than) the largest box, each object is filed under the cell of its centroid,
/// and an object's overlapping boxes can then only be in the 27 cells around
/// its own (two boxes no wider than a cell overlap only when their centroids
/// are within one cell on every axis). The grid is built on the host
/// (untimed); query() is one thread per object in cell order, testing every
/// object of the 27 cells and reporting the pairs with the larger object
/// index, like the lab's query, with one atomicAdd per pair.
///
/// Not part of the student's file. Include it in one source file per program
/// (it defines a kernel): the speed tests and the experiment.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
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
  /// @brief Files the objects by the cell of their centroid (a counting sort
  /// on the host) and uploads the grid.
  /// @param[in] boxes The objects' boxes.
  /// @throws std::invalid_argument when the grid would need more than
  ///         kMaxGridCellsPerAxis cells on an axis.
  explicit UniformGrid(const std::vector<Aabb>& boxes) : n_(static_cast<std::uint32_t>(boxes.size())) {
    Aabb all = empty_box();
    float widest = 0.0f;
    for (const Aabb& b : boxes) {
      all = merge(all, b);
      widest = std::max({widest, b.hi.x - b.lo.x, b.hi.y - b.lo.y, b.hi.z - b.lo.z});
    }
    origin_ = all.lo;
    const float extent = std::max({all.hi.x - all.lo.x, all.hi.y - all.lo.y, all.hi.z - all.lo.z});
    // A little wider than the widest box, so that rounding in the cell
    // arithmetic can never put two overlapping boxes two cells apart.
    cell_ = widest > 0.0f ? widest * 1.001f : (extent > 0.0f ? extent : 1.0f);
    const auto cells_on = [this](float lo, float hi) {
      const double count = std::floor(static_cast<double>(hi - lo) / cell_) + 1.0;
      if (count > kMaxGridCellsPerAxis) {
        throw std::invalid_argument("UniformGrid: the largest box is too small for a grid over this scene (" +
                                    std::to_string(count) + " cells on an axis)");
      }
      return static_cast<int>(count);
    };
    dims_ = {cells_on(all.lo.x, all.hi.x), cells_on(all.lo.y, all.hi.y), cells_on(all.lo.z, all.hi.z)};
    const std::size_t cells = static_cast<std::size_t>(dims_.x) * dims_.y * dims_.z;
    std::vector<std::uint32_t> cell_of_object(boxes.size());
    std::vector<std::uint32_t> start(cells + 1, 0);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      const float3 c = centroid(boxes[i]);
      const int x = std::min(std::max(static_cast<int>((c.x - origin_.x) / cell_), 0), dims_.x - 1);
      const int y = std::min(std::max(static_cast<int>((c.y - origin_.y) / cell_), 0), dims_.y - 1);
      const int z = std::min(std::max(static_cast<int>((c.z - origin_.z) / cell_), 0), dims_.z - 1);
      cell_of_object[i] = static_cast<std::uint32_t>((z * dims_.y + y) * dims_.x + x);
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

  /// @brief Cells per axis.
  /// @return The grid's dimensions.
  int3 dims() const { return dims_; }

 private:
  std::uint32_t n_;
  float3 origin_{};
  float cell_ = 1.0f;
  int3 dims_{};
  workbook::DeviceBuffer<Aabb> boxes_;
  workbook::DeviceBuffer<std::uint32_t> ids_;
  workbook::DeviceBuffer<std::uint32_t> cell_start_;
  workbook::DeviceBuffer<unsigned long long> pair_count_;
};

}  // namespace lbvh::yardstick
