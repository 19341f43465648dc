// Lab 10 experiment: what does each phase of the build cost next to one
// sort, and how fast is the query next to a uniform grid?
//   ./workbook bench lbvh
// For n = 2^16, 2^18, 2^20 and 2^22 cubes at uniform random centres in the
// unit cube, sized so that each overlaps about 8 others (side (8/n)^(1/3) / 2):
//   1. the build, phase by phase (scene box, codes, sort, hierarchy, boxes),
//      each timed alone, and the whole Lbvh::build; the sort is one
//      cub::DeviceRadixSort::SortPairs (the provided phase 3), the yardstick:
//      "sorts" is the build's time in sorts, the rubric's ratio its inverse;
//   2. the query: query_overlapping_pairs and the uniform grid of
//      tests/grid_yardstick.cuh on the same scene, the pairs each found and
//      the rate in pairs per second;
//   3. two naive versions, to show where the rubric's targets sit: boxes
//      folded top-down (one thread per internal node reads every leaf below
//      it, so the root's thread alone reads all n) and the query by brute
//      force (every object tests every later one, no tree).
// Every timing is workbook::time_gpu (cold L2, median of repeated samples).
// The query's pairs are checked against the grid's (the same count and, up
// to 2^20, the same set).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_sort.cuh"
#include "tests/grid_yardstick.cuh"
#include "tests/lbvh_reference.hpp"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

using lbvh::Aabb;
using lbvh::Pair;
using workbook::DeviceBuffer;

constexpr double kNeighbours = 8.0;

workbook::TimingResult time_it(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return workbook::time_gpu(work, options);
}

double measure(const std::function<void(cudaStream_t)>& work) {
  return time_it(work).median_ms;
}

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const char* implementation, std::size_t n,
            const workbook::TimingResult& timing, double work, const char* unit) {
  workbook::record("10-lbvh", {table, implementation, n, timing, work / timing.median_ms / 1.0e3, unit});
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

// Naive boxes: thread i writes leaf i's box and folds every leaf below
// internal node i (its leftmost leaf found by walking left children). Correct
// and simple, but the root's thread reads all n boxes one after another, so
// the build waits for one thread's O(n) loop instead of O(log n) climbs.
__global__ void fold_node_boxes_top_down(const Aabb* object_boxes, const std::uint32_t* objects,
                                         const std::uint32_t* left, const std::uint32_t* last,
                                         std::uint32_t n, Aabb* node_boxes) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  node_boxes[n - 1 + i] = object_boxes[objects[i]];
  if (i + 1 >= n) return;  // n - 1 internal nodes
  std::uint32_t leftmost = i;
  while (leftmost < n - 1) leftmost = left[leftmost];
  Aabb box = lbvh::empty_box();
  for (std::uint32_t leaf = leftmost - (n - 1); leaf <= last[i]; ++leaf)
    box = lbvh::merge(box, object_boxes[objects[leaf]]);
  node_boxes[i] = box;
}

// Naive query: object i tests every object j > i, n^2 / 2 tests, no tree.
__global__ void brute_force_pairs(const Aabb* boxes, std::uint32_t n, Pair* pairs,
                                  unsigned long long capacity, unsigned long long* count) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Aabb mine = boxes[i];
  for (std::uint32_t j = i + 1; j < n; ++j) {
    if (!lbvh::overlaps(mine, boxes[j])) continue;
    const unsigned long long slot = atomicAdd(count, 1ull);
    if (slot < capacity) pairs[slot] = Pair{i, j};
  }
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>((n + 255) / 256);
}

std::vector<std::uint64_t> sorted_keys(const DeviceBuffer<Pair>& pairs, std::size_t count) {
  std::vector<Pair> host = pairs.to_host();
  host.resize(count);
  std::vector<std::uint64_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) keys[i] = lbvh::reference::pair_key(host[i].first, host[i].second);
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<Aabb> bvh_boxes(lbvh::Lbvh& bvh, std::size_t n) {
  std::vector<Aabb> host(2 * n - 1);
  CUDA_CHECK(cudaMemcpy(host.data(), bvh.boxes(), host.size() * sizeof(Aabb), cudaMemcpyDeviceToHost));
  return host;
}

bool same_bytes(const std::vector<Aabb>& a, const std::vector<Aabb>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Aabb)) == 0;
}

void run(std::size_t n) {
  const std::vector<Aabb> boxes = lbvh::reference::uniform_cubes(n, kNeighbours, 2024 + n);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  lbvh::Lbvh bvh(n);
  const auto count = static_cast<std::uint32_t>(n);
  bvh.build(in.data(), n);  // every array filled once, so each phase can be timed alone

  // Phase by phase, each on the previous phase's output.
  const double scene_ms = measure(
      [&](cudaStream_t s) { lbvh::compute_scene_box(in.data(), count, bvh.partials(), bvh.scene(), s); });
  const double codes_ms = measure([&](cudaStream_t s) {
    lbvh::launch_compute_morton_codes(in.data(), count, bvh.scene(), bvh.codes(), bvh.indices(), s);
  });
  const workbook::TimingResult sort = time_it([&](cudaStream_t s) {
    lbvh::sort_pairs_by_code(bvh.codes(), bvh.indices(), bvh.sorted_codes(), bvh.objects(), count,
                             bvh.sort_temp(), bvh.sort_temp_size(), s);
  });
  const double sort_ms = sort.median_ms;
  const double hierarchy_ms = measure([&](cudaStream_t s) {
    lbvh::launch_build_internal_nodes(bvh.sorted_codes(), count, bvh.left(), bvh.right(), bvh.last(),
                                      bvh.parent(), s);
  });
  const double boxes_ms = measure([&](cudaStream_t s) {
    lbvh::launch_compute_node_boxes(in.data(), bvh.objects(), bvh.left(), bvh.right(), bvh.parent(), count,
                                    bvh.arrivals(), bvh.boxes(), s);
  });
  const workbook::TimingResult build = time_it([&](cudaStream_t s) { bvh.build(in.data(), n, s); });
  const double build_ms = build.median_ms;

  // The query and the grid.
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * n;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  const lbvh::TreeView view = bvh.view();
  const workbook::TimingResult query = time_it([&](cudaStream_t s) {
    lbvh::launch_query_overlapping_pairs(view, pairs.data(), capacity, bvh.pair_count(), bvh.status(), s);
  });
  const double query_ms = query.median_ms;
  const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), capacity);
  lbvh::yardstick::UniformGrid grid(boxes);
  const workbook::TimingResult grid_timing =
      time_it([&](cudaStream_t s) { grid.query(grid_pairs.data(), capacity, s); });
  const double grid_ms = grid_timing.median_ms;
  const std::size_t grid_found = grid.pairs_found();
  bool same = found == grid_found && found <= capacity;
  if (same && n <= (std::size_t{1} << 20))
    same = sorted_keys(pairs, found) == sorted_keys(grid_pairs, grid_found);

  std::printf("  %-6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f   %9.3f %9.3f %10zu %9.1f %9.1f   %s\n",
              power_text(n).c_str(), scene_ms, codes_ms, sort_ms, hierarchy_ms, boxes_ms, build_ms,
              build_ms / sort_ms, query_ms, grid_ms, found, static_cast<double>(found) / query_ms / 1.0e3,
              static_cast<double>(grid_found) / grid_ms / 1.0e3,
              same ? "ok" : "PAIRS DIFFER FROM THE GRID'S");
  const auto objects = static_cast<double>(n);
  record("build", "Lbvh::build", n, build, objects / 1.0e3, "Gobjects/s");
  record("build", "one cub::DeviceRadixSort::SortPairs (the yardstick)", n, sort, objects / 1.0e3,
         "Gobjects/s");
  record("query", "query_overlapping_pairs", n, query, static_cast<double>(found), "Mpairs/s");
  record("query", "uniform grid (the yardstick)", n, grid_timing, static_cast<double>(grid_found),
         "Mpairs/s");
}

// Table 3: the naive versions against the same yardsticks. The rubric's ratios
// are sort / build and query rate / grid rate.
void run_naive(std::size_t n) {
  const std::vector<Aabb> boxes = lbvh::reference::uniform_cubes(n, kNeighbours, 2024 + n);
  const DeviceBuffer<Aabb> in = workbook::to_device(boxes);
  lbvh::Lbvh bvh(n);
  const auto count = static_cast<std::uint32_t>(n);
  bvh.build(in.data(), n);
  const std::vector<Aabb> want_boxes = bvh_boxes(bvh, n);
  const double sort_ms = measure([&](cudaStream_t s) {
    lbvh::sort_pairs_by_code(bvh.codes(), bvh.indices(), bvh.sorted_codes(), bvh.objects(), count,
                             bvh.sort_temp(), bvh.sort_temp_size(), s);
  });
  const double naive_build_ms = measure([&](cudaStream_t s) {
    lbvh::compute_scene_box(in.data(), count, bvh.partials(), bvh.scene(), s);
    lbvh::launch_compute_morton_codes(in.data(), count, bvh.scene(), bvh.codes(), bvh.indices(), s);
    lbvh::sort_pairs_by_code(bvh.codes(), bvh.indices(), bvh.sorted_codes(), bvh.objects(), count,
                             bvh.sort_temp(), bvh.sort_temp_size(), s);
    lbvh::launch_build_internal_nodes(bvh.sorted_codes(), count, bvh.left(), bvh.right(), bvh.last(),
                                      bvh.parent(), s);
    fold_node_boxes_top_down<<<blocks_for(n), 256, 0, s>>>(in.data(), bvh.objects(), bvh.left(), bvh.last(),
                                                           count, bvh.boxes());
    CUDA_CHECK_LAUNCH("fold_node_boxes_top_down");
  });
  const bool boxes_same = same_bytes(bvh_boxes(bvh, n), want_boxes);
  std::printf("  %-44s %-6s %10.3f   sort / build = %6.3f   %s\n", "build, boxes folded top-down",
              power_text(n).c_str(), naive_build_ms, sort_ms / naive_build_ms,
              boxes_same ? "ok" : "BOXES DIFFER FROM THE BOTTOM-UP BUILD'S");

  if (n > (std::size_t{1} << 18)) return;  // n^2 / 2 tests: 2^20 would take seconds per run
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * n;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  DeviceBuffer<unsigned long long> found(1);
  const double brute_ms = measure([&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(found.data(), 0, sizeof(unsigned long long), s));
    brute_force_pairs<<<blocks_for(n), 256, 0, s>>>(in.data(), count, pairs.data(), capacity, found.data());
    CUDA_CHECK_LAUNCH("brute_force_pairs");
  });
  const std::size_t brute_found = static_cast<std::size_t>(found.to_host()[0]);
  lbvh::yardstick::UniformGrid grid(boxes);
  const double grid_ms = measure([&](cudaStream_t s) { grid.query(grid_pairs.data(), capacity, s); });
  const std::size_t grid_found = grid.pairs_found();
  const bool same = brute_found == grid_found && brute_found <= capacity &&
                    sorted_keys(pairs, brute_found) == sorted_keys(grid_pairs, grid_found);
  std::printf("  %-44s %-6s %10.3f   rate / grid  = %6.3f   %s\n", "query by brute force (n^2 / 2 tests)",
              power_text(n).c_str(), brute_ms,
              (static_cast<double>(brute_found) / brute_ms) / (static_cast<double>(grid_found) / grid_ms),
              same ? "ok" : "PAIRS DIFFER FROM THE GRID'S");
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    std::printf("GPU: %s\n", workbook::describe(workbook::current_device_info()).c_str());
    // The bandwidth this lab's speed of light is computed from (the handout's "Speed of light").
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    std::printf(
        "Cubes at uniform random centres in the unit cube, about %.0f neighbours each. Times in ms (cold "
        "L2,\n"
        "median). sort = one cub::DeviceRadixSort::SortPairs of the 30-bit codes (the yardstick of the "
        "build);\n"
        "sorts = build / sort; grid = the uniform-grid yardstick of the query. Mpairs/s = pairs / time.\n\n",
        kNeighbours);
    std::printf("  %-6s %9s %9s %9s %9s %9s %9s %7s   %9s %9s %10s %9s %9s   %s\n", "n", "scene", "codes",
                "sort", "hierarchy", "boxes", "build", "sorts", "query", "grid", "pairs", "Mpairs/s", "grid",
                "check");
    for (const int log : {16, 18, 20, 22}) run(std::size_t{1} << log);
    std::printf(
        "\nNaive versions, each against the same yardstick as the rubric (its targets: sort / build >= "
        "0.2,\nquery rate / grid rate >= 0.5). Times in ms.\n");
    for (const int log : {16, 18, 20}) run_naive(std::size_t{1} << log);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "experiment failed: %s\n", error.what());
    return 1;
  }
}
