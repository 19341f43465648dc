#include "workbook/bench_csv.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace workbook {
namespace {

BenchRow sample_row() {
  BenchRow row;
  row.table = "query";
  row.implementation = "grid, 27 cells";
  row.n = 1048576;
  row.timing.median_ms = 1.25;
  row.timing.min_ms = 1.2;
  row.timing.max_ms = 1.5;
  row.timing.samples = 9;
  row.rate = 3300.5;
  row.unit = "Mpairs/s";
  return row;
}

TEST(BenchCsv, LineHoldsEveryFieldAndQuotesCommas) {
  EXPECT_EQ(bench_csv_line("10-lbvh", sample_row()),
            "10-lbvh,query,\"grid, 27 cells\",1048576,1.25,1.2,1.5,9,3300.5,Mpairs/s");
}

TEST(BenchCsv, RecordAppendsUnderOneHeaderOnlyWhenAsked) {
  const std::string path = ::testing::TempDir() + "/bench-csv-test.csv";
  std::filesystem::remove(path);
  ::unsetenv("WORKBOOK_BENCH_CSV");
  record("10-lbvh", sample_row());  // not asked: nothing written
  EXPECT_FALSE(std::filesystem::exists(path));
  ::setenv("WORKBOOK_BENCH_CSV", path.c_str(), 1);
  record("10-lbvh", sample_row());
  record("10-lbvh", sample_row());
  ::unsetenv("WORKBOOK_BENCH_CSV");
  std::ifstream in(path);
  std::string header, first, second, rest;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_FALSE(std::getline(in, rest));
  EXPECT_EQ(header, bench_csv_header());
  EXPECT_EQ(first, bench_csv_line("10-lbvh", sample_row()));
  EXPECT_EQ(second, first);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace workbook
