// Tests of lab 10. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU; the Morton
// helpers, δ, the range and split searches and the argument checks run on the
// host. References are host code written apart from the student's
// (lbvh_reference.hpp): codes bit by bit, a top-down builder of the same
// tree, unions, a tree validator, brute-force and sort-and-sweep pairs.
//
// Each phase is tested on its own where it can be: the hierarchy from
// reference codes, the boxes and the query on reference trees, so that one
// wrong phase does not hide the others. Outputs are poisoned (0x7F bytes)
// before each run; validators check every index before using it, so a tree
// of garbage fails a test without crashing it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_download.cuh"
#include "lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"

namespace lbvh {
namespace {

using reference::Scene;
using testing::download;
using testing::download_boxes;
using testing::download_tree;
using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::seed_text;
using workbook::testing::size_name;

constexpr int kPoisonByte = 0x7F;

std::uint64_t seed_for(Scene scene, std::size_t n) {
  return workbook::test_seed() * 31 + static_cast<std::uint64_t>(scene) * 1000003 + n;
}

std::string case_text(Scene scene, std::size_t n) {
  return std::string("scene=") + reference::to_string(scene) + ", n=" + std::to_string(n) + ", " +
         seed_text();
}

// Boxes compared as six floats each, so that a mismatch prints numbers.
std::vector<float> flatten(const std::vector<Aabb>& boxes) {
  std::vector<float> out;
  out.reserve(6 * boxes.size());
  for (const Aabb& b : boxes) out.insert(out.end(), {b.lo.x, b.lo.y, b.lo.z, b.hi.x, b.hi.y, b.hi.z});
  return out;
}

// The pairs of a query, as sorted keys; a pair with first >= second is kept
// as first << 32 | second so that it shows up as a mismatch.
std::vector<std::uint64_t> pair_keys(const std::vector<Pair>& pairs) {
  std::vector<std::uint64_t> keys(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    keys[i] = (static_cast<std::uint64_t>(pairs[i].first) << 32) | pairs[i].second;
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string pair_text(std::uint64_t key) {
  return "(" + std::to_string(key >> 32) + ", " + std::to_string(key & 0xFFFFFFFFu) + ")";
}

// Exactly the expected pairs, each once: names the first missing and extra ones.
::testing::AssertionResult same_pairs(const std::vector<std::uint64_t>& want,
                                      const std::vector<std::uint64_t>& got, const std::string& context) {
  if (want == got) return ::testing::AssertionSuccess();
  std::vector<std::uint64_t> missing, extra;
  std::set_difference(want.begin(), want.end(), got.begin(), got.end(), std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(extra));
  std::string text = context + ": expected " + std::to_string(want.size()) + " pairs, got " +
                     std::to_string(got.size()) + "; " + std::to_string(missing.size()) + " missing, " +
                     std::to_string(extra.size()) + " extra or repeated or not (smaller, larger)";
  for (std::size_t k = 0; k < missing.size() && k < 5; ++k) text += "; missing " + pair_text(missing[k]);
  for (std::size_t k = 0; k < extra.size() && k < 5; ++k) text += "; extra " + pair_text(extra[k]);
  return ::testing::AssertionFailure() << text;
}

// ---------------------------------------------------------------------------
// Phases 1 and 2 on the host: the Morton helpers

TEST(MortonHelpers, ExpandBitsMovesBitKToBit3K) {
  for (std::uint32_t v = 0; v < 1024; ++v) {
    std::uint32_t want = 0;
    for (int k = 0; k < 10; ++k) want |= ((v >> k) & 1u) << (3 * k);
    ASSERT_EQ(expand_bits(v), want) << "expand_bits(" << v << ")";
  }
  EXPECT_EQ(expand_bits(0xFFFFFC00u), 0u) << "expand_bits must ignore the bits above the tenth";
  EXPECT_EQ(expand_bits(0xFFFFFFFFu), 0x09249249u) << "expand_bits(0xFFFFFFFF): the low ten bits, expanded";
}

TEST(MortonHelpers, CellOfFollowsTheFormulaAndClamps) {
  EXPECT_EQ(cell_of(0.0f, 0.0f, 1.0f), 0u);
  EXPECT_EQ(cell_of(0.5f, 0.0f, 1.0f), 512u);
  EXPECT_EQ(cell_of(1.0f, 0.0f, 1.0f), 1023u) << "x = hi lands in the last cell, 1023";
  EXPECT_EQ(cell_of(2.0f, 0.0f, 1.0f), 1023u) << "beyond hi: clamped to 1023";
  EXPECT_EQ(cell_of(-1.0f, 0.0f, 1.0f), 0u) << "below lo: clamped to 0";
  EXPECT_EQ(cell_of(5.0f, 5.0f, 5.0f), 0u) << "an axis without extent (lo == hi): cell 0";
  EXPECT_EQ(cell_of(1.0e30f, -1.0f, 1.0f), 1023u) << "far beyond hi: clamped before the conversion";
  EXPECT_EQ(cell_of(3.0f, -1.0e30f, 1.0e30f), 512u) << "a huge extent";
  for (int k = 0; k < 4096; ++k) {
    const float lo = -3.0f + 0.001f * static_cast<float>(k % 7);
    const float hi = 2.5f + 0.37f * static_cast<float>(k % 5);
    const float x = lo + (hi - lo) * reference::unit_random(77, static_cast<std::uint64_t>(k));
    ASSERT_EQ(cell_of(x, lo, hi), reference::cell(x, lo, hi))
        << "cell_of(" << x << ", " << lo << ", " << hi << ")";
  }
}

TEST(MortonHelpers, MortonCodeInterleavesXHighestThenYThenZ) {
  const Aabb unit = {{0, 0, 0}, {1, 1, 1}};
  // Cell (1, 0, 0) is code 0b100, (0, 1, 0) is 0b010, (0, 0, 1) is 0b001.
  const float one = 1.5f / 1024.0f;
  EXPECT_EQ(morton_code(reference::cube(one, 0, 0, 0), unit), 4u) << "x's bit 0 goes to bit 2";
  EXPECT_EQ(morton_code(reference::cube(0, one, 0, 0), unit), 2u) << "y's bit 0 goes to bit 1";
  EXPECT_EQ(morton_code(reference::cube(0, 0, one, 0), unit), 1u) << "z's bit 0 goes to bit 0";
  EXPECT_EQ(morton_code(reference::cube(1, 1, 1, 0), unit), (1u << 30) - 1) << "the far corner: all 30 bits";
  for (const Scene scene : {Scene::uniform, Scene::on_a_line, Scene::on_a_plane, Scene::huge_and_tiny}) {
    const std::vector<Aabb> boxes = reference::make_scene(scene, 2000, seed_for(scene, 2000));
    const Aabb all = reference::union_of(boxes);
    for (std::size_t i = 0; i < boxes.size(); ++i) {
      ASSERT_EQ(morton_code(boxes[i], all), reference::code_of(boxes[i], all))
          << "object " << i << " of " << case_text(scene, 2000) << ", box " << reference::box_text(boxes[i]);
    }
  }
}

// ---------------------------------------------------------------------------
// Phases 1 and 2 on the GPU: the scene box and the codes

const std::size_t kReduceSizes[] = {
    1, 2, 31, 32, 33, 255, 256, 257, 1000, 100003, std::size_t{1} << 18, (std::size_t{1} << 20) + 3};

class SceneBox : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SceneBox, IsTheUnionOfAllBoxes) {
  const std::size_t n = GetParam();
  for (const Scene scene : {Scene::uniform, Scene::huge_and_tiny}) {
    const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
    const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
    DeviceBuffer<Aabb> partials(kMaxReduceBlocks), out(1);
    out.fill_bytes(kPoisonByte);
    compute_scene_box(in.data(), static_cast<std::uint32_t>(n), partials.data(), out.data());
    EXPECT_TRUE(matches(compare_exact(flatten({reference::union_of(boxes)}), flatten(out.to_host())),
                        case_text(scene, n) + ", (lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)"));
    expect_input_unchanged(boxes, in, case_text(scene, n), "boxes");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SceneBox, ::testing::ValuesIn(kReduceSizes), size_name);

class MortonCodes : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(MortonCodes, MatchTheHostForEveryObject) {
  const std::size_t n = GetParam();
  for (const Scene scene : {Scene::uniform, Scene::on_a_plane, Scene::huge_and_tiny}) {
    const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
    const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
    const std::vector<Aabb> scene_boxes = {reference::union_of(boxes)};
    const DeviceBuffer<Aabb> scene_box = workbook::to_device(scene_boxes);
    DeviceBuffer<std::uint32_t> codes(n), indices(n);
    codes.fill_bytes(kPoisonByte);
    indices.fill_bytes(kPoisonByte);
    launch_compute_morton_codes(in.data(), static_cast<std::uint32_t>(n), scene_box.data(), codes.data(),
                                indices.data());
    const reference::SortedObjects want = reference::sort_objects(boxes);
    EXPECT_TRUE(matches(compare_exact(want.codes, codes.to_host()), case_text(scene, n) + " (codes)"));
    std::vector<std::uint32_t> identity(n);
    for (std::size_t i = 0; i < n; ++i) identity[i] = static_cast<std::uint32_t>(i);
    EXPECT_TRUE(matches(compare_exact(identity, indices.to_host()), case_text(scene, n) + " (indices)"));
    expect_input_unchanged(boxes, in, case_text(scene, n), "boxes");
    expect_input_unchanged(scene_boxes, scene_box, case_text(scene, n), "scene");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, MortonCodes, ::testing::ValuesIn(kReduceSizes), size_name);

// ---------------------------------------------------------------------------
// Phase 3: the sort inside build(), and build()'s arguments

const std::size_t kTreeSizes[] = {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4096, 100003};

class SortByCode : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SortByCode, BuildSortsTheCodesWithTheirObjectsStably) {
  const std::size_t n = GetParam();
  for (const Scene scene : {Scene::uniform, Scene::duplicated, Scene::one_point}) {
    const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
    const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
    Lbvh bvh(n);
    CUDA_CHECK(cudaMemset(bvh.sorted_codes(), kPoisonByte, n * sizeof(std::uint32_t)));
    CUDA_CHECK(cudaMemset(bvh.objects(), kPoisonByte, n * sizeof(std::uint32_t)));
    bvh.build(in.data(), n);
    EXPECT_EQ(bvh.size(), n);
    const reference::SortedObjects want = reference::sort_objects(boxes);
    EXPECT_TRUE(matches(compare_exact(want.sorted_codes, download(bvh.sorted_codes(), n)),
                        case_text(scene, n) + " (sorted codes)"));
    EXPECT_TRUE(matches(compare_exact(want.objects, download(bvh.objects(), n)),
                        case_text(scene, n) + " (objects: equal codes keep the input order)"));
    expect_input_unchanged(boxes, in, case_text(scene, n), "boxes");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, SortByCode, ::testing::ValuesIn(kTreeSizes), size_name);

TEST(BuildArguments, AreRejectedWithAMessageThatSaysWhatToDo) {
  EXPECT_THROW(Lbvh(kMaxObjects + 1), std::invalid_argument) << "more objects than 32-bit node indices allow";
  Lbvh empty(0);
  const Aabb* no_boxes = nullptr;
  try {
    empty.build(no_boxes, 5);
    ADD_FAILURE() << "build of 5 objects into an Lbvh made for 0 must throw std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("max_n"), std::string::npos)
        << "the message should say to construct the Lbvh with a larger max_n; it says: " << error.what();
  }
  EXPECT_NO_THROW(empty.build(no_boxes, 0)) << "n = 0 needs no boxes";
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.find_overlapping_pairs(nullptr, 0), 0u) << "an empty Lbvh has no pairs";
  EXPECT_THROW(empty.find_overlapping_pairs(nullptr, 10), std::invalid_argument)
      << "pairs = nullptr with capacity 10";
}

class NullBoxes : public GpuTest {};

TEST_F(NullBoxes, AreRejectedWhenThereAreObjects) {
  Lbvh bvh(8);
  try {
    bvh.build(nullptr, 8);
    ADD_FAILURE() << "build with boxes = nullptr and n = 8 must throw std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("boxes"), std::string::npos)
        << "the message should name `boxes`; it says: " << error.what();
  }
}

// ---------------------------------------------------------------------------
// Phase 4 on the host: δ, ranges and splits against the reference tree

TEST(CommonPrefix, CountsEqualLeadingBitsAndExtendsEqualCodesByPosition) {
  const std::uint32_t codes[] = {0b00001, 0b00010, 0b00100, 0b00101, 0b10011, 0b11000, 0b11001, 0b11110};
  const int n = 8;
  EXPECT_EQ(common_prefix(codes, n, 0, 1), 30) << "0b00001 vs 0b00010 share 30 of 32 bits";
  EXPECT_EQ(common_prefix(codes, n, 2, 3), 31);
  EXPECT_EQ(common_prefix(codes, n, 0, 7), 27) << "0b00001 vs 0b11110: bit 4 differs";
  EXPECT_EQ(common_prefix(codes, n, 3, -1), -1) << "j < 0 is outside";
  EXPECT_EQ(common_prefix(codes, n, 3, 8), -1) << "j >= n is outside";
  const std::uint32_t equal[] = {7, 7, 7, 7, 7, 9};
  EXPECT_EQ(common_prefix(equal, 6, 0, 1), 32 + 31) << "equal codes: 32 + clz(0 ^ 1)";
  EXPECT_EQ(common_prefix(equal, 6, 1, 2), 32 + 30) << "equal codes: 32 + clz(1 ^ 2)";
  EXPECT_EQ(common_prefix(equal, 6, 3, 4), 32 + 29) << "equal codes: 32 + clz(3 ^ 4)";
  EXPECT_EQ(common_prefix(equal, 6, 4, 5), 28) << "7 vs 9 differ: clz(7 ^ 9)";
  EXPECT_EQ(common_prefix(equal, 6, 2, 2), 64) << "a key with itself: all 64 bits";
}

// Sorted code sets for the host tests of the hierarchy.
std::vector<std::vector<std::uint32_t>> code_sets() {
  std::vector<std::vector<std::uint32_t>> sets;
  sets.push_back(
      {0b00001, 0b00010, 0b00100, 0b00101, 0b10011, 0b11000, 0b11001, 0b11110});  // Karras's figure
  sets.push_back({5, 5});
  sets.push_back({1, 2, 3});
  sets.push_back(std::vector<std::uint32_t>(100, 42));  // all equal
  for (const std::size_t n :
       {std::size_t{2}, std::size_t{3}, std::size_t{37}, std::size_t{1000}, std::size_t{4099}}) {
    for (const Scene scene : {Scene::uniform, Scene::duplicated, Scene::on_a_line, Scene::huge_and_tiny}) {
      sets.push_back(
          reference::sort_objects(reference::make_scene(scene, n, seed_for(scene, n))).sorted_codes);
    }
  }
  return sets;
}

TEST(KarrasRange, AndSplitMatchTheReferenceTreeOnEveryNode) {
  for (const std::vector<std::uint32_t>& codes : code_sets()) {
    const int n = static_cast<int>(codes.size());
    const reference::Tree tree = reference::build_tree(codes);
    // The reference's ranges, top-down, to compare each node's range and split.
    std::vector<NodeRange> ranges(static_cast<std::size_t>(n - 1));
    std::vector<NodeRange> pending = {{0, n - 1}};
    std::vector<int> nodes = {0};
    while (!nodes.empty()) {
      const int node = nodes.back();
      const NodeRange range = pending.back();
      nodes.pop_back();
      pending.pop_back();
      ranges[static_cast<std::size_t>(node)] = range;
      const int leaves = n - 1;
      const int l = static_cast<int>(tree.left[static_cast<std::size_t>(node)]);
      const int r = static_cast<int>(tree.right[static_cast<std::size_t>(node)]);
      const int split = l < leaves ? l : l - leaves;
      if (l < leaves) nodes.push_back(l), pending.push_back({range.first, split});
      if (r < leaves) nodes.push_back(r), pending.push_back({split + 1, range.last});
    }
    for (int i = 0; i + 1 < n; ++i) {
      const NodeRange got = determine_range(codes.data(), n, i);
      const NodeRange want = ranges[static_cast<std::size_t>(i)];
      ASSERT_TRUE(got.first == want.first && got.last == want.last)
          << "determine_range(node " << i << ") of " << n << " codes (first code " << codes[0]
          << "): expected {" << want.first << ", " << want.last << "}, got {" << got.first << ", " << got.last
          << "}";
      const std::uint32_t l = tree.left[static_cast<std::size_t>(i)];
      const int want_split = static_cast<int>(l < static_cast<std::uint32_t>(n - 1) ? l : l - (n - 1));
      ASSERT_EQ(find_split(codes.data(), n, want), want_split)
          << "find_split({" << want.first << ", " << want.last << "}) of node " << i << ", " << n << " codes";
    }
  }
}

// ---------------------------------------------------------------------------
// Phase 4 on the GPU: the kernel against the reference tree

class Hierarchy : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(Hierarchy, MatchesTheReferenceTreeExactly) {
  const std::size_t n = GetParam();
  for (const Scene scene : {Scene::uniform, Scene::duplicated, Scene::one_point, Scene::huge_and_tiny}) {
    const std::vector<std::uint32_t> codes =
        reference::sort_objects(reference::make_scene(scene, n, seed_for(scene, n))).sorted_codes;
    const reference::Tree want = reference::build_tree(codes);
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(codes);
    DeviceBuffer<std::uint32_t> left(n - 1), right(n - 1), last(n - 1), parent(2 * n - 1);
    for (DeviceBuffer<std::uint32_t>* b : {&left, &right, &last, &parent}) b->fill_bytes(kPoisonByte);
    launch_build_internal_nodes(in.data(), static_cast<std::uint32_t>(n), left.data(), right.data(),
                                last.data(), parent.data());
    const std::string context = case_text(scene, n);
    EXPECT_TRUE(matches(compare_exact(want.left, left.to_host()), context + " (left children)"));
    EXPECT_TRUE(matches(compare_exact(want.right, right.to_host()), context + " (right children)"));
    EXPECT_TRUE(matches(compare_exact(want.last, last.to_host()), context + " (last: rightmost leaves)"));
    EXPECT_TRUE(matches(compare_exact(want.parent, parent.to_host()),
                        context + " (parents; parent[0] = kNoParent = 4294967295)"));
    expect_input_unchanged(codes, in, context, "codes");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, Hierarchy, ::testing::ValuesIn(kTreeSizes), size_name);

// ---------------------------------------------------------------------------
// Phase 5: boxes bottom-up on the reference tree, then whole builds validated

class NodeBoxes : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(NodeBoxes, AreTheUnionsOfTheirChildrenTwiceInARow) {
  const std::size_t n = GetParam();
  for (const Scene scene : {Scene::uniform, Scene::duplicated, Scene::huge_and_tiny}) {
    const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
    const reference::SortedObjects sorted = reference::sort_objects(boxes);
    const reference::Tree tree = reference::build_tree(sorted.sorted_codes);
    const std::vector<Aabb> want = reference::node_boxes(tree, sorted.objects, boxes);
    const DeviceBuffer<Aabb> object_boxes = workbook::to_device(boxes);
    const DeviceBuffer<std::uint32_t> objects = workbook::to_device(sorted.objects);
    const DeviceBuffer<std::uint32_t> left = workbook::to_device(tree.left);
    const DeviceBuffer<std::uint32_t> right = workbook::to_device(tree.right);
    const DeviceBuffer<std::uint32_t> parent = workbook::to_device(tree.parent);
    DeviceBuffer<std::uint32_t> arrivals(n - 1);
    DeviceBuffer<Aabb> out(2 * n - 1);
    // Twice: the second run finds the counters at whatever the first left.
    for (int run = 1; run <= 2; ++run) {
      out.fill_bytes(kPoisonByte);
      launch_compute_node_boxes(object_boxes.data(), objects.data(), left.data(), right.data(), parent.data(),
                                static_cast<std::uint32_t>(n), arrivals.data(), out.data());
      const std::string context = case_text(scene, n) + ", run " + std::to_string(run);
      ASSERT_TRUE(
          matches(compare_exact(flatten(want), flatten(out.to_host())),
                  context + " (node k's box is elements 6k .. 6k + 5: lo.x, lo.y, lo.z, hi.x, hi.y, hi.z)"));
      expect_input_unchanged(boxes, object_boxes, context, "object_boxes");
      expect_input_unchanged(sorted.objects, objects, context, "objects");
      expect_input_unchanged(tree.left, left, context, "left");
      expect_input_unchanged(tree.right, right, context, "right");
      expect_input_unchanged(tree.parent, parent, context, "parent");
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, NodeBoxes, ::testing::ValuesIn(kTreeSizes), size_name);

using SceneCase = std::tuple<Scene, std::size_t>;

std::string scene_case_name(const ::testing::TestParamInfo<SceneCase>& info) {
  return std::string(reference::to_string(std::get<0>(info.param))) + "_n" +
         std::to_string(std::get<1>(info.param));
}

const Scene kScenes[] = {Scene::uniform,    Scene::one_point,  Scene::on_a_line,
                         Scene::on_a_plane, Scene::duplicated, Scene::huge_and_tiny};
const std::size_t kSceneSizes[] = {1, 2, 3, 31, 32, 33, 257, 1000, 4096};

class Build : public GpuTest, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(Build, MakesAValidTreeWithOneLeafPerObject) {
  const auto [scene, n] = GetParam();
  const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  Lbvh bvh(n);
  CUDA_CHECK(cudaMemset(bvh.boxes(), kPoisonByte, (2 * n - 1) * sizeof(Aabb)));
  bvh.build(in.data(), n);
  const std::string problem = reference::validate(download_tree(bvh, n), boxes);
  EXPECT_TRUE(problem.empty()) << case_text(scene, n) << ": " << problem;
  expect_input_unchanged(boxes, in, case_text(scene, n), "boxes");
}

INSTANTIATE_TEST_SUITE_P(Scenes, Build,
                         ::testing::Combine(::testing::ValuesIn(kScenes), ::testing::ValuesIn(kSceneSizes)),
                         scene_case_name);

// ---------------------------------------------------------------------------
// The query on reference trees (uploaded), so it is graded on its own

// A tree on the device, made on the host. The host arrays are kept to check
// that the query leaves the tree as it was uploaded.
struct UploadedTree {
  std::vector<std::uint32_t> host_objects, host_left, host_right, host_last;
  std::vector<Aabb> host_boxes;
  DeviceBuffer<std::uint32_t> objects, left, right, last;
  DeviceBuffer<Aabb> boxes;
  std::uint32_t n = 0;

  TreeView view() const {
    TreeView v;
    v.n = n;
    v.objects = objects.data();
    v.left = left.data();
    v.right = right.data();
    v.last = last.data();
    v.boxes = boxes.data();
    return v;
  }

  // Every array of the tree (the query's input) must hold what was uploaded.
  void expect_unchanged(const std::string& context) const {
    expect_input_unchanged(host_objects, objects, context, "tree.objects");
    expect_input_unchanged(host_left, left, context, "tree.left");
    expect_input_unchanged(host_right, right, context, "tree.right");
    expect_input_unchanged(host_last, last, context, "tree.last");
    expect_input_unchanged(host_boxes, boxes, context, "tree.boxes");
  }
};

UploadedTree upload_tree(std::vector<std::uint32_t> objects, std::vector<std::uint32_t> left,
                         std::vector<std::uint32_t> right, std::vector<std::uint32_t> last,
                         std::vector<Aabb> boxes) {
  UploadedTree t;
  t.n = static_cast<std::uint32_t>(objects.size());
  t.objects = workbook::to_device(objects);
  t.left = workbook::to_device(left);
  t.right = workbook::to_device(right);
  t.last = workbook::to_device(last);
  t.boxes = workbook::to_device(boxes);
  t.host_objects = std::move(objects);
  t.host_left = std::move(left);
  t.host_right = std::move(right);
  t.host_last = std::move(last);
  t.host_boxes = std::move(boxes);
  return t;
}

UploadedTree upload_reference_tree(const std::vector<Aabb>& boxes) {
  const reference::SortedObjects sorted = reference::sort_objects(boxes);
  const reference::Tree tree = reference::build_tree(sorted.sorted_codes);
  return upload_tree(sorted.objects, tree.left, tree.right, tree.last,
                     reference::node_boxes(tree, sorted.objects, boxes));
}

struct QueryResult {
  unsigned long long count = 0;
  std::uint32_t status = 0;
  std::vector<Pair> pairs;  // the first min(count, capacity)
};

QueryResult run_query(const TreeView& tree, std::size_t capacity) {
  DeviceBuffer<Pair> pairs(capacity);
  pairs.fill_bytes(kPoisonByte);
  DeviceBuffer<unsigned long long> count(1);
  DeviceBuffer<std::uint32_t> status(1);
  count.fill_bytes(kPoisonByte);
  status.fill_bytes(kPoisonByte);
  launch_query_overlapping_pairs(tree, pairs.data(), capacity, count.data(), status.data());
  QueryResult result;
  result.count = count.to_host()[0];
  result.status = status.to_host()[0];
  result.pairs = pairs.to_host();
  result.pairs.resize(std::min<std::size_t>(capacity, result.count));
  return result;
}

class Query : public GpuTest, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(Query, OnTheReferenceTreeFindsExactlyTheBruteForcePairs) {
  const auto [scene, n] = GetParam();
  const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
  const std::vector<std::uint64_t> want = reference::brute_force_pairs(boxes);
  const UploadedTree tree = upload_reference_tree(boxes);
  const QueryResult got = run_query(tree.view(), want.size() + 16);
  EXPECT_EQ(got.status, 0u) << case_text(scene, n)
                            << ": the status word reports a stack overflow on a tree at most "
                            << "61 internal nodes deep (30 + 31)";
  EXPECT_TRUE(same_pairs(want, pair_keys(got.pairs), case_text(scene, n)));
  tree.expect_unchanged(case_text(scene, n));
}

INSTANTIATE_TEST_SUITE_P(Scenes, Query,
                         ::testing::Combine(::testing::ValuesIn(kScenes), ::testing::ValuesIn(kSceneSizes)),
                         scene_case_name);

// A comb of `depth` levels, every box the same point: internal node k has an
// internal child k + 1 (the spine) and, on the other side, a small subtree
// (an internal node with two leaves). With the spine on the left, a
// traversal that goes left first leaves every small subtree on its stack;
// with the spine on the right, one that goes right first does.
struct Comb {
  std::vector<std::uint32_t> objects, left, right, last;
  std::vector<Aabb> boxes;
  std::uint32_t n = 0;
};

Comb make_comb(int depth, bool spine_on_left) {
  // Internal nodes: spine 0 .. depth - 1, small subtrees depth .. 2 depth - 1;
  // leaves: two per small subtree, and two under the last spine node.
  const std::uint32_t internal = 2 * static_cast<std::uint32_t>(depth);
  Comb c;
  c.n = internal + 1;
  const std::uint32_t leaves = c.n - 1;
  c.left.assign(internal, 0);
  c.right.assign(internal, 0);
  c.last.assign(internal, 0);
  c.objects.resize(c.n);
  for (std::uint32_t i = 0; i < c.n; ++i) c.objects[i] = i;
  c.boxes.assign(2 * c.n - 1, reference::cube(0.5f, 0.5f, 0.5f, 0.0f));
  // Leaves: two under each small subtree, the last one under the spine's end.
  // The query needs `last` only as a bound (no leaf after it below the node),
  // so the spine nodes may all say n - 1.
  std::uint32_t next_leaf = 0;
  for (int k = 0; k < depth; ++k) {
    const std::uint32_t small = static_cast<std::uint32_t>(depth + k);
    c.left[small] = leaves + next_leaf++;
    c.right[small] = leaves + next_leaf++;
    c.last[small] = next_leaf - 1;
  }
  // The spine; its last node holds the last leaf and a small subtree.
  for (int k = 0; k < depth; ++k) {
    const auto node = static_cast<std::uint32_t>(k);
    const std::uint32_t small = static_cast<std::uint32_t>(depth + k);
    const std::uint32_t onward = k + 1 < depth ? node + 1 : leaves + next_leaf;
    c.left[node] = spine_on_left ? onward : small;
    c.right[node] = spine_on_left ? small : onward;
    c.last[node] = c.n - 1;
  }
  return c;
}

TEST(StackOverflowTrees, AreWellFormed) {
  // The combs are hand-made: the query test below relies on their shape.
  for (const bool spine_on_left : {true, false}) {
    const Comb c = make_comb(100, spine_on_left);
    std::vector<int> reached(2 * c.n - 1, 0);
    std::vector<std::uint32_t> stack = {0};
    while (!stack.empty()) {
      const std::uint32_t node = stack.back();
      stack.pop_back();
      ASSERT_LT(node, 2 * c.n - 1);
      ASSERT_EQ(reached[node]++, 0) << "node " << node << " reached twice";
      if (node < c.n - 1) stack.insert(stack.end(), {c.left[node], c.right[node]});
    }
    for (std::size_t k = 0; k < reached.size(); ++k) ASSERT_EQ(reached[k], 1) << "node " << k;
  }
}

class StackOverflow : public GpuTest {};

TEST_F(StackOverflow, IsReportedInTheStatusWordAndByFindOverlappingPairs) {
  // 100 levels with a small subtree pending at each: any traversal with a
  // fixed child order and a 64-entry stack overflows on one of the two combs.
  int overflowed = 0;
  for (const bool spine_on_left : {true, false}) {
    const Comb c = make_comb(100, spine_on_left);
    const UploadedTree tree = upload_tree(c.objects, c.left, c.right, c.last, c.boxes);
    const std::size_t all_pairs = static_cast<std::size_t>(c.n) * (c.n - 1) / 2;
    const QueryResult got = run_query(tree.view(), all_pairs);
    const std::string context =
        std::string("comb of 100 levels, spine on the ") + (spine_on_left ? "left" : "right");
    tree.expect_unchanged(context);
    if ((got.status & kStackOverflowed) != 0) {
      ++overflowed;
      continue;
    }
    EXPECT_EQ(got.status, 0u) << "only kStackOverflowed may be set in the status word";
    // No overflow reported: then every pair must be there.
    std::vector<std::uint64_t> want;
    for (std::uint32_t a = 0; a < c.n; ++a) {
      for (std::uint32_t b = a + 1; b < c.n; ++b) want.push_back(reference::pair_key(a, b));
    }
    EXPECT_TRUE(same_pairs(want, pair_keys(got.pairs),
                           context + ", no overflow reported, so every pair must be found"));
  }
  EXPECT_GE(overflowed, 1) << "a comb of 100 levels with a pending subtree at each must overflow a stack of "
                           << kStackSize << " entries on one side: set kStackOverflowed in *status";
}

class PairCapacity : public GpuTest {};

TEST_F(PairCapacity, TooSmallReturnsTheCountAndARetryGetsEveryPair) {
  const std::size_t n = 3000;
  const std::vector<Aabb> boxes = reference::make_scene(Scene::uniform, n, seed_for(Scene::uniform, n));
  const std::vector<std::uint64_t> want = reference::brute_force_pairs(boxes);
  ASSERT_GT(want.size(), 100u);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  Lbvh bvh(n);
  bvh.build(in.data(), n);
  // Guard elements after the capacity must keep their poison.
  const std::size_t small = want.size() / 3;
  DeviceBuffer<Pair> pairs(small + 64);
  pairs.fill_bytes(kPoisonByte);
  const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), small);
  EXPECT_EQ(found, want.size()) << "the returned count must be every pair found, also past the capacity of "
                                << small;
  std::vector<Pair> got = pairs.to_host();
  for (std::size_t k = small; k < got.size(); ++k) {
    ASSERT_EQ(got[k].first, 0x7F7F7F7Fu) << "pair " << k << " written past the capacity of " << small;
  }
  got.resize(small);
  std::vector<std::uint64_t> keys = pair_keys(got);
  std::vector<std::uint64_t> stray;
  std::set_difference(keys.begin(), keys.end(), want.begin(), want.end(), std::back_inserter(stray));
  EXPECT_TRUE(stray.empty()) << stray.size() << " of the " << small
                             << " pairs written are not overlapping pairs"
                             << (stray.empty() ? "" : ", e.g. " + pair_text(stray[0]));
  // The retry with the count returned.
  DeviceBuffer<Pair> enough(found);
  const std::size_t again = bvh.find_overlapping_pairs(enough.data(), found);
  EXPECT_EQ(again, want.size());
  EXPECT_TRUE(
      same_pairs(want, pair_keys(enough.to_host()), "uniform scene, n=3000, the retry, " + seed_text()));
  expect_input_unchanged(boxes, in, "uniform scene, n=3000, " + seed_text(), "boxes");
}

// ---------------------------------------------------------------------------
// End to end: build() and find_overlapping_pairs()

class Pairs : public GpuTest, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(Pairs, EqualBruteForce) {
  const auto [scene, n] = GetParam();
  const std::vector<Aabb> boxes = reference::make_scene(scene, n, seed_for(scene, n));
  const std::vector<std::uint64_t> want = reference::brute_force_pairs(boxes);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  Lbvh bvh(n);
  bvh.build(in.data(), n);
  DeviceBuffer<Pair> pairs(want.size() + 16);
  pairs.fill_bytes(kPoisonByte);
  const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), want.size() + 16);
  std::vector<Pair> got = pairs.to_host();
  got.resize(std::min(found, got.size()));
  EXPECT_EQ(found, want.size()) << case_text(scene, n) << ": the count returned";
  EXPECT_TRUE(same_pairs(want, pair_keys(got), case_text(scene, n)));
  expect_input_unchanged(boxes, in, case_text(scene, n), "boxes");
}

INSTANTIATE_TEST_SUITE_P(Scenes, Pairs,
                         ::testing::Combine(::testing::ValuesIn(kScenes), ::testing::ValuesIn(kSceneSizes)),
                         scene_case_name);

class LargePairs : public GpuTest {};

TEST_F(LargePairs, At2To18EqualSortAndSweep) {
  const std::size_t n = std::size_t{1} << 18;
  // A long box (64 x 1 x 1) keeps the sweep on x short; then cubes of mixed
  // sizes with a few large ones.
  std::vector<std::vector<Aabb>> scenes;
  scenes.push_back(reference::uniform_cubes(n, 4.0, workbook::test_seed() + 18, 64.0f));
  std::vector<Aabb> mixed = reference::uniform_cubes(n, 2.0, workbook::test_seed() + 19, 64.0f);
  for (std::size_t i = 0; i < n; i += 4096) {
    mixed[i] = reference::cube(reference::unit_random(5, i) * 64.0f, 0.5f, 0.5f, 0.05f);
  }
  scenes.push_back(mixed);
  const char* names[] = {"uniform cubes in 64 x 1 x 1, 4 neighbours", "mixed sizes in 64 x 1 x 1"};
  Lbvh bvh(n);
  for (std::size_t s = 0; s < scenes.size(); ++s) {
    const std::vector<std::uint64_t> want = reference::sweep_pairs(scenes[s]);
    const DeviceBuffer<Aabb> in = workbook::to_device(scenes[s]);
    bvh.build(in.data(), n);
    DeviceBuffer<Pair> pairs(want.size() + 16);
    const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), want.size() + 16);
    std::vector<Pair> got = pairs.to_host();
    got.resize(std::min(found, got.size()));
    const std::string context = std::string(names[s]) + ", n=2^18, " + seed_text();
    EXPECT_TRUE(same_pairs(want, pair_keys(got), context));
    expect_input_unchanged(scenes[s], in, context, "boxes");
  }
}

class Rebuild : public GpuTest {};

TEST_F(Rebuild, OfASmallerSceneInTheSameLbvhIsCorrect) {
  Lbvh bvh(5000);
  for (const std::size_t n :
       {std::size_t{5000}, std::size_t{700}, std::size_t{1}, std::size_t{0}, std::size_t{64}}) {
    const std::vector<Aabb> boxes = reference::make_scene(Scene::uniform, n, seed_for(Scene::uniform, n) + 1);
    const std::vector<std::uint64_t> want = reference::brute_force_pairs(boxes);
    const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
    bvh.build(in.data(), n);
    DeviceBuffer<Pair> pairs(want.size() + 1);
    const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), want.size() + 1);
    std::vector<Pair> got = pairs.to_host();
    got.resize(std::min(found, got.size()));
    const std::string context = "uniform, n=" + std::to_string(n) + " after a larger build";
    EXPECT_TRUE(same_pairs(want, pair_keys(got), context));
    expect_input_unchanged(boxes, in, context, "boxes");
  }
}

}  // namespace
}  // namespace lbvh
