// Lab 10 experiment: what does each phase of the build cost next to one
// sort, and how fast is the query next to a uniform grid?
//   ./workbook bench lbvh
// For n = 2^16, 2^18, 2^20 and 2^22 cubes at uniform random centres in the
// unit cube, sized so that each overlaps about 8 others (side (8/n)^(1/3) / 2):
//   1. the build, phase by phase (scene box, codes, sort, hierarchy, boxes),
//      each timed alone, and the whole Lbvh::build; the sort is one
//      cub::DeviceRadixSort::SortPairs (the provided phase 2), the yardstick:
//      "sorts" is the build's time in sorts, the rubric's ratio its inverse;
//   2. the query: query_overlapping_pairs and the uniform grid of
//      tests/grid_yardstick.cuh on the same scene, the pairs each found and
//      the rate in pairs per second.
// Every timing is workbook::time_gpu (cold L2, median of repeated samples).
// The query's pairs are checked against the grid's (the same count and, up
// to 2^20, the same set).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_sort.cuh"
#include "tests/grid_yardstick.cuh"
#include "tests/lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

using lbvh::Aabb;
using lbvh::Pair;
using workbook::DeviceBuffer;

constexpr double kNeighbours = 8.0;

double measure(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return workbook::time_gpu(work, options).median_ms;
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

std::vector<std::uint64_t> sorted_keys(const DeviceBuffer<Pair>& pairs, std::size_t count) {
  std::vector<Pair> host = pairs.to_host();
  host.resize(count);
  std::vector<std::uint64_t> keys(count);
  for (std::size_t i = 0; i < count; ++i) keys[i] = lbvh::reference::pair_key(host[i].first, host[i].second);
  std::sort(keys.begin(), keys.end());
  return keys;
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
  const double sort_ms = measure([&](cudaStream_t s) {
    lbvh::sort_pairs_by_code(bvh.codes(), bvh.indices(), bvh.sorted_codes(), bvh.objects(), count,
                             bvh.sort_temp(), bvh.sort_temp_size(), s);
  });
  const double hierarchy_ms = measure([&](cudaStream_t s) {
    lbvh::launch_build_internal_nodes(bvh.sorted_codes(), count, bvh.left(), bvh.right(), bvh.last(),
                                      bvh.parent(), s);
  });
  const double boxes_ms = measure([&](cudaStream_t s) {
    lbvh::launch_compute_node_boxes(in.data(), bvh.objects(), bvh.left(), bvh.right(), bvh.parent(), count,
                                    bvh.arrivals(), bvh.boxes(), s);
  });
  const double build_ms = measure([&](cudaStream_t s) { bvh.build(in.data(), n, s); });

  // The query and the grid.
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * n;
  DeviceBuffer<Pair> pairs(capacity), grid_pairs(capacity);
  const lbvh::TreeView view = bvh.view();
  const double query_ms = measure([&](cudaStream_t s) {
    lbvh::launch_query_overlapping_pairs(view, pairs.data(), capacity, bvh.pair_count(), bvh.status(), s);
  });
  const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), capacity);
  lbvh::yardstick::UniformGrid grid(boxes);
  const double grid_ms = measure([&](cudaStream_t s) { grid.query(grid_pairs.data(), capacity, s); });
  const std::size_t grid_found = grid.pairs_found();
  bool same = found == grid_found && found <= capacity;
  if (same && n <= (std::size_t{1} << 20))
    same = sorted_keys(pairs, found) == sorted_keys(grid_pairs, grid_found);

  std::printf("  %-6s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f   %9.3f %9.3f %10zu %9.1f %9.1f   %s\n",
              power_text(n).c_str(), scene_ms, codes_ms, sort_ms, hierarchy_ms, boxes_ms, build_ms,
              build_ms / sort_ms, query_ms, grid_ms, found, static_cast<double>(found) / query_ms / 1.0e3,
              static_cast<double>(grid_found) / grid_ms / 1.0e3,
              same ? "ok" : "PAIRS DIFFER FROM THE GRID'S");
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    std::printf("GPU: %s\n", workbook::describe(workbook::current_device_info()).c_str());
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
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "experiment failed: %s\n", error.what());
    return 1;
  }
}
