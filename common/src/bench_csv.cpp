#include "workbook/bench_csv.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace workbook {
namespace {

std::string quoted(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (const char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

std::string bench_csv_header() {
  return "lab,table,implementation,n,median_ms,min_ms,max_ms,samples,rate,unit";
}

std::string bench_csv_line(const std::string& lab, const BenchRow& row) {
  return quoted(lab) + "," + quoted(row.table) + "," + quoted(row.implementation) + "," +
         std::to_string(row.n) + "," + number(row.timing.median_ms) + "," + number(row.timing.min_ms) + "," +
         number(row.timing.max_ms) + "," + std::to_string(row.timing.samples) + "," + number(row.rate) + "," +
         quoted(row.unit);
}

void record(const std::string& lab, const BenchRow& row) {
  const char* path = std::getenv("WORKBOOK_BENCH_CSV");
  if (path == nullptr || *path == '\0') return;
  std::ifstream existing(path, std::ios::ate);
  const bool empty = !existing || existing.tellg() <= 0;
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error(std::string("cannot append to WORKBOOK_BENCH_CSV=") + path);
  if (empty) out << bench_csv_header() << "\n";
  out << bench_csv_line(lab, row) << "\n";
  if (!out) throw std::runtime_error(std::string("cannot write to WORKBOOK_BENCH_CSV=") + path);
}

std::vector<std::size_t> sweep_sizes(int from_log2, int to_log2, int step_log2, std::size_t element_bytes,
                                     std::size_t max_bytes) {
  if (from_log2 > to_log2 || step_log2 < 1 || from_log2 < 0 || to_log2 > 62) {
    throw std::invalid_argument("sweep_sizes: exponents from " + std::to_string(from_log2) + " to " +
                                std::to_string(to_log2) + " in steps of " + std::to_string(step_log2) +
                                ": need 0 <= from <= to <= 62 and a step of at least 1");
  }
  std::vector<std::size_t> sizes;
  for (int e = from_log2; e <= to_log2; e += step_log2) {
    const std::size_t n = std::size_t{1} << e;
    if (element_bytes > 0 && n > max_bytes / element_bytes) break;
    sizes.push_back(n);
  }
  return sizes;
}

}  // namespace workbook
