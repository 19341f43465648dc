#include "scoring.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include "glob.hpp"

namespace workbook::grader {
namespace {

const TestResult* find_test(const LabRun& run, const std::string& name) {
  for (const TestResult& test : run.tests) {
    if (test.name == name) return &test;
  }
  return nullptr;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

double speed_fraction(double ratio, double floor, double target) {
  if (!(target > floor)) return ratio >= target ? 1.0 : 0.0;
  return std::clamp((ratio - floor) / (target - floor), 0.0, 1.0);
}

std::string format_percent(double ratio, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f%%", decimals, 100.0 * ratio);
  return text;
}

std::string short_yardstick(const std::string& yardstick) {
  std::string text = replace_all(yardstick, "device-to-device ", "");
  text = replace_all(text, "bandwidth", "bw");
  return text;
}

LabScore score_lab(const LabRubric& rubric, const LabRun& run) {
  LabScore lab;
  lab.lab_id = run.lab_id;
  lab.title = rubric.title;
  lab.total = run.tests.size();
  for (const TestResult& test : run.tests) {
    if (test.status == TestStatus::passed) ++lab.passed;
  }

  std::set<std::string> named;  // Tests some rubric item refers to.
  bool all_group_tests_pass = true;
  for (const RubricGroup& group : rubric.groups) {
    GroupScore score;
    score.name = group.name;
    score.points = group.points;
    score.visibility = group.visibility;
    for (const TestResult& test : run.tests) {
      if (!matches_any(group.tests, test.name)) continue;
      named.insert(test.name);
      ++score.matched;
      if (test.status == TestStatus::passed) {
        ++score.passed;
      } else {
        score.failing.push_back(test.name);
      }
    }
    if (score.matched == 0) {
      // When the lab never ran, the lab's error explains it; otherwise the
      // rubric names tests that do not exist.
      if (run.error.empty()) {
        std::string globs;
        for (const std::string& glob : group.tests) globs += (globs.empty() ? "" : ", ") + glob;
        score.problem = "rubric problem: group '" + group.name + "' matches no test (" + globs + ")";
      }
    } else {
      // A group is all or nothing: its tests together show one skill, and a
      // partly done lab (or the untouched skeleton) must not collect points
      // from tests that happen to pass on the code it was given.
      const bool group_passes = score.passed == score.matched;
      score.score = group_passes ? group.points : 0.0;
      if (!group_passes) all_group_tests_pass = false;
    }
    lab.score += score.score;
    lab.max_score += score.points;
    lab.groups.push_back(score);
  }
  lab.correct = all_group_tests_pass && run.error.empty();

  for (const RubricSpeed& item : rubric.speed) {
    SpeedScore score;
    score.item = item;
    named.insert(item.test);
    const TestResult* test = find_test(run, item.test);
    if (test != nullptr) score.metric = test->speed;
    const std::string target_text =
        "target " + format_percent(item.target, 0) + ", floor " + format_percent(item.floor, 0);
    if (score.metric) {
      const SpeedMetric& m = *score.metric;
      char line[512];
      std::snprintf(line, sizeof line, "%.1f %s = %s of %s (%.1f %s); %s", m.value, m.unit.c_str(),
                    format_percent(m.ratio, 1).c_str(), item.yardstick.c_str(), m.yardstick_value,
                    m.unit.c_str(), target_text.c_str());
      score.detail = line;
    }
    if (run.refused) {
      score.summary = "not scored: refused";
      score.detail = "not scored: the lab was refused (its source uses what this lab forbids)";
    } else if (!lab.correct) {
      score.summary = "not scored: fails correctness";
      score.detail = (score.detail.empty() ? std::string() : score.detail + "; ") +
                     "not scored: speed points are only for code that passes every correctness test";
    } else if (test == nullptr) {
      score.summary = "not measured";
      score.detail = "not scored: the lab has no test " + item.test;
    } else if (!score.metric) {
      score.summary = "not measured";
      score.detail =
          "not scored: " + item.test + " " + to_string(test->status) + " without reporting a speed" +
          (test->message.empty() ? "" : " (" + test->message.substr(0, test->message.find('\n')) + ")");
    } else {
      score.scored = true;
      score.score = item.points * speed_fraction(score.metric->ratio, item.floor, item.target);
      score.summary = format_percent(score.metric->ratio, 1) + " of " + short_yardstick(item.yardstick) +
                      " (target " + format_percent(item.target, 0) + ")";
    }
    lab.score += score.score;
    lab.max_score += item.points;
    lab.speed.push_back(score);
  }

  for (const TestResult& test : run.tests) {
    if (named.count(test.name) == 0) lab.unscored.push_back(test.name);
  }
  return lab;
}

}  // namespace workbook::grader
