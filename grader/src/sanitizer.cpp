#include "sanitizer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "error.hpp"
#include "glob.hpp"
#include "gtest_protocol.hpp"
#include "process.hpp"

namespace workbook::grader {
namespace {

// Every line compute-sanitizer prints starts with this.
const std::string kPrefix = "========= ";
// Lines of a finding quoted in the test's message: the error, where (kernel,
// source line), which thread, and the address or the other access.
constexpr std::size_t kExcerptLines = 5;

bool starts_with(const std::string& text, const std::string& start) {
  return text.compare(0, start.size(), start) == 0;
}

/// The first line of a finding, as opposed to the banner, a summary or a line
/// that continues a finding (indented).
bool opens_finding(const std::string& body) {
  if (body.empty() || body[0] == ' ') return false;
  for (const char* not_a_finding :
       {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "Target application", "LEAK SUMMARY",
        "Saved host backtrace", "Program hit"}) {
    if (starts_with(body, not_a_finding)) return false;
  }
  return true;
}

std::string join_tools(const std::vector<std::string>& tools) {
  std::string text;
  for (const std::string& tool : tools) text += (text.empty() ? "" : ", ") + tool;
  return text;
}

}  // namespace

const std::vector<std::string>& sanitizer_tools() {
  static const std::vector<std::string> tools = {"memcheck", "racecheck", "synccheck", "initcheck"};
  return tools;
}

std::vector<std::string> parse_sanitizer_tools(const std::string& value) {
  if (value.empty() || value == "all") return sanitizer_tools();
  std::vector<std::string> wanted;
  std::stringstream names(value);
  std::string name;
  while (std::getline(names, name, ',')) {
    const auto& known = sanitizer_tools();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw GraderError("--sanitize: unknown tool '" + name + "'; use all, or some of " + join_tools(known) +
                        " separated by commas");
    }
    wanted.push_back(name);
  }
  std::vector<std::string> ordered;
  for (const std::string& tool : sanitizer_tools()) {
    if (std::find(wanted.begin(), wanted.end(), tool) != wanted.end()) ordered.push_back(tool);
  }
  return ordered;
}

double sanitizer_slowdown(const std::string& tool) {
  // racecheck tracks every shared-memory access; the others cost less.
  return tool == "racecheck" ? 40.0 : 15.0;
}

std::vector<std::string> sanitizer_command(const std::string& tool) {
  std::string program;
  if (const char* chosen = std::getenv("WORKBOOK_COMPUTE_SANITIZER"); chosen != nullptr && *chosen != '\0') {
    program = chosen;
  } else {
    program = find_on_path("compute-sanitizer");
    if (program.empty()) program = "/usr/local/cuda/bin/compute-sanitizer";
  }
  return {program, "--tool", tool, "--print-limit", "20"};
}

bool small_enough_to_sanitize(const std::string& test) {
  if (in_speed_suite(test)) return false;
  static const std::regex size_parameter("/n([0-9]+)");
  for (auto it = std::sregex_iterator(test.begin(), test.end(), size_parameter); it != std::sregex_iterator();
       ++it) {
    const std::string digits = (*it)[1].str();
    if (digits.size() > 18 || std::stoull(digits) > kSanitizerMaxSize) return false;
  }
  return true;
}

std::vector<SanitizerFinding> parse_sanitizer_log(const std::string& log) {
  std::vector<SanitizerFinding> findings;
  std::string current_test;
  std::size_t quoted = kExcerptLines;  // Lines of the open finding quoted so far.
  std::stringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    if (starts_with(line, "[ RUN      ] ")) {
      current_test = line.substr(13);
      quoted = kExcerptLines;
      continue;
    }
    if (!starts_with(line, kPrefix)) continue;
    const std::string body = line.substr(kPrefix.size());
    if (opens_finding(body)) {
      findings.push_back({current_test, body});
      quoted = 1;
    } else if (quoted < kExcerptLines && !body.empty() && body[0] == ' ' && !findings.empty()) {
      findings.back().excerpt += "\n" + body;
      ++quoted;
    } else {
      quoted = kExcerptLines;
    }
  }
  return findings;
}

void apply_sanitizer_findings(const std::string& tool, const std::vector<SanitizerFinding>& findings,
                              const std::string& log_dir, LabRun& run) {
  std::map<std::string, std::size_t> per_test;
  std::size_t outside_tests = 0;
  for (const SanitizerFinding& finding : findings) {
    auto test = std::find_if(run.tests.begin(), run.tests.end(),
                             [&](const TestResult& result) { return result.name == finding.test; });
    if (test == run.tests.end()) {
      ++outside_tests;
      continue;
    }
    if (per_test[finding.test]++ > 0) continue;  // The first finding says enough.
    const std::string message = tool +
                                " found an error in this test (run it under compute-sanitizer --tool " +
                                tool + " to see every finding):\n" + finding.excerpt;
    if (test->status == TestStatus::passed) {
      test->status = TestStatus::failed;
      test->message = message;
    } else if (test->status == TestStatus::failed) {
      test->message += "\n" + message;
    }
  }
  if (!per_test.empty()) {
    run.notes.push_back(tool + ": " + std::to_string(findings.size() - outside_tests) + " finding(s) in " +
                        std::to_string(per_test.size()) + " test(s), which fail; logs in " + log_dir);
  }
  if (outside_tests > 0) {
    run.notes.push_back(tool + ": " + std::to_string(outside_tests) +
                        " finding(s) outside any test (a suite's set-up or clean-up); logs in " + log_dir);
  }
}

namespace {

/// The ordinary run's options, changed to run the lab's sanitizer tests under
/// @p tool with every time limit stretched by its slowdown.
RunOptions options_under(const std::string& tool, const LabRubric& lab, const RunOptions& options) {
  RunOptions under = options;
  under.wrapper = sanitizer_command(tool);
  under.work_dir = options.work_dir + "/" + tool;
  std::filesystem::create_directories(under.work_dir);
  const double slowdown = sanitizer_slowdown(tool);
  under.limits.lab_s *= slowdown;
  under.limits.test_s *= slowdown;
  for (TimeLimits::Item& item : under.limits.items) item.seconds *= slowdown;
  const std::vector<std::string> chosen = lab.sanitize_tests;
  under.select = [chosen](const std::string& test) {
    return chosen.empty() ? small_enough_to_sanitize(test) : matches_any(chosen, test);
  };
  under.unselected_message.clear();
  under.progress = nullptr;
  return under;
}

/// Notes on what a sanitizer run could not check.
void note_unchecked(const std::string& tool, const LabRun& checked, LabRun& run) {
  std::size_t unchecked = 0;
  for (const TestResult& test : checked.tests) {
    if (test.status == TestStatus::failed && test.message.rfind("timed out", 0) == 0) ++unchecked;
  }
  if (!checked.error.empty()) run.notes.push_back(tool + ": not run: " + checked.error);
  if (unchecked > 0) {
    run.notes.push_back(tool + ": " + std::to_string(unchecked) +
                        " test(s) timed out under the sanitizer, so it did not check them");
  }
}

}  // namespace

void run_sanitizers(const std::vector<std::string>& tools, const LabRubric& lab, const RunOptions& options,
                    LabRun& run) {
  for (const std::string& tool : tools) {
    const RunOptions under = options_under(tool, lab, options);
    const LabRun checked = run_lab(run.lab_id, under);
    std::string log;
    for (const std::string& path : checked.logs) log += read_text_file(path);
    const std::vector<SanitizerFinding> findings = parse_sanitizer_log(log);
    const auto& gate = lab.sanitize_gate;
    if (std::find(gate.begin(), gate.end(), tool) != gate.end()) {
      apply_sanitizer_findings(tool, findings, under.work_dir, run);
    } else if (!findings.empty()) {
      run.notes.push_back(tool + ": " + std::to_string(findings.size()) +
                          " finding(s), not scored (this lab's rubric does not gate on " + tool +
                          "); logs in " + under.work_dir);
    }
    note_unchecked(tool, checked, run);
    run.notes.push_back(tool + ": checked " + std::to_string(checked.tests.size()) + " tests in " +
                        format_seconds(std::round(checked.seconds)) + " s");
  }
}

}  // namespace workbook::grader
