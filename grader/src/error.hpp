/// @file error.hpp
/// @brief The one error type the grader reports to the user as a single line.
#pragma once

#include <stdexcept>
#include <string>

namespace workbook::grader {

/// @brief A problem with the grader's input (command line, manifest, rubric,
/// build) that the user must fix. main() prints what() as one line and exits
/// with exit_code().
class GraderError : public std::runtime_error {
 public:
  /// @brief Makes an error.
  /// @param[in] message One line, no trailing newline.
  /// @param[in] exit_code The process exit code to use (1: bad input).
  explicit GraderError(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}

  /// @brief The exit code main() should return.
  /// @return The code given at construction.
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace workbook::grader
