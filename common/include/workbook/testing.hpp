/// @file testing.hpp
/// @brief GoogleTest support shared by every lab's tests: GPU tests that skip
/// with a reason when there is no device, readable comparison failures, and
/// speed measurements checked against the rubric's target.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/compare.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/generators.hpp"

namespace workbook::testing {

/// @brief Base fixture of every test that needs a GPU. Without a device the
/// test is SKIPPED with the reason (never passed). After the test it checks
/// that no kernel faulted; a fault fails the test that caused it.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
};

/// @brief The name of a case of a test parameterised by a size: "n4096".
/// The grader's sanitizer mode reads the size from it (`/n<digits>`).
/// @param[in] info GoogleTest's parameter info.
/// @return "n" and the size.
inline std::string size_name(const ::testing::TestParamInfo<std::size_t>& info) {
  return "n" + std::to_string(info.param);
}

/// @brief The seed of this run as failure messages print it: "seed=20261121".
/// @return The text.
inline std::string seed_text() {
  return "seed=" + std::to_string(test_seed());
}

/// @brief Describes a generated test case for failure messages.
/// @param[in] n Number of elements.
/// @param[in] pattern The input pattern.
/// @return e.g. "n=33, pattern=uniform, seed=20261121".
std::string describe_case(std::size_t n, Pattern pattern);

/// @brief Turns a comparison report into a GoogleTest assertion result:
/// `EXPECT_TRUE(matches(compare_exact(want, got), describe_case(n, p)));`
/// @param[in] report The comparison.
/// @param[in] context What was being tested (size, pattern, seed, ...).
/// @return Success, or a failure naming the context and the first mismatches.
::testing::AssertionResult matches(const ComparisonReport& report, const std::string& context);

/// @brief A measured speed and the yardstick it is compared with, both as
/// rates where higher is better (GB/s, keys/s, ...).
struct SpeedMeasurement {
  double value = 0;            ///< The student's rate.
  double yardstick_value = 0;  ///< The yardstick's rate, measured in the same run.
  std::string unit;            ///< e.g. "GB/s".
  std::string yardstick;       ///< e.g. "device-to-device copy".
};

/// @brief The speed target of the running test, from the rubric.
struct SpeedTarget {
  double target = 0;  ///< Full points at or above this ratio to the yardstick.
  double floor = 0;   ///< Zero points at or below this ratio.
};

/// @brief Looks up the running test of lab @p lab_id in the rubric
/// ($WORKBOOK_RUBRIC, or the project's grader/rubric.json).
/// @param[in] lab_id The lab's folder name, e.g. "02-abc".
/// @return The target and floor of the running test.
/// @throws std::runtime_error when the rubric has no speed entry for this test.
SpeedTarget speed_target_for(const std::string& lab_id);

/// @brief Records @p speed for the grader and expects its ratio to the
/// yardstick to reach the rubric's target for lab @p lab_id; the failure
/// message says the measured rate, the yardstick, the ratio and the target.
/// @param[in] lab_id The lab's folder name.
/// @param[in] speed The measurement.
void expect_speed_for(const std::string& lab_id, const SpeedMeasurement& speed);

#if defined(WORKBOOK_LAB_ID)
/// @brief expect_speed_for() for the lab being built (WORKBOOK_LAB_ID, set by CMake).
/// @param[in] speed The measurement.
inline void expect_speed(const SpeedMeasurement& speed) {
  expect_speed_for(WORKBOOK_LAB_ID, speed);
}
#endif

/// @brief Expects a device input to hold, in its first original.size()
/// elements, exactly the bytes that were uploaded: a lab's functions read
/// their inputs and must not write them (a function that sorts or scans in
/// the input, or leaves a cached answer there, fails the test it ran in).
/// Bytes, not values, are compared, so NaN inputs compare equal to
/// themselves.
/// @param[in] original What was uploaded.
/// @param[in] input The device buffer (it may hold guard elements after them).
/// @param[in] context The case, for the failure message.
/// @param[in] name The input's name in the lab's contract.
template <typename T>
void expect_input_unchanged(const std::vector<T>& original, const DeviceBuffer<T>& input,
                            const std::string& context, const std::string& name) {
  const std::vector<T> now = input.to_host();
  ASSERT_GE(now.size(), original.size()) << context << ": the input buffer " << name << " is too small";
  if (original.empty() || std::memcmp(now.data(), original.data(), original.size() * sizeof(T)) == 0) return;
  std::size_t changed = 0, first = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (std::memcmp(&now[i], &original[i], sizeof(T)) == 0) continue;
    if (changed++ == 0) first = i;
  }
  EXPECT_EQ(changed, 0u) << context << ": the input " << name << " was written: " << changed << " of "
                         << original.size() << " elements changed, the first at index " << first
                         << ". Your functions may read their inputs, never write them: keep intermediate "
                            "results in the output or the scratch memory the contract gives you";
}

/// @brief Records a named number for the grader's report (a test property too).
/// @param[in] name The metric's name.
/// @param[in] value Its value.
void record_metric(const std::string& name, double value);

}  // namespace workbook::testing
