/// @file report.hpp
/// @brief The grade reports: terminal table, Gradescope results.json, JUnit XML.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lab_runner.hpp"
#include "scoring.hpp"

namespace workbook::grader {

/// @brief Lines of a failure message shown per failing test on the terminal.
constexpr std::size_t kMessageLines = 6;
/// @brief Failing tests listed per lab on the terminal; the rest are counted.
constexpr std::size_t kFailuresShownPerLab = 10;

/// @brief The title of the smallest failing sizes (LabRun::size_findings) in the reports.
constexpr const char* kSizeFindingsTitle = "Where the failures start (debug the smallest failing size first)";

/// @brief Columns the terminal table keeps within (the Speed column wraps to fit).
constexpr std::size_t kTableWidth = 100;
/// @brief Between a lab's speed figures in the table.
constexpr const char* kSpeedSeparator = "; ";

/// @brief Everything a report shows.
struct GradeReport {
  std::string gpu;  ///< e.g. "NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs".
  std::optional<RubricCalibration> calibration;  ///< The rubric's: where its speed targets were measured.
  std::string seed;                              ///< The seed, "default", or "hidden" (see hide_seed()).
  bool solutions = false;                        ///< Graded the reference solutions.
  bool sandboxed = false;                        ///< The test programs ran in the sandbox.
  std::vector<LabRun> runs;                      ///< One per lab graded.
  std::vector<LabScore> scores;                  ///< Same order as runs.
  double seconds = 0;                            ///< Wall-clock time of the whole grading.
  std::string log_dir;                           ///< Where the labs' logs are kept.
};

/// @brief Sum of the scores.
/// @param[in] report The report.
/// @return Total points earned.
double total_score(const GradeReport& report);

/// @brief Sum of the maximum scores.
/// @param[in] report The report.
/// @return Total points possible.
double total_max_score(const GradeReport& report);

/// @brief The header line: GPU, compute capability, SMs, seed.
/// @param[in] report The report.
/// @return One line, no newline.
std::string header_line(const GradeReport& report);

/// @brief The line under the header when the rubric's speed targets were
/// calibrated on another GPU than the one grading ("" otherwise, and when the
/// rubric records none): the ratios differ between GPUs, and the instructor
/// can calibrate for this one.
/// @param[in] report The report.
/// @return One line, no newline, or "".
std::string calibration_note(const GradeReport& report);

/// @brief header_line(), and calibration_note() under it when there is one.
/// @param[in] report The report.
/// @return One or two lines, no final newline.
std::string header_lines(const GradeReport& report);

/// @brief Text with every seed it names hidden: "seed=N", "seed: N" and
/// "WORKBOOK_SEED=N" become "seed=hidden" and so on. The reports of a grade
/// with the instructor's seed go through it unless --show-seed: the tests'
/// failure messages and the rerun hints name the seed, and a student who knew
/// it could generate the graded inputs ahead of time.
/// @param[in] text A report, or any text of one.
/// @return The text without seeds.
std::string hide_seed(const std::string& text);

/// @brief A speed item's short figure for the table: its ratio and the
/// rubric's target, "575.3% (>=300%)" (ASCII, so that it reads the same when
/// piped); when it is not scored, why not ("not measured"). The full line is
/// in the Speed section below the table.
/// @param[in] speed The item's score.
/// @return The figure.
std::string speed_figure(const SpeedScore& speed);

/// @brief Joins @p items with kSpeedSeparator into lines of at most @p width
/// characters, breaking only between items; an item longer than @p width on
/// its own is cut, ending in "...".
/// @param[in] items The items, in order.
/// @param[in] width The most characters a line may have (at least 4).
/// @return The lines; none when there are no items.
std::vector<std::string> wrap_items(const std::vector<std::string>& items, std::size_t width);

/// @brief The table of labs (Lab | Tests | Speed | Points) and the Total line,
/// within kTableWidth columns: a lab's speed figures that do not fit on its
/// line continue on the lines below it, in the Speed column.
/// @param[in] report The report.
/// @param[in] color Whether to use ANSI colours.
/// @return Lines ending in '\n'.
std::string format_table(const GradeReport& report, bool color);

/// @brief What --explain found for a speed item (TestResult::explanation),
/// one line each, every line ending in '\n'.
/// @param[in] run The lab's run.
/// @param[in] item The speed item.
/// @return The lines, or "" when the item was not profiled.
std::string explanation_text(const LabRun& run, const SpeedScore& item);

/// @brief The whole terminal report: header, table, then failing tests, speed
/// lines, notes and rubric problems.
/// @param[in] report The report.
/// @param[in] color Whether to use ANSI colours.
/// @return The text.
std::string format_terminal_report(const GradeReport& report, bool color);

/// @brief Gradescope's results.json: one test entry per rubric group and speed item.
/// @param[in] report The report.
/// @return The JSON document.
nlohmann::json gradescope_json(const GradeReport& report);

/// @brief JUnit XML: one testsuite per lab, one testcase per test.
/// @param[in] report The report.
/// @return The XML document.
std::string junit_xml(const GradeReport& report);

/// @brief The header of a CSV gradebook: "student,<lab>,...,total,max".
/// @param[in] lab_ids The graded labs, in order: they name the columns.
/// @return The header line, without a newline.
std::string gradebook_csv_header(const std::vector<std::string>& lab_ids);

/// @brief Checks, before any grading, that the gradebook at @p path is new,
/// empty, or has the header of these labs.
/// @param[in] path The CSV file.
/// @param[in] lab_ids The labs about to be graded.
/// @throws GraderError (one line) when its header names other labs.
void check_gradebook(const std::string& path, const std::vector<std::string>& lab_ids);

/// @brief One gradebook row: the student's name, each lab's points, the total
/// and the maximum, comma-separated (the name quoted when it needs to be).
/// @param[in] report The report.
/// @param[in] student The student's name or id.
/// @return The row, without a newline.
std::string gradebook_csv_row(const GradeReport& report, const std::string& student);

/// @brief Adds @p student's row to the gradebook at @p path, writing the
/// header first when the file is new or empty.
/// @param[in] path The CSV file.
/// @param[in] report The report.
/// @param[in] student The student's name or id.
/// @throws GraderError when the file's header names other labs (a gradebook
/// mixes no lab sets), or when it cannot be written.
void append_to_gradebook(const std::string& path, const GradeReport& report, const std::string& student);

/// @brief Escapes text for XML content or attribute values: &, <, >, quotes;
/// in attributes also newlines and tabs (as character references). Control
/// characters XML 1.0 forbids become '?'.
/// @param[in] text The text.
/// @param[in] attribute Whether it goes in an attribute value.
/// @return The escaped text.
std::string xml_escape(std::string_view text, bool attribute = false);

/// @brief Each line of @p text with @p prefix in front, every line ending in '\n'.
/// @param[in] text The text.
/// @param[in] prefix What goes before each line.
/// @return The indented text.
std::string indent_lines(const std::string& text, const std::string& prefix);

/// @brief The first @p count lines of @p text, with "[...]" when cut.
/// @param[in] text The text.
/// @param[in] count How many lines.
/// @return The lines.
std::string first_lines(const std::string& text, std::size_t count);

/// @brief A failing test's message as the reports quote it: its first @p
/// count lines, then every line the failure analysis added at its end (the
/// race, the handout's lines: see is_analysis_line()), which are never cut.
/// @param[in] message The test's message.
/// @param[in] count How many of the test's own lines.
/// @return The lines.
std::string message_excerpt(const std::string& message, std::size_t count = kMessageLines);

/// @brief Writes a file, creating its parent directories.
/// @param[in] path The file.
/// @param[in] content What to write.
/// @throws GraderError when it cannot be written.
void write_output_file(const std::string& path, const std::string& content);

}  // namespace workbook::grader
