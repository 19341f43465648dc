// Lab 10: linear BVH. This is your file: fill in each TODO, then run
//   ./workbook grade lbvh
// The handout is labs/10-lbvh/README.md. The sort is written for you
// (sort_pairs_by_code(), declared in lbvh.cuh, defined in lbvh_sort.cuh):
// call it, and do not include lbvh_sort.cuh, CUB or Thrust here: the
// grader refuses a file that does.
#include <cuda/atomic>
#include <stdexcept>
#include <string>

#include "lbvh.cuh"
#include "workbook/cuda_check.hpp"

namespace lbvh {

namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xFFFFFFFFu;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks are whole warps");
static_assert(kWarpsPerBlock <= kWarpSize, "one warp merges the boxes of all the block's warps");

unsigned blocks_for(std::size_t threads) {
  return static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

[[maybe_unused]] __device__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

void check_pointer(const void* pointer, std::size_t n, const char* caller, const char* name,
                   const char* what) {
  if (n > 0 && pointer == nullptr) {
    throw std::invalid_argument(std::string(caller) + ": " + name + " is nullptr but " + what + " = " +
                                std::to_string(n) + "; pass a device array of that many elements");
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Phases 1 and 2: scene box and Morton codes

__host__ __device__ std::uint32_t expand_bits(std::uint32_t v) {
  // TODO(1): Return the low 10 bits of v spread out so that bit k lands at bit 3k, two zero bits after
  //          each (0b11 -> 0b1001); the bits of v above the tenth are ignored. No loop over the bits.
  return 0;
}

__host__ __device__ std::uint32_t cell_of(float x, float lo, float hi) {
  // TODO(2): Return the cell, 0 .. kCellsPerAxis - 1, of x on the axis from lo to hi, by the formula of
  //          lbvh.cuh in exactly its order of operations (the tests compare bit for bit). An axis without
  //          extent, or a NaN, gives cell 0; never convert a float outside the uint32 range (undefined).
  return 0;
}

__host__ __device__ std::uint32_t morton_code(const Aabb& box, const Aabb& scene) {
  // TODO(3): Return the 30-bit Morton code of the box's centroid() within `scene`: its cell_of() on each
  //          axis, spread by expand_bits() and interleaved, x's bits highest in each triple, z's lowest.
  return 0;
}

namespace {

// The union of this lane's box and the box of the lane `offset` above it.
[[maybe_unused]] __device__ Aabb merge_with_lane_below(const Aabb& box, int offset) {
  Aabb other;
  other.lo.x = __shfl_down_sync(kFullMask, box.lo.x, offset);
  other.lo.y = __shfl_down_sync(kFullMask, box.lo.y, offset);
  other.lo.z = __shfl_down_sync(kFullMask, box.lo.z, offset);
  other.hi.x = __shfl_down_sync(kFullMask, box.hi.x, offset);
  other.hi.y = __shfl_down_sync(kFullMask, box.hi.y, offset);
  other.hi.z = __shfl_down_sync(kFullMask, box.hi.z, offset);
  return merge(box, other);
}

// Lane 0 ends with the union of the warp's 32 boxes (the other lanes with
// partial unions): the shuffle tree of lab 04, with merge() for +.
[[maybe_unused]] __device__ Aabb warp_union(Aabb box) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) box = merge_with_lane_below(box, offset);
  return box;
}

}  // namespace

__global__ void reduce_boxes(const Aabb* boxes, std::uint32_t n, Aabb* out) {
  // TODO(4): One thread writes out[blockIdx.x] = the union (merge()) of this block's share of boxes[0, n);
  //          for any grid size the shares cover every box once. Use warp_union() and a __shared__ array of
  //          kWarpsPerBlock boxes; a lane with no box holds empty_box(); all threads reach the barrier.
}

void compute_scene_box(const Aabb* boxes, std::uint32_t n, Aabb* partials, Aabb* scene, cudaStream_t stream) {
  if (n == 0) return;
  // TODO(5): Leave the union of boxes[0, n) in *scene, on `stream`, with reduce_boxes in blocks of
  //          kThreadsPerBlock threads: a first pass of at most kMaxReduceBlocks blocks into `partials` (it
  //          holds that many), then a pass over those into `scene`. CUDA_CHECK_LAUNCH after every launch.
}

__global__ void compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene,
                                     std::uint32_t* codes, std::uint32_t* indices) {
  // TODO(6): For every object i < n: codes[i] = the morton_code() of boxes[i] within *scene, and
  //          indices[i] = i (the value the sort carries). No thread writes past n.
}

void launch_compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene, std::uint32_t* codes,
                                 std::uint32_t* indices, cudaStream_t stream) {
  if (n == 0) return;
  compute_morton_codes<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(boxes, n, scene, codes, indices);
  CUDA_CHECK_LAUNCH("compute_morton_codes");
}

// ---------------------------------------------------------------------------
// Phase 3: the sort, and the whole build (sort_pairs_by_code() is provided in
// lbvh_sort.cuh; its declaration in lbvh.cuh is all this file sees)

void Lbvh::build(const Aabb* boxes, std::size_t n, cudaStream_t stream) {
  if (n > max_n_) {
    throw std::invalid_argument("Lbvh::build: n = " + std::to_string(n) +
                                " objects, but this Lbvh was made for at most " + std::to_string(max_n_) +
                                "; construct it with a larger max_n");
  }
  check_pointer(boxes, n, "Lbvh::build", "boxes", "n");
  n_ = n;
  if (n == 0) return;
  // TODO(7): Build the tree over boxes[0, n) on `stream`: afterwards objects(), left(), right(), last(),
  //          parent() and boxes() hold it. Use this file's launch functions and sort_pairs_by_code() (with
  //          sort_temp()), all on this Lbvh's arrays: nothing allocated, nothing waited for. The kernels
  //          take n as std::uint32_t (n <= kMaxObjects fits).
}

// ---------------------------------------------------------------------------
// Phase 4: the hierarchy (Karras 2012). Positions are int: n < 2^31.

__host__ __device__ int common_prefix(const std::uint32_t* codes, int n, int i, int j) {
  // TODO(8): Return δ(i, j) as lbvh.cuh defines it: the leading bits that keys i and j share, the key of a
  //          position being its code followed by the position itself (so equal codes still differ); -1
  //          when j is outside 0 .. n - 1. Use count_leading_zeros() (host and device).
  return -1;
}

namespace {

// δ(i, j) for a j computed in 64 bits: i + l * d may leave the int range
// while the search doubles l, and is then simply outside the array.
[[maybe_unused]] __host__ __device__ int common_prefix_at(const std::uint32_t* codes, int n, int i,
                                                          long long j) {
  if (j < 0 || j >= n) return -1;
  return common_prefix(codes, n, i, static_cast<int>(j));
}

}  // namespace

__host__ __device__ NodeRange determine_range(const std::uint32_t* codes, int n, int i) {
  // TODO(9): Return the range {first, last} of sorted leaves below internal node i, as lbvh.cuh defines
  //          it; i is one end. Find the other end with O(log n) evaluations of δ, not a scan. Positions
  //          tried on the way can pass 2^31 for large n: no int overflow (common_prefix_at() helps).
  return {i, i};
}

__host__ __device__ int find_split(const std::uint32_t* codes, int n, NodeRange range) {
  // TODO(10): Return the split of `range` as lbvh.cuh defines it: the largest s, first <= s < last, whose
  //           key shares more than δ(first, last) bits with key first, in O(log n) evaluations of δ: a
  //           binary search whose step is halved and rounded up, so that it can reach every position.
  return range.first;
}

__global__ void build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                     std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent) {
  // TODO(11): For every internal node i < n - 1, one thread each, from its determine_range() and
  //           find_split(): left[i] and right[i] (node numbers as lbvh.cuh gives them: a child of one
  //           position is a leaf), last[i] = the range's last leaf, and parent[] = i for both children;
  //           parent[0] = kNoParent.
}

void launch_build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                 std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent,
                                 cudaStream_t stream) {
  if (n == 0) return;
  if (n == 1) {  // no internal node: the root is leaf 0, node 0
    CUDA_CHECK(cudaMemsetAsync(parent, 0xFF, sizeof(std::uint32_t), stream));
    return;
  }
  build_internal_nodes<<<blocks_for(n - 1), kThreadsPerBlock, 0, stream>>>(codes, n, left, right, last,
                                                                           parent);
  CUDA_CHECK_LAUNCH("build_internal_nodes");
}

// ---------------------------------------------------------------------------
// Phase 5: boxes, bottom-up

namespace {

// A box another thread wrote during this kernel. ld.global.cg reads it from
// L2, where every SM's stores meet: the SM's own L1 is not kept coherent with
// other SMs' writes and could hold an old copy of the line. An Aabb is 8-byte
// aligned, so the box comes as three 8-byte loads rather than six 4-byte ones.
[[maybe_unused]] __device__ Aabb load_box_from_l2(const Aabb* box) {
  const auto* pieces = reinterpret_cast<const float2*>(box);
  const float2 a = __ldcg(pieces);
  const float2 b = __ldcg(pieces + 1);
  const float2 c = __ldcg(pieces + 2);
  return {{a.x, a.y, b.x}, {b.y, c.x, c.y}};
}

// Threads per block of compute_node_boxes. A block keeps its SM slot until
// its slowest climber is done; smaller blocks hand slots back sooner
// (blocks of 32 to 512 timed in figures/climb-sweep.txt).
[[maybe_unused]] constexpr int kClimbThreadsPerBlock = 128;

}  // namespace

__global__ void compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                                   const std::uint32_t* left, const std::uint32_t* right,
                                   const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                   Aabb* node_boxes) {
  // TODO(12): Fill node_boxes[] bottom-up, one thread per leaf: leaf node n - 1 + i gets the box of object
  //           objects[i], each internal node the merge() of its children's boxes, written by the second of
  //           the two threads to arrive there (counted in arrivals[]); the first stops, no thread waits.
  //           A box another thread wrote is read only once it is visible (the handout's Background,
  //           "Boxes bottom-up").
}

void launch_compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                               const std::uint32_t* left, const std::uint32_t* right,
                               const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                               Aabb* node_boxes, cudaStream_t stream) {
  if (n == 0) return;
  // TODO(13): Launch compute_node_boxes on `stream`, one thread per leaf, with its n - 1 arrival counters
  //           at 0 on every call (a previous build left them non-zero; for n = 1 there are none). CUDA_CHECK
  //           each call and CUDA_CHECK_LAUNCH the launch.
}

// ---------------------------------------------------------------------------
// The query: overlapping pairs

namespace {

// The rightmost sorted leaf below node c: a leaf is its own.
[[maybe_unused]] __device__ std::uint32_t last_leaf_of(const TreeView& tree, std::uint32_t c) {
  return c >= tree.n - 1 ? c - (tree.n - 1) : tree.last[c];
}

[[maybe_unused]] __device__ void report_pair(std::uint32_t a, std::uint32_t b, Pair* pairs,
                                             unsigned long long capacity, unsigned long long* pair_count) {
  // One atomic per pair on one counter: nvcc aggregates the lanes of a warp
  // that report at the same time into one atomic (see lab 05).
  const unsigned long long slot = atomicAdd(pair_count, 1ull);
  if (slot < capacity) pairs[slot] = a < b ? Pair{a, b} : Pair{b, a};
}

}  // namespace

__global__ void query_overlapping_pairs(TreeView tree, Pair* pairs, unsigned long long capacity,
                                        unsigned long long* pair_count, std::uint32_t* status) {
  // TODO(14): For every sorted leaf i < n (n >= 2 here), one thread: every pair of leaf i with an
  //           overlapping leaf j > i reported exactly once, with report_pair(); subtrees that hold no leaf
  //           after i are not visited (last_leaf_of()). With two internal children to visit, push the right
  //           one and go left (the StackOverflow tests accept any fixed order). A stack of kStackSize
  //           nodes per thread: when it is full, set kStackOverflowed in *status atomically and stop (pairs
  //           are never lost silently).
}

void launch_query_overlapping_pairs(const TreeView& tree, Pair* pairs, std::size_t capacity,
                                    unsigned long long* pair_count, std::uint32_t* status,
                                    cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(pair_count, 0, sizeof(unsigned long long), stream));
  CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(std::uint32_t), stream));
  if (tree.n < 2) return;  // one object or none: no pairs
  query_overlapping_pairs<<<blocks_for(tree.n), kThreadsPerBlock, 0, stream>>>(tree, pairs, capacity,
                                                                               pair_count, status);
  CUDA_CHECK_LAUNCH("query_overlapping_pairs");
}

std::size_t Lbvh::find_overlapping_pairs(Pair* pairs, std::size_t capacity, cudaStream_t stream) {
  check_pointer(pairs, capacity, "Lbvh::find_overlapping_pairs", "pairs", "capacity");
  if (max_n_ == 0) return 0;  // nothing allocated, nothing to find
  launch_query_overlapping_pairs(view(), pairs, capacity, pair_count(), status(), stream);
  unsigned long long found = 0;
  std::uint32_t flags = 0;
  CUDA_CHECK(cudaMemcpyAsync(&found, pair_count(), sizeof found, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(&flags, status(), sizeof flags, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if ((flags & kStackOverflowed) != 0) {
    throw std::runtime_error("Lbvh::find_overlapping_pairs: a traversal stack of " +
                             std::to_string(kStackSize) +
                             " entries overflowed, so pairs are missing: the tree is deeper than any build() "
                             "makes (check the hierarchy), or raise kStackSize in lbvh.cuh");
  }
  return static_cast<std::size_t>(found);
}

}  // namespace lbvh
