/// @file gtest_protocol.hpp
/// @brief What a lab test binary tells the grader: its test list
/// (--gtest_list_tests) and its result stream (WORKBOOK_RESULTS, JSON lines).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace workbook::grader {

/// @brief A speed measurement reported in an "end" record's metrics.speed.
struct SpeedMetric {
  double value = 0;            ///< Measured speed, e.g. 2950.1.
  std::string unit;            ///< e.g. "GB/s".
  std::string yardstick;       ///< e.g. "device-to-device copy".
  double yardstick_value = 0;  ///< The yardstick's speed in the same unit.
  double ratio = 0;            ///< value / yardstick_value.
  double target = 0;           ///< The target the test used (the rubric's is authoritative).
  double floor = 0;            ///< The floor the test used.
};

/// @brief One record of the result stream.
struct ResultEvent {
  enum class Kind { start, end, abort };
  Kind kind = Kind::start;           ///< Which record.
  std::string test;                  ///< "Suite.Name" (start, end).
  std::string status;                ///< "passed", "failed" or "skipped" (end).
  std::string message;               ///< Failure text (end).
  double time_ms = 0;                ///< Duration (end).
  std::optional<SpeedMetric> speed;  ///< metrics.speed when present and well-formed (end).
  std::string reason;                ///< Why the program stops (abort).
};

/// @brief Parses the output of --gtest_list_tests into full test names.
/// Lines before the first suite line and "  # GetParam() = ..." comments are
/// ignored; disabled tests (DISABLED_ prefix) are left out since gtest does not
/// run them.
/// @param[in] output The program's stdout.
/// @return "Suite.Name" for each test, in listed order.
std::vector<std::string> parse_test_list(const std::string& output);

/// @brief Parses a result stream. Lines that are not well-formed records (a
/// line cut short by a crash, stray output) are skipped, never fatal.
/// @param[in] text The file's contents.
/// @return The records in order.
std::vector<ResultEvent> parse_result_lines(const std::string& text);

/// @brief Builds a --gtest_filter value selecting exactly @p wanted out of
/// @p all, using "Suite.*" where a whole suite is wanted so the argument stays
/// short (the kernel caps one argument at 128 KiB).
/// @param[in] wanted The tests to run.
/// @param[in] all Every test of the program.
/// @return Patterns joined by ':'.
std::string make_gtest_filter(const std::vector<std::string>& wanted, const std::vector<std::string>& all);

/// @brief True for "Suite.Test" where Suite ends in "Speed": the speed tests,
/// which ctest runs alone (RUN_SERIAL, see cmake/Labs.cmake) and sanitizer
/// mode skips.
/// @param[in] test "Suite.Test".
/// @return Whether it is a speed test.
bool in_speed_suite(const std::string& test);

}  // namespace workbook::grader
