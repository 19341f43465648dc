#include "workbook/compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace workbook {
namespace {

TEST(CompareExact, ReportsCountAndFirstMismatches) {
  const std::vector<int> expected{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<int> got = expected;
  got[2] = 30;
  got[6] = 70;
  const ComparisonReport report = compare_exact(expected, got);
  EXPECT_FALSE(report.ok());
  EXPECT_EQ(report.mismatch_count, 2u);
  ASSERT_EQ(report.first.size(), 2u);
  EXPECT_EQ(report.first[0].index, 2u);
  EXPECT_EQ(report.describe(),
            "2 of 8 elements differ; first: [2] expected 3, got 30; [6] expected 7, got 70;");
}

TEST(CompareExact, KeepsOnlyTheFirstFewMismatches) {
  const ComparisonReport report = compare_exact(std::vector<int>(100, 0), std::vector<int>(100, 1));
  EXPECT_EQ(report.mismatch_count, 100u);
  EXPECT_EQ(report.first.size(), kMismatchesShown);
}

TEST(CompareExact, SizeDifferenceIsAFailure) {
  const ComparisonReport report = compare_exact(std::vector<int>(3, 0), std::vector<int>(2, 0));
  EXPECT_FALSE(report.ok());
  EXPECT_NE(report.describe().find("expected 3 elements, got 2"), std::string::npos);
}

TEST(CompareFloats, AcceptsRoundingAndRejectsRealErrors) {
  const std::vector<float> expected{1.0f, 100.0f, -3.0f};
  EXPECT_TRUE(compare_floats(expected, {1.0000001f, 100.00001f, -3.0000002f}, {1e-6, 0}).ok());
  EXPECT_FALSE(compare_floats(expected, {1.0f, 100.1f, -3.0f}, {1e-6, 0}).ok());
}

TEST(CompareFloats, NanNeverMatches) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(compare_floats({nan}, {nan}, {1.0, 1.0}).ok());
  EXPECT_FALSE(compare_floats({1.0f}, {nan}, {1.0, 1.0}).ok());
}

TEST(CompareFloats, ToleranceGrowsWithTheNumberOfTerms) {
  EXPECT_LT(FloatTolerance::growing_with(1000).relative, FloatTolerance::growing_with(1 << 26).relative);
}

}  // namespace
}  // namespace workbook
