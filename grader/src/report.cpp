#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.hpp"

namespace workbook::grader {
namespace {

const char* const kGreen = "\x1b[32m";
const char* const kRed = "\x1b[31m";
const char* const kYellow = "\x1b[33m";
const char* const kBold = "\x1b[1m";
const char* const kReset = "\x1b[0m";

std::string points_text(double score, double max_score) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f/%g", score, max_score);
  return text;
}

const char* grade_color(double score, double max_score) {
  if (max_score <= 0 || score >= max_score - 1e-9) return kGreen;
  return score <= 1e-9 ? kRed : kYellow;
}

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? std::string(code) + text + kReset : text;
}

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

std::string tests_cell(const LabRun& run, const LabScore& score) {
  if (run.refused) return "refused";
  if (!run.error.empty()) return "error";
  return std::to_string(score.passed) + "/" + std::to_string(score.total) +
         (run.timed_out ? " (timed out)" : "");
}

// The Speed column is never narrower than "not scored: fails correctness",
// so that a skeleton's row is never cut, however wide the other columns are.
constexpr std::size_t kMinSpeedWidth = 29;
const char* const kColumnGap = "  ";

std::vector<std::string> speed_figures(const LabScore& score) {
  if (score.speed.empty()) return {"-"};
  std::vector<std::string> figures;
  for (const SpeedScore& speed : score.speed) {
    figures.push_back(speed_figure(speed));
    if (!score.correct) break;  // One "not scored: fails correctness" says it all.
  }
  return figures;
}

std::size_t joined_width(const std::vector<std::string>& items) {
  std::size_t width = 0;
  for (const std::string& item : items)
    width += (width == 0 ? 0 : std::strlen(kSpeedSeparator)) + item.size();
  return width;
}

struct TableRow {
  std::string lab;
  std::string tests;
  std::vector<std::string> speed;  // One figure per speed item, wrapped to the column.
  std::string points;
  const char* tests_color;
  const char* points_color;
};

struct TableWidths {
  std::size_t lab = 3;    // "Lab"
  std::size_t tests = 5;  // "Tests"
  std::size_t speed = 5;  // "Speed"
};

TableRow lab_row(const LabRun& run, const LabScore& score) {
  const bool all_pass = run.error.empty() && score.passed == score.total;
  return {run.lab_id,
          tests_cell(run, score),
          speed_figures(score),
          points_text(score.score, score.max_score),
          all_pass ? kGreen : (score.passed == 0 ? kRed : kYellow),
          grade_color(score.score, score.max_score)};
}

TableRow total_row(const GradeReport& report) {
  std::size_t passed = 0;
  std::size_t total = 0;
  for (const LabScore& score : report.scores) {
    passed += score.passed;
    total += score.total;
  }
  const double sum = total_score(report);
  const double max_sum = total_max_score(report);
  return {"Total", std::to_string(passed) + "/" + std::to_string(total),
          {},      points_text(sum, max_sum),
          kBold,   grade_color(sum, max_sum)};
}

// The Speed column's lines wrap at what the other columns leave of
// kTableWidth; the column is as wide as its widest line.
TableWidths table_widths(const std::vector<TableRow>& rows) {
  TableWidths widths;
  std::size_t points = std::strlen("Points");
  std::size_t one_line = widths.speed;
  for (const TableRow& row : rows) {
    widths.lab = std::max(widths.lab, row.lab.size());
    widths.tests = std::max(widths.tests, row.tests.size());
    points = std::max(points, row.points.size());
    one_line = std::max(one_line, joined_width(row.speed));
  }
  const std::size_t others = widths.lab + widths.tests + points + 3 * std::strlen(kColumnGap);
  const std::size_t room = others < kTableWidth ? kTableWidth - others : 0;
  const std::size_t wrap_at = std::min(one_line, std::max(room, kMinSpeedWidth));
  // Wrapping again at the widest wrapped line's width breaks the same lines.
  for (const TableRow& row : rows) {
    for (const std::string& line : wrap_items(row.speed, wrap_at))
      widths.speed = std::max(widths.speed, line.size());
  }
  return widths;
}

// The row's line, then a line per wrapped piece of its Speed cell.
std::string row_lines(const TableRow& row, const TableWidths& widths, bool color) {
  std::vector<std::string> speed = wrap_items(row.speed, widths.speed);
  if (speed.empty()) speed.emplace_back();
  std::string out = pad(row.lab, widths.lab) + kColumnGap +
                    paint(pad(row.tests, widths.tests), row.tests_color, color) + kColumnGap +
                    pad(speed[0], widths.speed) + kColumnGap + paint(row.points, row.points_color, color) +
                    "\n";
  const std::string blank(widths.lab + widths.tests + 2 * std::strlen(kColumnGap), ' ');
  for (std::size_t i = 1; i < speed.size(); ++i) out += blank + speed[i] + "\n";
  return out;
}

std::string group_output(const LabRun& run, const GroupScore& group) {
  if (!group.problem.empty()) return group.problem;
  if (run.refused) return "refused: " + run.error;
  if (!run.error.empty()) return "the lab could not be graded: " + run.error;
  if (group.failing.empty()) return "all " + std::to_string(group.matched) + " tests passed";
  std::string out =
      std::to_string(group.passed) + " of " + std::to_string(group.matched) + " tests passed. Failing:";
  for (const std::string& name : group.failing) {
    const auto test = std::find_if(run.tests.begin(), run.tests.end(),
                                   [&name](const TestResult& t) { return t.name == name; });
    out += "\n- " + name;
    if (test != run.tests.end() && !test->message.empty())
      out += "\n" + indent(first_lines(test->message, kMessageLines), "    ");
    if (!out.empty() && out.back() == '\n') out.pop_back();
  }
  return out;
}

}  // namespace

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
         (report.solutions ? " | grading the reference solutions" : "");
}

std::string speed_figure(const SpeedScore& speed) {
  if (!speed.scored) return speed.summary;
  return format_percent(speed.metric->ratio, 1) + " (>=" + format_percent(speed.item.target, 0) + ")";
}

std::vector<std::string> wrap_items(const std::vector<std::string>& items, std::size_t width) {
  width = std::max<std::size_t>(width, 4);  // Room for one character and "...".
  const std::size_t separator = std::strlen(kSpeedSeparator);
  std::vector<std::string> lines;
  for (const std::string& item : items) {
    const std::string piece = item.size() <= width ? item : item.substr(0, width - 3) + "...";
    if (!lines.empty() && lines.back().size() + separator + piece.size() <= width) {
      lines.back() += kSpeedSeparator + piece;
    } else {
      lines.push_back(piece);
    }
  }
  return lines;
}

std::string format_table(const GradeReport& report, bool color) {
  std::vector<TableRow> rows;
  for (std::size_t i = 0; i < report.runs.size(); ++i)
    rows.push_back(lab_row(report.runs[i], report.scores[i]));
  rows.push_back(total_row(report));
  const TableWidths widths = table_widths(rows);
  std::string out = paint(pad("Lab", widths.lab) + kColumnGap + pad("Tests", widths.tests) + kColumnGap +
                              pad("Speed", widths.speed) + kColumnGap + "Points",
                          kBold, color) +
                    "\n";
  for (const TableRow& row : rows) out += row_lines(row, widths, color);
  return out;
}

std::string format_terminal_report(const GradeReport& report, bool color) {
  std::string out = header_line(report) + "\n\n" + format_table(report, color);

  std::string failing;
  std::string refused;
  std::string errors;
  std::string speed;
  std::string notes;
  std::string problems;
  std::string unscored;
  for (std::size_t i = 0; i < report.runs.size(); ++i) {
    const LabRun& run = report.runs[i];
    const LabScore& score = report.scores[i];
    if (run.refused) {
      const std::size_t newline = run.error.find('\n');
      refused += "  " + paint(run.lab_id, kBold, color) + ": " + run.error.substr(0, newline) + "\n";
      if (newline != std::string::npos) refused += indent(run.error.substr(newline + 1), "    ");
    } else if (!run.error.empty()) {
      errors += "  " + run.lab_id + ": " + run.error + "\n";
    }
    std::size_t shown = 0;
    std::size_t hidden = 0;
    for (const TestResult& test : run.tests) {
      if (test.status != TestStatus::failed) continue;
      // An untouched skeleton fails everything; a screenful per lab is enough.
      if (shown == kFailuresShownPerLab) {
        ++hidden;
        continue;
      }
      ++shown;
      failing += "  " + paint(run.lab_id, kBold, color) + "  " + paint(test.name, kRed, color) + "\n";
      if (!test.message.empty()) failing += indent(first_lines(test.message, kMessageLines), "      ");
    }
    if (hidden > 0) {
      failing += "  " + run.lab_id + ": " + std::to_string(hidden) +
                 " more failing tests (every one is in the --junit and --json reports)\n";
    }
    for (const SpeedScore& item : score.speed) {
      speed += "  " + run.lab_id + " " + item.item.name + ": " +
               (item.detail.empty() ? item.summary : item.detail) + " -> " +
               points_text(item.score, item.item.points) + " points\n";
    }
    for (const std::string& note : run.notes) notes += "  " + run.lab_id + ": " + note + "\n";
    for (const GroupScore& group : score.groups) {
      if (!group.problem.empty()) problems += "  " + run.lab_id + ": " + group.problem + "\n";
    }
    if (!score.unscored.empty()) {
      std::string names;
      for (const std::string& name : score.unscored) names += (names.empty() ? "" : ", ") + name;
      unscored += "  " + run.lab_id + ": " + names + "\n";
    }
  }
  const auto section = [&out, color](const std::string& title, const std::string& body) {
    if (!body.empty()) out += "\n" + paint(title, kBold, color) + "\n" + body;
  };
  section("Labs refused: their source uses what the rubric forbids", refused);
  section("Labs that could not be graded", errors);
  section("Failing tests", failing);
  section("Speed", speed);
  section("What happened", notes);
  section("Rubric problems", problems);
  section("Tests worth no points", unscored);
  if (!report.log_dir.empty()) out += "\nLogs of the test programs: " + report.log_dir + "\n";
  return out;
}

nlohmann::json gradescope_json(const GradeReport& report) {
  nlohmann::json tests = nlohmann::json::array();
  std::string notes;
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
                       {"output", group_output(run, group)}});
    }
    for (const SpeedScore& item : score.speed) {
      const bool passed = item.scored && item.score >= item.item.points - 1e-9;
      tests.push_back({{"name", run.lab_id + ": " + item.item.name},
                       {"score", item.score},
                       {"max_score", item.item.points},
                       {"status", passed ? "passed" : "failed"},
                       {"output", (item.detail.empty() ? item.summary : item.detail)}});
    }
    for (const std::string& note : run.notes) notes += run.lab_id + ": " + note + "\n";
    if (!run.error.empty()) notes += run.lab_id + ": " + (run.refused ? "refused: " : "") + run.error + "\n";
  }
  std::string output = header_line(report) + "\n\n" + format_table(report, false);
  if (!notes.empty()) output += "\nWhat happened:\n" + notes;
  return {{"score", total_score(report)},
          {"execution_time", report.seconds},
          {"output", output},
          {"tests", tests}};
}

std::string junit_xml(const GradeReport& report) {
  const auto seconds = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return std::string(text);
  };
  std::string suites;
  std::size_t all_tests = 0;
  std::size_t all_failures = 0;
  std::size_t all_skipped = 0;
  for (const LabRun& run : report.runs) {
    std::size_t failures = 0;
    std::size_t skipped = 0;
    std::string cases;
    if (!run.error.empty()) {
      ++failures;
      cases += "    <testcase classname=\"" + xml_escape(run.lab_id, true) + "\" name=\"" +
               (run.refused ? "(forbidden names)" : "(lab)") +
               "\" time=\"0.000\">\n"
               "      <failure message=\"" +
               xml_escape(first_lines(run.error, 1), true) + "\">" + xml_escape(run.error) +
               "</failure>\n    </testcase>\n";
    }
    for (const TestResult& test : run.tests) {
      cases += "    <testcase classname=\"" + xml_escape(run.lab_id, true) + "\" name=\"" +
               xml_escape(test.name, true) + "\" time=\"" + seconds(test.time_ms / 1000.0) + "\"";
      if (test.status == TestStatus::passed) {
        cases += "/>\n";
        continue;
      }
      const std::string summary =
          test.message.empty() ? to_string(test.status) : first_lines(test.message, 1);
      if (test.status == TestStatus::skipped) {
        ++skipped;
        cases += ">\n      <skipped message=\"" + xml_escape(summary, true) + "\"/>\n    </testcase>\n";
      } else {
        ++failures;
        cases += ">\n      <failure message=\"" + xml_escape(summary, true) + "\">" +
                 xml_escape(test.message) + "</failure>\n    </testcase>\n";
      }
    }
    const std::size_t count = run.tests.size() + (run.error.empty() ? 0 : 1);
    all_tests += count;
    all_failures += failures;
    all_skipped += skipped;
    suites += "  <testsuite name=\"" + xml_escape(run.lab_id, true) + "\" tests=\"" + std::to_string(count) +
              "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
              std::to_string(skipped) + "\" time=\"" + seconds(run.seconds) + "\">\n" + cases;
    if (!run.notes.empty()) {
      std::string notes;
      for (const std::string& note : run.notes) notes += note + "\n";
      suites += "    <system-out>" + xml_escape(notes) + "</system-out>\n";
    }
    suites += "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"workbook\" tests=\"" +
         std::to_string(all_tests) + "\" failures=\"" + std::to_string(all_failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(all_skipped) + "\" time=\"" + seconds(report.seconds) +
         "\">\n" + suites + "</testsuites>\n";
}

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += attribute ? "&#13;" : "\r";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        // XML 1.0 allows no other control characters, not even escaped.
        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    }
  }
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

void write_output_file(const std::string& path, const std::string& content) {
  std::error_code error;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw GraderError("cannot write " + path + (error ? " (" + error.message() + ")" : ""));
}

namespace {
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string points(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}
}  // namespace

static std::vector<std::string> lab_ids_of(const GradeReport& report) {
  std::vector<std::string> ids;
  for (const LabScore& lab : report.scores) ids.push_back(lab.lab_id);
  return ids;
}

std::string gradebook_csv_header(const std::vector<std::string>& lab_ids) {
  std::string line = "student";
  for (const std::string& id : lab_ids) line += "," + csv_field(id);
  return line + ",total,max";
}

std::string gradebook_csv_row(const GradeReport& report, const std::string& student) {
  std::string line = csv_field(student);
  for (const LabScore& lab : report.scores) line += "," + points(lab.score);
  return line + "," + points(total_score(report)) + "," + points(total_max_score(report));
}

void check_gradebook(const std::string& path, const std::vector<std::string>& lab_ids) {
  std::string existing;
  std::ifstream in(path, std::ios::binary);
  if (in) std::getline(in, existing);
  const std::string header = gradebook_csv_header(lab_ids);
  if (!existing.empty() && existing != header) {
    throw GraderError(path + " is a gradebook of other labs (its header is '" + existing +
                      "', this grading's is '" + header + "'); grade the same labs or start a new file");
  }
}

void append_to_gradebook(const std::string& path, const GradeReport& report, const std::string& student) {
  const std::vector<std::string> ids = lab_ids_of(report);
  check_gradebook(path, ids);
  std::error_code error;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  const bool fresh = !std::filesystem::exists(file, error) || std::filesystem::file_size(file, error) == 0;
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (fresh) out << gradebook_csv_header(ids) << "\n";
  out << gradebook_csv_row(report, student) << "\n";
  out.close();
  if (!out) throw GraderError("cannot write " + path + (error ? " (" + error.message() + ")" : ""));
}

}  // namespace workbook::grader
