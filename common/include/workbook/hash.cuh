/// @file hash.cuh
/// @brief A stateless hash of an element's index, for the experiments that
/// fill inputs of 2^28 elements on the GPU: each thread computes its own
/// element from its index, with no generator state to share or to copy.
#pragma once

#include <cstdint>

namespace workbook {

/// @brief Mixes a 64-bit index into 32 well-spread bits (the "lowbias32"
/// xorshift-multiply sequence on the index's two halves folded together).
/// The same value on host and device, so a host check can recompute any element.
/// @param[in] i The index.
/// @return The hash.
__host__ __device__ inline std::uint32_t hash_index(std::uint64_t i) {
  std::uint32_t x = static_cast<std::uint32_t>(i) ^ static_cast<std::uint32_t>(i >> 32);
  x ^= x >> 16;
  x *= 0x7FEB352Du;
  x ^= x >> 15;
  x *= 0x846CA68Bu;
  x ^= x >> 16;
  return x;
}

}  // namespace workbook
