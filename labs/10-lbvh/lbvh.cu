// Lab 10: linear BVH. This is your file: fill in each TODO, then run
//   ./workbook grade lbvh
// The handout is labs/10-lbvh/README.md. The sort is written for you
// (sort_pairs_by_code() in lbvh.cuh): call it, and do not include
// lbvh_sort.cuh, CUB or Thrust here: the grader refuses a file that does.
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
// Part 1: scene box and Morton codes

__host__ __device__ std::uint32_t expand_bits(std::uint32_t v) {
  // TODO(1): Keep the low 10 bits, then move them apart in four steps, each a shift, an OR
  //          and a mask that keeps every bit in its new place (bits 8-9 up 16, then groups of
  //          4, 2 and 1 bits), so that bit k ends at bit 3k. Check one value by hand: 0b11 -> 0b1001.
  return 0;
}

__host__ __device__ std::uint32_t cell_of(float x, float lo, float hi) {
  // TODO(2): 0 when !(hi > lo) (an axis without extent). Else t = (x - lo) / (hi - lo) * 1024,
  //          in that order (the tests compute it the same way, bit for bit); 0 when !(t > 0)
  //          (also catches NaN), 1023 when t >= 1023, else t truncated to an integer. Clamp
  //          before converting: a float too large for uint32 is undefined behaviour.
  return 0;
}

__host__ __device__ std::uint32_t morton_code(const Aabb& box, const Aabb& scene) {
  // TODO(3): The centroid() of the box; its cell_of() on each axis within the scene's extent;
  //          the three cells expanded and interleaved, x's bits highest (shifted by 2), y's by 1.
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
  // TODO(4): Lab 04's reduction with merge() for + and empty_box() for 0:
  //          1. grid-stride over the n boxes, each thread merging its boxes into one;
  //          2. the warp's union by __shfl_down_sync (all six floats), lane 0 writes it to a
  //             __shared__ array of kThreadsPerBlock / 32 boxes; barrier;
  //          3. warp 0 merges those boxes the same way; thread 0 writes out[blockIdx.x].
}

void compute_scene_box(const Aabb* boxes, std::uint32_t n, Aabb* partials, Aabb* scene, cudaStream_t stream) {
  if (n == 0) return;
  // TODO(5): Two launches of reduce_boxes with kThreadsPerBlock threads: the first over the n
  //          boxes with min(blocks for n threads, kMaxReduceBlocks) blocks into `partials`, the
  //          second with one block over those partials into `scene`. Check each launch.
}

__global__ void compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene,
                                     std::uint32_t* codes, std::uint32_t* indices) {
  // TODO(6): One thread per object i < n: codes[i] = morton_code(boxes[i], *scene), indices[i] = i.
}

void launch_compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene, std::uint32_t* codes,
                                 std::uint32_t* indices, cudaStream_t stream) {
  if (n == 0) return;
  compute_morton_codes<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(boxes, n, scene, codes, indices);
  CUDA_CHECK_LAUNCH("compute_morton_codes");
}

// ---------------------------------------------------------------------------
// Part 2: the sort, and the whole build (sort_pairs_by_code() is provided in
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
  // TODO(7): The five phases on `stream`, in order, on this object's arrays:
  //          1. compute_scene_box() into partials() and scene();
  //          2. launch_compute_morton_codes() into codes() and indices();
  //          3. sort_pairs_by_code(): codes() and indices() into sorted_codes() and objects(),
  //             with sort_temp() and sort_temp_size();
  //          4. launch_build_internal_nodes() from sorted_codes();
  //          5. launch_compute_node_boxes() from `boxes` and objects() into boxes().
  //          The kernels take n as std::uint32_t: n <= kMaxObjects fits.
}

// ---------------------------------------------------------------------------
// Part 3: the hierarchy (Karras 2012). Positions are int: n < 2^31.

__host__ __device__ int common_prefix(const std::uint32_t* codes, int n, int i, int j) {
  // TODO(8): -1 when j < 0 or j >= n. Else, with a = codes[i] and b = codes[j]: the leading
  //          zeros of a ^ b when a != b (count_leading_zeros()); when a == b the key goes on with
  //          the position itself: 32 + the leading zeros of i ^ j.
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
  // TODO(9): 1. d = +1 when δ(i, i + 1) > δ(i, i - 1), else -1: the range grows towards the
  //             neighbour that shares more bits with key i.
  //          2. delta_min = δ(i, i - d): every key of the range shares more than that with key i.
  //          3. An upper bound: l_max = 2, doubled while δ(i, i + l_max * d) > delta_min.
  //          4. The exact length by binary search: l = 0; for t = l_max / 2, l_max / 4, ..., 1:
  //             when δ(i, i + (l + t) * d) > delta_min, l += t. The other end is j = i + l * d.
  //          Compute i + l * d in 64 bits (long long): doubling can pass 2^31 for large n.
  //          Return {min(i, j), max(i, j)}.
  return {i, i};
}

__host__ __device__ int find_split(const std::uint32_t* codes, int n, NodeRange range) {
  // TODO(10): delta_node = δ(first, last). Binary search for the largest s in first .. last - 1
  //          with δ(first, s) > delta_node: s = first, step = last - first; repeat
  //          { step = (step + 1) / 2; when s + step < last and δ(first, s + step) > delta_node,
  //          s += step } while step > 1.
  return range.first;
}

__global__ void build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                     std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent) {
  // TODO(11): One thread per internal node i < n - 1: range = determine_range(), s = find_split().
  //          The left child is leaf s (node n - 1 + s) when s == range.first, else internal node s;
  //          the right child is leaf s + 1 when s + 1 == range.last, else internal node s + 1.
  //          Write left[i], right[i], last[i] = range.last, and parent[child] = i for both
  //          children; thread 0 also writes parent[0] = kNoParent (the root has none).
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
// Part 4: boxes, bottom-up

namespace {

// A box another thread wrote during this kernel. ld.global.cg reads it from
// L2, where every SM's stores meet: the SM's own L1 is not kept coherent with
// other SMs' writes and could hold an old copy of the line.
[[maybe_unused]] __device__ Aabb load_box_from_l2(const Aabb* box) {
  return {{__ldcg(&box->lo.x), __ldcg(&box->lo.y), __ldcg(&box->lo.z)},
          {__ldcg(&box->hi.x), __ldcg(&box->hi.y), __ldcg(&box->hi.z)}};
}

}  // namespace

__global__ void compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                                   const std::uint32_t* left, const std::uint32_t* right,
                                   const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                   Aabb* node_boxes) {
  // TODO(12): One thread per leaf i < n, node = n - 1 + i: box = object_boxes[objects[i]], written
  //          to node_boxes[node]. Then climb while parent[node] != kNoParent:
  //          1. __threadfence(): this thread's box write is visible to every other thread before
  //             the counter below says so;
  //          2. atomicAdd(&arrivals[p], 1) returns 0 for the first thread at p: its sibling's
  //             box may not exist yet, so it stops (return);
  //          3. the second thread: __threadfence() again, the sibling (the child of p that is not
  //             `node`) box read from L2 (load_box_from_l2(): L1 may hold a stale copy), box =
  //             merge(box, sibling's), written to node_boxes[p]; node = p, and on up.
}

void launch_compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                               const std::uint32_t* left, const std::uint32_t* right,
                               const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                               Aabb* node_boxes, cudaStream_t stream) {
  if (n == 0) return;
  // TODO(13): Zero the n - 1 arrival counters with cudaMemsetAsync on `stream` (every build: the
  //          previous build left them at 2; none for n = 1), then launch compute_node_boxes with
  //          one thread per leaf. Check both.
}

// ---------------------------------------------------------------------------
// Part 5: overlapping pairs

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
  // TODO(14): One thread per sorted leaf i < n (n >= 2 here); query = the leaf's box
  //          tree.boxes[n - 1 + i], self = tree.objects[i]; a stack of kStackSize node indices;
  //          node = 0, the root. Loop:
  //          1. for each child c of node (tree.left, tree.right): skip it when its rightmost leaf
  //             (c - (n - 1) for a leaf, tree.last[c] otherwise) is <= i (those pairs belong to an
  //             earlier leaf's query) or its box does not overlap the query; a leaf that remains
  //             is a pair: slot = atomicAdd(pair_count, 1ull), write {min, max} of self and
  //             tree.objects[c - (n - 1)] when slot < capacity; an internal node is to visit;
  //          2. both to visit: push the right one and go to the left one; on a full stack
  //             atomicOr(status, kStackOverflowed) and return (never lose pairs silently);
  //             one to visit: go there; none: pop the next node, or stop when the stack is empty.
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
