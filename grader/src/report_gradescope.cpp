// Gradescope's results.json: one test entry per rubric group and speed item.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "report.hpp"

namespace workbook::grader {
namespace {

// The smallest failing sizes of the group's failing families, before the list
// of its failing tests: where to start.
std::string size_lines(const LabRun& run, const GroupScore& group) {
  std::string lines;
  for (const SizeFinding& finding : run.size_findings) {
    if (std::find(group.failing.begin(), group.failing.end(), finding.smallest) != group.failing.end())
      lines += "\n- " + finding.text;
  }
  return lines.empty() ? "" : "\n" + std::string(kSizeFindingsTitle) + ":" + lines;
}

std::string group_output(const LabRun& run, const GroupScore& group) {
  if (!group.problem.empty()) return group.problem;
  if (run.refused) return "refused: " + run.error;
  if (!run.error.empty()) return "the lab could not be graded: " + run.error;
  if (group.failing.empty()) return "all " + std::to_string(group.matched) + " tests passed";
  std::string out = std::to_string(group.passed) + " of " + std::to_string(group.matched) + " tests passed.";
  out += size_lines(run, group);
  out += "\nFailing:";
  for (const std::string& name : group.failing) {
    const auto test = std::find_if(run.tests.begin(), run.tests.end(),
                                   [&name](const TestResult& t) { return t.name == name; });
    out += "\n- " + name;
    if (test != run.tests.end() && !test->message.empty())
      out += "\n" + indent_lines(message_excerpt(test->message), "    ");
    if (!out.empty() && out.back() == '\n') out.pop_back();
  }
  return out;
}

std::string explanation_output(const LabRun& run, const SpeedScore& item) {
  const std::string why = explanation_text(run, item);
  return why.empty() ? "" : "\n\nWhy it is as fast as it is (Nsight Compute, one untimed call):\n" + why;
}

}  // namespace

nlohmann::json gradescope_json(const GradeReport& report) {
  nlohmann::json tests = nlohmann::json::array();
  std::string notes;
  std::string warnings;
  for (std::size_t i = 0; i < report.runs.size(); ++i) {
    const LabRun& run = report.runs[i];
    const LabScore& score = report.scores[i];
    for (const GroupScore& group : score.groups) {
      const bool passed =
          group.problem.empty() && run.error.empty() && group.matched > 0 && group.failing.empty();
      tests.push_back({{"name", run.lab_id + ": " + group.name},
                       {"score", group.score},
                       {"max_score", group.points},
                       {"status", passed ? "passed" : "failed"},
                       {"visibility", group.visibility},
                       {"output", group_output(run, group)}});
    }
    for (const SpeedScore& item : score.speed) {
      const bool passed = item.scored && item.score >= item.item.points - 1e-9;
      nlohmann::json entry = {
          {"name", run.lab_id + ": " + item.item.name},
          {"score", item.score},
          {"max_score", item.item.points},
          {"status", passed ? "passed" : "failed"},
          {"visibility", item.item.visibility},
          {"output", (item.detail.empty() ? item.summary : item.detail) + explanation_output(run, item)}};
      // What the item measured, for tools (./workbook calibrate reads the ratios).
      nlohmann::json measured = {{"lab", run.lab_id},
                                 {"test", item.item.test},
                                 {"scored", item.scored},
                                 {"target", item.item.target},
                                 {"floor", item.item.floor}};
      if (item.metric) {
        measured["ratio"] = item.metric->ratio;
        measured["value"] = item.metric->value;
        measured["unit"] = item.metric->unit;
        measured["yardstick_value"] = item.metric->yardstick_value;
      }
      entry["extra_data"] = measured;
      tests.push_back(entry);
    }
    for (const std::string& warning : run.warnings) warnings += run.lab_id + ": " + warning + "\n";
    for (const std::string& note : run.notes) notes += run.lab_id + ": " + note + "\n";
    if (!run.error.empty()) notes += run.lab_id + ": " + (run.refused ? "refused: " : "") + run.error + "\n";
  }
  std::string output = header_lines(report) + "\n\n" + format_table(report, false);
  if (!warnings.empty()) output += "\nWarnings (they cost no points):\n" + warnings;
  if (!notes.empty()) output += "\nWhat happened:\n" + notes;
  return {{"score", total_score(report)},
          {"execution_time", report.seconds},
          {"extra_data", {{"gpu", report.gpu}}},
          {"output", output},
          {"tests", tests}};
}

}  // namespace workbook::grader
