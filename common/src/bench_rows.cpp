#include "workbook/bench_rows.hpp"

#include <cstdio>
#include <string>

#include "workbook/timing.hpp"

namespace workbook {

std::string bench_rows_header(const std::string& title, const std::string& unit,
                              const std::string& yardstick) {
  char columns[160];
  std::snprintf(columns, sizeof columns, "  %-60s %9s %7s %10s %10s   %s\n", "variant", "ms", "spread",
                unit.c_str(), ("% of " + yardstick).c_str(), "check");
  return title + "\n" + columns;
}

void print_rows_header(const std::string& title, const std::string& unit, const std::string& yardstick) {
  std::fputs(bench_rows_header(title, unit, yardstick).c_str(), stdout);
}

std::string bench_row_text(const BenchRow& row, double yardstick_rate, bool ok) {
  char line[256];
  std::snprintf(line, sizeof line, "  %-60s %9.3f %s %10.1f %9.1f%%   %s\n", row.implementation.c_str(),
                row.timing.median_ms, spread_text(row.timing).c_str(), row.rate,
                100.0 * row.rate / yardstick_rate, ok ? "ok" : "WRONG RESULT");
  return line;
}

bool print_and_record(const std::string& lab, const BenchRow& row, double yardstick_rate, bool ok) {
  std::fputs(bench_row_text(row, yardstick_rate, ok).c_str(), stdout);
  record(lab, row);
  return ok;
}

}  // namespace workbook
