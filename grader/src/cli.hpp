/// @file cli.hpp
/// @brief The workbook-grader command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "explain.hpp"

namespace workbook::grader {

/// @brief When to colour the terminal report.
enum class ColorMode { automatic, always, never };

/// @brief Whether the test programs run in the sandbox (sandbox.hpp).
enum class SandboxMode {
  automatic,  ///< In it when one can be made here; else without, after a warning.
  required,   ///< --sandbox: in it, or not at all (instructor modes).
  off         ///< --no-sandbox.
};

/// @brief Parsed command-line options.
struct Options {
  std::string manifest = "build/workbook-labs.json";  ///< --manifest.
  std::string rubric;                                 ///< --rubric; empty: the manifest's.
  std::string json_path;                              ///< --json: Gradescope results.json.
  std::string junit_path;                             ///< --junit: JUnit XML.
  std::string csv_path;                               ///< --csv: gradebook to add a row to.
  std::string student = "submission";                 ///< --student: the gradebook row's name.
  bool solutions = false;                             ///< --solutions: grade the reference solutions.
  std::optional<std::uint64_t> seed;                  ///< --seed (or WORKBOOK_SEED in the environment).
  bool show_seed = false;                             ///< --show-seed: print a given seed.
  double timeout_scale = 1.0;                         ///< --timeout-scale.
  int jobs = 0;                                       ///< --jobs; 0: the default (default_jobs()).
  ColorMode color = ColorMode::automatic;             ///< --color.
  bool help = false;                                  ///< --help.
  bool check_rubric = false;                          ///< --check-rubric: validate only, run nothing.
  std::vector<std::string> sanitize;                  ///< --sanitize: the tools; empty: no sanitizer run.
  SandboxMode sandbox = SandboxMode::automatic;       ///< --sandbox, --no-sandbox.
  ExplainMode explain = ExplainMode::slow;  ///< --explain (all), --no-explain (off); default: slow items.
  std::vector<std::string> labs;            ///< Positional lab names; empty: all.
  /// --build-error LAB=MESSAGE: the labs whose test program did not build, each with its first error.
  std::vector<std::pair<std::string, std::string>> build_errors;
};

/// @brief Parses the command line. Options take "--name value" or "--name=value".
/// @param[in] args The arguments without the program name.
/// @return The options.
/// @throws GraderError (one line) for an unknown option or a bad value.
Options parse_command_line(const std::vector<std::string>& args);

/// @brief How many test programs of a lab run at once when --jobs is not given:
/// 4, or fewer on a machine with fewer cores.
/// @return At least 1.
int default_jobs();

/// @brief The --help text.
/// @return The usage, several lines.
std::string usage_text();

}  // namespace workbook::grader
