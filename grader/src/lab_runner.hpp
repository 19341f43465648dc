/// @file lab_runner.hpp
/// @brief Running one lab's test program in isolation: list its tests, run
/// them in a child process, and resume in a fresh process after a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest_protocol.hpp"
#include "rubric.hpp"

namespace workbook::grader {

/// @brief Seconds allowed for --gtest_list_tests (within the lab's budget).
constexpr double kListTimeoutS = 60.0;
/// @brief How many times a lab's program is restarted after crashes and hangs.
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
  /// Why a speed item is slow (--explain, explain.hpp), in report lines; empty when not profiled.
  std::vector<std::string> explanation;
};

/// @brief Where a family of failing tests (one test at several sizes) starts
/// to fail (failure_analysis.hpp).
struct SizeFinding {
  std::string smallest;  ///< The family's smallest failing test, "Suite.Name/n31".
  std::string text;      ///< One line for the student: the size, the seed, where to start.
};

/// @brief Everything learned from running one lab.
struct LabRun {
  std::string lab_id;              ///< e.g. "02-abc".
  std::vector<TestResult> tests;   ///< In listed order (then any unlisted ones).
  std::string error;               ///< Lab-level failure (could not list tests...); empty when none.
  bool refused = false;            ///< Not run: its source uses a forbidden name (error says which).
  bool not_built = false;          ///< Not run: its test program did not build (error has the first error).
  std::vector<std::string> notes;  ///< Crashes, resumes, timeouts: what happened, for the report.
  bool timed_out = false;          ///< The lab used up its wall-clock budget (not: a test overran its limit).
  double seconds = 0;              ///< Wall-clock time of all its processes.
  int processes = 0;               ///< How many times its test program was started (listing excluded).
  std::string log_dir;             ///< Where its logs are.
  std::vector<std::string> logs;   ///< Every test program's log (not the listing's), in run order.
  /// What the source checks warn about without taking points (a barrier that
  /// only some threads reach), one line each: "<file>:<line>: ...".
  std::vector<std::string> warnings;
  /// The smallest failing size of each family of failing tests, in listing order.
  std::vector<SizeFinding> size_findings;
};

/// @brief A lab's time limits in seconds, already scaled (see make_time_limits()).
struct TimeLimits {
  /// @brief A test time limit set by a rubric item.
  struct Item {
    std::vector<std::string> tests;  ///< The item's globs.
    double seconds = 0;              ///< Its limit.
  };
  double lab_s = kDefaultLabTimeoutS;    ///< Budget for all of the lab's processes.
  double test_s = kDefaultTestTimeoutS;  ///< A test's limit when no item sets one.
  std::vector<Item> items;               ///< The groups and speed items that set test_timeout_s.

  /// @brief The limit of one test: the largest of the items that name it and
  /// set one, else test_s. The lab's budget caps it in any case.
  /// @param[in] test "Suite.Name".
  /// @return Seconds.
  double for_test(const std::string& test) const;
};

/// @brief A lab's time limits from its rubric, every one multiplied by
/// @p scale. The only place where limits are scaled: a later factor (a
/// sanitizer run, say) belongs here too.
/// @param[in] lab The lab's rubric (timeout_s, each item's test_timeout_s).
/// @param[in] scale --timeout-scale.
/// @return The limits.
TimeLimits make_time_limits(const LabRubric& lab, double scale);

/// @brief How to run a lab.
struct RunOptions {
  std::string binary;                 ///< The lab's test program.
  std::string rubric_path;            ///< Passed as WORKBOOK_RUBRIC.
  std::optional<std::uint64_t> seed;  ///< Passed as WORKBOOK_SEED when set.
  TimeLimits limits;                  ///< The lab's budget and each test's limit.
  std::string work_dir;               ///< Existing directory for logs and result files.
  /// Called as tests finish: (finished, total).
  std::function<void(std::size_t, std::size_t)> progress;
  /// Set in the program's environment on top of what every run sets.
  std::vector<std::pair<std::string, std::string>> env;
  /// Put before the program's argv (a sanitizer's command); empty: none.
  std::vector<std::string> wrapper;
  /// Which listed tests to run; empty: all of them.
  std::function<bool(const std::string&)> select;
  /// When set, each test select() leaves out is reported skipped with this
  /// message; when empty, it is left out of the results.
  std::string unselected_message;
  /// Run the program in the sandbox (sandbox.hpp), with its resource limits.
  bool sandbox = false;
  /// How many test programs run at once (each on a share of the tests);
  /// 1: one program at a time, in the lab's own work_dir.
  int shards = 1;
  /// With shards > 1: the tests that run after the shares, by themselves
  /// (speed tests); unset: none.
  std::function<bool(const std::string&)> runs_alone;
};

/// @brief Runs a lab: lists its tests, runs them in a child process, stops
/// the process when a test overruns its limit, resumes the tests not yet run
/// in a fresh process after a crash or an overrun (at most kMaxRestarts
/// times), and stops everything when the lab's budget is spent. With
/// RunOptions::shards > 1, that many programs run at once, each on a share of
/// the tests, and then the runs_alone tests by themselves. Never throws for
/// anything the lab does.
/// @param[in] lab_id The lab's id, for messages.
/// @param[in] options How to run it.
/// @return The results: one entry per test.
LabRun run_lab(const std::string& lab_id, const RunOptions& options);

/// @brief The size parameter of a parameterised test's name: "/n<digits>" as
/// its last part, alone ("Sizes/Abc.Computes/n31") or before the other
/// parameters ("Sizes/Filter.Keeps/n1000_all_odd").
struct SizeInName {
  std::uint64_t size = 0;  ///< The digits.
  std::string prefix;      ///< The name before "/n": "Sizes/Filter.Keeps".
  std::string suffix;      ///< What follows the digits: "_all_odd", or "".

  /// @brief The name without its size, the same for every size of one test:
  /// "Sizes/Filter.Keeps/n*_all_odd".
  /// @return The family's name.
  std::string family() const { return prefix + "/n*" + suffix; }
};

/// @brief Reads the size parameter of a test's name.
/// @param[in] test The test's full name.
/// @return The size and the rest of the name; nothing when the name has none.
std::optional<SizeInName> size_in_name(const std::string& test);

/// @brief How much work a test's name says it does, for dealing tests into
/// shares: the input size in a parameterised name ("Suite/Test/n67108864",
/// "n67108864_uniform", a matrix "8192x8192"), counted in units of 2^16
/// elements, and 1 for a name without one.
/// @param[in] test The test's full name.
/// @return Its weight, at least 1.
double test_weight(const std::string& test);

/// @brief Deals tests into @p shares lists of about equal weight (test_weight()):
/// the heaviest first, each onto the lightest share so far, so that the large
/// cases of a lab do not pile up in one share while the others wait; within a
/// share the tests keep the order they came in.
/// @param[in] tests The tests, in listing order.
/// @param[in] shares How many shares, at least 1.
/// @return The shares, some possibly empty.
std::vector<std::vector<std::string>> deal_into_shares(const std::vector<std::string>& tests, int shares);

/// @brief A lab refused before its tests ran (its source uses a name the
/// rubric forbids): no tests, refused set, error the reason.
/// @param[in] lab_id The lab's id.
/// @param[in] reason Why, for the student (see check_lab_source()).
/// @return The run, scored 0 by score_lab().
LabRun refused_run(const std::string& lab_id, const std::string& reason);

/// @brief A lab whose test program did not build (./workbook grade --build-error):
/// no tests, not_built set, error the reason with the first compiler error.
/// @param[in] lab_id The lab's id.
/// @param[in] first_error The build's first error line, "labs/02-abc/abc.cu(57): error: ...".
/// @return The run, scored 0 by score_lab().
LabRun not_built_run(const std::string& lab_id, const std::string& first_error);

/// @brief Seconds as a short human number: "300", "2.5".
/// @param[in] seconds The value.
/// @return The text.
std::string format_seconds(double seconds);

/// @brief The status's name: "passed", "failed" or "skipped".
/// @param[in] status The status.
/// @return The name.
const char* to_string(TestStatus status);

}  // namespace workbook::grader
