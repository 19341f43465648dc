/// @file device_inputs.hpp
/// @brief Inputs generated on the GPU from a seed (workbook/random.hpp), for
/// speed tests: each timed run reads an input drawn just before it, untimed,
/// that no earlier call has seen. 2^28 values take well under a millisecond.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace workbook {

/// @brief out[i] = random_u32_at(seed, i) for i < n.
/// @param[out] out Device array of n values.
/// @param[in] n Number of values.
/// @param[in] seed The stream's seed.
/// @param[in] stream The stream to fill on.
void fill_random_u32(std::uint32_t* out, std::size_t n, std::uint64_t seed, cudaStream_t stream = nullptr);

/// @brief out[i] = random_int_at(seed, i, lo, hi) for i < n.
/// @param[out] out Device array of n values.
/// @param[in] n Number of values.
/// @param[in] seed The stream's seed.
/// @param[in] lo Smallest value.
/// @param[in] hi Largest value.
/// @param[in] stream The stream to fill on.
void fill_random_ints(std::int32_t* out, std::size_t n, std::uint64_t seed, std::int32_t lo, std::int32_t hi,
                      cudaStream_t stream = nullptr);

/// @brief out[i] = random_float_at(seed, i, lo, hi) for i < n.
/// @param[out] out Device array of n values.
/// @param[in] n Number of values.
/// @param[in] seed The stream's seed.
/// @param[in] lo Smallest value.
/// @param[in] hi Bound above every value.
/// @param[in] stream The stream to fill on.
void fill_random_floats(float* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                        cudaStream_t stream = nullptr);

/// @brief out[i] = random_byte_at(seed, i) for i < n.
/// @param[out] out Device array of n bytes.
/// @param[in] n Number of bytes.
/// @param[in] seed The stream's seed.
/// @param[in] stream The stream to fill on.
void fill_random_bytes(std::uint8_t* out, std::size_t n, std::uint64_t seed, cudaStream_t stream = nullptr);

}  // namespace workbook
