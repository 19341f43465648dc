// Lab 09's experiment inputs and grid helpers, shared by the lab's probes
// (histogram_open_misses.cu, one_copy_four_loads.cu, shared_atomics_and_match_alone.cu):
// the bytes labs/09-histograms/experiment.cu's fill_bytes writes (workbook::hash_index
// of each index: uniform, four bins in one shared-memory bank, or one bin).
#pragma once

#include <cstddef>
#include <cstdint>

#include "workbook/hash.cuh"

namespace histogram_probe {

enum class Kind { uniform, four_bins_one_bank, one_bin };

inline const char* to_string(Kind kind) {
  switch (kind) {
    case Kind::uniform:
      return "uniform bytes";
    case Kind::four_bins_one_bank:
      return "four bins, one bank";
    case Kind::one_bin:
      return "one bin";
  }
  return "?";
}

__global__ void fill_bytes(std::uint8_t* out, std::size_t n, Kind kind) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t hash = workbook::hash_index(i);
  std::uint32_t value = 255;
  if (kind == Kind::uniform) value = hash & 0xFFu;
  if (kind == Kind::four_bins_one_bank) value = 32u * (hash % 4u);
  out[i] = static_cast<std::uint8_t>(value);
}

__device__ inline std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

}  // namespace histogram_probe
