/// @file random.hpp
/// @brief The workbook's one random-number generator: counter-based, so value
/// i of the stream `seed` is a pure function of (seed, i). The same inline
/// functions run on the host and on the device, so a test can generate 2^28
/// values on the GPU in a fraction of a millisecond and the host can still
/// recompute any one of them.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define WORKBOOK_HOST_DEVICE __host__ __device__
#else
#define WORKBOOK_HOST_DEVICE
#endif

namespace workbook {

/// @brief A deterministic 64-bit hash of (seed, index) (SplitMix64): random
/// access to a reproducible random stream.
/// @param[in] seed The stream's seed.
/// @param[in] index The position in the stream.
/// @return 64 well-mixed bits.
WORKBOOK_HOST_DEVICE inline std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// @brief Element @p index of the uint32 stream @p seed: the hash's top 32 bits.
/// @param[in] seed The stream's seed.
/// @param[in] index The position.
/// @return A uniform 32-bit value.
WORKBOOK_HOST_DEVICE inline std::uint32_t random_u32_at(std::uint64_t seed, std::uint64_t index) {
  return static_cast<std::uint32_t>(hash64(seed, index) >> 32);
}

/// @brief Element @p index of a stream of ints uniform in [lo, hi].
/// @param[in] seed The stream's seed.
/// @param[in] index The position.
/// @param[in] lo Smallest value.
/// @param[in] hi Largest value (at least lo).
/// @return The value.
WORKBOOK_HOST_DEVICE inline std::int32_t random_int_at(std::uint64_t seed, std::uint64_t index,
                                                       std::int32_t lo, std::int32_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo) + 1;
  return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(hash64(seed, index) % span));
}

/// @brief Element @p index of a stream of floats uniform in [lo, hi).
/// @param[in] seed The stream's seed.
/// @param[in] index The position.
/// @param[in] lo Smallest value.
/// @param[in] hi Bound above every value.
/// @return The value.
WORKBOOK_HOST_DEVICE inline float random_float_at(std::uint64_t seed, std::uint64_t index, float lo,
                                                  float hi) {
  const float unit = static_cast<float>(hash64(seed, index) >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
  return lo + unit * (hi - lo);
}

/// @brief Byte @p index of a stream of uniform bytes: eight bytes per hash.
/// @param[in] seed The stream's seed.
/// @param[in] index The position.
/// @return The byte.
WORKBOOK_HOST_DEVICE inline std::uint8_t random_byte_at(std::uint64_t seed, std::uint64_t index) {
  return static_cast<std::uint8_t>(hash64(seed, index / 8) >> (8 * (index % 8)));
}

}  // namespace workbook
