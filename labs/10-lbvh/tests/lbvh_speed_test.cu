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
// The scene changes before every timed run of your code (untimed:
// workbook::testing::AlternatingInput, three versions, see scene_versions()),
// so that an answer kept from an earlier call fails. The results of the last
// timed run are checked first (the tree by the validator and the host's
// Morton order, the pairs against the grid's, renumbered): speed counts only
// for correct code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "grid_yardstick.cuh"
#include "lbvh.cuh"
#include "lbvh_download.cuh"
#include "lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace lbvh {
namespace {

using testing::download_tree;
using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::AlternatingInput;
using workbook::testing::GpuTest;
using workbook::testing::matches;

constexpr std::size_t kObjects = std::size_t{1} << 20;
constexpr double kNeighbours = 8.0;

// Object i of version 0 is object renumbered(i, version) of the other versions.
std::uint32_t renumbered(std::uint32_t object, std::size_t version) {
  return static_cast<std::uint32_t>((object + version * (kObjects / 3)) % kObjects);
}

// The three versions of a scene that the timed runs alternate between.
// Version 0 is the scene; version 1 mirrors every box through the origin
// (x, y, z -> -x, -y, -z) and version 2 turns the axes (x, y, z -> z, x, y),
// and both renumber the objects (renumbered()). Negating and swapping floats
// is exact, so every overlap test gives the same answer: the same cubes
// overlap, at the same density (the codes are relative to the scene box, so
// where the scene lies does not matter). But every box changes, the Morton
// codes (so the tree) change, and the pairs carry the new numbers: an answer
// kept from another version is wrong.
std::vector<std::vector<Aabb>> scene_versions(const std::vector<Aabb>& boxes) {
  std::vector<std::vector<Aabb>> versions(3, std::vector<Aabb>(boxes.size()));
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    const Aabb& b = boxes[i];
    const auto object = static_cast<std::uint32_t>(i);
    versions[0][i] = b;
    versions[1][renumbered(object, 1)] = {{-b.hi.x, -b.hi.y, -b.hi.z}, {-b.lo.x, -b.lo.y, -b.lo.z}};
    versions[2][renumbered(object, 2)] = {{b.lo.z, b.lo.x, b.lo.y}, {b.hi.z, b.hi.x, b.hi.y}};
  }
  return versions;
}

// Checks the construction above: no two versions share a box at any index,
// so that no look at part of the input can miss the change.
::testing::AssertionResult differ_in_every_box(const std::vector<std::vector<Aabb>>& versions) {
  for (std::size_t a = 0; a < versions.size(); ++a) {
    for (std::size_t b = a + 1; b < versions.size(); ++b) {
      for (std::size_t i = 0; i < versions[a].size(); ++i) {
        if (reference::same_box(versions[a][i], versions[b][i])) {
          return ::testing::AssertionFailure()
                 << "test-setup error: versions " << a << " and " << b
                 << " of the scene have the same box at index " << i << ", seed=" << workbook::test_seed();
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// The version whose boxes @p last holds: versions differ in every box, so box 0 tells.
std::size_t version_of(const std::vector<std::vector<Aabb>>& versions, const std::vector<Aabb>& last) {
  std::size_t version = 0;
  while (version + 1 < versions.size() && !reference::same_box(versions[version][0], last[0])) ++version;
  return version;
}

std::vector<std::uint64_t> sorted_keys(const std::vector<Pair>& pairs) {
  std::vector<std::uint64_t> keys(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    keys[i] = reference::pair_key(pairs[i].first, pairs[i].second);
  std::sort(keys.begin(), keys.end());
  return keys;
}

// The pairs of version 0 with their objects numbered as in version @p version:
// the pairs of that version.
std::vector<Pair> renumbered_pairs(const std::vector<Pair>& pairs, std::size_t version) {
  std::vector<Pair> out(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i)
    out[i] = {renumbered(pairs[i].first, version), renumbered(pairs[i].second, version)};
  return out;
}

// An order-free fingerprint of a set of pairs: the sum of a hash of every
// pair. Equal sets have equal sums, so different sums prove different sets.
std::uint64_t pairs_fingerprint(const std::vector<Pair>& pairs) {
  std::uint64_t sum = 0;
  for (const Pair& p : pairs) sum += workbook::hash64(0x5EED, reference::pair_key(p.first, p.second));
  return sum;
}

class LbvhSpeed : public GpuTest {};

TEST_F(LbvhSpeed, BuildOf2To20ObjectsReachesTargetFractionOfOneSort) {
  std::vector<std::vector<Aabb>> versions =
      scene_versions(reference::uniform_cubes(kObjects, kNeighbours, workbook::test_seed() + 20));
  ASSERT_TRUE(differ_in_every_box(versions));
  DeviceBuffer<Aabb> in = workbook::to_device(versions[0]);
  AlternatingInput<Aabb> scenes(in, std::move(versions));
  Lbvh bvh(kObjects);
  const auto n = static_cast<std::uint32_t>(kObjects);

  workbook::TimingOptions options;
  options.before_each = [&](cudaStream_t stream) { scenes.next(stream); };
  const workbook::TimingResult build =
      workbook::time_gpu([&](cudaStream_t stream) { bvh.build(in.data(), n, stream); }, options);
  // The last timed build left a tree: it must be a valid tree over the last
  // version's boxes (a tree kept from another version has other leaf boxes),
  // with its leaves in that version's Morton order.
  const std::vector<Aabb>& last = scenes.last();
  const std::string context =
      "the tree of the last timed build, 2^20 uniform cubes, seed=" + std::to_string(workbook::test_seed()) +
      " (the last timed run, input changed before each run)";
  const reference::BuiltTree tree = download_tree(bvh, kObjects);
  const std::string problem = reference::validate(tree, last);
  ASSERT_TRUE(problem.empty()) << context << ": " << problem;
  ASSERT_TRUE(matches(compare_exact(reference::sort_objects(last).objects, tree.objects),
                      context + " (objects: the leaves in the Morton order)"));

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
  const std::vector<std::vector<Aabb>> versions = scene_versions(boxes);
  ASSERT_TRUE(differ_in_every_box(versions));
  DeviceBuffer<Aabb> in = workbook::to_device(versions[0]);
  AlternatingInput<Aabb> scenes(in, versions);
  Lbvh bvh(kObjects);
  bvh.build(in.data(), kObjects);
  // The grid, timed as before, on version 0.
  yardstick::UniformGrid grid(boxes);

  // Capacity for every pair at this density with room to spare.
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * kObjects;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  const TreeView view = bvh.view();
  // The query's input is the tree: before each run (untimed) the next version
  // of the scene, and its tree built into the same arrays.
  workbook::TimingOptions options;
  options.before_each = [&](cudaStream_t stream) {
    scenes.next(stream);
    bvh.build(in.data(), kObjects, stream);
  };
  const workbook::TimingResult query = workbook::time_gpu(
      [&](cudaStream_t stream) {
        launch_query_overlapping_pairs(view, pairs.data(), capacity, bvh.pair_count(), bvh.status(), stream);
      },
      options);
  const workbook::TimingResult theirs =
      workbook::time_gpu([&](cudaStream_t stream) { grid.query(grid_pairs.data(), capacity, stream); });

  // The grid found version 0's pairs; each version's pairs are those
  // renumbered, and they must differ from version to version.
  const std::size_t grid_found = grid.pairs_found();
  ASSERT_LE(grid_found, capacity) << "the grid found more pairs than the buffer holds";
  std::vector<Pair> want = grid_pairs.to_host();
  want.resize(grid_found);
  const std::uint64_t fingerprints[3] = {pairs_fingerprint(want),
                                         pairs_fingerprint(renumbered_pairs(want, 1)),
                                         pairs_fingerprint(renumbered_pairs(want, 2))};
  ASSERT_TRUE(fingerprints[0] != fingerprints[1] && fingerprints[1] != fingerprints[2] &&
              fingerprints[0] != fingerprints[2])
      << "test-setup error: two versions of the scene have the same pairs, so a kept answer could pass";

  // The last timed run's pairs: those of the version it read, each once.
  const std::string context = "2^20 uniform cubes, seed=" + std::to_string(workbook::test_seed()) +
                              " (the last timed run, input changed before each run)";
  unsigned long long count = 0;
  CUDA_CHECK(cudaMemcpy(&count, bvh.pair_count(), sizeof count, cudaMemcpyDeviceToHost));
  const auto found = static_cast<std::size_t>(count);
  std::uint32_t status = 0;
  CUDA_CHECK(cudaMemcpy(&status, bvh.status(), sizeof status, cudaMemcpyDeviceToHost));
  ASSERT_EQ(status, 0u) << "the query reported a stack overflow, " << context;
  ASSERT_EQ(found, grid_found) << "pairs found by the query vs by the grid, " << context;
  std::vector<Pair> got = pairs.to_host();
  got.resize(found);
  ASSERT_TRUE(sorted_keys(got) == sorted_keys(renumbered_pairs(want, version_of(versions, scenes.last()))))
      << "the query's pairs are not the grid's pairs (renumbered for the version read), " << context;

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
