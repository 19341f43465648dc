#pragma once

// The profile mode of the speed harness (speed.cpp): one call of the
// student's function and one of the yardstick's, between cudaProfilerStart
// and cudaProfilerStop, each after a mark kernel the grader recognises
// (grader/src/ncu_profile.cpp, kYoursMark and kYardstickMark).
namespace workbook::testing::internal {

enum class ProfiledCall { yours, yardstick };

// Waits for the GPU, then starts the region Nsight Compute profiles
// (ncu --profile-from-start off).
void start_profiled_region();

// Launches the mark that opens @p call's launches.
void mark_profiled_call(ProfiledCall call);

// Waits for the GPU, then ends the profiled region.
void stop_profiled_region();

}  // namespace workbook::testing::internal
