// The terminal report: the header, the table of labs (within kTableWidth
// columns) and the sections below it.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "report.hpp"

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

std::string tests_cell(const LabRun& run, const LabScore& score) {
  if (run.refused) return "refused";
  if (run.not_built) return "not built";
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

// A lab's smallest failing sizes, as many as its failing tests shown.
std::string size_finding_lines(const LabRun& run) {
  std::string lines;
  const std::vector<SizeFinding>& findings = run.size_findings;
  for (std::size_t i = 0; i < findings.size() && i < kFailuresShownPerLab; ++i)
    lines += "  " + run.lab_id + ": " + findings[i].text + "\n";
  if (findings.size() > kFailuresShownPerLab) {
    lines += "  " + run.lab_id + ": " + std::to_string(findings.size() - kFailuresShownPerLab) +
             " more (every one is in the --json and --junit reports)\n";
  }
  return lines;
}

}  // namespace

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
  std::string out = header_lines(report) + "\n\n" + format_table(report, color);

  std::string failing;
  std::string sizes;
  std::string refused;
  std::string errors;
  std::string speed;
  std::string explained;
  std::string warnings;
  std::string notes;
  std::string problems;
  std::string unscored;
  for (std::size_t i = 0; i < report.runs.size(); ++i) {
    const LabRun& run = report.runs[i];
    const LabScore& score = report.scores[i];
    if (run.refused) {
      const std::size_t newline = run.error.find('\n');
      refused += "  " + paint(run.lab_id, kBold, color) + ": " + run.error.substr(0, newline) + "\n";
      if (newline != std::string::npos) refused += indent_lines(run.error.substr(newline + 1), "    ");
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
      if (!test.message.empty()) failing += indent_lines(message_excerpt(test.message), "      ");
    }
    if (hidden > 0) {
      failing += "  " + run.lab_id + ": " + std::to_string(hidden) +
                 " more failing tests (every one is in the --junit and --json reports)\n";
    }
    sizes += size_finding_lines(run);
    for (const SpeedScore& item : score.speed) {
      speed += "  " + run.lab_id + " " + item.item.name + ": " +
               (item.detail.empty() ? item.summary : item.detail) + " -> " +
               points_text(item.score, item.item.points) + " points\n";
    }
    for (const SpeedScore& item : score.speed) {
      const std::string why = explanation_text(run, item);
      if (!why.empty())
        explained += "  " + paint(run.lab_id + " " + item.item.name, kBold, color) + "\n" + why;
    }
    for (const std::string& warning : run.warnings) warnings += "  " + run.lab_id + ": " + warning + "\n";
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
  section("Labs refused: their source uses or calls what it may not", refused);
  section("Labs that could not be graded", errors);
  section("Failing tests", failing);
  section(kSizeFindingsTitle, sizes);
  section("Warnings (they cost no points)", warnings);
  section("Speed", speed);
  section("Why it is as fast as it is (Nsight Compute, one untimed call; no points depend on it)", explained);
  section("What happened", notes);
  section("Rubric problems", problems);
  section("Tests worth no points", unscored);
  if (!report.log_dir.empty()) out += "\nLogs of the test programs: " + report.log_dir + "\n";
  return out;
}

}  // namespace workbook::grader
