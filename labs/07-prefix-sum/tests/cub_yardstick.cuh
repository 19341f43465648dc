/// @file cub_yardstick.cuh
/// @brief The yardstick of lab 07: cub::DeviceScan::ExclusiveSum (it ships
/// with the CUDA Toolkit) on the same input, for the speed tests and the
/// experiment. Not part of the student's file: students write their own scan.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cub/device/device_scan.cuh>

#include "workbook/cub_call.hpp"

namespace scan::yardstick {

/// @brief cub::DeviceScan::ExclusiveSum of one int input, with its temporary
/// storage allocated once at construction so that run() times the scan alone.
class CubExclusiveSum {
 public:
  /// @brief Asks CUB how much temporary storage the scan needs and allocates it.
  /// @param[in] in Device array of n ints.
  /// @param[out] out Device array of n ints: the result of each run().
  /// @param[in] n Number of elements.
  CubExclusiveSum(const int* in, int* out, std::size_t n)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, stream);
        }) {}

  /// @brief Enqueues the scan on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

}  // namespace scan::yardstick
