#include "workbook/cuda_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace workbook {
namespace {

TEST(CudaCheck, SuccessDoesNotThrow) {
  EXPECT_NO_THROW(check_cuda(cudaSuccess, "cudaFree(p)", "a.cu", 1));
}

TEST(CudaCheck, FailureNamesTheCallTheLineAndTheError) {
  try {
    check_cuda(cudaErrorInvalidValue, "cudaMemcpy(d, h, n, kind)", "labs/02-abc/abc.cu", 42);
    FAIL() << "check_cuda did not throw";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), cudaErrorInvalidValue);
    const std::string message = error.what();
    EXPECT_NE(message.find("cudaErrorInvalidValue"), std::string::npos) << message;
    EXPECT_NE(message.find("labs/02-abc/abc.cu:42"), std::string::npos) << message;
    EXPECT_NE(message.find("`cudaMemcpy(d, h, n, kind)`"), std::string::npos) << message;
  }
}

TEST(CudaCheck, TheMacroCarriesTheCallsText) {
  try {
    CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "CUDA_CHECK did not throw";
  } catch (const CudaError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("`cudaErrorMemoryAllocation`"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda_check_test.cpp:"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace workbook
