#include "workbook/cuda_check.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace workbook {

CudaError::CudaError(cudaError_t code, const std::string& message)
    : std::runtime_error(message), code_(code) {}

void check_cuda(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess) return;
  std::ostringstream message;
  message << "CUDA error " << cudaGetErrorName(result) << " (" << cudaGetErrorString(result) << ") at "
          << file << ":" << line << " in `" << call << "`";
  throw CudaError(result, message.str());
}

namespace {
bool sync_after_launch() {
  static const bool enabled = [] {
    const char* value = std::getenv("WORKBOOK_SYNC_LAUNCHES");
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return enabled;
}
}  // namespace

void check_launch(const char* what, const char* file, int line) {
  const std::string launch = std::string("launch of ") + what;
  check_cuda(cudaGetLastError(), launch.c_str(), file, line);
  if (sync_after_launch()) {
    const std::string run = std::string("kernel ") + what + " (WORKBOOK_SYNC_LAUNCHES=1)";
    check_cuda(cudaDeviceSynchronize(), run.c_str(), file, line);
  }
}

}  // namespace workbook
