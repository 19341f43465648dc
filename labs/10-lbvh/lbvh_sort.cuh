/// @file lbvh_sort.cuh
/// @brief Lab 10's sort, written for you: sort_temp_bytes() and
/// sort_pairs_by_code() of lbvh.cuh, defined with one
/// cub::DeviceRadixSort::SortPairs. That sort is the yardstick the build is
/// timed against, so the build calls exactly it.
///
/// Include this file in exactly one source file of a program (it defines
/// functions): the lab's tests do so in tests/lbvh_sort.cu, the experiment
/// in experiment.cu. Your lbvh.cu never includes it: the grader refuses a
/// student file that reaches CUB, even through a header of the lab.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>

#include "lbvh.cuh"
#include "workbook/cuda_check.hpp"

namespace lbvh {

std::size_t sort_temp_bytes(std::size_t max_n) {
  if (max_n == 0) return 0;
  std::size_t bytes = 0;
  // CUB's size query: no storage, no data read; the pointers are not used.
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
      static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
      static_cast<int>(max_n), 0, kCodeBits));
  return bytes;
}

void sort_pairs_by_code(const std::uint32_t* codes_in, const std::uint32_t* indices_in,
                        std::uint32_t* codes_out, std::uint32_t* indices_out, std::uint32_t n, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream) {
  if (n == 0) return;
  // Bits 0 .. 29 only: the codes have no others.
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, codes_in, codes_out, indices_in, indices_out,
                                             static_cast<int>(n), 0, kCodeBits, stream));
}

}  // namespace lbvh
