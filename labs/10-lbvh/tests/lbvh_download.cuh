/// @file lbvh_download.cuh
/// @brief Lab 10's tests: an Lbvh's arrays copied to the host, as the host
/// reference's BuiltTree that reference::validate() checks. Shared by the
/// correctness and the speed tests.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_reference.hpp"
#include "workbook/cuda_check.hpp"

namespace lbvh::testing {

/// @brief Copies @p count values from the device.
/// @param[in] device The device array.
/// @param[in] count How many values (0: none, no copy).
/// @return The values.
inline std::vector<std::uint32_t> download(const std::uint32_t* device, std::size_t count) {
  std::vector<std::uint32_t> host(count);
  if (count > 0)
    CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return host;
}

/// @brief Copies @p count boxes from the device.
/// @param[in] device The device array.
/// @param[in] count How many boxes (0: none, no copy).
/// @return The boxes.
inline std::vector<Aabb> download_boxes(const Aabb* device, std::size_t count) {
  std::vector<Aabb> host(count);
  if (count > 0) CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(Aabb), cudaMemcpyDeviceToHost));
  return host;
}

/// @brief The tree @p bvh built over @p n objects, on the host.
/// @param[in] bvh The built hierarchy.
/// @param[in] n Its number of objects (at least 1).
/// @return Its leaf order, children, ranges, parents and boxes.
inline reference::BuiltTree download_tree(Lbvh& bvh, std::size_t n) {
  reference::BuiltTree tree;
  tree.objects = download(bvh.objects(), n);
  tree.left = download(bvh.left(), n - 1);
  tree.right = download(bvh.right(), n - 1);
  tree.last = download(bvh.last(), n - 1);
  tree.parent = download(bvh.parent(), 2 * n - 1);
  tree.boxes = download_boxes(bvh.boxes(), 2 * n - 1);
  return tree;
}

}  // namespace lbvh::testing
