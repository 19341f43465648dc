// Host references of lab 10, written independently of the student's code:
// the scenes, Morton codes bit by bit, a top-down builder of the same binary
// radix tree that Karras's bottom-up kernel makes, the node boxes, a tree
// validator, and the pairs by brute force and by sort-and-sweep on x.
// Used by the tests (and the scenes by the experiment); host code only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lbvh.cuh"
#include "workbook/generators.hpp"

namespace lbvh::reference {

// ---------------------------------------------------------------------------
// Scenes

/// The shapes of the test scenes.
enum class Scene {
  uniform,        // cubes at uniform random centres in the unit cube, about 8 neighbours each
  one_point,      // every box the same point: every pair overlaps
  on_a_line,      // small cubes with centres on one line (y, z fixed), about 4 neighbours each
  on_a_plane,     // small cubes with centres on one plane (z fixed), about 4 neighbours each
  duplicated,     // a uniform scene with every object twice (equal codes, equal boxes)
  huge_and_tiny,  // tiny boxes, and every 64th box huge (up to 1e30 wide): huge ones overlap everything
};

inline const char* to_string(Scene scene) {
  switch (scene) {
    case Scene::uniform:
      return "uniform";
    case Scene::one_point:
      return "one_point";
    case Scene::on_a_line:
      return "on_a_line";
    case Scene::on_a_plane:
      return "on_a_plane";
    case Scene::duplicated:
      return "duplicated";
    case Scene::huge_and_tiny:
      return "huge_and_tiny";
  }
  return "?";
}

/// A uniform random float in [0, 1) from (seed, index).
inline float unit_random(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(workbook::hash64(seed, index) >> 40) / static_cast<float>(1u << 24);
}

inline Aabb cube(float x, float y, float z, float half) {
  return {{x - half, y - half, z - half}, {x + half, y + half, z + half}};
}

/// @p n cubes of one side at uniform random centres in [0, length_x] x [0, 1] x [0, 1],
/// sized so that each overlaps @p neighbours others on average: two cubes of side s
/// overlap when their centres are within s on every axis, a volume (2s)^3 around a
/// centre, so the expected count is n (2s)^3 / volume (boundaries make it a little less).
inline std::vector<Aabb> uniform_cubes(std::size_t n, double neighbours, std::uint64_t seed,
                                       float length_x = 1.0f) {
  const double volume = static_cast<double>(length_x);
  const double side = n > 0 ? std::cbrt(neighbours * volume / static_cast<double>(n)) / 2.0 : 0.0;
  const auto half = static_cast<float>(side / 2.0);
  std::vector<Aabb> boxes(n);
  for (std::size_t i = 0; i < n; ++i) {
    boxes[i] = cube(unit_random(seed, 3 * i) * length_x, unit_random(seed, 3 * i + 1),
                    unit_random(seed, 3 * i + 2), half);
  }
  return boxes;
}

inline std::vector<Aabb> make_scene(Scene scene, std::size_t n, std::uint64_t seed) {
  std::vector<Aabb> boxes(n);
  const double count = static_cast<double>(n > 0 ? n : 1);
  switch (scene) {
    case Scene::uniform:
      return uniform_cubes(n, 8.0, seed);
    case Scene::one_point:
      for (Aabb& box : boxes) box = cube(0.5f, 0.25f, -3.0f, 0.0f);
      return boxes;
    case Scene::on_a_line: {
      // Overlap on the line when centres are within s: expected n * 2s = 4.
      const auto half = static_cast<float>(1.0 / count);
      for (std::size_t i = 0; i < n; ++i) boxes[i] = cube(unit_random(seed, i), 0.25f, 0.75f, half);
      return boxes;
    }
    case Scene::on_a_plane: {
      // Expected n * (2s)^2 = 4 on the unit square.
      const auto half = static_cast<float>(0.5 / std::sqrt(count));
      for (std::size_t i = 0; i < n; ++i)
        boxes[i] = cube(unit_random(seed, 2 * i), unit_random(seed, 2 * i + 1), 0.5f, half);
      return boxes;
    }
    case Scene::duplicated: {
      const std::vector<Aabb> distinct = uniform_cubes((n + 1) / 2, 4.0, seed);
      for (std::size_t i = 0; i < n; ++i) boxes[i] = distinct[i / 2];
      return boxes;
    }
    case Scene::huge_and_tiny:
      for (std::size_t i = 0; i < n; ++i) {
        if (i % 64 == 5) {
          const float half = i % 128 == 5 ? 1.0e30f : 1.0e6f;
          boxes[i] = cube(unit_random(seed, 3 * i), 0.0f, 0.0f, half);
        } else {
          boxes[i] = cube(unit_random(seed, 3 * i), unit_random(seed, 3 * i + 1),
                          unit_random(seed, 3 * i + 2), 1.0e-7f);
        }
      }
      return boxes;
  }
  return boxes;
}

// ---------------------------------------------------------------------------
// Codes

inline Aabb union_of(const std::vector<Aabb>& boxes) {
  Aabb all = empty_box();
  for (const Aabb& box : boxes) all = merge(all, box);
  return all;
}

/// The cell of lbvh.cuh's formula, computed as the contract says.
inline std::uint32_t cell(float x, float lo, float hi) {
  if (!(hi > lo)) return 0;
  const float t = (x - lo) / (hi - lo) * 1024.0f;
  if (!(t > 0.0f)) return 0;
  if (t >= 1023.0f) return 1023;
  return static_cast<std::uint32_t>(t);
}

/// Morton code bit by bit: bit k of the x, y, z cells goes to bits 3k + 2, 3k + 1, 3k.
inline std::uint32_t code_of(const Aabb& box, const Aabb& scene) {
  const float cx = (box.lo.x + box.hi.x) * 0.5f;
  const float cy = (box.lo.y + box.hi.y) * 0.5f;
  const float cz = (box.lo.z + box.hi.z) * 0.5f;
  const std::uint32_t x = cell(cx, scene.lo.x, scene.hi.x);
  const std::uint32_t y = cell(cy, scene.lo.y, scene.hi.y);
  const std::uint32_t z = cell(cz, scene.lo.z, scene.hi.z);
  std::uint32_t code = 0;
  for (int k = 0; k < 10; ++k) {
    code |= ((x >> k) & 1u) << (3 * k + 2);
    code |= ((y >> k) & 1u) << (3 * k + 1);
    code |= ((z >> k) & 1u) << (3 * k);
  }
  return code;
}

/// Codes in object order, and the objects sorted stably by code (what the sort must give).
struct SortedObjects {
  std::vector<std::uint32_t> codes;         // by object
  std::vector<std::uint32_t> sorted_codes;  // ascending
  std::vector<std::uint32_t> objects;       // the object of each sorted position
};

inline SortedObjects sort_objects(const std::vector<Aabb>& boxes) {
  SortedObjects out;
  const Aabb scene = union_of(boxes);
  const std::size_t n = boxes.size();
  out.codes.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.codes[i] = code_of(boxes[i], scene);
  out.objects.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.objects[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(out.objects.begin(), out.objects.end(),
                   [&out](std::uint32_t a, std::uint32_t b) { return out.codes[a] < out.codes[b]; });
  out.sorted_codes.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.sorted_codes[i] = out.codes[out.objects[i]];
  return out;
}

// ---------------------------------------------------------------------------
// The tree, top-down: the binary radix tree over the keys (code, position).
// A range first..last splits where the highest bit in which its first and
// last keys differ changes from 0 to 1. Numbering as Karras's: the root is
// internal node 0; a child range [first, s] is internal node s, a child range
// [s + 1, last] internal node s + 1, a single position p leaf n - 1 + p.

struct Tree {
  std::vector<std::uint32_t> left, right, last, parent;  // n - 1, n - 1, n - 1, 2n - 1
};

/// The key of position p as 64 bits: the code above the position.
inline std::uint64_t key_of(const std::vector<std::uint32_t>& codes, std::size_t p) {
  return (static_cast<std::uint64_t>(codes[p]) << 32) | static_cast<std::uint64_t>(p);
}

/// The last position of [first, last] whose key has a 0 at the highest bit where the
/// keys of first and last differ (keys are increasing, so such positions come first).
inline std::size_t split_of(const std::vector<std::uint32_t>& codes, std::size_t first, std::size_t last) {
  const std::uint64_t differ = key_of(codes, first) ^ key_of(codes, last);
  int bit = 63;
  while (((differ >> bit) & 1u) == 0) --bit;
  std::size_t lo = first, hi = last;  // key(lo) has bit 0, key(hi) has bit 1
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (((key_of(codes, mid) >> bit) & 1u) == 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

inline Tree build_tree(const std::vector<std::uint32_t>& sorted_codes) {
  const std::size_t n = sorted_codes.size();
  Tree tree;
  if (n == 0) return tree;
  tree.left.assign(n - 1, 0);
  tree.right.assign(n - 1, 0);
  tree.last.assign(n - 1, 0);
  tree.parent.assign(2 * n - 1, kNoParent);
  if (n == 1) return tree;
  struct Job {
    std::size_t node, first, last;
  };
  std::vector<Job> jobs = {{0, 0, n - 1}};
  const std::size_t leaves = n - 1;
  while (!jobs.empty()) {
    const Job job = jobs.back();
    jobs.pop_back();
    const std::size_t s = split_of(sorted_codes, job.first, job.last);
    const std::size_t l = s == job.first ? leaves + s : s;
    const std::size_t r = s + 1 == job.last ? leaves + s + 1 : s + 1;
    tree.left[job.node] = static_cast<std::uint32_t>(l);
    tree.right[job.node] = static_cast<std::uint32_t>(r);
    tree.last[job.node] = static_cast<std::uint32_t>(job.last);
    tree.parent[l] = static_cast<std::uint32_t>(job.node);
    tree.parent[r] = static_cast<std::uint32_t>(job.node);
    if (l < leaves) jobs.push_back({l, job.first, s});
    if (r < leaves) jobs.push_back({r, s + 1, job.last});
  }
  return tree;
}

/// The node boxes of a tree: leaves from the objects, internal nodes as unions (post-order).
inline std::vector<Aabb> node_boxes(const Tree& tree, const std::vector<std::uint32_t>& objects,
                                    const std::vector<Aabb>& boxes) {
  const std::size_t n = objects.size();
  if (n == 0) return {};
  std::vector<Aabb> out(2 * n - 1, empty_box());
  const std::size_t leaves = n - 1;
  for (std::size_t i = 0; i < n; ++i) out[leaves + i] = boxes[objects[i]];
  if (n == 1) return out;
  // Children before parents: an explicit post-order from the root.
  std::vector<std::pair<std::size_t, bool>> stack = {{0, false}};
  while (!stack.empty()) {
    auto [node, children_done] = stack.back();
    stack.pop_back();
    if (children_done) {
      out[node] = merge(out[tree.left[node]], out[tree.right[node]]);
      continue;
    }
    stack.push_back({node, true});
    if (tree.left[node] < leaves) stack.push_back({tree.left[node], false});
    if (tree.right[node] < leaves) stack.push_back({tree.right[node], false});
  }
  return out;
}

inline bool same_box(const Aabb& a, const Aabb& b) {
  return a.lo.x == b.lo.x && a.lo.y == b.lo.y && a.lo.z == b.lo.z && a.hi.x == b.hi.x && a.hi.y == b.hi.y &&
         a.hi.z == b.hi.z;
}

inline bool contains(const Aabb& outer, const Aabb& inner) {
  return outer.lo.x <= inner.lo.x && outer.lo.y <= inner.lo.y && outer.lo.z <= inner.lo.z &&
         outer.hi.x >= inner.hi.x && outer.hi.y >= inner.hi.y && outer.hi.z >= inner.hi.z;
}

inline std::string box_text(const Aabb& b) {
  return "[(" + std::to_string(b.lo.x) + ", " + std::to_string(b.lo.y) + ", " + std::to_string(b.lo.z) +
         "), (" + std::to_string(b.hi.x) + ", " + std::to_string(b.hi.y) + ", " + std::to_string(b.hi.z) +
         ")]";
}

/// A built tree as downloaded from the device.
struct BuiltTree {
  std::vector<std::uint32_t> objects, left, right, last, parent;
  std::vector<Aabb> boxes;
};

/// Every structural rule of a tree over @p object_boxes; "" when it holds, else the first
/// problem found. Safe on garbage (every index is range-checked before use).
inline std::string validate(const BuiltTree& t, const std::vector<Aabb>& object_boxes) {
  const std::size_t n = object_boxes.size();
  if (n == 0) return "";
  const std::size_t leaves = n - 1;
  const std::size_t nodes = 2 * n - 1;
  std::vector<int> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (t.objects[i] >= n)
      return "objects[" + std::to_string(i) + "] = " + std::to_string(t.objects[i]) + " >= n";
    if (seen[t.objects[i]]++ != 0) return "object " + std::to_string(t.objects[i]) + " is in two leaves";
  }
  if (t.parent[0] != kNoParent)
    return "parent[0] (the root) = " + std::to_string(t.parent[0]) + ", not kNoParent";
  for (std::size_t k = 0; k < leaves; ++k) {
    const std::uint32_t children[2] = {t.left[k], t.right[k]};
    for (const std::uint32_t c : children) {
      if (c >= nodes || c == 0)
        return "internal node " + std::to_string(k) + " has child " + std::to_string(c);
      if (t.parent[c] != k) {
        return "internal node " + std::to_string(k) + " has child " + std::to_string(c) + " but parent[" +
               std::to_string(c) + "] = " + std::to_string(t.parent[c]);
      }
    }
  }
  // Depth-first from the root, left child first: every node exactly once, the
  // leaves in sorted order 0, 1, ..., n - 1, and every node's last leaf right.
  std::vector<int> visits(nodes, 0);
  std::vector<std::uint32_t> stack = {0};
  std::size_t next_leaf = 0;
  std::size_t steps = 0;
  while (!stack.empty()) {
    const std::uint32_t node = stack.back();
    stack.pop_back();
    if (++steps > nodes || visits[node]++ != 0) return "node " + std::to_string(node) + " is reached twice";
    if (node >= leaves) {
      if (node - leaves != next_leaf) {
        return "leaf " + std::to_string(node - leaves) + " is reached where leaf " +
               std::to_string(next_leaf) + " should be (leaves must be in sorted order from left to right)";
      }
      ++next_leaf;
      continue;
    }
    stack.push_back(t.right[node]);
    stack.push_back(t.left[node]);
  }
  if (next_leaf != n)
    return "only " + std::to_string(next_leaf) + " of " + std::to_string(n) + " leaves reached";
  for (std::size_t k = 0; k < leaves; ++k) {
    // The rightmost leaf below k: follow right children.
    std::uint32_t node = static_cast<std::uint32_t>(k);
    while (node < leaves) node = t.right[node];
    if (t.last[k] != node - leaves) {
      return "last[" + std::to_string(k) + "] = " + std::to_string(t.last[k]) +
             ", but its rightmost leaf is " + std::to_string(node - leaves);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_box(t.boxes[leaves + i], object_boxes[t.objects[i]])) {
      return "leaf " + std::to_string(i) + " (node " + std::to_string(leaves + i) + ") has box " +
             box_text(t.boxes[leaves + i]) + ", but its object " + std::to_string(t.objects[i]) + " has " +
             box_text(object_boxes[t.objects[i]]);
    }
  }
  for (std::size_t k = 0; k < leaves; ++k) {
    for (const std::uint32_t c : {t.left[k], t.right[k]}) {
      if (!contains(t.boxes[k], t.boxes[c])) {
        return "the box of internal node " + std::to_string(k) + " " + box_text(t.boxes[k]) +
               " does not contain the box of its child " + std::to_string(c) + " " + box_text(t.boxes[c]);
      }
    }
  }
  return "";
}

// ---------------------------------------------------------------------------
// Pairs, as 64-bit keys (first << 32 | second), sorted

inline std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  if (a > b) std::swap(a, b);
  return (static_cast<std::uint64_t>(a) << 32) | b;
}

/// Every pair i < j whose boxes overlap: O(n^2).
inline std::vector<std::uint64_t> brute_force_pairs(const std::vector<Aabb>& boxes) {
  std::vector<std::uint64_t> pairs;
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      if (overlaps(boxes[i], boxes[j]))
        pairs.push_back(pair_key(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

/// Sort-and-sweep on x: boxes ordered by lo.x; each box is tested against the boxes
/// after it until one starts to the right of its hi.x.
inline std::vector<std::uint64_t> sweep_pairs(const std::vector<Aabb>& boxes) {
  std::vector<std::uint32_t> order(boxes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::sort(order.begin(), order.end(),
            [&boxes](std::uint32_t a, std::uint32_t b) { return boxes[a].lo.x < boxes[b].lo.x; });
  std::vector<std::uint64_t> pairs;
  for (std::size_t a = 0; a < order.size(); ++a) {
    const Aabb& box = boxes[order[a]];
    for (std::size_t b = a + 1; b < order.size() && boxes[order[b]].lo.x <= box.hi.x; ++b) {
      if (overlaps(box, boxes[order[b]])) pairs.push_back(pair_key(order[a], order[b]));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace lbvh::reference
