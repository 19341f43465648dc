/// @file cub_yardstick.cuh
/// @brief The yardstick of lab 04: cub::DeviceReduce (it ships with the CUDA
/// Toolkit) on the same input, for the speed tests and the experiment. Not
/// part of the student's file: students write their own reduction.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cub/device/device_reduce.cuh>

#include "workbook/cub_call.hpp"

namespace reductions::yardstick {

/// @brief Which of CUB's device-wide reductions to run.
enum class CubOperation {
  sum,  ///< cub::DeviceReduce::Sum
  min,  ///< cub::DeviceReduce::Min
  max,  ///< cub::DeviceReduce::Max
};

/// @brief One CUB reduction of one input, with its temporary storage
/// allocated once at construction so that run() times the reduction alone.
/// @tparam T int or float.
template <typename T>
class CubReduction {
 public:
  /// @brief Asks CUB how much temporary storage the reduction needs and allocates it.
  /// @param[in] operation Sum, min or max.
  /// @param[in] in Device array of n values.
  /// @param[in] n Number of values.
  /// @param[out] out Device pointer to one value: the result of each run().
  CubReduction(CubOperation operation, const T* in, std::size_t n, T* out)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
          switch (operation) {
            case CubOperation::sum:
              return cub::DeviceReduce::Sum(temp, bytes, in, out, n, stream);
            case CubOperation::min:
              return cub::DeviceReduce::Min(temp, bytes, in, out, n, stream);
            case CubOperation::max:
              return cub::DeviceReduce::Max(temp, bytes, in, out, n, stream);
          }
          return cudaErrorInvalidValue;
        }) {}

  /// @brief Enqueues the reduction on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

}  // namespace reductions::yardstick
