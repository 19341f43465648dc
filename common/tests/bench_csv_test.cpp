#include "workbook/bench_csv.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "workbook/bench_rows.hpp"

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

TEST(BenchCsv, SweepSizesStepThroughPowersOfTwoThatFit) {
  EXPECT_EQ(workbook::sweep_sizes(10, 16, 2, 4, std::size_t{1} << 30),
            (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  // 12 bytes per element in 1 MiB: 2^16 elements (768 KiB) fit, 2^18 do not.
  EXPECT_EQ(workbook::sweep_sizes(10, 28, 2, 12, std::size_t{1} << 20),
            (std::vector<std::size_t>{1024, 4096, 16384, 65536}));
  EXPECT_TRUE(workbook::sweep_sizes(20, 28, 2, 4, 1000).empty());
  EXPECT_THROW(workbook::sweep_sizes(20, 10, 2, 4, 1000), std::invalid_argument);
  EXPECT_THROW(workbook::sweep_sizes(10, 20, 0, 4, 1000), std::invalid_argument);
}

TEST(BenchCsv, SpreadTextIsSevenColumnsWide) {
  workbook::TimingResult timing;
  timing.relative_spread = 0.004;
  EXPECT_EQ(workbook::spread_text(timing), "  \u00b10.4%");  // 7 columns, 8 bytes
  timing.relative_spread = 0.1234;
  EXPECT_EQ(workbook::spread_text(timing), " \u00b112.3%");
  timing.relative_spread = 1.234;
  EXPECT_EQ(workbook::spread_text(timing), "\u00b1123.4%");
}

TEST(BenchRows, RowLinesUpUnderTheHeaderWithItsShareOfTheYardstick) {
  workbook::BenchRow row;
  row.implementation = "naive: Hillis-Steele over global memory";
  row.timing.median_ms = 25.074;
  row.timing.relative_spread = 0.001;
  row.rate = 85.6;
  row.unit = "GB/s";
  const std::string header = workbook::bench_rows_header("1. Whole array", "GB/s", "CUB");
  const std::string line = workbook::bench_row_text(row, 3424.0, true);
  EXPECT_EQ(header.substr(0, header.find('\n')), "1. Whole array");
  EXPECT_NE(header.find("% of CUB"), std::string::npos);
  EXPECT_NE(line.find("naive: Hillis-Steele over global memory"), std::string::npos);
  EXPECT_NE(line.find("25.074"), std::string::npos);
  EXPECT_NE(line.find("85.6"), std::string::npos);
  EXPECT_NE(line.find("2.5%"), std::string::npos);  // 85.6 / 3424 of the yardstick
  EXPECT_EQ(line.substr(line.size() - 4), " ok\n");
  // The time column ends where the header's "ms" ends.
  const std::string columns = header.substr(header.find('\n') + 1);
  EXPECT_EQ(line.find("25.074") + 6, columns.find(" ms") + 3);
  EXPECT_NE(workbook::bench_row_text(row, 3424.0, false).find("WRONG RESULT"), std::string::npos);
}
