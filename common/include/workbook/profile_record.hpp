/// @file profile_record.hpp
/// @brief The one name the speed harness's profile mode and the grader's
/// --explain share (no CUDA in it: the grader includes it).
#pragma once

namespace workbook::testing {

/// @brief The environment variable that puts the speed harness in profile
/// mode: set to a file's path, check_speed_for() profiles one call instead of
/// measuring and writes its record there (see profile_speed_task()). The
/// grader's --explain sets it under Nsight Compute.
inline constexpr const char* kProfileRecordEnv = "WORKBOOK_PROFILE_RECORD";

}  // namespace workbook::testing
