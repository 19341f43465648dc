// Speed tests of lab 10, through the workbook's speed harness
// (workbook/speed.hpp): every run, warm-up included, reads a scene drawn on
// the GPU just before it from a seed of its own: 2^20 cubes of side
// s = 2^(-20/3) (about 1/101.6) at uniform random centres in the unit cube,
// the scene reference::uniform_cubes() makes, so that each overlaps about
// n (2s)^3 = 8 others (a little fewer at the walls): about 4 million pairs.
// The yardstick runs first, alternately with your code, and every run's
// output is checked.
// - The build against one cub::DeviceRadixSort::SortPairs of 2^20 random
//   30-bit codes (the provided sort_pairs_by_code(), the build's own phase 3;
//   the Morton codes of uniform points are uniform 30-bit values): the ratio
//   is sort time / build time, so 0.2 means the build takes 5 sorts. Each
//   run's tree must pass the validator on that run's boxes, with its leaves
//   in their Morton order.
// - The query against a uniform grid (grid_yardstick.cuh) of the same scene,
//   your tree built for it untimed: each run's pairs must be the grid's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "grid_yardstick.cuh"
#include "lbvh.cuh"
#include "lbvh_download.cuh"
#include "lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/compare.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/random.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace lbvh {
namespace {

using testing::download_boxes;
using testing::download_tree;
using workbook::DeviceBuffer;
using workbook::testing::GpuTest;
using workbook::testing::SpeedTask;

constexpr std::size_t kObjects = std::size_t{1} << 20;
constexpr double kNeighbours = 8.0;
constexpr int kPoisonByte = 0x7F;
// A second random stream from a run's seed.
constexpr std::uint64_t kOtherStream = 0x9E3779B97F4A7C15ull;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// Cube i of reference::uniform_cubes(n, kNeighbours, seed), on the device: its
// centre's coordinates are random_float_at(seed, 3i + axis, 0, 1), the floats
// of reference::unit_random().
__global__ void draw_uniform_cubes(Aabb* boxes, std::uint32_t n, std::uint64_t seed, float half) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = workbook::random_float_at(seed, 3 * i, 0.0f, 1.0f);
  const float y = workbook::random_float_at(seed, 3 * i + 1, 0.0f, 1.0f);
  const float z = workbook::random_float_at(seed, 3 * i + 2, 0.0f, 1.0f);
  boxes[i] = {{x - half, y - half, z - half}, {x + half, y + half, z + half}};
}

// Random 30-bit codes, each with its index: the yardstick sort's input.
__global__ void draw_codes(std::uint32_t* codes, std::uint32_t* indices, std::uint32_t n,
                           std::uint64_t seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  codes[i] = workbook::random_u32_at(seed, i) >> (32 - kCodeBits);
  indices[i] = static_cast<std::uint32_t>(i);
}

// *sum += the hash of every pair's key (smaller object above): an order-free
// fingerprint of a set of pairs. Equal sets have equal sums, so different
// sums prove different sets (and equal sums make different sets unlikely
// beyond doubt). One atomicAdd per warp.
__global__ void add_pair_hashes(const Pair* pairs, std::size_t count, std::uint64_t salt,
                                unsigned long long* sum) {
  unsigned long long mine = 0;
  for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const Pair p = pairs[k];
    const std::uint32_t lo = p.first < p.second ? p.first : p.second;
    const std::uint32_t hi = p.first < p.second ? p.second : p.first;
    mine += workbook::hash64(salt, (static_cast<std::uint64_t>(lo) << 32) | hi);
  }
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, mine);
}

// The half side of the scene's cubes, as reference::uniform_cubes() computes it.
float cube_half() {
  return static_cast<float>(std::cbrt(kNeighbours / static_cast<double>(kObjects)) / 2.0 / 2.0);
}

void draw_scene(Aabb* boxes, std::uint64_t seed, cudaStream_t stream) {
  draw_uniform_cubes<<<blocks_for(kObjects), kThreadsPerBlock, 0, stream>>>(
      boxes, static_cast<std::uint32_t>(kObjects), seed, cube_half());
  CUDA_CHECK_LAUNCH("draw_uniform_cubes");
}

template <typename T>
T download_one(const T* device) {
  T value{};
  CUDA_CHECK(cudaMemcpy(&value, device, sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

class LbvhSpeed : public GpuTest {};

TEST_F(LbvhSpeed, BuildOf2To20ObjectsReachesTargetFractionOfOneSort) {
  const auto n = static_cast<std::uint32_t>(kObjects);
  DeviceBuffer<Aabb> boxes(kObjects);
  Lbvh bvh(kObjects);
  // The yardstick's own sort: its input, its outputs and its storage.
  DeviceBuffer<std::uint32_t> codes(kObjects), indices(kObjects), codes_out(kObjects), indices_out(kObjects);
  DeviceBuffer<unsigned char> temp(sort_temp_bytes(kObjects));

  SpeedTask task;
  task.what = "Lbvh::build of 2^20 uniform cubes";
  task.yardstick = "one cub::DeviceRadixSort::SortPairs of 2^20 random 30-bit codes (sort_pairs_by_code)";
  task.unit = "Gobjects/s";
  task.work = static_cast<double>(kObjects);
  // The boxes read once, and the tree the validator checks written once (it
  // is poisoned before each run): objects (n), left, right and last (n - 1
  // each), parents (2n - 1), node boxes (2n - 1).
  const double words = kObjects + 3.0 * (kObjects - 1) + (2.0 * kObjects - 1);
  task.min_bytes = sizeof(Aabb) * static_cast<double>(kObjects) + sizeof(std::uint32_t) * words +
                   sizeof(Aabb) * (2.0 * kObjects - 1);
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    draw_scene(boxes.data(), seed, stream);
    draw_codes<<<blocks_for(kObjects), kThreadsPerBlock, 0, stream>>>(codes.data(), indices.data(), n,
                                                                      seed ^ kOtherStream);
    CUDA_CHECK_LAUNCH("draw_codes");
    CUDA_CHECK(cudaMemsetAsync(bvh.objects(), kPoisonByte, kObjects * sizeof(std::uint32_t), stream));
    for (std::uint32_t* internal : {bvh.left(), bvh.right(), bvh.last()})
      CUDA_CHECK(cudaMemsetAsync(internal, kPoisonByte, (kObjects - 1) * sizeof(std::uint32_t), stream));
    CUDA_CHECK(
        cudaMemsetAsync(bvh.parent(), kPoisonByte, (2 * kObjects - 1) * sizeof(std::uint32_t), stream));
    CUDA_CHECK(cudaMemsetAsync(bvh.boxes(), kPoisonByte, (2 * kObjects - 1) * sizeof(Aabb), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) {
    sort_pairs_by_code(codes.data(), indices.data(), codes_out.data(), indices_out.data(), n, temp.data(),
                       temp.size(), stream);
  };
  task.run = [&](cudaStream_t stream) { bvh.build(boxes.data(), kObjects, stream); };
  // On the host (some 100 ms): a valid tree over this run's boxes (a tree of
  // another scene has other leaf boxes), its leaves in their Morton order.
  task.check = [&]() -> std::string {
    const std::vector<Aabb> scene = download_boxes(boxes.data(), kObjects);
    const reference::BuiltTree tree = download_tree(bvh, kObjects);
    const std::string problem = reference::validate(tree, scene);
    if (!problem.empty()) return "the tree: " + problem;
    const workbook::ComparisonReport order =
        workbook::compare_exact(reference::sort_objects(scene).objects, tree.objects);
    return order.ok() ? "" : "objects (the leaves in the Morton order): " + order.describe();
  };
  task.inputs = {{"boxes", workbook::bytes_of(boxes)}};
  task.yardstick_writes = {workbook::bytes_of(codes_out), workbook::bytes_of(indices_out),
                           workbook::bytes_of(temp)};
  workbook::testing::check_speed(task);
}

TEST_F(LbvhSpeed, QueryOf2To20ObjectsReachesTargetFractionOfAUniformGrid) {
  DeviceBuffer<Aabb> boxes(kObjects);
  Lbvh bvh(kObjects);
  yardstick::UniformGrid grid;
  // Capacity for every pair at this density with room to spare.
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * kObjects;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  DeviceBuffer<unsigned long long> fingerprints(2);
  std::uint64_t salt = 0;

  SpeedTask task;
  task.what = "query_overlapping_pairs of 2^20 uniform cubes";
  task.yardstick = "a uniform-grid query (27 cells per object) of the same scene";
  // The pairs found differ from run to run, so the work is the queries: one
  // per object.
  task.unit = "Gqueries/s";
  task.work = static_cast<double>(kObjects);
  // Every leaf's own box read once, and at least n pairs written: these
  // scenes have about 4n (8 neighbours per object, each pair once).
  task.min_bytes = static_cast<double>(kObjects) * (sizeof(Aabb) + sizeof(Pair));
  // The query's input is the tree: a new scene, its tree and its grid, untimed.
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    salt = seed;
    draw_scene(boxes.data(), seed, stream);
    bvh.build(boxes.data(), kObjects, stream);
    grid.rebuild(boxes.data(), kObjects, stream);
    // The launcher must zero the count and the status itself.
    CUDA_CHECK(cudaMemsetAsync(pairs.data(), kPoisonByte, pairs.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(bvh.pair_count(), kPoisonByte, sizeof(unsigned long long), stream));
    CUDA_CHECK(cudaMemsetAsync(bvh.status(), kPoisonByte, sizeof(std::uint32_t), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) { grid.query(grid_pairs.data(), capacity, stream); };
  task.run = [&](cudaStream_t stream) {
    launch_query_overlapping_pairs(bvh.view(), pairs.data(), capacity, bvh.pair_count(), bvh.status(),
                                   stream);
  };
  // The same set of pairs as the grid's, each once: equal counts and equal
  // order-free fingerprints, on the device.
  task.check = [&]() -> std::string {
    const std::uint32_t status = download_one(bvh.status());
    if (status != 0)
      return "the status word is " + std::to_string(status) + " (kStackOverflowed = 1: a stack overflowed)";
    const auto found = static_cast<std::size_t>(download_one(bvh.pair_count()));
    const std::size_t grid_found = grid.pairs_found();
    if (grid_found > capacity) return "test-setup error: the grid found more pairs than the buffer holds";
    if (found != grid_found)
      return "the query found " + std::to_string(found) + " pairs, the grid " + std::to_string(grid_found);
    fingerprints.fill_bytes(0);
    add_pair_hashes<<<blocks_for(found / 8 + 1), kThreadsPerBlock>>>(pairs.data(), found, salt,
                                                                     fingerprints.data());
    CUDA_CHECK_LAUNCH("add_pair_hashes");
    add_pair_hashes<<<blocks_for(found / 8 + 1), kThreadsPerBlock>>>(grid_pairs.data(), found, salt,
                                                                     fingerprints.data() + 1);
    CUDA_CHECK_LAUNCH("add_pair_hashes");
    const std::vector<unsigned long long> sums = fingerprints.to_host();
    return sums[0] == sums[1]
               ? ""
               : "the query's " + std::to_string(found) +
                     " pairs are not the grid's (as many, but some missing, repeated or wrong)";
  };
  // The query reads the tree that prepare built.
  const auto tree_array = [&](const void* data, std::size_t bytes) {
    return workbook::DeviceBytes{const_cast<void*>(data), bytes};
  };
  const TreeView tree = bvh.view();
  task.inputs = {{"tree.objects", tree_array(tree.objects, kObjects * sizeof(std::uint32_t))},
                 {"tree.left", tree_array(tree.left, (kObjects - 1) * sizeof(std::uint32_t))},
                 {"tree.right", tree_array(tree.right, (kObjects - 1) * sizeof(std::uint32_t))},
                 {"tree.last", tree_array(tree.last, (kObjects - 1) * sizeof(std::uint32_t))},
                 {"tree.boxes", tree_array(tree.boxes, (2 * kObjects - 1) * sizeof(Aabb))}};
  task.yardstick_writes = {workbook::bytes_of(grid_pairs), grid.query_output()};
  workbook::testing::check_speed(task);
}

}  // namespace
}  // namespace lbvh
