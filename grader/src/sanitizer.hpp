/// @file sanitizer.hpp
/// @brief Sanitizer mode (`--sanitize`): a lab's small correctness tests run
/// again under compute-sanitizer, one tool at a time, and each finding fails
/// the test during which the sanitizer printed it.
#pragma once

#include <string>
#include <vector>

#include "lab_runner.hpp"
#include "rubric.hpp"

namespace workbook::grader {

/// @brief The compute-sanitizer tools, in the order sanitizer mode runs them.
const std::vector<std::string>& sanitizer_tools();

/// @brief Parses the value of --sanitize: "all" (or empty) for every tool, else
/// a comma-separated list of tool names.
/// @param[in] value The option's value.
/// @return The tools, in sanitizer_tools() order.
/// @throws GraderError naming an unknown tool and the known ones.
std::vector<std::string> parse_sanitizer_tools(const std::string& value);

/// @brief How much slower a program runs under @p tool (a generous figure:
/// the time limits of a sanitizer run are multiplied by it).
/// @param[in] tool A name from sanitizer_tools().
/// @return The factor.
double sanitizer_slowdown(const std::string& tool);

/// @brief The command that runs a test program under @p tool: the
/// compute-sanitizer found in WORKBOOK_COMPUTE_SANITIZER, else on the PATH,
/// else in /usr/local/cuda/bin, with the tool and a print limit.
/// @param[in] tool A name from sanitizer_tools().
/// @return argv to put before the test program's.
std::vector<std::string> sanitizer_command(const std::string& tool);

/// @brief True for the tests sanitizer mode checks when the rubric names none:
/// not a speed test (suite *Speed), and no size parameter ("/n<digits>")
/// above kSanitizerMaxSize.
/// @param[in] test "Suite.Name".
/// @return Whether to check it.
bool small_enough_to_sanitize(const std::string& test);

/// @brief The largest size parameter a test may have to be checked by default
/// (2^17: racecheck takes minutes on a 2^20-element reduction).
constexpr unsigned long long kSanitizerMaxSize = 1ull << 17;

/// @brief One finding: the test it happened in and the sanitizer's first lines.
struct SanitizerFinding {
  std::string test;     ///< "Suite.Name"; empty when printed outside any test.
  std::string excerpt;  ///< The finding's first lines (the error, the kernel and source line, the thread).
};

/// @brief Reads a sanitizer run's log (the test program's and the sanitizer's
/// output in one stream) and attributes each finding to the test whose
/// GoogleTest "[ RUN      ]" line came last before it.
/// @param[in] log The log's text.
/// @return The findings, in order.
std::vector<SanitizerFinding> parse_sanitizer_log(const std::string& log);

/// @brief Fails each test of @p run that passed but has a finding of @p tool:
/// its message names the tool and quotes the finding; adds a note per tool.
/// @param[in] tool The tool's name.
/// @param[in] findings What it found (parse_sanitizer_log()).
/// @param[in] log_dir Where the sanitizer run's logs are, for the note.
/// @param[in,out] run The lab's ordinary run.
void apply_sanitizer_findings(const std::string& tool, const std::vector<SanitizerFinding>& findings,
                              const std::string& log_dir, LabRun& run);

/// @brief Runs the lab's sanitizer-mode tests under each tool and applies the
/// findings of the tools the rubric gates on to @p run. A test that times out
/// or crashes under a sanitizer is not failed for that (the ordinary run
/// judged it); a note says it was not checked.
/// @param[in] tools The tools to run (parse_sanitizer_tools()).
/// @param[in] lab The lab's rubric (its sanitize section).
/// @param[in] options How the ordinary run was made (binary, limits, seed).
/// @param[in,out] run The ordinary run's results.
void run_sanitizers(const std::vector<std::string>& tools, const LabRubric& lab, const RunOptions& options,
                    LabRun& run);

}  // namespace workbook::grader
