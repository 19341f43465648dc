/// @file cub_yardstick.cuh
/// @brief The yardsticks of lab 08: cub::DeviceRadixSort::SortKeys and
/// SortPairs (they ship with the CUDA Toolkit) on the same input, for the
/// speed tests and the experiment. Not part of the student's file: students
/// write their own sort, and the grader refuses one that calls CUB.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

#include "workbook/cub_call.hpp"

namespace radix_sort::yardstick {

/// @brief n as CUB's item count. An int count makes CUB use 32-bit offsets
/// (CUB's fast path by design; on the H200 its 64-bit-count kernel measured
/// 1.17 times faster at 2^28: measurements.md, "CUB's miss").
/// @param[in] n Number of items.
/// @return n as an int.
/// @throws std::invalid_argument when n does not fit an int.
inline int cub_item_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw std::invalid_argument("the CUB yardstick takes at most 2^31 - 1 items, not " + std::to_string(n));
  }
  return static_cast<int>(n);
}

/// @brief One cub::DeviceRadixSort::SortKeys of one input (all bits of the
/// key), with its temporary storage allocated once at construction so that
/// run() times the sort alone.
/// @tparam Key std::uint32_t, std::int32_t or float.
template <typename Key>
class CubSortKeys {
 public:
  /// @brief Asks CUB how much temporary storage the sort needs and allocates it.
  /// @param[in] keys_in Device array of n keys (not written).
  /// @param[out] keys_out Device array of n keys: the sorted keys of each run().
  /// @param[in] n Number of keys, below 2^31.
  CubSortKeys(const Key* keys_in, Key* keys_out, std::size_t n)
      : call_([=, count = cub_item_count(n)](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceRadixSort::SortKeys(temp, bytes, keys_in, keys_out, count, 0,
                                                static_cast<int>(sizeof(Key) * 8), stream);
        }) {}

  /// @brief Enqueues the sort on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

/// @brief One cub::DeviceRadixSort::SortPairs of uint32 keys with uint32
/// values (stable, all 32 bits), temporary storage allocated once.
class CubSortPairs {
 public:
  /// @brief Asks CUB how much temporary storage the sort needs and allocates it.
  /// @param[in] keys_in Device array of n keys (not written).
  /// @param[in] values_in Device array of n values (not written).
  /// @param[out] keys_out Device array of n keys, sorted by each run().
  /// @param[out] values_out Device array of n values, each beside its key.
  /// @param[in] n Number of pairs, below 2^31.
  CubSortPairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
               std::uint32_t* values_out, std::size_t n)
      : call_([=, count = cub_item_count(n)](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, count,
                                                 0, 32, stream);
        }) {}

  /// @brief Enqueues the sort on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

}  // namespace radix_sort::yardstick
