/// @file device_checks.hpp
/// @brief Comparisons of two device arrays done on the GPU: a speed test
/// checks the output of every timed run, and counting differences in 2^28
/// elements on the device takes about a millisecond where a download and a
/// host loop take a second.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "workbook/buffers.hpp"
#include "workbook/compare.hpp"

namespace workbook {

/// @brief Compares @p got with @p want element by element on the device
/// (the default stream; it waits for the result).
/// @param[in] want Device array of n expected values.
/// @param[in] got Device array of n values to check.
/// @param[in] n Number of elements.
/// @return "" when every element is equal, else "K of N elements differ, the
/// first at index I: expected X, got Y".
std::string device_differences(const std::int32_t* want, const std::int32_t* got, std::size_t n);
/// @copydoc device_differences(const std::int32_t*, const std::int32_t*, std::size_t)
std::string device_differences(const std::uint32_t* want, const std::uint32_t* got, std::size_t n);
/// @copydoc device_differences(const std::int32_t*, const std::int32_t*, std::size_t)
std::string device_differences(const std::uint64_t* want, const std::uint64_t* got, std::size_t n);

/// @brief Compares floats on the device within a tolerance: element i passes
/// when |got - want| <= absolute + relative |want| (NaN never passes).
/// @param[in] want Device array of n expected values.
/// @param[in] got Device array of n values to check.
/// @param[in] n Number of elements.
/// @param[in] tolerance The tolerance.
/// @return "" when every element is close enough, else a description of the
/// count and the first difference.
std::string device_float_differences(const float* want, const float* got, std::size_t n,
                                     FloatTolerance tolerance);

/// @brief A keyed fingerprint of device memory, computed on the device (the
/// default stream; it waits for the result): the wrapping sum, over the
/// 4-byte words (or the bytes, where the range is not 4-byte aligned), of
/// hash64 of the word and its position under @p key. A changed or moved byte
/// changes it, except by a chance of about 2^-64 for someone who does not
/// know the key. The speed harness checks with it that a call left its input
/// as it found it.
/// @param[in] range The device memory.
/// @param[in] key The key (the harness draws one per process).
/// @return The fingerprint; 0 for an empty range.
std::uint64_t device_fingerprint(DeviceBytes range, std::uint64_t key);

}  // namespace workbook
