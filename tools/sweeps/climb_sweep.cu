// Issue 39's lab 10 search: where does the build of 2^20 objects spend its
// time, and how much of the bottom-up boxes pass (compute_node_boxes) is the
// latency of its climb? Builds the tree of 2^20 uniform cubes (the speed
// test's scene) with the reference's Lbvh, times each phase and the whole
// build (median of 21 runs), then times variants of the climb on that tree
// and checks each against the reference's boxes bit for bit.
// Not part of the course: a maintainer's sweep.
//
//   nvcc -O3 -arch=native -std=c++17 -I labs/10-lbvh -I common/include -o build/climb_sweep \
//     tools/sweeps/climb_sweep.cu solutions/10-lbvh/lbvh.cu labs/10-lbvh/tests/lbvh_sort.cu \
//     common/src/cuda_check.cpp && build/climb_sweep
//
// On an NVIDIA H200 (2026-11-29), the climb of 2^20 leaves with its memset, in
// ms (two rounds agreed within 0.002 ms; three runs of the sweep within 0.004):
//   the two __threadfence() of the handout's Background      0.169
//   the same, children and grandparent read before the atomic 0.149-0.175 (varies by run)
//   one acq_rel fetch_add instead of the two fences           0.146
//   acq_rel, links read before the atomic                     0.135
//   the same, boxes in 8-byte pieces (an 8-aligned Aabb)      0.132
//   the same in blocks of 64 or 128 threads (the reference)   0.128  (32: 0.156, 512: 0.139)
//   grid-stride, a thread taking leaf after leaf              0.242  (worse: one thread's
//                                                             climbs add up, one after another)
//   leaf siblings read from the input, fewer orders           0.170  (worse: 37 registers, and
//                                                             the release waits for those loads)
//   relaxed (wrong: no order at all), a bound                 0.096
// The deepest leaf is at depth 25, so the climb is not one long chain: it is
// the three round trips per level (release, atomic, sibling's box) of many warps.
// __threadfence() compiles to MEMBAR.SC.GPU; the acq_rel atomic to
// MEMBAR.ALL.GPU + ATOM + CCTL.IVALL (cuobjdump -sass).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda/atomic>
#include <random>
#include <vector>

#include "../probes/probe_common.cuh"
#include "lbvh.cuh"

namespace {

using lbvh::Aabb;
using lbvh::kNoParent;

constexpr int kThreads = 256;

__device__ Aabb load_box_from_l2(const Aabb* box) {
  return {{__ldcg(&box->lo.x), __ldcg(&box->lo.y), __ldcg(&box->lo.z)},
          {__ldcg(&box->hi.x), __ldcg(&box->hi.y), __ldcg(&box->hi.z)}};
}

enum class Climb {
  kFences,          // the handout's Background: fence, atomicAdd, fence, then read the children
  kFencesPrefetch,  // the same fences; left, right and the next parent read before the atomic
  kAcqRel,          // one acq_rel fetch_add instead of the two fences
  kAcqRelPrefetch,  // both
  kVector,          // both, and each box moved as three 8-byte pieces instead of six floats
  kVectorRelaxed,   // kVector without the acq_rel order: NOT correct, a lower bound on the order's cost
  kLeafAware,       // kVector, and a leaf sibling's box read from the input (read-only, before the
                    // atomic), so that only boxes written in this kernel need release or acquire
};

// A box as three float2: an Aabb is 24 bytes and the arrays start 256-byte
// aligned, so every box starts 8-byte aligned. One 8-byte load per piece
// instead of two 4-byte ones halves the warp's requests to L2.
__device__ Aabb load_box_vector(const Aabb* box, bool through_l2) {
  const float2* piece = reinterpret_cast<const float2*>(box);
  const float2 a = through_l2 ? __ldcg(piece) : __ldg(piece);
  const float2 b = through_l2 ? __ldcg(piece + 1) : __ldg(piece + 1);
  const float2 c = through_l2 ? __ldcg(piece + 2) : __ldg(piece + 2);
  return {{a.x, a.y, b.x}, {b.y, c.x, c.y}};
}

__device__ void store_box_vector(Aabb* box, const Aabb& value) {
  float2* piece = reinterpret_cast<float2*>(box);
  piece[0] = make_float2(value.lo.x, value.lo.y);
  piece[1] = make_float2(value.lo.z, value.hi.x);
  piece[2] = make_float2(value.hi.y, value.hi.z);
}

template <Climb kClimb>
__device__ void climb_from_leaf(std::size_t thread, const Aabb* object_boxes, const std::uint32_t* objects,
                                const std::uint32_t* left, const std::uint32_t* right,
                                const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                Aabb* node_boxes);

// One thread per leaf, or (kGridStride) a grid that fits on the GPU at once
// whose threads take leaf after leaf: a thread that stops early at a node
// starts the next leaf instead of leaving its warp's slot idle.
template <Climb kClimb, bool kGridStride = false>
__global__ void climb(const Aabb* object_boxes, const std::uint32_t* objects, const std::uint32_t* left,
                      const std::uint32_t* right, const std::uint32_t* parent, std::uint32_t n,
                      std::uint32_t* arrivals, Aabb* node_boxes) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = kGridStride ? static_cast<std::size_t>(gridDim.x) * blockDim.x : n;
  for (std::size_t thread = first; thread < n; thread += stride)
    climb_from_leaf<kClimb>(thread, object_boxes, objects, left, right, parent, n, arrivals, node_boxes);
}

template <Climb kClimb>
__device__ void climb_from_leaf(std::size_t thread, const Aabb* object_boxes, const std::uint32_t* objects,
                                const std::uint32_t* left, const std::uint32_t* right,
                                const std::uint32_t* parent, std::uint32_t n, std::uint32_t* arrivals,
                                Aabb* node_boxes) {
  constexpr bool kVectors =
      kClimb == Climb::kVector || kClimb == Climb::kVectorRelaxed || kClimb == Climb::kLeafAware;
  const std::uint32_t leaves = n - 1;
  std::uint32_t node = n - 1 + static_cast<std::uint32_t>(thread);
  Aabb box =
      kVectors ? load_box_vector(object_boxes + objects[thread], false) : object_boxes[objects[thread]];
  if (kVectors)
    store_box_vector(node_boxes + node, box);
  else
    node_boxes[node] = box;
  std::uint32_t p = parent[node];
  while (p != kNoParent) {
    constexpr bool kPrefetch = kClimb != Climb::kFences && kClimb != Climb::kAcqRel;
    std::uint32_t l = 0, r = 0, next = 0;
    if (kPrefetch) {  // written by an earlier kernel: safe to read before the atomic
      l = __ldg(&left[p]);
      r = __ldg(&right[p]);
      next = __ldg(&parent[p]);
    }
    if (kClimb == Climb::kLeafAware) {
      using cuda::memory_order;
      const std::uint32_t sibling = l == node ? r : l;
      const bool box_written_here = node < leaves, sibling_written_here = sibling < leaves;
      Aabb other{};
      if (!sibling_written_here) other = load_box_vector(object_boxes + objects[sibling - leaves], false);
      const memory_order order =
          box_written_here ? (sibling_written_here ? cuda::memory_order_acq_rel : cuda::memory_order_release)
                           : (sibling_written_here ? cuda::memory_order_acquire : cuda::memory_order_relaxed);
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> arrived(arrivals[p]);
      if (arrived.fetch_add(1u, order) == 0) return;
      if (sibling_written_here) other = load_box_vector(node_boxes + sibling, true);
      box = lbvh::merge(box, other);
      store_box_vector(node_boxes + p, box);
      node = p;
      p = next;
      continue;
    }
    if (kClimb == Climb::kFences || kClimb == Climb::kFencesPrefetch) {
      __threadfence();
      if (atomicAdd(&arrivals[p], 1u) == 0) return;
      __threadfence();
    } else if (kClimb == Climb::kVectorRelaxed) {
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> arrived(arrivals[p]);
      if (arrived.fetch_add(1u, cuda::memory_order_relaxed) == 0) return;
    } else {
      cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> arrived(arrivals[p]);
      if (arrived.fetch_add(1u, cuda::memory_order_acq_rel) == 0) return;
    }
    if (!kPrefetch) {
      l = left[p];
      r = right[p];
    }
    const std::uint32_t sibling = l == node ? r : l;
    if (kVectors) {
      box = lbvh::merge(box, load_box_vector(node_boxes + sibling, true));
      store_box_vector(node_boxes + p, box);
    } else {
      box = lbvh::merge(box, load_box_from_l2(node_boxes + sibling));
      node_boxes[p] = box;
    }
    node = p;
    p = kPrefetch ? next : parent[p];
  }
}

std::vector<Aabb> uniform_cubes(std::size_t n) {
  std::mt19937 rng(20261129);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const float half = static_cast<float>(std::cbrt(8.0 / static_cast<double>(n)) / 4.0);
  std::vector<Aabb> boxes(n);
  for (Aabb& b : boxes) {
    const float x = unit(rng), y = unit(rng), z = unit(rng);
    b = {{x - half, y - half, z - half}, {x + half, y + half, z + half}};
  }
  return boxes;
}

std::vector<Aabb> download(const Aabb* device, std::size_t count) {
  std::vector<Aabb> host(count);
  PROBE_CHECK(cudaMemcpy(host.data(), device, count * sizeof(Aabb), cudaMemcpyDeviceToHost));
  return host;
}

// The depth of the deepest leaf: the longest chain of dependent steps a climb can take.
int deepest_leaf(lbvh::Lbvh& bvh, std::uint32_t n) {
  std::vector<std::uint32_t> parent(2 * n - 1);
  PROBE_CHECK(cudaMemcpy(parent.data(), bvh.parent(), parent.size() * 4, cudaMemcpyDeviceToHost));
  int deepest = 0;
  for (std::uint32_t leaf = n - 1; leaf < 2 * n - 1; ++leaf) {
    int depth = 0;
    for (std::uint32_t v = leaf; parent[v] != kNoParent; v = parent[v]) ++depth;
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

template <Climb kClimb, bool kGridStride = false, int kThreads = kThreads>
void time_climb(const char* name, lbvh::Lbvh& bvh, const Aabb* boxes, std::uint32_t n, float reference_ms,
                const std::vector<Aabb>& want) {
  int blocks_per_sm = 0;
  PROBE_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, climb<kClimb, kGridStride>, kThreads, 0));
  int sms = 0;
  PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned blocks = kGridStride ? blocks_per_sm * sms : (n + kThreads - 1) / kThreads;
  auto call = [&] {
    PROBE_CHECK(cudaMemsetAsync(bvh.arrivals(), 0, (n - 1) * sizeof(std::uint32_t)));
    climb<kClimb, kGridStride><<<blocks, kThreads>>>(boxes, bvh.objects(), bvh.left(), bvh.right(),
                                                     bvh.parent(), n, bvh.arrivals(), bvh.boxes());
  };
  const float ms = median_ms(call, 21);
  const std::vector<Aabb> got = download(bvh.boxes(), 2 * n - 1);
  const bool same = std::memcmp(got.data(), want.data(), want.size() * sizeof(Aabb)) == 0;
  cudaFuncAttributes attributes;
  PROBE_CHECK(cudaFuncGetAttributes(&attributes, climb<kClimb, kGridStride>));
  std::printf("  %-44s %.4f ms  (%.2f of the lab's)  %2d registers, %2d blocks of %3d/SM  %s\n", name, ms,
              ms / reference_ms, attributes.numRegs, blocks_per_sm, kThreads,
              same ? "same boxes" : "WRONG BOXES");
}

}  // namespace

int main() {
  const std::uint32_t n = 1u << 20;
  cudaDeviceProp prop;
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::vector<Aabb> host = uniform_cubes(n);
  Aabb* boxes = nullptr;
  PROBE_CHECK(cudaMalloc(&boxes, n * sizeof(Aabb)));
  PROBE_CHECK(cudaMemcpy(boxes, host.data(), n * sizeof(Aabb), cudaMemcpyHostToDevice));
  lbvh::Lbvh bvh(n);

  // The build, whole and by phase, each phase timed alone on the arrays the previous one left.
  const float build_ms = median_ms([&] { bvh.build(boxes, n); });
  const float scene_ms = median_ms([&] { lbvh::compute_scene_box(boxes, n, bvh.partials(), bvh.scene()); });
  const float codes_ms = median_ms(
      [&] { lbvh::launch_compute_morton_codes(boxes, n, bvh.scene(), bvh.codes(), bvh.indices()); });
  const float sort_ms = median_ms([&] {
    lbvh::sort_pairs_by_code(bvh.codes(), bvh.indices(), bvh.sorted_codes(), bvh.objects(), n,
                             bvh.sort_temp(), bvh.sort_temp_size());
  });
  const float nodes_ms = median_ms([&] {
    lbvh::launch_build_internal_nodes(bvh.sorted_codes(), n, bvh.left(), bvh.right(), bvh.last(),
                                      bvh.parent());
  });
  const float boxes_ms = median_ms([&] {
    lbvh::launch_compute_node_boxes(boxes, bvh.objects(), bvh.left(), bvh.right(), bvh.parent(), n,
                                    bvh.arrivals(), bvh.boxes());
  });
  PROBE_CHECK(cudaDeviceSynchronize());
  const std::vector<Aabb> want = download(bvh.boxes(), 2 * n - 1);
  std::printf("%s: build of 2^20 uniform cubes %.4f ms = %.2f sorts; deepest leaf at depth %d\n", prop.name,
              build_ms, build_ms / sort_ms, deepest_leaf(bvh, n));
  std::printf("  scene box %.4f, codes %.4f, sort %.4f, internal nodes %.4f, boxes (with memset) %.4f ms\n",
              scene_ms, codes_ms, sort_ms, nodes_ms, boxes_ms);
  for (int round = 0; round < 2; ++round) {
    time_climb<Climb::kFences>("fences (the Background's order)", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kFencesPrefetch>("fences, children read before the atomic", bvh, boxes, n, boxes_ms,
                                       want);
    time_climb<Climb::kAcqRel>("acq_rel fetch_add", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kAcqRelPrefetch>("acq_rel fetch_add, children read before", bvh, boxes, n, boxes_ms,
                                       want);
    time_climb<Climb::kVector>("the same, boxes moved in 8-byte pieces", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kVector, false, 32>("the same, blocks of 32 threads", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kVector, false, 64>("the same, blocks of 64 threads", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kVector, false, 128>("the same, blocks of 128 threads", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kVector, false, 512>("the same, blocks of 512 threads", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kVector, true>("the same, grid-stride over the leaves", bvh, boxes, n, boxes_ms, want);
    time_climb<Climb::kAcqRelPrefetch, true>("acq_rel, children first, grid-stride", bvh, boxes, n, boxes_ms,
                                             want);
    time_climb<Climb::kLeafAware>("the same, leaf siblings read from the input", bvh, boxes, n, boxes_ms,
                                  want);
    time_climb<Climb::kVectorRelaxed>("the same, relaxed (wrong order: a bound)", bvh, boxes, n, boxes_ms,
                                      want);
  }
  PROBE_CHECK(cudaFree(boxes));
  return 0;
}
