/// @file lbvh.cuh
/// @brief Lab 10, linear BVH: the contract between your code and the tests.
///
/// A bounding volume hierarchy (BVH) is a binary tree over n objects: every
/// leaf is one object's axis-aligned bounding box, every internal node the
/// box around its two children. A query box then visits only the subtrees
/// whose box it overlaps. The lab builds one on the GPU the "linear" way
/// (Lauterbach et al. 2009; Karras 2012), in five phases, and uses it
/// for broad-phase collision detection: every pair of overlapping objects.
/// 1. **Scene box**: the box around all objects (a device reduction).
/// 2. **Morton codes**: for each object a 30-bit code of its centroid
///    normalised to the scene box: 10 bits per axis, interleaved, so that
///    sorting the codes puts objects that are close in space close in the order.
/// 3. **Sort** the codes, each carrying its object's index (provided:
///    sort_pairs_by_code(), one cub::DeviceRadixSort::SortPairs, is the
///    yardstick the whole build is timed against).
/// 4. **Hierarchy** (Karras): internal node i, one thread each, finds its
///    range of sorted leaves from the longest common prefixes of neighbouring
///    codes, then its split inside the range; no node waits for another.
/// 5. **Boxes** bottom-up: one thread per leaf climbs towards the root; at
///    each node the first thread to arrive stops and the second computes the
///    union of the two children (an atomic counter per internal node).
/// Then the **query** (not a phase of the build): every leaf queries the tree
/// with its own box, with an explicit stack, and reports each overlapping pair once.
///
/// Conventions of the whole lab:
/// - Node numbering: the n - 1 internal nodes are 0 .. n - 2 (node 0 is the
///   root); the leaf of sorted position i is node n - 1 + i. So a node c is a
///   leaf exactly when c >= n - 1, and for n = 1 the root is the only leaf.
/// - Every array of a tree is a device array; kernels take raw pointers (a
///   TreeView) and sizes. lbvh::Lbvh owns them all, allocated once.
/// - Boxes are closed: two boxes that touch overlap.
/// - Object counts are below 2^31 (node indices are 32-bit).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "workbook/buffers.hpp"

namespace lbvh {

/// @brief Threads per block of the lab's kernels; the reference's climb
/// (compute_node_boxes) uses blocks of 128, which hand an SM's slots back
/// sooner (lbvh.cu, kClimbThreadsPerBlock).
constexpr int kThreadsPerBlock = 256;

/// @brief Bits of a Morton code per axis: 10, so 1024 cells per axis.
constexpr int kBitsPerAxis = 10;

/// @brief Cells per axis of the Morton grid: 2^kBitsPerAxis = 1024.
constexpr int kCellsPerAxis = 1 << kBitsPerAxis;

/// @brief Bits of a Morton code: 3 * 10 = 30; bits 30 and 31 are always 0.
constexpr int kCodeBits = 3 * kBitsPerAxis;

/// @brief Entries of the traversal stack of each thread of the query: enough
/// for any tree build() makes (the handout's Check yourself 4 asks why); a
/// hand-made deeper tree overflows it, and the query says so.
constexpr int kStackSize = 64;

/// @brief Blocks of the first pass of the scene-box reduction (at most): the
/// partial boxes that the second pass, one block, reduces to one.
constexpr int kMaxReduceBlocks = 1024;

/// @brief The largest number of objects: node indices (up to 2n - 2) and the
/// sort's item count must fit their 32-bit types.
constexpr std::size_t kMaxObjects = (std::size_t{1} << 31) - 1;

/// @brief The parent of the root.
constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;

/// @brief Bit of the query's status word: some thread's stack overflowed, so
/// pairs are missing.
constexpr std::uint32_t kStackOverflowed = 1u;

/// @brief An axis-aligned box [lo, hi] (closed). An empty union starts from
/// empty_box(). Aligned to 8 bytes (its size stays 24), so that a box can move
/// as three 8-byte pieces instead of six 4-byte ones: code that asks for them
/// (float2 loads) gets half the requests to memory. nvcc 13.0 does not do it
/// on its own: the query still loads a box's six floats one by one
/// (figures/ncu-probe.txt).
struct alignas(8) Aabb {
  float3 lo;  ///< The corner with the smallest coordinates.
  float3 hi;  ///< The corner with the largest coordinates.
};

/// @brief One overlapping pair of objects, by their indices in the input,
/// with first < second.
struct Pair {
  std::uint32_t first;   ///< The smaller object index.
  std::uint32_t second;  ///< The larger object index.
};

/// @brief The range of sorted leaves below an internal node: first .. last.
struct NodeRange {
  int first;  ///< The leftmost leaf (sorted position).
  int last;   ///< The rightmost leaf.
};

// ---------------------------------------------------------------------------
// Provided helpers (written for you, used by your code and by the tests).

/// @brief The smaller of two floats, a < b ? a : b (no NaN handling needed).
/// @param[in] a A float.
/// @param[in] b A float.
/// @return The smaller.
__host__ __device__ inline float min_of(float a, float b) {
  return a < b ? a : b;
}

/// @brief The larger of two floats.
/// @param[in] a A float.
/// @param[in] b A float.
/// @return The larger.
__host__ __device__ inline float max_of(float a, float b) {
  return a > b ? a : b;
}

/// @brief The identity of merge(): lo = +FLT_MAX, hi = -FLT_MAX.
/// @return A box that contains nothing.
__host__ __device__ inline Aabb empty_box() {
  const float big = 3.402823466e38f;  // FLT_MAX
  return {{big, big, big}, {-big, -big, -big}};
}

/// @brief The smallest box containing both boxes (exact: only min and max).
/// @param[in] a A box.
/// @param[in] b A box.
/// @return Their union.
__host__ __device__ inline Aabb merge(const Aabb& a, const Aabb& b) {
  return {{min_of(a.lo.x, b.lo.x), min_of(a.lo.y, b.lo.y), min_of(a.lo.z, b.lo.z)},
          {max_of(a.hi.x, b.hi.x), max_of(a.hi.y, b.hi.y), max_of(a.hi.z, b.hi.z)}};
}

/// @brief Whether two closed boxes overlap: on every axis each starts no
/// later than the other ends (touching counts).
/// @param[in] a A box.
/// @param[in] b A box.
/// @return true when they share at least one point.
__host__ __device__ inline bool overlaps(const Aabb& a, const Aabb& b) {
  return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
         b.lo.z <= a.hi.z;
}

/// @brief The centroid of a box: (lo + hi) * 0.5 on each axis, computed in
/// exactly that order (the tests compare codes bit for bit).
/// @param[in] box A box.
/// @return Its centre.
__host__ __device__ inline float3 centroid(const Aabb& box) {
  return {(box.lo.x + box.hi.x) * 0.5f, (box.lo.y + box.hi.y) * 0.5f, (box.lo.z + box.hi.z) * 0.5f};
}

/// @brief The number of leading zero bits of @p bits: __clz on the device,
/// the compiler's builtin on the host.
/// @param[in] bits 32 bits.
/// @return 0 to 32 (32 for 0).
__host__ __device__ inline int count_leading_zeros(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(bits));
#else
  return bits == 0 ? 32 : __builtin_clz(bits);
#endif
}

// ---------------------------------------------------------------------------
// Phases 1 and 2: scene box and Morton codes

/// @brief Spreads the low 10 bits of @p v so that bit k moves to bit 3k and
/// two zero bits follow each: 0b1011 becomes 0b001'000'001'001.
/// @param[in] v A value; bits above the tenth are ignored.
/// @return The expanded bits, within the low 30.
__host__ __device__ std::uint32_t expand_bits(std::uint32_t v);

/// @brief The cell, 0 .. kCellsPerAxis - 1, of coordinate @p x on an axis
/// from @p lo to @p hi: floor((x - lo) / (hi - lo) * 1024), computed in that
/// order, clamped to 0 .. 1023 (x = hi lands in cell 1023); 0 when x, lo, hi
/// or that quotient (even inf / inf) is NaN, or hi <= lo (no extent).
/// @param[in] x The coordinate.
/// @param[in] lo The scene's lowest coordinate on the axis.
/// @param[in] hi The scene's highest coordinate on the axis.
/// @return The cell.
__host__ __device__ std::uint32_t cell_of(float x, float lo, float hi);

/// @brief The 30-bit Morton code of @p box: the cells of its centroid() on
/// x, y and z in @p scene (cell_of()), each expanded by expand_bits() and
/// interleaved, x's bit highest in every group of three, then y's, then z's.
/// @param[in] box An object's box.
/// @param[in] scene The box around all objects.
/// @return The code, below 2^30.
__host__ __device__ std::uint32_t morton_code(const Aabb& box, const Aabb& scene);

/// @brief Grid-stride over @p n boxes: each block reduces its boxes to their
/// union and writes it to out[blockIdx.x]. Launched once over the objects
/// (up to kMaxReduceBlocks blocks), once with one block over the partials.
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of boxes, at least 1.
/// @param[out] out Device array of gridDim.x boxes.
__global__ void reduce_boxes(const Aabb* boxes, std::uint32_t n, Aabb* out);

/// @brief The box around n boxes, on the device: reduce_boxes() over the
/// boxes into @p partials, then one block over the partials into @p scene.
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of boxes; 0 launches nothing.
/// @param[out] partials Device array of kMaxReduceBlocks boxes.
/// @param[out] scene Device pointer to one box.
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when a launch fails.
void compute_scene_box(const Aabb* boxes, std::uint32_t n, Aabb* partials, Aabb* scene,
                       cudaStream_t stream = nullptr);

/// @brief One thread per object i: codes[i] = morton_code(boxes[i], *scene)
/// and indices[i] = i (the value the sort carries with the code).
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of objects.
/// @param[in] scene Device pointer to the scene box.
/// @param[out] codes Device array of n codes.
/// @param[out] indices Device array of n indices.
__global__ void compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene,
                                     std::uint32_t* codes, std::uint32_t* indices);

/// @brief Launches compute_morton_codes with one thread per object; checks the launch.
/// @param[in] boxes Device array of n boxes.
/// @param[in] n Number of objects; 0 launches nothing.
/// @param[in] scene Device pointer to the scene box.
/// @param[out] codes Device array of n codes.
/// @param[out] indices Device array of n indices.
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when the launch fails.
void launch_compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene, std::uint32_t* codes,
                                 std::uint32_t* indices, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Phase 3: the sort (provided: defined in lbvh_sort.cuh, which calls CUB; your
// file calls these two functions and never includes that header)

/// @brief Bytes of temporary device storage sort_pairs_by_code() needs for
/// up to @p max_n codes (CUB's size query). Provided.
/// @param[in] max_n The largest n to sort; 0 needs no storage (and no GPU).
/// @return The bytes.
/// @throws workbook::CudaError when the query fails.
std::size_t sort_temp_bytes(std::size_t max_n);

/// @brief Sorts n 30-bit codes ascending, each index moving with its code,
/// stably (equal codes keep their input order): one
/// cub::DeviceRadixSort::SortPairs over bits 0 .. 29. Provided: this call is
/// the yardstick the build is timed against.
/// @param[in] codes_in Device array of n codes (not written).
/// @param[in] indices_in Device array of n values (not written).
/// @param[out] codes_out Device array of n codes, ascending.
/// @param[out] indices_out Device array of n values, each beside its code.
/// @param[in] n Number of codes; 0 does nothing.
/// @param[in] temp Device storage of @p temp_bytes bytes.
/// @param[in] temp_bytes At least sort_temp_bytes(n).
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when the sort fails.
void sort_pairs_by_code(const std::uint32_t* codes_in, const std::uint32_t* indices_in,
                        std::uint32_t* codes_out, std::uint32_t* indices_out, std::uint32_t n, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Phase 4: the hierarchy (Karras 2012)

/// @brief The length of the longest common prefix of sorted keys i and j,
/// δ(i, j), where the key of position k is codes[k] extended by k itself
/// (so that equal codes still differ): the leading zeros of
/// codes[i] ^ codes[j] when the codes differ, else 32 plus the leading zeros
/// of i ^ j; -1 when j is outside 0 .. n - 1.
/// @param[in] codes Array of n sorted codes (host or device).
/// @param[in] n Number of codes.
/// @param[in] i A position, 0 .. n - 1.
/// @param[in] j Any position.
/// @return δ(i, j): -1, or 0 .. 64.
__host__ __device__ int common_prefix(const std::uint32_t* codes, int n, int i, int j);

/// @brief The range of sorted leaves covered by internal node @p i (Karras):
/// the direction d = +1 when δ(i, i + 1) > δ(i, i - 1), else -1 (never equal:
/// the extended keys are distinct and sorted); the range's other end
/// j lies in direction d, where every key in between shares more than
/// δ(i, i - d) bits with key i: an upper bound by doubling, then the exact
/// end by binary search.
/// @param[in] codes Array of n sorted codes (host or device).
/// @param[in] n Number of codes, at least 2.
/// @param[in] i An internal node, 0 .. n - 2.
/// @return {min(i, j), max(i, j)}; node 0 covers {0, n - 1}.
__host__ __device__ NodeRange determine_range(const std::uint32_t* codes, int n, int i);

/// @brief The split of a range: the largest position s, first <= s < last,
/// whose key shares more than δ(first, last) bits with key first (binary
/// search); the left child covers first .. s, the right s + 1 .. last.
/// @param[in] codes Array of n sorted codes (host or device).
/// @param[in] n Number of codes.
/// @param[in] range A node's range, first < last.
/// @return s.
__host__ __device__ int find_split(const std::uint32_t* codes, int n, NodeRange range);

/// @brief One thread per internal node i < n - 1: its range and split; its
/// children (leaf s is node n - 1 + s when s == first, internal node s
/// otherwise; the right child likewise with s + 1 and last), their parent
/// links, and the rightmost leaf of its range. Sets parent[0] = kNoParent.
/// @param[in] codes Device array of n sorted codes.
/// @param[in] n Number of objects.
/// @param[out] left Device array of n - 1 left children.
/// @param[out] right Device array of n - 1 right children.
/// @param[out] last Device array of n - 1: the rightmost leaf (sorted position) below each internal node.
/// @param[out] parent Device array of 2n - 1 parents.
__global__ void build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                     std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent);

/// @brief Launches build_internal_nodes with one thread per internal node;
/// for n = 1 only sets parent[0] = kNoParent. Checks the launch.
/// @param[in] codes Device array of n sorted codes.
/// @param[in] n Number of objects; 0 launches nothing.
/// @param[out] left Device array of n - 1 left children.
/// @param[out] right Device array of n - 1 right children.
/// @param[out] last Device array of n - 1 rightmost leaves.
/// @param[out] parent Device array of 2n - 1 parents.
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when the launch fails.
void launch_build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                 std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent,
                                 cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Phase 5: boxes, bottom-up

/// @brief One thread per leaf i: node_boxes[n - 1 + i] = object_boxes[objects[i]],
/// then it climbs: at each parent it increments that node's arrival counter;
/// the first thread to arrive stops, the second writes the union of the two
/// children's boxes and goes on up. The root's box is written last.
/// @param[in] object_boxes Device array of n boxes, by object index.
/// @param[in] objects Device array of n: the object of each sorted leaf.
/// @param[in] left Device array of n - 1 left children.
/// @param[in] right Device array of n - 1 right children.
/// @param[in] parent Device array of 2n - 1 parents.
/// @param[in] n Number of objects.
/// @param[in,out] arrivals Device array of n - 1 counters, all 0 at the launch.
/// @param[out] node_boxes Device array of 2n - 1 boxes.
__global__ void compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                                   const std::uint32_t* left, const std::uint32_t* right,
                                   const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                   Aabb* node_boxes);

/// @brief Sets the n - 1 counters to 0 (cudaMemsetAsync) and launches
/// compute_node_boxes with one thread per leaf; checks the launch.
/// @param[in] object_boxes Device array of n boxes.
/// @param[in] objects Device array of n objects of the sorted leaves.
/// @param[in] left Device array of n - 1 left children.
/// @param[in] right Device array of n - 1 right children.
/// @param[in] parent Device array of 2n - 1 parents.
/// @param[in] n Number of objects; 0 launches nothing.
/// @param[out] arrivals Device array of n - 1 counters (any content).
/// @param[out] node_boxes Device array of 2n - 1 boxes.
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when a call fails.
void launch_compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                               const std::uint32_t* left, const std::uint32_t* right,
                               const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                               Aabb* node_boxes, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The query: overlapping pairs

/// @brief What the query reads of a built tree: device pointers and the
/// object count, passed by value to the kernel.
struct TreeView {
  std::uint32_t n = 0;                     ///< Number of objects (leaves).
  const std::uint32_t* objects = nullptr;  ///< n: the object index of each sorted leaf.
  const std::uint32_t* left = nullptr;     ///< n - 1 left children.
  const std::uint32_t* right = nullptr;    ///< n - 1 right children.
  const std::uint32_t* last = nullptr;     ///< n - 1 rightmost leaves.
  const Aabb* boxes = nullptr;             ///< 2n - 1 node boxes (leaf n - 1 + i: object objects[i]'s box).
};

/// @brief One thread per sorted leaf i: traverses the tree from the root
/// with its own box, with a stack of kStackSize nodes in registers or local
/// memory, visiting only nodes whose box overlaps it and whose rightmost
/// leaf is after i, and reports every overlapping leaf j > i as the pair
/// {min, max} of the two objects: slot = atomicAdd(pair_count, 1), written
/// when slot < capacity. A push onto a full stack sets kStackOverflowed in
/// *status and ends that thread's query (never silently).
/// @param[in] tree The tree.
/// @param[out] pairs Device array of capacity pairs.
/// @param[in] capacity Pairs that fit in @p pairs.
/// @param[in,out] pair_count Device counter, 0 at the launch; ends as the number of pairs found.
/// @param[in,out] status Device status word, 0 at the launch.
__global__ void query_overlapping_pairs(TreeView tree, Pair* pairs, unsigned long long capacity,
                                        unsigned long long* pair_count, std::uint32_t* status);

/// @brief Sets *pair_count and *status to 0 and launches
/// query_overlapping_pairs with one thread per leaf; asynchronous. Checks the launch.
/// @param[in] tree The tree; n = 0 or 1 only zeroes the counters.
/// @param[out] pairs Device array of capacity pairs.
/// @param[in] capacity Pairs that fit in @p pairs.
/// @param[out] pair_count Device counter: the pairs found (may exceed capacity).
/// @param[out] status Device status word: kStackOverflowed when pairs are missing.
/// @param[in] stream The stream to launch on.
/// @throws workbook::CudaError when a call fails.
void launch_query_overlapping_pairs(const TreeView& tree, Pair* pairs, std::size_t capacity,
                                    unsigned long long* pair_count, std::uint32_t* status,
                                    cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// The owning object

/// @brief A linear BVH: owns every device array of the build and the query
/// for up to max_n() objects, allocated once; build() fills them, view()
/// lends them to kernels, find_overlapping_pairs() queries. Move-only.
class Lbvh {
 public:
  /// @brief Allocates everything for up to @p max_n objects.
  /// @param[in] max_n The largest n build() will be given, at most kMaxObjects.
  /// @throws std::invalid_argument when max_n is larger than kMaxObjects.
  /// @throws workbook::CudaError when an allocation fails.
  explicit Lbvh(std::size_t max_n)
      : max_n_(checked_max_n(max_n)),
        partials_(max_n > 0 ? kMaxReduceBlocks : 0),
        scene_(max_n > 0 ? 1 : 0),
        codes_(max_n),
        indices_(max_n),
        sorted_codes_(max_n),
        objects_(max_n),
        left_(internal_nodes(max_n)),
        right_(internal_nodes(max_n)),
        last_(internal_nodes(max_n)),
        parent_(all_nodes(max_n)),
        arrivals_(internal_nodes(max_n)),
        boxes_(all_nodes(max_n)),
        sort_temp_(sort_temp_bytes(max_n)),
        pair_count_(max_n > 0 ? 1 : 0),
        status_(max_n > 0 ? 1 : 0) {}

  /// @brief Builds the tree over @p n boxes: the five phases on @p stream,
  /// nothing allocated, nothing waited for. Afterwards size() is n.
  /// @param[in] boxes Device array of n boxes (not written; read again by no later call).
  /// @param[in] n Number of objects, at most max_n(); 0 makes an empty tree.
  /// @param[in] stream The stream to launch on.
  /// @throws std::invalid_argument when n is larger than max_n() or boxes is null while n > 0.
  /// @throws workbook::CudaError when a launch fails.
  void build(const Aabb* boxes, std::size_t n, cudaStream_t stream = nullptr);

  /// @brief Every overlapping pair of the built tree's objects, each once
  /// with first < second, in no particular order; waits for the query.
  /// @param[out] pairs Device array of @p capacity pairs.
  /// @param[in] capacity Pairs that fit in @p pairs.
  /// @param[in] stream The stream to launch on.
  /// @return The number of pairs found. When it is larger than @p capacity,
  ///         only @p capacity of them were written: call again with a buffer
  ///         of the returned size.
  /// @throws std::invalid_argument when pairs is null while capacity > 0.
  /// @throws std::runtime_error when a thread's traversal stack overflowed
  ///         (pairs are missing; a thread had more than kStackSize nodes
  ///         pending, as on a comb visited spine first, never on a tree
  ///         that build() makes: README, Check yourself 4).
  /// @throws workbook::CudaError when a call fails.
  std::size_t find_overlapping_pairs(Pair* pairs, std::size_t capacity, cudaStream_t stream = nullptr);

  /// @brief The largest n this object was built for.
  /// @return max_n as given at construction.
  std::size_t max_n() const noexcept { return max_n_; }

  /// @brief The number of objects of the last build().
  /// @return 0 before the first build.
  std::size_t size() const noexcept { return n_; }

  /// @brief The tree for the query kernel.
  /// @return Pointers to the arrays and size().
  TreeView view() const noexcept {
    TreeView view;
    view.n = static_cast<std::uint32_t>(n_);
    view.objects = objects_.data();
    view.left = left_.data();
    view.right = right_.data();
    view.last = last_.data();
    view.boxes = boxes_.data();
    return view;
  }

  /// @brief Device array of kMaxReduceBlocks partial boxes (phase 1).
  /// @return The device pointer.
  Aabb* partials() noexcept { return partials_.data(); }
  /// @brief Device pointer to the scene box (phase 1).
  /// @return The device pointer.
  Aabb* scene() noexcept { return scene_.data(); }
  /// @brief Device array of max_n() codes in object order (phase 2).
  /// @return The device pointer.
  std::uint32_t* codes() noexcept { return codes_.data(); }
  /// @brief Device array of max_n() object indices 0, 1, ... (phase 2: the sort's values).
  /// @return The device pointer.
  std::uint32_t* indices() noexcept { return indices_.data(); }
  /// @brief Device array of max_n() sorted codes (phase 3).
  /// @return The device pointer.
  std::uint32_t* sorted_codes() noexcept { return sorted_codes_.data(); }
  /// @brief Device array of max_n() objects of the sorted leaves (phase 3).
  /// @return The device pointer.
  std::uint32_t* objects() noexcept { return objects_.data(); }
  /// @brief Device array of max_n() - 1 left children (phase 4).
  /// @return The device pointer.
  std::uint32_t* left() noexcept { return left_.data(); }
  /// @brief Device array of max_n() - 1 right children (phase 4).
  /// @return The device pointer.
  std::uint32_t* right() noexcept { return right_.data(); }
  /// @brief Device array of max_n() - 1 rightmost leaves (phase 4).
  /// @return The device pointer.
  std::uint32_t* last() noexcept { return last_.data(); }
  /// @brief Device array of 2 max_n() - 1 parents (phase 4).
  /// @return The device pointer.
  std::uint32_t* parent() noexcept { return parent_.data(); }
  /// @brief Device array of max_n() - 1 arrival counters (phase 5).
  /// @return The device pointer.
  std::uint32_t* arrivals() noexcept { return arrivals_.data(); }
  /// @brief Device array of 2 max_n() - 1 node boxes (phase 5).
  /// @return The device pointer.
  Aabb* boxes() noexcept { return boxes_.data(); }
  /// @brief Temporary storage of the sort (phase 3).
  /// @return The device pointer.
  void* sort_temp() noexcept { return sort_temp_.data(); }
  /// @brief Bytes of sort_temp().
  /// @return sort_temp_bytes(max_n()).
  std::size_t sort_temp_size() const noexcept { return sort_temp_.size(); }
  /// @brief Device counter of the query's pairs.
  /// @return The device pointer.
  unsigned long long* pair_count() noexcept { return pair_count_.data(); }
  /// @brief Device status word of the query (kStackOverflowed).
  /// @return The device pointer.
  std::uint32_t* status() noexcept { return status_.data(); }

 private:
  static std::size_t checked_max_n(std::size_t max_n) {
    if (max_n > kMaxObjects) {
      throw std::invalid_argument("Lbvh: max_n = " + std::to_string(max_n) +
                                  ", but node indices are 32-bit: build it for at most 2^31 - 1 objects");
    }
    return max_n;
  }
  static std::size_t internal_nodes(std::size_t n) { return n > 1 ? n - 1 : 0; }
  static std::size_t all_nodes(std::size_t n) { return n > 0 ? 2 * n - 1 : 0; }

  std::size_t max_n_;
  std::size_t n_ = 0;
  workbook::DeviceBuffer<Aabb> partials_;
  workbook::DeviceBuffer<Aabb> scene_;
  workbook::DeviceBuffer<std::uint32_t> codes_;
  workbook::DeviceBuffer<std::uint32_t> indices_;
  workbook::DeviceBuffer<std::uint32_t> sorted_codes_;
  workbook::DeviceBuffer<std::uint32_t> objects_;
  workbook::DeviceBuffer<std::uint32_t> left_;
  workbook::DeviceBuffer<std::uint32_t> right_;
  workbook::DeviceBuffer<std::uint32_t> last_;
  workbook::DeviceBuffer<std::uint32_t> parent_;
  workbook::DeviceBuffer<std::uint32_t> arrivals_;
  workbook::DeviceBuffer<Aabb> boxes_;
  workbook::DeviceBuffer<unsigned char> sort_temp_;
  workbook::DeviceBuffer<unsigned long long> pair_count_;
  workbook::DeviceBuffer<std::uint32_t> status_;
};

}  // namespace lbvh
