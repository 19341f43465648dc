#include <cuda_profiler_api.h>

#include "profile_marks.hpp"
#include "workbook/cuda_check.hpp"

// Empty kernels whose names the grader looks for in Nsight Compute's list of
// the profiled launches: every launch after the first mark and before the
// second belongs to the student's call, every launch after the second to the
// yardstick. extern "C" keeps the names as written, whatever the demangler.
extern "C" __global__ void workbook_profile_mark_yours() {}
extern "C" __global__ void workbook_profile_mark_yardstick() {}

namespace workbook::testing::internal {

void start_profiled_region() {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStart());
}

void mark_profiled_call(ProfiledCall call) {
  if (call == ProfiledCall::yours) {
    workbook_profile_mark_yours<<<1, 1>>>();
  } else {
    workbook_profile_mark_yardstick<<<1, 1>>>();
  }
  CUDA_CHECK_LAUNCH("the profile's mark");
}

void stop_profiled_region() {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaProfilerStop());
}

}  // namespace workbook::testing::internal
