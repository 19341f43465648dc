// Speed tests of lab 10, each against a yardstick measured in the same run,
// both timed with workbook::time_gpu (cold L2, median of repeated CUDA-event
// timings). The scene: 2^20 cubes of side s = 2^(-20/3) (about 1/101.6) at
// uniform random centres in the unit cube, so that each overlaps about
// n (2s)^3 = 8 others (a little fewer at the walls): about 4 million pairs.
// - The build against one cub::DeviceRadixSort::SortPairs of the same 2^20
//   codes (the provided sort_pairs_by_code(), the build's own phase 2): the
//   ratio is sort time / build time, so 0.2 means the build takes 5 sorts.
// - The query against a uniform grid (grid_yardstick.cuh) on the same
//   scene: pairs per second, the same pairs.
// The timed results are checked first (the tree by the validator, the pairs
// against the grid's): speed counts only for correct code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "grid_yardstick.cuh"
#include "lbvh.cuh"
#include "lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace lbvh {
namespace {

using workbook::DeviceBuffer;
using workbook::testing::GpuTest;

constexpr std::size_t kObjects = std::size_t{1} << 20;
constexpr double kNeighbours = 8.0;

std::vector<std::uint32_t> download(const std::uint32_t* device, std::size_t count) {
  std::vector<std::uint32_t> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  return host;
}

std::vector<std::uint64_t> sorted_keys(const std::vector<Pair>& pairs) {
  std::vector<std::uint64_t> keys(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = reference::pair_key(pairs[i].first, pairs[i].second);
  std::sort(keys.begin(), keys.end());
  return keys;
}

class LbvhSpeed : public GpuTest {};

TEST_F(LbvhSpeed, BuildOf2To20ObjectsReachesTargetFractionOfOneSort) {
  const std::vector<Aabb> boxes = reference::uniform_cubes(kObjects, kNeighbours, workbook::test_seed() + 20);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  Lbvh bvh(kObjects);
  const auto n = static_cast<std::uint32_t>(kObjects);

  const workbook::TimingResult build =
      workbook::time_gpu([&](cudaStream_t stream) { bvh.build(in.data(), n, stream); });
  // The timed builds left a tree: it must be valid.
  reference::BuiltTree tree;
  tree.objects = download(bvh.objects(), kObjects);
  tree.left = download(bvh.left(), kObjects - 1);
  tree.right = download(bvh.right(), kObjects - 1);
  tree.last = download(bvh.last(), kObjects - 1);
  tree.parent = download(bvh.parent(), 2 * kObjects - 1);
  tree.boxes.resize(2 * kObjects - 1);
  CUDA_CHECK(
      cudaMemcpy(tree.boxes.data(), bvh.boxes(), tree.boxes.size() * sizeof(Aabb), cudaMemcpyDeviceToHost));
  const std::string problem = reference::validate(tree, boxes);
  ASSERT_TRUE(problem.empty()) << "the tree of the timed builds, 2^20 uniform cubes, seed="
                               << workbook::test_seed() << ": " << problem;

  // The yardstick: the build's own sort, alone, on the codes the build made.
  DeviceBuffer<std::uint32_t> codes_out(kObjects), indices_out(kObjects);
  DeviceBuffer<unsigned char> temp(sort_temp_bytes(kObjects));
  const workbook::TimingResult sort = workbook::time_gpu([&](cudaStream_t stream) {
    sort_pairs_by_code(bvh.codes(), bvh.indices(), codes_out.data(), indices_out.data(), n, temp.data(),
                       temp.size(), stream);
  });

  const double rate = static_cast<double>(kObjects) / build.median_ms / 1.0e6;
  const double sort_rate = static_cast<double>(kObjects) / sort.median_ms / 1.0e6;
  std::printf("[  TIMING  ] Lbvh::build, 2^20 objects: %s, %.2f Gobjects/s\n", build.summary().c_str(), rate);
  std::printf("[  TIMING  ] sort_pairs_by_code (cub::DeviceRadixSort::SortPairs): %s, %.2f Gobjects/s\n",
              sort.summary().c_str(), sort_rate);
  workbook::testing::expect_speed(
      {rate, sort_rate, "Gobjects/s", "one cub::DeviceRadixSort::SortPairs of the same 2^20 codes"});
}

TEST_F(LbvhSpeed, QueryOf2To20ObjectsReachesTargetFractionOfAUniformGrid) {
  const std::vector<Aabb> boxes = reference::uniform_cubes(kObjects, kNeighbours, workbook::test_seed() + 21);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  Lbvh bvh(kObjects);
  bvh.build(in.data(), kObjects);
  yardstick::UniformGrid grid(boxes);

  // Capacity for every pair at this density with room to spare.
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * kObjects;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  const TreeView view = bvh.view();
  const workbook::TimingResult query = workbook::time_gpu([&](cudaStream_t stream) {
    launch_query_overlapping_pairs(view, pairs.data(), capacity, bvh.pair_count(), bvh.status(), stream);
  });
  const workbook::TimingResult theirs =
      workbook::time_gpu([&](cudaStream_t stream) { grid.query(grid_pairs.data(), capacity, stream); });

  // The last timed runs' pairs: the same set, each once.
  unsigned long long count = 0;
  CUDA_CHECK(cudaMemcpy(&count, bvh.pair_count(), sizeof count, cudaMemcpyDeviceToHost));
  const auto found = static_cast<std::size_t>(count);
  std::uint32_t status = 0;
  CUDA_CHECK(cudaMemcpy(&status, bvh.status(), sizeof status, cudaMemcpyDeviceToHost));
  ASSERT_EQ(status, 0u) << "the query reported a stack overflow";
  const std::size_t grid_found = grid.pairs_found();
  ASSERT_LE(grid_found, capacity) << "the grid found more pairs than the buffer holds";
  ASSERT_EQ(found, grid_found) << "pairs found by the query vs by the grid, 2^20 uniform cubes, seed="
                               << workbook::test_seed();
  std::vector<Pair> got = pairs.to_host(), want = grid_pairs.to_host();
  got.resize(found);
  want.resize(grid_found);
  ASSERT_TRUE(sorted_keys(got) == sorted_keys(want)) << "the query's pairs are not the grid's pairs";

  const double rate = static_cast<double>(found) / query.median_ms / 1.0e6;
  const double grid_rate = static_cast<double>(grid_found) / theirs.median_ms / 1.0e6;
  std::printf("[  TIMING  ] query_overlapping_pairs, 2^20 objects, %zu pairs: %s, %.2f Gpairs/s\n", found,
              query.summary().c_str(), rate);
  std::printf("[  TIMING  ] uniform grid (%d x %d x %d cells), 27 cells per object: %s, %.2f Gpairs/s\n",
              grid.dims().x, grid.dims().y, grid.dims().z, theirs.summary().c_str(), grid_rate);
  workbook::testing::expect_speed(
      {rate, grid_rate, "Gpairs/s", "a uniform-grid query (27 cells per object) of the same scene"});
}

}  // namespace
}  // namespace lbvh
