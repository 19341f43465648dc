// Lab 10's open question: how long is one dependent global load when the GPU
// is full of threads that each walk their own chain, as the LBVH query's do?
// Each thread follows `next` through a random cycle of 32-byte nodes (one
// sector each, like a tree node's box and children) for kSteps steps; a step
// cannot start before the previous load returns. The time per step is printed
// for four node-array sizes (in the L2; 2^20 nodes, the size of lab 10's grid; about the L2's size; far
// beyond it) and three thread counts (one thread, one warp per SM, every thread slot). Each timed run starts
// its walks elsewhere: a node array far beyond the L2 then shows the DRAM's latency, one inside it the L2's.
//
//   nvcc -O2 -arch=native -o build/dependent_loads tools/probes/dependent_loads.cu
//   build/dependent_loads
#include <cstdint>
#include <numeric>
#include <random>

#include "probe_common.cuh"

struct alignas(32) Node {
  std::uint32_t next;
  std::uint32_t payload[7];
};

constexpr int kSteps = 256;

// `run` moves every start point, so that a timed run does not find the nodes
// that the run before it left in the L2 (with few threads, the whole walk of
// one run would fit there).
__global__ void walk(const Node* nodes, std::uint32_t node_count, int threads, int run, std::uint32_t* sink) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const std::uint64_t start = static_cast<std::uint64_t>(t) + static_cast<std::uint64_t>(run) * 1000003u;
  std::uint32_t at = static_cast<std::uint32_t>((start * 2654435761u) % node_count);
  std::uint32_t sum = 0;
  for (int s = 0; s < kSteps; ++s) {
    const Node node = nodes[at];  // the whole 32-byte sector, as a tree node's visit reads it
    sum += node.payload[0];
    at = node.next;
  }
  if (sum == 0xFFFFFFFFu) sink[0] = at;  // keeps the loads; never true for these payloads
}

int main() {
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int slots = prop.multiProcessorCount * prop.maxThreadsPerMultiProcessor;
  std::printf("GPU: %s, %d SMs, %d thread slots, L2 %.1f MB; %d dependent 32-byte loads per thread\n",
              prop.name, prop.multiProcessorCount, slots, prop.l2CacheSize / 1e6, kSteps);
  std::printf("%-12s %-28s %12s %14s %16s\n", "nodes", "threads", "ms", "ns per step", "GB/s of sectors");
  std::uint32_t* sink = nullptr;
  PROBE_CHECK(cudaMalloc(&sink, sizeof(std::uint32_t)));
  std::mt19937 rng(12345);
  for (int log_nodes : {17, 20, 21, 25}) {
    const std::uint32_t count = 1u << log_nodes;
    // One random cycle through every node (Sattolo's shuffle), so no walk gets stuck in a short loop.
    std::vector<std::uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    for (std::uint32_t i = count - 1; i > 0; --i) {
      std::uniform_int_distribution<std::uint32_t> pick(0, i - 1);
      std::swap(order[i], order[pick(rng)]);
    }
    std::vector<Node> host(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      host[order[i]].next = order[(i + 1) % count];
      for (int k = 0; k < 7; ++k) host[order[i]].payload[k] = 1;
    }
    Node* nodes = nullptr;
    PROBE_CHECK(cudaMalloc(&nodes, sizeof(Node) * count));
    PROBE_CHECK(cudaMemcpy(nodes, host.data(), sizeof(Node) * count, cudaMemcpyHostToDevice));
    struct Case {
      const char* name;
      int threads;
    } cases[] = {
        {"1 thread", 1}, {"1 warp per SM", 32 * prop.multiProcessorCount}, {"every thread slot", slots}};
    for (const Case& c : cases) {
      const int blocks = (c.threads + 255) / 256;
      const int per_block = c.threads < 256 ? c.threads : 256;
      // One warp per SM: blocks of 32, so the scheduler puts one on each SM.
      const bool warp_per_sm = c.threads == 32 * prop.multiProcessorCount;
      int run = 0;
      const float ms = median_ms(
          [&] {
            ++run;
            if (warp_per_sm)
              walk<<<prop.multiProcessorCount, 32>>>(nodes, count, c.threads, run, sink);
            else
              walk<<<blocks, per_block>>>(nodes, count, c.threads, run, sink);
          },
          5);
      const double ns_per_step = ms * 1e6 / kSteps;
      const double gbps = double(c.threads) * kSteps * 32 / (ms * 1e6);
      std::printf("2^%-2d %6.1f MB  %-28s %12.4f %14.1f %16.1f\n", log_nodes, sizeof(Node) * count / 1e6,
                  c.name, ms, ns_per_step, gbps);
    }
    PROBE_CHECK(cudaFree(nodes));
  }
  PROBE_CHECK(cudaFree(sink));
  return 0;
}
