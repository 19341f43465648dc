/// @file rubric.hpp
/// @brief The grading rubric (grader/rubric.json): loading and validation.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace workbook::grader {

/// @brief Default wall-clock budget of one lab, seconds, when the rubric gives none.
constexpr double kDefaultLabTimeoutS = 300.0;
/// @brief Default time limit of one test, seconds, when no item naming it gives
/// one (within the lab's budget, which caps it).
constexpr double kDefaultTestTimeoutS = 60.0;

/// @brief Gradescope's values of a test's "visibility": shown at once, never,
/// after the due date, or once the grades are published.
inline const char* const kVisibilities[] = {"visible", "hidden", "after_due_date", "after_published"};

/// @brief Points for correctness: a share of @p points per passing test.
struct RubricGroup {
  std::string name;                      ///< Shown in reports, e.g. "correct for any n".
  std::vector<std::string> tests;        ///< gtest-style globs over "Suite.Name".
  double points = 0;                     ///< Points when every matched test passes.
  std::optional<double> test_timeout_s;  ///< Time limit of each of its tests; default kDefaultTestTimeoutS.
  std::string visibility = "visible";    ///< When Gradescope shows it to the student (see kVisibilities).
};

/// @brief Points for speed, given linearly between floor and target.
struct RubricSpeed {
  std::string name;                      ///< e.g. "bandwidth".
  std::string test;                      ///< The speed test's full name.
  std::string yardstick;                 ///< What the speed is compared with, for reports.
  double target = 1;                     ///< Ratio to the yardstick that earns full points.
  double floor = 0;                      ///< Ratio at or below which the item earns nothing.
  double points = 0;                     ///< Points at or above target.
  std::optional<double> test_timeout_s;  ///< Time limit of its test; default kDefaultTestTimeoutS.
  std::string visibility = "visible";    ///< When Gradescope shows it to the student (see kVisibilities).
};

/// @brief A name the lab's source may not use (e.g. "cub" in a lab timed
/// against CUB). A file that uses it is refused: the lab scores 0.
struct ForbiddenName {
  std::string name;  ///< An identifier, matched as a whole token: "cub", "thrust", "CountScan".
  std::string why;   ///< One line for the student: why, and what to do instead.
};

/// @brief What a barrier that only some threads reach costs (see
/// barrier_checks.hpp): the rubric's "barrier_in_divergent_code".
enum class BarrierPolicy {
  warn,  ///< A warning in the report, no points taken (the default).
  fail   ///< The lab is refused, like a forbidden name: it scores 0 and its tests are not run.
};

/// @brief One lab's rubric.
struct LabRubric {
  std::string title;                       ///< Human title.
  double timeout_s = kDefaultLabTimeoutS;  ///< Budget for all of the lab's processes.
  std::vector<RubricGroup> groups;         ///< Correctness groups.
  std::vector<RubricSpeed> speed;          ///< Speed items.
  std::vector<ForbiddenName> forbidden;    ///< Names the lab's source may not use.
  /// Tests that --sanitize runs under each tool (globs); empty: every test
  /// small_enough_to_sanitize() accepts.
  std::vector<std::string> sanitize_tests;
  /// Tools whose findings fail tests (default: all four); the others' are notes.
  std::vector<std::string> sanitize_gate;
  /// What a barrier in divergent code costs: "warn" (default) or "fail".
  BarrierPolicy barrier_in_divergent_code = BarrierPolicy::warn;
};

/// @brief Where the speed targets were measured: the rubric's optional
/// "calibration" object, written by ./workbook calibrate (tools/calibrate.py).
/// On another GPU the report says, in one line, that its targets come from this one.
struct RubricCalibration {
  std::string gpu;     ///< The device's name, e.g. "NVIDIA H200" (compared with the grading GPU's).
  std::string driver;  ///< e.g. "570.124.06"; empty when not recorded.
  std::string cuda;    ///< e.g. "13.0"; empty when not recorded.
  std::string date;    ///< e.g. "2026-11-29"; empty when not recorded.
};

/// @brief The whole rubric.
struct Rubric {
  std::string path;                              ///< Where it was read from.
  std::map<std::string, LabRubric> labs;         ///< By lab id.
  std::optional<RubricCalibration> calibration;  ///< Where its speed targets were measured, if recorded.
};

/// @brief Validates and converts a parsed rubric.
/// @param[in] root The parsed JSON.
/// @param[in] path The file, for messages.
/// @return The rubric.
/// @throws GraderError "rubric <path>: <where>: <problem>" (one line).
Rubric parse_rubric(const nlohmann::json& root, const std::string& path);

/// @brief Reads, parses and validates a rubric file.
/// @param[in] path The file.
/// @return The rubric.
/// @throws GraderError (one line naming the file) when it is missing or malformed.
Rubric load_rubric(const std::string& path);

/// @brief Checks that every lab of the build has a rubric entry.
/// @param[in] rubric The rubric.
/// @param[in] lab_ids Every lab id in the manifest.
/// @throws GraderError naming the rubric file and the first lab without an entry.
void check_rubric_covers(const Rubric& rubric, const std::vector<std::string>& lab_ids);

}  // namespace workbook::grader
