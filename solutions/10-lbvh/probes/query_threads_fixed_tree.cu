// Lab 10's Then and now tests Karras's rule of thumb (a GTX 480 "requires at
// least 15,000 threads to reach full performance") against the query's rate by
// size. query_rate_by_size.cu grows the scene with the threads (one query an
// object), so each row also changes the tree: its depth and whether it fits
// the L2. This probe keeps one tree, the experiment's scene of 2^22 objects,
// and launches only the first k of its queries (sorted leaves 0 to k - 1, one
// thread each), so only the number of threads changes. It prints queries per
// microsecond for each k and that rate over the rate of all 2^22 queries.
//
// The queries are the reference solution's query_overlapping_pairs, launched
// here directly with k threads (the reference's launcher always launches one a
// leaf); the counters are zeroed in the timed work, as the launcher does.
// Timer: workbook::time_gpu, cold L2, the experiment's 2 s budget; medians.
//
// Links the reference solution, so it lives beside the solutions; from the
// repository root:
//   WORKBOOK_BUILD_TARGET="lab10_solution" ./workbook build
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/10-lbvh -Icommon/include \
//     -o build/probes/query_threads_fixed_tree solutions/10-lbvh/probes/query_threads_fixed_tree.cu \
//     build/default/liblab10_solution.a build/default/common/libworkbook_common.a
//   build/probes/query_threads_fixed_tree
#include <cstdio>
#include <functional>
#include <vector>

#include "lbvh.cuh"
#include "lbvh_sort.cuh"  // defines the provided sort that Lbvh::build calls, as the experiment does
#include "tests/lbvh_reference.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr double kNeighbours = 8.0;  // the experiment's scene: about 8 neighbours an object
constexpr unsigned kThreads = 256;

double median_ms(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return workbook::time_gpu(work, options).median_ms;
}

}  // namespace

int main() {
  const std::size_t n = std::size_t{1} << 22;
  const std::vector<lbvh::Aabb> boxes = lbvh::reference::uniform_cubes(n, kNeighbours, 2024 + n);
  const workbook::DeviceBuffer<lbvh::Aabb> in = workbook::to_device(boxes);
  lbvh::Lbvh bvh(n);
  bvh.build(in.data(), n);
  const lbvh::TreeView view = bvh.view();
  const std::size_t capacity = static_cast<std::size_t>(2 * kNeighbours) * n;
  workbook::DeviceBuffer<lbvh::Pair> pairs(capacity);
  unsigned long long* pair_count = bvh.pair_count();
  std::uint32_t* status = bvh.status();

  const std::vector<std::size_t> threads = {std::size_t{1} << 14,
                                            std::size_t{1} << 15,
                                            std::size_t{1} << 16,
                                            std::size_t{1} << 17,
                                            3 * (std::size_t{1} << 16),
                                            std::size_t{1} << 18,
                                            3 * (std::size_t{1} << 17),
                                            std::size_t{1} << 19,
                                            std::size_t{1} << 20,
                                            std::size_t{1} << 21,
                                            n};
  std::printf(
      "lab 10 probe: one tree of %zu objects, the first k of its queries; workbook::time_gpu, cold L2\n", n);
  std::vector<double> rates;
  std::vector<double> times;
  for (const std::size_t k : threads) {
    const unsigned blocks = static_cast<unsigned>((k + kThreads - 1) / kThreads);
    const auto run = [&](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(pair_count, 0, sizeof(unsigned long long), s));
      CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(std::uint32_t), s));
      lbvh::query_overlapping_pairs<<<blocks, kThreads, 0, s>>>(view, pairs.data(), capacity, pair_count,
                                                                status);
      CUDA_CHECK_LAUNCH("query_overlapping_pairs");
    };
    const double ms = median_ms(run);
    unsigned long long found = 0;
    std::uint32_t flags = 0;
    CUDA_CHECK(cudaMemcpy(&found, pair_count, sizeof(found), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&flags, status, sizeof(flags), cudaMemcpyDeviceToHost));
    times.push_back(ms);
    rates.push_back(static_cast<double>(k) / (ms * 1.0e3));
    std::printf("  k = %8zu queries  %8.4f ms  %10llu pairs%s\n", k, ms, found,
                flags != 0 || found > capacity ? "  (STATUS SET OR CAPACITY EXCEEDED)" : "");
  }
  const double full = rates.back();
  std::printf("  threads (k)   queries/us   / all %zu\n", n);
  for (std::size_t i = 0; i < threads.size(); ++i)
    std::printf("  %10zu   %10.1f   %6.3f\n", threads[i], rates[i], rates[i] / full);
  return 0;
}
