/// @file ncu_profile.hpp
/// @brief Nsight Compute for --explain: the command that profiles one speed
/// item's call (the harness's profile mode, workbook/speed.hpp), and reading
/// what it printed: one row of counters per kernel launch, split into the
/// student's launches and the yardstick's at the harness's mark kernels.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace workbook::grader {

/// @brief The mark kernel launched before the student's call (common/src/profile_marks.cu).
inline constexpr const char* kYoursMark = "workbook_profile_mark_yours";
/// @brief The mark kernel launched before the yardstick's call.
inline constexpr const char* kYardstickMark = "workbook_profile_mark_yardstick";

/// @brief The counters one kernel launch was profiled with.
struct KernelProfile {
  std::string name;                       ///< The kernel's function name.
  std::map<std::string, double> metrics;  ///< By metric name, in base units (bytes, ns, counts, %).

  /// @brief A counter's value.
  /// @param[in] metric The metric's name.
  /// @return The value, or nothing when ncu did not report a number for it.
  std::optional<double> get(const std::string& metric) const;

  /// @brief A counter's value, or @p fallback when it is missing.
  /// @param[in] metric The metric's name.
  /// @param[in] fallback The value when missing.
  /// @return The value.
  double value_or(const std::string& metric, double fallback) const;
};

/// @brief The launches of one profiled speed item.
struct ProfiledCall {
  std::vector<KernelProfile> yours;      ///< The student's call's kernels, in launch order.
  std::vector<KernelProfile> yardstick;  ///< The yardstick's.
};

/// @brief The metrics --explain asks Nsight Compute for (the diagnosis rules
/// in explain.cpp read them by these names).
/// @return The names, each with its roll-up (".sum", ".pct", ...).
const std::vector<std::string>& explain_metrics();

/// @brief The Nsight Compute to run: WORKBOOK_NCU when set, else `ncu` on the
/// PATH, else /usr/local/cuda/bin/ncu when it exists.
/// @return Its path, or "" when there is none.
std::string find_ncu();

/// @brief The command to put before a lab's test program so that ncu profiles
/// what the harness's profile mode brackets (--profile-from-start off) and
/// writes one CSV row per launch (raw page, base units) to @p log_path.
/// @param[in] ncu find_ncu()'s answer.
/// @param[in] log_path Where ncu writes its output (not the program's).
/// @return argv to put before the test program's.
std::vector<std::string> ncu_command(const std::string& ncu, const std::string& log_path);

/// @brief Splits one line of CSV into its fields ("a","b,c" -> a | b,c).
/// @param[in] line The line, without its newline.
/// @return The fields, unquoted.
std::vector<std::string> split_csv_line(const std::string& line);

/// @brief Reads ncu's `--csv --page raw` output: the header row, a units row,
/// then one row per launch. Lines that are not CSV (ncu's ==PROF== lines)
/// are skipped; numbers may carry thousands separators ("268,454,144").
/// @param[in] text What ncu wrote to its log file.
/// @return The launches, in the order ncu profiled them.
std::vector<KernelProfile> parse_ncu_csv(const std::string& text);

/// @brief Splits launches at the marks: those after kYoursMark are the
/// student's, those after kYardstickMark the yardstick's; the marks
/// themselves and anything before the first are dropped.
/// @param[in] launches parse_ncu_csv()'s answer.
/// @return The two lists.
ProfiledCall split_at_marks(const std::vector<KernelProfile>& launches);

/// @brief Why ncu could not profile, read from its output: no permission to
/// read the counters (ERR_NVGPUCTRPERM), with what to do about it; "" when
/// the text shows no such refusal.
/// @param[in] text ncu's log and the program's output.
/// @return One line for the student, or "".
std::string ncu_refusal(const std::string& text);

}  // namespace workbook::grader
