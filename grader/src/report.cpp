// The report's totals and the helpers every report format shares; each format
// has its own file: report_terminal.cpp, report_gradescope.cpp,
// report_junit.cpp, report_csv.cpp.
#include "report.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "error.hpp"
#include "failure_analysis.hpp"

namespace workbook::grader {

double total_score(const GradeReport& report) {
  double total = 0;
  for (const LabScore& score : report.scores) total += score.score;
  return total;
}

double total_max_score(const GradeReport& report) {
  double total = 0;
  for (const LabScore& score : report.scores) total += score.max_score;
  return total;
}

std::string header_line(const GradeReport& report) {
  return "GPU: " + report.gpu + " | seed: " + report.seed +
         (report.sandboxed ? " | sandboxed" : " | no sandbox") +
         (report.solutions ? " | grading the reference solutions" : "");
}

std::string calibration_note(const GradeReport& report) {
  if (!report.calibration) return "";
  const std::string& calibrated = report.calibration->gpu;
  const std::size_t end = report.gpu.find(", compute capability");
  if (end == std::string::npos) return "";  // No GPU was queried (a test of the grader).
  const std::string grading = report.gpu.substr(0, end);
  if (grading == calibrated) return "";
  const std::string when = report.calibration->date.empty() ? "" : " (" + report.calibration->date + ")";
  return "Note: the speed targets were calibrated on " + calibrated + when + "; this is " + grading +
         ", where ratios to the yardsticks differ (instructors: ./workbook calibrate writes targets for this "
         "GPU).";
}

std::string header_lines(const GradeReport& report) {
  const std::string note = calibration_note(report);
  return header_line(report) + (note.empty() ? "" : "\n" + note);
}

std::string hide_seed(const std::string& text) {
  // "seed" or WORKBOOK_SEED, then '=' or ':' (with spaces around), then the number.
  static const std::regex seed(R"(((?:\b|_)(?:seed|SEED|Seed)\s*[=:]\s*)\d+)");
  return std::regex_replace(text, seed, "$1hidden");
}

std::string indent_lines(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

std::string first_lines(const std::string& text, std::size_t count) {
  std::size_t at = 0;
  for (std::size_t line = 0; line < count; ++line) {
    at = text.find('\n', at);
    if (at == std::string::npos) return text;
    ++at;
  }
  if (at >= text.size()) return text;
  std::string head = text.substr(0, at - 1);
  return head + (count > 1 ? "\n[...]" : " [...]");
}

std::string message_excerpt(const std::string& message, std::size_t count) {
  std::vector<std::string> own;
  std::vector<std::string> added;
  std::istringstream in(message);
  for (std::string line; std::getline(in, line);) (is_analysis_line(line) ? added : own).push_back(line);
  std::string text;
  for (const std::string& line : own) text += (&line == &own.front() ? "" : "\n") + line;
  text = first_lines(text, count);
  for (const std::string& line : added) text += (text.empty() ? "" : "\n") + line;
  return text;
}

void write_output_file(const std::string& path, const std::string& content) {
  std::error_code error;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw GraderError("cannot write " + path + (error ? " (" + error.message() + ")" : ""));
}

std::string explanation_text(const LabRun& run, const SpeedScore& item) {
  const auto test = std::find_if(run.tests.begin(), run.tests.end(),
                                 [&item](const TestResult& result) { return result.name == item.item.test; });
  if (test == run.tests.end()) return "";
  std::string text;
  for (const std::string& line : test->explanation) text += line + "\n";
  return text;
}

}  // namespace workbook::grader
