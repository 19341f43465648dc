// Lab 05's measurements.md asks why a packed ParallelCounter request (32 adds
// to the 32 words of one 128-byte line) costs the L2 about 3.2 times a request
// of one add. Hypothesis: the slice applies a request's 32-byte sectors one
// after another. Test: every warp sends one request of 8 adds (lanes 0-7, the
// rest idle) to 8 words of one line, spread over 1, 2 or 4 of its sectors. If
// the time grows with the sectors at a fixed 8 adds, the sectors set the cost.
// Rows for scale: 1 add a request, and 32 adds over 4 sectors (packed).
//
//   nvcc -O2 -arch=native -o build/sectors_per_request tools/probes/sectors_per_request.cu
//   build/sectors_per_request
#include <cstdint>

#include "probe_common.cuh"

// Lane l < lanes adds 1 to word (l / per_sector) * 8 + l % per_sector: the
// lanes fill per_sector words of each sector they touch (8 words a sector).
__global__ void add_spread(unsigned* line, int n, int lanes, int per_sector) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  if (i < n && lane < lanes) atomicAdd(&line[(lane / per_sector) * 8 + lane % per_sector], 1u);
}

int main() {
  const int n = 1 << 28;  // 2^23 warps, one request each
  const int blocks = n / 256;
  unsigned* line = nullptr;
  PROBE_CHECK(cudaMalloc(&line, 32 * sizeof(unsigned)));  // cudaMalloc aligns to 256 bytes
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  struct Case {
    const char* label;
    int lanes, per_sector, sectors;
  };
  const Case cases[] = {
      {"1 add, 1 sector", 1, 1, 1},       {"8 adds, 1 sector", 8, 8, 1}, {"8 adds, 2 sectors", 8, 4, 2},
      {"8 adds, 4 sectors", 8, 2, 4},     {"32 adds, 4 sectors (packed)", 32, 8, 4},
  };
  std::printf("GPU: %s; 2^23 warps, one request each to one 128-byte line; medians of 11\n", prop.name);
  std::printf("  %-30s %10s %14s   %s\n", "request", "ms", "ns a request", "check");
  bool all_ok = true;
  for (const Case& c : cases) {
    auto reset = [&] { PROBE_CHECK(cudaMemsetAsync(line, 0, 32 * sizeof(unsigned))); };
    const float ms = median_ms([&] { add_spread<<<blocks, 256>>>(line, n, c.lanes, c.per_sector); }, 11, reset);
    reset();
    add_spread<<<blocks, 256>>>(line, n, c.lanes, c.per_sector);
    unsigned words[32];
    PROBE_CHECK(cudaMemcpy(words, line, sizeof words, cudaMemcpyDeviceToHost));
    std::uint64_t total = 0;
    for (unsigned w : words) total += w;
    const bool ok = total == std::uint64_t(n / 32) * c.lanes;
    all_ok = all_ok && ok;
    std::printf("  %-30s %10.3f %14.3f   %s\n", c.label, ms, ms * 1e6 / (n / 32), ok ? "ok" : "WRONG");
  }
  PROBE_CHECK(cudaFree(line));
  return all_ok ? 0 : 1;
}
