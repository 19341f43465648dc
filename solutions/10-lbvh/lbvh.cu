// SOLUTION-ONLY: Lab 10 reference solution. labs/10-lbvh/lbvh.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 10: linear BVH. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade lbvh
// STUDENT-ONLY: The handout is labs/10-lbvh/README.md. The sort is written for you
// STUDENT-ONLY: (sort_pairs_by_code(), declared in lbvh.cuh, defined in lbvh_sort.cuh):
// STUDENT-ONLY: call it, and do not include lbvh_sort.cuh, CUB or Thrust here: the
// STUDENT-ONLY: grader refuses a file that does.
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

// WALKTHROUGH: morton
__host__ __device__ std::uint32_t expand_bits(std::uint32_t v) {
  // HOLE: Return the low 10 bits of v spread out so that bit k lands at bit 3k, two zero bits after
  // HOLE: each (0b11 -> 0b1001); the bits of v above the tenth are ignored. No loop over the bits.
  // STUB: return 0;
  v &= 0x3FFu;
  v = (v | (v << 16)) & 0x030000FFu;  // bits 8-9 to 24-25; 0-7 stay
  v = (v | (v << 8)) & 0x0300F00Fu;   // groups of 4 bits, 12 apart
  v = (v | (v << 4)) & 0x030C30C3u;   // groups of 2 bits, 6 apart
  v = (v | (v << 2)) & 0x09249249u;   // single bits, 3 apart
  return v;
  // END HOLE
}

__host__ __device__ std::uint32_t cell_of(float x, float lo, float hi) {
  // HOLE: Return the cell, 0 .. kCellsPerAxis - 1, of x on the axis from lo to hi, by the formula of
  // HOLE: lbvh.cuh in exactly its order of operations (the tests compare bit for bit). An axis without
  // HOLE: extent, or a NaN, gives cell 0; never convert a float outside the uint32 range (undefined).
  // STUB: return 0;
  if (!(hi > lo)) return 0;
  const float t = (x - lo) / (hi - lo) * static_cast<float>(kCellsPerAxis);
  if (!(t > 0.0f)) return 0;
  if (t >= static_cast<float>(kCellsPerAxis - 1)) return kCellsPerAxis - 1;
  return static_cast<std::uint32_t>(t);
  // END HOLE
}

__host__ __device__ std::uint32_t morton_code(const Aabb& box, const Aabb& scene) {
  // HOLE: Return the 30-bit Morton code of the box's centroid() within `scene`: its cell_of() on each
  // HOLE: axis, spread by expand_bits() and interleaved, x's bits highest in each triple, z's lowest.
  // STUB: return 0;
  const float3 c = centroid(box);
  const std::uint32_t x = expand_bits(cell_of(c.x, scene.lo.x, scene.hi.x));
  const std::uint32_t y = expand_bits(cell_of(c.y, scene.lo.y, scene.hi.y));
  const std::uint32_t z = expand_bits(cell_of(c.z, scene.lo.z, scene.hi.z));
  return (x << 2) | (y << 1) | z;
  // END HOLE
}
// END WALKTHROUGH: morton

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

// WALKTHROUGH: scene-box
__global__ void reduce_boxes(const Aabb* boxes, std::uint32_t n, Aabb* out) {
  // HOLE: One thread writes out[blockIdx.x] = the union (merge()) of this block's share of boxes[0, n);
  // HOLE: for any grid size the shares cover every box once. Use warp_union() and a __shared__ array of
  // HOLE: kWarpsPerBlock boxes; a lane with no box holds empty_box(); all threads reach the barrier.
  Aabb box = empty_box();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = global_thread(); i < n; i += stride) box = merge(box, boxes[i]);

  __shared__ Aabb warp_boxes[kWarpsPerBlock];
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  box = warp_union(box);
  if (lane == 0) warp_boxes[warp] = box;
  __syncthreads();
  if (warp == 0) {
    box = warp_union(lane < kWarpsPerBlock ? warp_boxes[lane] : empty_box());
    if (lane == 0) out[blockIdx.x] = box;
  }
  // END HOLE
}

void compute_scene_box(const Aabb* boxes, std::uint32_t n, Aabb* partials, Aabb* scene, cudaStream_t stream) {
  if (n == 0) return;
  // HOLE: Leave the union of boxes[0, n) in *scene, on `stream`, with reduce_boxes in blocks of
  // HOLE: kThreadsPerBlock threads: a first pass of at most kMaxReduceBlocks blocks into `partials` (it
  // HOLE: holds that many), then a pass over those into `scene`. CUDA_CHECK_LAUNCH after every launch.
  const unsigned blocks = blocks_for(n) < kMaxReduceBlocks ? blocks_for(n) : kMaxReduceBlocks;
  reduce_boxes<<<blocks, kThreadsPerBlock, 0, stream>>>(boxes, n, partials);
  CUDA_CHECK_LAUNCH("reduce_boxes (objects)");
  reduce_boxes<<<1, kThreadsPerBlock, 0, stream>>>(partials, blocks, scene);
  CUDA_CHECK_LAUNCH("reduce_boxes (partials)");
  // END HOLE
}
// END WALKTHROUGH: scene-box

// WALKTHROUGH: codes-kernel
__global__ void compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene,
                                     std::uint32_t* codes, std::uint32_t* indices) {
  // HOLE: For every object i < n: codes[i] = the morton_code() of boxes[i] within *scene, and
  // HOLE: indices[i] = i (the value the sort carries). No thread writes past n.
  const std::size_t i = global_thread();
  if (i >= n) return;
  codes[i] = morton_code(boxes[i], *scene);
  indices[i] = static_cast<std::uint32_t>(i);
  // END HOLE
}
// END WALKTHROUGH: codes-kernel

void launch_compute_morton_codes(const Aabb* boxes, std::uint32_t n, const Aabb* scene, std::uint32_t* codes,
                                 std::uint32_t* indices, cudaStream_t stream) {
  if (n == 0) return;
  compute_morton_codes<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(boxes, n, scene, codes, indices);
  CUDA_CHECK_LAUNCH("compute_morton_codes");
}

// ---------------------------------------------------------------------------
// Phase 3: the sort, and the whole build (sort_pairs_by_code() is provided in
// lbvh_sort.cuh; its declaration in lbvh.cuh is all this file sees)

// WALKTHROUGH: build
void Lbvh::build(const Aabb* boxes, std::size_t n, cudaStream_t stream) {
  if (n > max_n_) {
    throw std::invalid_argument("Lbvh::build: n = " + std::to_string(n) +
                                " objects, but this Lbvh was made for at most " + std::to_string(max_n_) +
                                "; construct it with a larger max_n");
  }
  check_pointer(boxes, n, "Lbvh::build", "boxes", "n");
  n_ = n;
  if (n == 0) return;
  // HOLE: Build the tree over boxes[0, n) on `stream`: afterwards objects(), left(), right(), last(),
  // HOLE: parent() and boxes() hold it. Use this file's launch functions and sort_pairs_by_code() (with
  // HOLE: sort_temp()), all on this Lbvh's arrays: nothing allocated, nothing waited for. The kernels
  // HOLE: take n as std::uint32_t (n <= kMaxObjects fits).
  const auto count = static_cast<std::uint32_t>(n);
  compute_scene_box(boxes, count, partials(), scene(), stream);
  launch_compute_morton_codes(boxes, count, scene(), codes(), indices(), stream);
  sort_pairs_by_code(codes(), indices(), sorted_codes(), objects(), count, sort_temp(), sort_temp_size(),
                     stream);
  launch_build_internal_nodes(sorted_codes(), count, left(), right(), last(), parent(), stream);
  launch_compute_node_boxes(boxes, objects(), left(), right(), parent(), count, arrivals(), this->boxes(),
                            stream);
  // END HOLE
}
// END WALKTHROUGH: build

// ---------------------------------------------------------------------------
// Phase 4: the hierarchy (Karras 2012). Positions are int: n < 2^31.

// WALKTHROUGH: delta
__host__ __device__ int common_prefix(const std::uint32_t* codes, int n, int i, int j) {
  // HOLE: Return δ(i, j) as lbvh.cuh defines it: the leading bits that keys i and j share, the key of a
  // HOLE: position being its code followed by the position itself (so equal codes still differ); -1
  // HOLE: when j is outside 0 .. n - 1. Use count_leading_zeros() (host and device).
  // STUB: return -1;
  if (j < 0 || j >= n) return -1;
  const std::uint32_t a = codes[i];
  const std::uint32_t b = codes[j];
  if (a != b) return count_leading_zeros(a ^ b);
  return 32 + count_leading_zeros(static_cast<std::uint32_t>(i ^ j));
  // END HOLE
}
// END WALKTHROUGH: delta

namespace {

// δ(i, j) for a j computed in 64 bits: i + l * d may leave the int range
// while the search doubles l, and is then simply outside the array.
[[maybe_unused]] __host__ __device__ int common_prefix_at(const std::uint32_t* codes, int n, int i,
                                                          long long j) {
  if (j < 0 || j >= n) return -1;
  return common_prefix(codes, n, i, static_cast<int>(j));
}

}  // namespace

// WALKTHROUGH: range
__host__ __device__ NodeRange determine_range(const std::uint32_t* codes, int n, int i) {
  // HOLE: Return the range {first, last} of sorted leaves below internal node i, as lbvh.cuh defines
  // HOLE: it; i is one end. Find the other end with O(log n) evaluations of δ, not a scan. Positions
  // HOLE: tried on the way can pass 2^31 for large n: no int overflow (common_prefix_at() helps).
  // STUB: return {i, i};
  const int d = common_prefix(codes, n, i, i + 1) > common_prefix(codes, n, i, i - 1) ? 1 : -1;
  const int delta_min = common_prefix(codes, n, i, i - d);
  long long l_max = 2;
  while (common_prefix_at(codes, n, i, i + l_max * d) > delta_min) l_max *= 2;
  long long l = 0;
  for (long long t = l_max / 2; t >= 1; t /= 2) {
    if (common_prefix_at(codes, n, i, i + (l + t) * d) > delta_min) l += t;
  }
  const int j = static_cast<int>(i + l * d);
  return d > 0 ? NodeRange{i, j} : NodeRange{j, i};
  // END HOLE
}
// END WALKTHROUGH: range

// WALKTHROUGH: split
__host__ __device__ int find_split(const std::uint32_t* codes, int n, NodeRange range) {
  // HOLE: Return the split of `range` as lbvh.cuh defines it: the largest s, first <= s < last, whose
  // HOLE: key shares more than δ(first, last) bits with key first, in O(log n) evaluations of δ: a
  // HOLE: binary search whose step is halved and rounded up, so that it can reach every position.
  // STUB: return range.first;
  const int delta_node = common_prefix(codes, n, range.first, range.last);
  int split = range.first;
  int step = range.last - range.first;
  do {
    step = (step + 1) >> 1;
    const int candidate = split + step;
    if (candidate < range.last && common_prefix(codes, n, range.first, candidate) > delta_node)
      split = candidate;
  } while (step > 1);
  return split;
  // END HOLE
}
// END WALKTHROUGH: split

// WALKTHROUGH: internal-nodes
__global__ void build_internal_nodes(const std::uint32_t* codes, std::uint32_t n, std::uint32_t* left,
                                     std::uint32_t* right, std::uint32_t* last, std::uint32_t* parent) {
  // HOLE: For every internal node i < n - 1, one thread each, from its determine_range() and
  // HOLE: find_split(): left[i] and right[i] (node numbers as lbvh.cuh gives them: a child of one
  // HOLE: position is a leaf), last[i] = the range's last leaf, and parent[] = i for both children;
  // HOLE: parent[0] = kNoParent.
  const std::size_t thread = global_thread();
  if (thread + 1 >= n) return;
  const int i = static_cast<int>(thread);
  const int count = static_cast<int>(n);
  const NodeRange range = determine_range(codes, count, i);
  const int split = find_split(codes, count, range);
  const std::uint32_t leaves = n - 1;  // leaf k is node leaves + k
  const std::uint32_t left_child = split == range.first ? leaves + split : split;
  const std::uint32_t right_child = split + 1 == range.last ? leaves + split + 1 : split + 1;
  left[i] = left_child;
  right[i] = right_child;
  last[i] = static_cast<std::uint32_t>(range.last);
  parent[left_child] = i;
  parent[right_child] = i;
  if (i == 0) parent[0] = kNoParent;
  // END HOLE
}
// END WALKTHROUGH: internal-nodes

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

// WALKTHROUGH: climb
__global__ void compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                                   const std::uint32_t* left, const std::uint32_t* right,
                                   const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                   Aabb* node_boxes) {
  // HOLE: Fill node_boxes[] bottom-up, one thread per leaf: leaf node n - 1 + i gets the box of object
  // HOLE: objects[i], each internal node the merge() of its children's boxes, written by the second of
  // HOLE: the two threads to arrive there (counted in arrivals[]); the first stops, no thread waits.
  // HOLE: A box another thread wrote is read only once it is visible (the handout's Background,
  // HOLE: "Boxes bottom-up").
  const std::size_t thread = global_thread();
  if (thread >= n) return;
  const auto i = static_cast<std::uint32_t>(thread);
  std::uint32_t node = n - 1 + i;
  Aabb box = object_boxes[objects[i]];
  node_boxes[node] = box;
  std::uint32_t p = parent[node];
  while (p != kNoParent) {
    // The tree's links were written by an earlier kernel and are only read
    // here: load them now, so that they arrive while the atomic is in flight.
    const std::uint32_t left_child = left[p];
    const std::uint32_t right_child = right[p];
    const std::uint32_t grandparent = parent[p];
    // The two fences of the Background in one instruction: acq_rel orders
    // our box write before the increment (release) and the sibling's box
    // write before our read (acquire). nvcc makes __threadfence() a
    // sequentially consistent MEMBAR.SC, and this a lighter MEMBAR.ALL; with
    // the loads above, the climb takes 0.80 of the time of the two fences
    // (tools/sweeps/climb_sweep.cu, H200).
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> arrived(arrivals[p]);
    if (arrived.fetch_add(1u, cuda::memory_order_acq_rel) == 0) return;  // first: the sibling finishes p
    const std::uint32_t sibling = left_child == node ? right_child : left_child;
    box = merge(box, load_box_from_l2(node_boxes + sibling));
    node_boxes[p] = box;
    node = p;
    p = grandparent;
  }
  // END HOLE
}
// END WALKTHROUGH: climb

void launch_compute_node_boxes(const Aabb* object_boxes, const std::uint32_t* objects,
                               const std::uint32_t* left, const std::uint32_t* right,
                               const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                               Aabb* node_boxes, cudaStream_t stream) {
  if (n == 0) return;
  // HOLE: Launch compute_node_boxes on `stream`, one thread per leaf, with its n - 1 arrival counters
  // HOLE: at 0 on every call (a previous build left them non-zero; for n = 1 there are none). CUDA_CHECK
  // HOLE: each call and CUDA_CHECK_LAUNCH the launch.
  if (n > 1) CUDA_CHECK(cudaMemsetAsync(arrivals, 0, (n - 1) * sizeof(std::uint32_t), stream));
  const auto blocks = static_cast<unsigned>((n + kClimbThreadsPerBlock - 1) / kClimbThreadsPerBlock);
  compute_node_boxes<<<blocks, kClimbThreadsPerBlock, 0, stream>>>(object_boxes, objects, left, right, parent,
                                                                   n, arrivals, node_boxes);
  CUDA_CHECK_LAUNCH("compute_node_boxes");
  // END HOLE
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

// WALKTHROUGH: query
__global__ void query_overlapping_pairs(TreeView tree, Pair* pairs, unsigned long long capacity,
                                        unsigned long long* pair_count, std::uint32_t* status) {
  // HOLE: For every sorted leaf i < n (n >= 2 here), one thread: every pair of leaf i with an
  // HOLE: overlapping leaf j > i reported exactly once, with report_pair(); subtrees that hold no leaf
  // HOLE: after i are not visited (last_leaf_of()). With two internal children to visit, push the right
  // HOLE: one and go left (the StackOverflow tests accept any fixed order). A stack of kStackSize
  // HOLE: nodes per thread: when it is full, set kStackOverflowed in *status atomically and stop (pairs
  // HOLE: are never lost silently).
  const std::size_t thread = global_thread();
  if (thread >= tree.n) return;
  const auto i = static_cast<std::uint32_t>(thread);
  const std::uint32_t leaves = tree.n - 1;
  const Aabb query = tree.boxes[leaves + i];
  const std::uint32_t self = tree.objects[i];

  std::uint32_t stack[kStackSize];
  int top = 0;
  std::uint32_t node = 0;
  while (true) {
    const std::uint32_t children[2] = {tree.left[node], tree.right[node]};
    bool visit[2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const std::uint32_t c = children[k];
      visit[k] = last_leaf_of(tree, c) > i && overlaps(query, tree.boxes[c]);
      if (visit[k] && c >= leaves) {
        report_pair(self, tree.objects[c - leaves], pairs, capacity, pair_count);
        visit[k] = false;
      }
    }
    if (visit[0] && visit[1]) {
      if (top == kStackSize) {
        atomicOr(status, kStackOverflowed);
        return;
      }
      stack[top++] = children[1];
      node = children[0];
    } else if (visit[0] || visit[1]) {
      node = visit[0] ? children[0] : children[1];
    } else if (top > 0) {
      node = stack[--top];
    } else {
      return;
    }
  }
  // END HOLE
}
// END WALKTHROUGH: query

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

// WALKTHROUGH: find-pairs
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
// END WALKTHROUGH: find-pairs

}  // namespace lbvh
