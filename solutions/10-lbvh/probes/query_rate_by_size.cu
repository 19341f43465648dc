// Lab 10's Then and now tests Karras's rule (a GTX 480 "requires at least
// 15,000 threads to reach full performance"), scaled to the H200 by resident
// threads, 176000, with the query's one thread an object; the experiment runs
// only 2^16, 2^18, 2^20 and 2^22 objects, so one size sits below the scaled
// rule (and 406000, scaled by peak bandwidth, between 2^18 and 2^20). This probe times
// query_overlapping_pairs and the uniform grid of tests/grid_yardstick.cuh on the experiment's scenes at
// sizes around it (2^16, 2^17, 3 x 2^16, 2^18, 3 x 2^17, 2^19, 2^20, 2^22), as the experiment does
// (workbook::time_gpu, cold L2, time budget 2 s), and prints each rate over its 2^22 rate. It links the
// reference solution, so it lives beside the solutions and is not shipped.
//
//   WORKBOOK_BUILD_TARGET="lab10_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/10-lbvh -Icommon/include \
//     -o build/probes/query_rate_by_size solutions/10-lbvh/probes/query_rate_by_size.cu \
//     build/default/liblab10_solution.a build/default/common/libworkbook_common.a
//   build/probes/query_rate_by_size
#include <cstdio>
#include <functional>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_sort.cuh"  // defines the provided sort that Lbvh::build calls, as the experiment does
#include "tests/grid_yardstick.cuh"
#include "tests/lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr double kNeighbours = 8.0;  // the experiment's scene: about 8 neighbours an object

struct Rates {
  double query_mpairs_per_s;
  double grid_mpairs_per_s;
};

workbook::TimingResult time_it(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return workbook::time_gpu(work, options);
}

Rates rates_at(std::size_t n) {
  const std::vector<lbvh::Aabb> boxes = lbvh::reference::uniform_cubes(n, kNeighbours, 2024 + n);
  const workbook::DeviceBuffer<lbvh::Aabb> in = workbook::to_device(boxes);
  lbvh::Lbvh bvh(n);
  bvh.build(in.data(), n);
  const std::size_t capacity = static_cast<std::size_t>(kNeighbours) * n;
  workbook::DeviceBuffer<lbvh::Pair> pairs(capacity), grid_pairs(capacity);
  const lbvh::TreeView view = bvh.view();
  const workbook::TimingResult query = time_it([&](cudaStream_t s) {
    lbvh::launch_query_overlapping_pairs(view, pairs.data(), capacity, bvh.pair_count(), bvh.status(), s);
  });
  const std::size_t found = bvh.find_overlapping_pairs(pairs.data(), capacity);
  lbvh::yardstick::UniformGrid grid(boxes);
  const workbook::TimingResult grid_timing =
      time_it([&](cudaStream_t s) { grid.query(grid_pairs.data(), capacity, s); });
  const std::size_t grid_found = grid.pairs_found();
  if (found != grid_found)
    std::printf("  (n = %zu: the query found %zu pairs, the grid %zu)\n", n, found, grid_found);
  std::printf("  %8zu objects  query %8.3f ms  grid %8.3f ms  %10zu pairs\n", n, query.median_ms,
              grid_timing.median_ms, found);
  return {static_cast<double>(found) / query.median_ms / 1.0e3,
          static_cast<double>(grid_found) / grid_timing.median_ms / 1.0e3};
}

}  // namespace

int main() {
  const std::vector<std::size_t> sizes = {
      std::size_t{1} << 16,       std::size_t{1} << 17, 3 * (std::size_t{1} << 16), std::size_t{1} << 18,
      3 * (std::size_t{1} << 17), std::size_t{1} << 19, std::size_t{1} << 20,       std::size_t{1} << 22};
  std::printf("lab 10 probe: the query's and the grid's rates by size, over their 2^22 rates\n");
  std::vector<Rates> rates;
  for (const std::size_t n : sizes) rates.push_back(rates_at(n));
  const Rates top = rates.back();
  std::printf("  objects    query Mpairs/s  / 2^22    grid Mpairs/s  / 2^22\n");
  for (std::size_t k = 0; k < sizes.size(); ++k)
    std::printf("  %8zu   %12.1f  %6.3f   %12.1f  %6.3f\n", sizes[k], rates[k].query_mpairs_per_s,
                rates[k].query_mpairs_per_s / top.query_mpairs_per_s, rates[k].grid_mpairs_per_s,
                rates[k].grid_mpairs_per_s / top.grid_mpairs_per_s);
  return 0;
}
