#include "workbook/bench_csv.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

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

}  // namespace workbook
