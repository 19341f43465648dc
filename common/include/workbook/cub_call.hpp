/// @file cub_call.hpp
/// @brief A CUB device-wide algorithm with its temporary storage allocated
/// once, for the labs' yardsticks: CUB's algorithms are called twice, first
/// with no storage to ask how many bytes they need, then to run.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <utility>

#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"

namespace workbook {

/// @brief One CUB call with its arguments bound and its temporary storage
/// allocated at construction, so that run() times the algorithm alone.
class CubCall {
 public:
  /// @brief The algorithm: `call(temp, bytes, stream)`; with temp == nullptr
  /// it only sets bytes, CUB's size query.
  using Call = std::function<cudaError_t(void* temp, std::size_t& bytes, cudaStream_t stream)>;

  /// @brief Asks the algorithm how much temporary storage it needs and allocates it.
  /// @param[in] call The algorithm with its inputs and outputs bound.
  /// @throws workbook::CudaError when the size query fails.
  explicit CubCall(Call call) : call_(std::move(call)) {
    std::size_t bytes = 0;
    CUDA_CHECK(call_(nullptr, bytes, nullptr));
    temp_ = DeviceBuffer<unsigned char>(bytes > 0 ? bytes : 1);
  }

  /// @brief Enqueues the algorithm on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  /// @throws workbook::CudaError when the launch fails.
  void run(cudaStream_t stream) {
    std::size_t bytes = temp_.size();
    CUDA_CHECK(call_(temp_.data(), bytes, stream));
  }

  /// @brief The temporary storage CUB works in: the speed harness overwrites
  /// it with the yardstick's output after each timed call, since what an
  /// algorithm leaves there (a sort's last passes) is close to its answer.
  /// @return The storage.
  DeviceBytes storage() { return bytes_of(temp_); }

 private:
  Call call_;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace workbook
