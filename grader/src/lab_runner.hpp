/// @file lab_runner.hpp
/// @brief Running one lab's test program in isolation: list its tests, run
/// them in a child process, and resume in a fresh process after a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gtest_protocol.hpp"

namespace workbook::grader {

/// @brief Seconds allowed for --gtest_list_tests (within the lab's budget).
constexpr double kListTimeoutS = 60.0;
/// @brief How many times a lab's program is restarted after crashes.
constexpr int kMaxRestarts = 20;
/// @brief Lines of a crashed program's output quoted in the failure.
constexpr std::size_t kCrashTailLines = 15;

/// @brief Outcome of one test.
enum class TestStatus { passed, failed, skipped };

/// @brief One test's result as the grader decided it.
struct TestResult {
  std::string name;                        ///< "Suite.Name".
  TestStatus status = TestStatus::failed;  ///< Never passed unless its "end" record said so.
  std::string message;                     ///< Why it failed or was skipped.
  double time_ms = 0;                      ///< Reported duration.
  std::optional<SpeedMetric> speed;        ///< Speed measurement, when reported.
};

/// @brief Everything learned from running one lab.
struct LabRun {
  std::string lab_id;              ///< e.g. "02-abc".
  std::vector<TestResult> tests;   ///< In listed order (then any unlisted ones).
  std::string error;               ///< Lab-level failure (could not list tests...); empty when none.
  bool refused = false;            ///< Not run: its source uses a forbidden name (error says which).
  std::vector<std::string> notes;  ///< Crashes, resumes, timeouts: what happened, for the report.
  bool timed_out = false;          ///< The lab used up its wall-clock budget.
  double seconds = 0;              ///< Wall-clock time of all its processes.
  int processes = 0;               ///< How many times its test program was started (listing excluded).
  std::string log_dir;             ///< Where its logs are.
};

/// @brief How to run a lab.
struct RunOptions {
  std::string binary;                 ///< The lab's test program.
  std::string rubric_path;            ///< Passed as WORKBOOK_RUBRIC.
  std::optional<std::uint64_t> seed;  ///< Passed as WORKBOOK_SEED when set.
  double timeout_s = 300;             ///< Budget for all of the lab's processes.
  std::string work_dir;               ///< Existing directory for logs and result files.
  /// Called as tests finish: (finished, total).
  std::function<void(std::size_t, std::size_t)> progress;
};

/// @brief Runs a lab: lists its tests, runs them in a child process, resumes
/// the ones not yet run after a crash (at most kMaxRestarts times), and stops
/// everything at the deadline. Never throws for anything the lab does.
/// @param[in] lab_id The lab's id, for messages.
/// @param[in] options How to run it.
/// @return The results: one entry per test.
LabRun run_lab(const std::string& lab_id, const RunOptions& options);

/// @brief A lab refused before its tests ran (its source uses a name the
/// rubric forbids): no tests, refused set, error the reason.
/// @param[in] lab_id The lab's id.
/// @param[in] reason Why, for the student (see check_lab_source()).
/// @return The run, scored 0 by score_lab().
LabRun refused_run(const std::string& lab_id, const std::string& reason);

/// @brief Seconds as a short human number: "300", "2.5".
/// @param[in] seconds The value.
/// @return The text.
std::string format_seconds(double seconds);

/// @brief The status's name: "passed", "failed" or "skipped".
/// @param[in] status The status.
/// @return The name.
const char* to_string(TestStatus status);

}  // namespace workbook::grader
