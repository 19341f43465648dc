/// @file cuda_check.hpp
/// @brief Error checking for CUDA runtime calls and kernel launches.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace workbook {

/// @brief A failed CUDA call: carries the error code and a message naming the
/// call, its source file and line, and the error's name and description.
class CudaError : public std::runtime_error {
 public:
  /// @brief Builds the error.
  /// @param[in] code The CUDA error code.
  /// @param[in] message The full message (see check_cuda()).
  CudaError(cudaError_t code, const std::string& message);

  /// @brief The CUDA error code, e.g. cudaErrorInvalidConfiguration.
  /// @return The code the failed call returned.
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// @brief Throws CudaError when @p result is not cudaSuccess.
/// @param[in] result What the CUDA call returned.
/// @param[in] call The call's source text.
/// @param[in] file The source file of the call.
/// @param[in] line The source line of the call.
/// @throws CudaError with "CUDA error <name> (<description>) at <file>:<line> in `call`".
void check_cuda(cudaError_t result, const char* call, const char* file, int line);

/// @brief Checks the most recent kernel launch (bad configuration, too much
/// shared memory, ...). When the environment variable WORKBOOK_SYNC_LAUNCHES=1
/// is set it also waits for the kernel, so that faults inside the kernel
/// (illegal address, ...) are reported at the launch that caused them.
/// @param[in] what A description of the launch, e.g. the kernel's name.
/// @param[in] file The source file of the launch.
/// @param[in] line The source line of the launch.
/// @throws CudaError when the launch failed.
void check_launch(const char* what, const char* file, int line);

}  // namespace workbook

/// @brief Checks a CUDA runtime call: `CUDA_CHECK(cudaMalloc(&p, bytes));`
/// Throws workbook::CudaError naming the call, its source file and line, and the error.
#define CUDA_CHECK(call) ::workbook::check_cuda((call), #call, __FILE__, __LINE__)

/// @brief Checks the kernel launch just before it: `kernel<<<g, b>>>(...);
/// CUDA_CHECK_LAUNCH("kernel");` Throws workbook::CudaError on failure.
#define CUDA_CHECK_LAUNCH(what) ::workbook::check_launch((what), __FILE__, __LINE__)
