/// @file scoring.hpp
/// @brief Turning a lab's test results into points, as the rubric says.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lab_runner.hpp"
#include "rubric.hpp"

namespace workbook::grader {

/// @brief A correctness group's result.
struct GroupScore {
  std::string name;                    ///< The rubric group's name.
  double points = 0;                   ///< Maximum.
  double score = 0;                    ///< points when every matched test passed, else 0.
  std::size_t matched = 0;             ///< Tests the group's globs match.
  std::size_t passed = 0;              ///< Of those, how many passed.
  std::vector<std::string> failing;    ///< Names of matched tests that did not pass.
  std::string problem;                 ///< Rubric problem (matches no test); empty when none.
  std::string visibility = "visible";  ///< The rubric group's Gradescope visibility.
};

/// @brief A speed item's result.
struct SpeedScore {
  RubricSpeed item;                   ///< The rubric item.
  double score = 0;                   ///< Points earned.
  std::optional<SpeedMetric> metric;  ///< What the test measured, when it reported it.
  bool scored = false;                ///< Correctness passed and a ratio was reported.
  std::string summary;                ///< Short text for the table.
  std::string detail;                 ///< The full measured line, or why it is not scored.
};

/// @brief A lab's scores.
struct LabScore {
  std::string lab_id;                 ///< e.g. "02-abc".
  std::string title;                  ///< From the rubric.
  std::vector<GroupScore> groups;     ///< One per rubric group.
  std::vector<SpeedScore> speed;      ///< One per rubric speed item.
  std::vector<std::string> unscored;  ///< Tests no group or speed item names (0 points).
  bool correct = false;               ///< Every group test passed (and there was at least one).
  std::size_t passed = 0;             ///< Tests passed, all of the lab's tests.
  std::size_t total = 0;              ///< All of the lab's tests.
  double score = 0;                   ///< Sum of group and speed scores.
  double max_score = 0;               ///< Sum of their points.
};

/// @brief The share of a speed item's points for a ratio: 0 at or below
/// @p floor, 1 at or above @p target, linear in between.
/// @param[in] ratio Measured speed / yardstick.
/// @param[in] floor The rubric's floor.
/// @param[in] target The rubric's target (> floor).
/// @return A value in [0, 1].
double speed_fraction(double ratio, double floor, double target);

/// @brief Scores one lab. Group score = its points when every test it matches passed, else 0 (0 when the
/// group matches no test). Speed items score only when every group test of the
/// lab passed and the speed test reported a ratio.
/// @param[in] rubric The lab's rubric.
/// @param[in] run The lab's results.
/// @return The scores.
LabScore score_lab(const LabRubric& rubric, const LabRun& run);

/// @brief "98.7%"-style percentage of a ratio.
/// @param[in] ratio e.g. 0.987.
/// @param[in] decimals Digits after the point.
/// @return The text.
std::string format_percent(double ratio, int decimals);

/// @brief A short name for a yardstick, for the table: "device-to-device
/// copy bandwidth" becomes "copy bw".
/// @param[in] yardstick The rubric's yardstick text.
/// @return The short name.
std::string short_yardstick(const std::string& yardstick);

}  // namespace workbook::grader
