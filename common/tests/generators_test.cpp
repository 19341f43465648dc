#include "workbook/generators.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace workbook {
namespace {

TEST(Generators, SameSeedGivesSameData) {
  EXPECT_EQ(generate_floats(1000, Pattern::uniform, 7), generate_floats(1000, Pattern::uniform, 7));
  EXPECT_NE(generate_floats(1000, Pattern::uniform, 7), generate_floats(1000, Pattern::uniform, 8));
}

TEST(Generators, EveryPatternStaysWithinItsRange) {
  for (Pattern pattern : all_patterns()) {
    const auto ints = generate_ints(5000, pattern, 3, -20, 50);
    EXPECT_GE(*std::min_element(ints.begin(), ints.end()), -20) << to_string(pattern);
    EXPECT_LE(*std::max_element(ints.begin(), ints.end()), 50) << to_string(pattern);
    const auto floats = generate_floats(5000, pattern, 3, 2.0f, 4.0f);
    EXPECT_GE(*std::min_element(floats.begin(), floats.end()), 2.0f) << to_string(pattern);
    EXPECT_LE(*std::max_element(floats.begin(), floats.end()), 4.0f) << to_string(pattern);
  }
}

TEST(Generators, SortedPatternsAreMonotone) {
  const auto up = generate_ints(10000, Pattern::sorted, 11, 0, 1000000);
  EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
  const auto down = generate_floats(10000, Pattern::reverse_sorted, 11);
  EXPECT_TRUE(std::is_sorted(down.rbegin(), down.rend()));
}

TEST(Generators, AllEqualAndFewUniqueHaveFewValues) {
  auto same = generate_ints(1000, Pattern::all_equal, 5, 0, 1 << 30);
  EXPECT_EQ(std::count(same.begin(), same.end(), same[0]), 1000);
  auto few = generate_ints(1000, Pattern::few_unique, 5, 0, 1 << 30);
  std::sort(few.begin(), few.end());
  EXPECT_LE(std::unique(few.begin(), few.end()) - few.begin(), 8);
}

TEST(Generators, UniformIntsCoverTheRange) {
  const auto values = generate_ints(100000, Pattern::uniform, 1, 0, 9);
  for (int v = 0; v <= 9; ++v) EXPECT_GT(std::count(values.begin(), values.end(), v), 9000) << "value " << v;
}

}  // namespace
}  // namespace workbook
