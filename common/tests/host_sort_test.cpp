#include "workbook/host_sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "workbook/generators.hpp"

namespace workbook {
namespace {

// Keys of several shapes: every bit random, few distinct values (long runs of
// equal keys, so stability shows), only the top byte varying, all equal.
std::vector<std::vector<std::uint32_t>> key_sets(std::size_t n) {
  std::vector<std::vector<std::uint32_t>> sets(4, std::vector<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const auto random = static_cast<std::uint32_t>(hash64(99, i) >> 16);
    sets[0][i] = random;
    sets[1][i] = static_cast<std::uint32_t>(hash64(98, random % 5));
    sets[2][i] = (random & 0xFF000000u) | 0x123456u;
    sets[3][i] = 7u;
  }
  return sets;
}

std::vector<std::uint32_t> order_by_std_stable_sort(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  return order;
}

TEST(HostSort, EqualsStdStableSortOnEveryShapeAndSize) {
  for (const std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{255}, std::size_t{100003}}) {
    int shape = 0;
    for (const std::vector<std::uint32_t>& keys : key_sets(n)) {
      std::vector<std::uint32_t> want = keys;
      std::stable_sort(want.begin(), want.end());
      EXPECT_EQ(sorted_on_host(keys), want) << "n=" << n << ", shape " << shape;
      EXPECT_EQ(stable_sort_order(keys), order_by_std_stable_sort(keys)) << "n=" << n << ", shape " << shape;
      ++shape;
    }
  }
}

TEST(HostSort, SignedIntsInStdSortOrder) {
  std::vector<int> values(70001);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(hash64(5, i));
  values[3] = INT32_MIN;
  values[9] = INT32_MAX;
  values[10] = 0;
  values[11] = -1;
  std::vector<int> want = values;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted_on_host(values), want);
}

// The reason this sort exists, measured: 2^24 keys here (2^26 on the GPU
// machines), printed so that the header's claim can be checked.
TEST(HostSort, IsFasterThanStdStableSortOnLargeInputs) {
  const std::vector<std::uint32_t> keys = key_sets(std::size_t{1} << 24)[0];
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const std::vector<std::uint32_t> radix = sorted_on_host(keys);
  const auto middle = Clock::now();
  std::vector<std::uint32_t> standard = keys;
  std::stable_sort(standard.begin(), standard.end());
  const auto end = Clock::now();
  const double radix_s = std::chrono::duration<double>(middle - start).count();
  const double standard_s = std::chrono::duration<double>(end - middle).count();
  std::printf("[  TIMING  ] 2^24 keys: radix %.3f s, std::stable_sort %.3f s (%.1fx)\n", radix_s, standard_s,
              standard_s / radix_s);
  EXPECT_EQ(radix, standard);
  EXPECT_LT(radix_s, standard_s) << "the radix sort should beat std::stable_sort at 2^24 keys";
}

}  // namespace
}  // namespace workbook
