/// @file bench_rows.hpp
/// @brief The tables of timed rows that a reference's comparisons print
/// (solutions/NN-name/experiment_reference.cu, run by `./workbook bench LAB
/// --solution` after the lab's experiment): a title, the column names, and one
/// line per row with its time, spread, rate, share of a yardstick and check.
/// Each row is recorded like an experiment's (workbook/bench_csv.hpp), so the
/// charts of `./workbook bench --all --solution` have it.
#pragma once

#include <string>

#include "workbook/bench_csv.hpp"

namespace workbook {

/// @brief The title of a table of rows and its column names.
/// @param[in] title The table's title, printed as it is.
/// @param[in] unit The unit of the rows' rates, e.g. "GB/s".
/// @param[in] yardstick What the "% of" column compares with, e.g. "CUB" or "copy".
/// @return Two lines, each ending in a newline.
std::string bench_rows_header(const std::string& title, const std::string& unit,
                              const std::string& yardstick);

/// @brief Prints bench_rows_header() on stdout.
/// @param[in] title The table's title, printed as it is.
/// @param[in] unit The unit of the rows' rates, e.g. "GB/s".
/// @param[in] yardstick What the "% of" column compares with, e.g. "CUB" or "copy".
void print_rows_header(const std::string& title, const std::string& unit, const std::string& yardstick);

/// @brief One row in the columns of bench_rows_header(): its implementation,
/// median time, spread, rate, the rate as a share of the yardstick's, and the check.
/// @param[in] row The row.
/// @param[in] yardstick_rate The yardstick's rate in the row's unit ("% of" is row.rate over it).
/// @param[in] ok Whether the row's result was checked right ("ok", else "WRONG RESULT").
/// @return The line, ending in a newline.
std::string bench_row_text(const BenchRow& row, double yardstick_rate, bool ok);

/// @brief Prints the row (bench_row_text()) and records it (record()).
/// @param[in] lab The lab's folder name.
/// @param[in] row The row.
/// @param[in] yardstick_rate The yardstick's rate in the row's unit.
/// @param[in] ok Whether the row's result was checked right.
/// @return @p ok, so that a caller can count the wrong rows.
/// @throws std::runtime_error when the row cannot be recorded.
bool print_and_record(const std::string& lab, const BenchRow& row, double yardstick_rate, bool ok);

}  // namespace workbook
