/// @file bench_csv.hpp
/// @brief The rows an experiment measures, as CSV for charts: when
/// $WORKBOOK_BENCH_CSV names a file (./workbook bench --all sets it), each
/// record() appends one row there; otherwise record() does nothing, and the
/// experiment only prints its tables as before.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

/// @brief The sizes of a sweep: 2^from_log2, 2^(from_log2 + step_log2), ...,
/// up to 2^to_log2, and never more elements of @p element_bytes each than fit
/// in @p max_bytes (an experiment passes a share of the free device memory).
/// @param[in] from_log2 The smallest size's exponent.
/// @param[in] to_log2 The largest size's exponent.
/// @param[in] step_log2 The step between exponents (2: every fourth power of two).
/// @param[in] element_bytes The bytes one element needs, all buffers together.
/// @param[in] max_bytes The most all buffers of one size may take.
/// @return The sizes, smallest first (empty when even the first does not fit).
/// @throws std::invalid_argument when from_log2 > to_log2, step_log2 < 1 or an exponent is over 62.
std::vector<std::size_t> sweep_sizes(int from_log2, int to_log2, int step_log2, std::size_t element_bytes,
                                     std::size_t max_bytes);

}  // namespace workbook
