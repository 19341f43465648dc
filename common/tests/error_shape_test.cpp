// The shape of a wrong array, as ComparisonReport::describe() names it, on
// made-up arrays: one test per shape, and arrays that must get none.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "workbook/compare.hpp"

namespace workbook {
namespace {

constexpr int kPoison = 0x7F7F7F7F;

// 3, 4, 5, ... (no two neighbours equal, so a shift always shows).
std::vector<int> rising(std::size_t n) {
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(3 * i + 3);
  return values;
}

std::vector<int> inclusive_scan(const std::vector<int>& in) {
  std::vector<int> out(in.size());
  int sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = sum += in[i];
  return out;
}

std::vector<int> exclusive_scan(const std::vector<int>& in) {
  std::vector<int> out(in.size());
  int sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = sum;
    sum += in[i];
  }
  return out;
}

// Elements [from, n) replaced by values no element of `expected` holds, all different.
std::vector<int> wrong_from(const std::vector<int>& expected, std::size_t from) {
  std::vector<int> got = expected;
  for (std::size_t i = from; i < got.size(); ++i) got[i] = -7 - static_cast<int>(i * i % 1013);
  return got;
}

std::string shape_of(const ComparisonReport& report) {
  return report.shape.sentence(report.compared, report.mismatch_count);
}

TEST(ErrorShape, NamesAnExclusiveResultWhereAnInclusiveOneWasExpected) {
  const std::vector<int> in = rising(1000);
  EXPECT_EQ(
      shape_of(compare_exact(inclusive_scan(in), exclusive_scan(in))),
      "the values are shifted by one position (got[i] holds expected[i - 1]): an exclusive result where an "
      "inclusive one was expected, or the reverse");
}

TEST(ErrorShape, NamesAnInclusiveResultWhereAnExclusiveOneWasExpected) {
  const std::vector<int> in = rising(1000);
  EXPECT_EQ(
      shape_of(compare_exact(exclusive_scan(in), inclusive_scan(in))),
      "the values are shifted by one position (got[i] holds expected[i + 1]): an exclusive result where an "
      "inclusive one was expected, or the reverse");
}

TEST(ErrorShape, SeesTheShiftWhereZerosInTheInputHideIt) {
  // Flags of a compaction: where a flag is 0, inclusive and exclusive agree.
  std::vector<int> flags(500);
  for (std::size_t i = 0; i < flags.size(); ++i) flags[i] = (i * 7 % 3 == 0) ? 1 : 0;
  const ComparisonReport report = compare_exact(inclusive_scan(flags), exclusive_scan(flags));
  EXPECT_LT(report.mismatch_count, flags.size());
  EXPECT_NE(shape_of(report).find("shifted by one position"), std::string::npos);
}

TEST(ErrorShape, DoesNotTakeTwoSwappedNeighboursForAShift) {
  const std::vector<int> expected = rising(100);
  std::vector<int> got = expected;
  std::swap(got[40], got[41]);
  EXPECT_EQ(shape_of(compare_exact(expected, got)), "");
}

TEST(ErrorShape, NamesAResultWrongFromATileBoundaryOn) {
  const std::vector<int> expected = rising(1000);
  EXPECT_EQ(shape_of(compare_exact(expected, wrong_from(expected, 256))),
            "right up to element 256, wrong from there on (256 is a multiple of 256, a block or tile "
            "boundary: look "
            "at the carry or offset between tiles)");
  const std::vector<int> longer = rising(5000);
  EXPECT_EQ(shape_of(compare_exact(longer, wrong_from(longer, 768))),
            "right up to element 768, wrong from there on (768 is a multiple of 256, a block or tile "
            "boundary: look "
            "at the carry or offset between tiles)");
}

TEST(ErrorShape, NamesAResultWrongFromAnyElementOnWithoutATile) {
  const std::vector<int> expected = rising(1000);
  EXPECT_EQ(shape_of(compare_exact(expected, wrong_from(expected, 100))),
            "right up to element 100, wrong from there on");
}

TEST(ErrorShape, ToleratesSomeRightElementsAfterTheBoundary) {
  const std::vector<int> expected = rising(5000);
  std::vector<int> got = wrong_from(expected, 512);
  for (std::size_t i = 513; i < got.size(); i += 3) got[i] = expected[i];  // a third right by chance
  EXPECT_EQ(shape_of(compare_exact(expected, got)).rfind("right up to element 512, wrong from there on", 0),
            0u);
}

TEST(ErrorShape, NamesAWrongTail) {
  const std::vector<int> expected = rising(1000);
  // From 768 = 3 * 256: shorter than the 256 elements of the tile it starts.
  EXPECT_EQ(shape_of(compare_exact(expected, wrong_from(expected, 768))),
            "right except the last 232 elements: the bounds of the last block");
  EXPECT_EQ(shape_of(compare_exact(expected, wrong_from(expected, 997))),
            "right except the last 3 elements: the bounds of the last block");
  EXPECT_EQ(shape_of(compare_exact(expected, wrong_from(expected, 999))),
            "right except the last element: the bounds of the last block");
}

TEST(ErrorShape, SaysNothingOfPositionWhenMostOfTheStretchIsRight) {
  const std::vector<int> expected = rising(1000);
  std::vector<int> got = expected;
  got[300] = -1;
  got[999] = -2;
  EXPECT_EQ(shape_of(compare_exact(expected, got)), "");
}

TEST(ErrorShape, NamesAnOutputNeverWritten) {
  const std::vector<int> expected = rising(1000);
  EXPECT_EQ(
      shape_of(compare_exact(expected, std::vector<int>(1000, kPoison))),
      "the wrong elements still hold the value 2139062143 the output was filled with before the call: never "
      "written");
  // Every other element left: still never written, wherever they are.
  std::vector<int> got = expected;
  for (std::size_t i = 1; i < got.size(); i += 2) got[i] = kPoison;
  EXPECT_NE(shape_of(compare_exact(expected, got)).find("never written"), std::string::npos);
}

TEST(ErrorShape, NamesUnwrittenFloatsByTheirNanBits) {
  const std::vector<float> expected{1.5f, 2.5f, -3.0f, 4.0f};
  const std::uint32_t poison_bits = 0xFFFFFFFFu;
  float poison = 0.0f;
  std::memcpy(&poison, &poison_bits, sizeof poison);
  const std::vector<float> got{1.5f, poison, poison, poison};
  EXPECT_EQ(
      shape_of(compare_floats(expected, got, {1e-6, 0})).find("the wrong elements still hold the value "),
      0u);
  EXPECT_NE(shape_of(compare_exact(expected, got)).find("never written"), std::string::npos);
  // A NaN the kernel computed has other bits than the poison: not one value.
  const float computed = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(shape_of(compare_floats(expected, {1.5f, poison, computed, 4.0f}, {1e-6, 0})), "");
}

TEST(ErrorShape, GivesAConstantWrittenOverAGuardNoShape) {
  // Guards: the expected array is the poison; 0 written past the end over it
  // is neither never written nor a missing initial value.
  EXPECT_EQ(shape_of(compare_exact(std::vector<int>(8, kPoison), std::vector<int>(8, 0))), "");
}

TEST(ErrorShape, DoesNotCallOneForeignValueNeverWritten) {
  const std::vector<int> expected = rising(100);
  std::vector<int> got = expected;
  got[50] = kPoison;
  EXPECT_EQ(shape_of(compare_exact(expected, got)), "");
}

TEST(ErrorShape, NamesAConstantOffset) {
  const std::vector<int> expected = exclusive_scan(rising(1000));
  std::vector<int> got = expected;
  for (int& value : got) value += 5;
  EXPECT_EQ(shape_of(compare_exact(expected, got)),
            "every element is off by 5: a missing initial value or offset");
  const std::vector<std::uint32_t> unsigned_expected{10, 20, 30};
  EXPECT_EQ(shape_of(compare_exact(unsigned_expected, std::vector<std::uint32_t>{9, 19, 29})),
            "every element is off by -1: a missing initial value or offset");
}

TEST(ErrorShape, NeedsEveryElementWrongForAConstantOffset) {
  const std::vector<int> expected = rising(10);
  std::vector<int> got = expected;
  for (std::size_t i = 2; i < 6; ++i) got[i] += 100;
  EXPECT_EQ(shape_of(compare_exact(expected, got)), "");
}

TEST(ErrorShape, GivesARandomWrongArrayNoShape) {
  const std::vector<int> expected = rising(1000);
  std::mt19937 random(20261121);
  std::vector<int> got(expected.size());
  for (int& value : got) value = static_cast<int>(random() % 3000);
  const ComparisonReport report = compare_exact(expected, got);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(shape_of(report), "");
  EXPECT_EQ(report.describe().find("Shape of the error"), std::string::npos);
}

TEST(ErrorShape, IsOnlyForWrongResults) {
  const std::vector<int> expected = rising(10);
  EXPECT_EQ(shape_of(compare_exact(expected, expected)), "");
  EXPECT_EQ(compare_exact(expected, expected).describe(), "0 of 10 elements differ");
}

TEST(ErrorShape, KeepsFloatsUnderAToleranceToPositionAndNeverWritten) {
  std::vector<float> expected(100);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<float>(i) + 0.5f;
  // Shifted floats: under a tolerance, no shift is claimed (and element 0 is wrong: no position either).
  std::vector<float> shifted(expected.size(), 0.0f);
  for (std::size_t i = 1; i < expected.size(); ++i) shifted[i] = expected[i - 1];
  EXPECT_EQ(shape_of(compare_floats(expected, shifted, {1e-6, 0})), "");
  std::vector<float> tail = expected;
  for (std::size_t i = 96; i < tail.size(); ++i) tail[i] = -static_cast<float>(i);
  EXPECT_EQ(shape_of(compare_floats(expected, tail, {1e-6, 0})),
            "right except the last 4 elements: the bounds of the last block");
}

// A record type, as lab 01 compares: == and << only.
struct Record {
  int block = 0;
  int thread = 0;
  bool operator==(const Record& other) const { return block == other.block && thread == other.thread; }
};
std::ostream& operator<<(std::ostream& out, const Record& r) {
  return out << "{" << r.block << ", " << r.thread << "}";
}

TEST(ErrorShape, WorksOnRecordsWithoutArithmetic) {
  const std::vector<Record> expected{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const std::vector<Record> got{{0, 0}, {0, 1}, {-1, -1}, {-1, -1}};
  EXPECT_EQ(
      compare_exact(expected, got).describe(),
      "2 of 4 elements differ; first: [2] expected {1, 0}, got {-1, -1}; [3] expected {1, 1}, got {-1, -1}; "
      "Shape of the error: the wrong elements still hold the value {-1, -1} the output was filled with "
      "before "
      "the call: never written.");
}

}  // namespace
}  // namespace workbook
