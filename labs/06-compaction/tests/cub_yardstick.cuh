/// @file cub_yardstick.cuh
/// @brief The yardstick of lab 06: cub::DeviceSelect::If (it ships with the
/// CUDA Toolkit) with the lab's own predicate on the same input, for the
/// speed test and the experiment. Not part of the student's file: students
/// write their own compaction, and the grader refuses one that calls CUB.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_select.cuh>

#include "compaction.cuh"
#include "workbook/cub_call.hpp"

namespace compaction::yardstick {

/// @brief One cub::DeviceSelect::If of one input, with its temporary storage
/// allocated once at construction so that run() times the compaction alone.
class CubSelectIf {
 public:
  /// @brief Asks CUB how much temporary storage the selection needs and allocates it.
  /// @param[in] in Device array of n ints.
  /// @param[in] n Number of elements.
  /// @param[in] keep The predicate, the same KeepIf the lab's compactions take.
  /// @param[out] out Device array of n ints: the kept elements of each run(), in input order.
  /// @param[out] kept_count Device pointer to one count: the number kept by each run().
  CubSelectIf(const int* in, std::size_t n, KeepIf keep, int* out, std::uint32_t* kept_count)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceSelect::If(temp, bytes, in, out, kept_count, static_cast<std::int64_t>(n), keep,
                                       stream);
        }) {}

  /// @brief Enqueues the selection on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

}  // namespace compaction::yardstick
