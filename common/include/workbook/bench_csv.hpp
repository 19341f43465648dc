/// @file bench_csv.hpp
/// @brief The rows an experiment measures, as CSV for charts: when
/// $WORKBOOK_BENCH_CSV names a file (./workbook bench --all sets it), each
/// record() appends one row there; otherwise record() does nothing, and the
/// experiment only prints its tables as before.
#pragma once

#include <cstddef>
#include <string>

#include "workbook/timing.hpp"

namespace workbook {

/// @brief One measured row of an experiment's table.
struct BenchRow {
  std::string table;           ///< Which table of the experiment, e.g. "query".
  std::string implementation;  ///< The row's name: the reference, a yardstick, a naive version.
  std::size_t n = 0;           ///< The input size.
  TimingResult timing;         ///< Median and spread of the samples.
  double rate = 0;             ///< Work per second in `unit` (from the median).
  std::string unit;            ///< e.g. "GB/s", "Gkeys/s".
};

/// @brief The CSV header record() writes first: lab, table, implementation, n,
/// median_ms, min_ms, max_ms, samples, rate, unit.
/// @return The header line, without a newline.
std::string bench_csv_header();

/// @brief The row as one CSV line (fields with a comma or a quote are quoted).
/// @param[in] lab The lab's folder name.
/// @param[in] row The row.
/// @return The line, without a newline.
std::string bench_csv_line(const std::string& lab, const BenchRow& row);

/// @brief Appends the row to $WORKBOOK_BENCH_CSV (the header first when the
/// file is new or empty); does nothing when the variable is unset or empty.
/// @param[in] lab The lab's folder name.
/// @param[in] row The row.
/// @throws std::runtime_error when the file cannot be written.
void record(const std::string& lab, const BenchRow& row);

}  // namespace workbook
