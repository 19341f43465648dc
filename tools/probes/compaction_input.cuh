// Lab 06's experiment input, shared by the lab's probes (tools/probes/compaction_dip_by_size.cu,
// tools/probes/compaction_phases_by_kept.cu, solutions/06-compaction/probes/naive_against_compact.cu):
// element i is i itself, its sign bit set (kept by x < 0) with probability percent %, as
// labs/06-compaction/experiment.cu makes it, so any output's order can be read off its values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "workbook/hash.cuh"

namespace compaction_probe {

__host__ __device__ inline int element(std::size_t i, unsigned percent) {
  const bool kept =
      static_cast<std::uint64_t>(workbook::hash_index(i)) * 100u < static_cast<std::uint64_t>(percent) << 32;
  return static_cast<int>(static_cast<std::uint32_t>(i) | (kept ? 0x80000000u : 0u));
}

__global__ void fill_elements(int* data, std::size_t n, unsigned percent) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = element(i, percent);
}

}  // namespace compaction_probe
