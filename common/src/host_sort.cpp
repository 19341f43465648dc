#include "workbook/host_sort.hpp"

#include <array>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace workbook {
namespace {

constexpr int kDigitBits = 8;
constexpr int kPasses = 32 / kDigitBits;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

using Histograms = std::array<std::array<std::size_t, kBuckets>, kPasses>;

std::uint32_t digit(std::uint32_t key, int pass) {
  return (key >> (pass * kDigitBits)) & (kBuckets - 1);
}

// Every pass's digit counts in one read of the keys.
Histograms count_digits(const std::vector<std::uint32_t>& keys) {
  Histograms counts{};
  for (const std::uint32_t key : keys)
    for (int pass = 0; pass < kPasses; ++pass) ++counts[pass][digit(key, pass)];
  return counts;
}

// A pass where every key has the same digit would copy the keys unchanged: skipped.
bool pass_moves_keys(const std::array<std::size_t, kBuckets>& counts, std::size_t n) {
  for (const std::size_t count : counts)
    if (count == n) return false;
  return true;
}

// Stable LSD radix sort of keys; when `order` is not empty it moves with them.
void radix_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& order) {
  const std::size_t n = keys.size();
  const bool with_order = !order.empty();
  const Histograms counts = count_digits(keys);
  std::vector<std::uint32_t> keys_out(n), order_out(with_order ? n : 0);
  for (int pass = 0; pass < kPasses; ++pass) {
    if (!pass_moves_keys(counts[pass], n)) continue;
    std::array<std::size_t, kBuckets> next{};  // exclusive sums: where each digit's keys start
    std::size_t total = 0;
    for (std::size_t d = 0; d < kBuckets; ++d) {
      next[d] = total;
      total += counts[pass][d];
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = next[digit(keys[i], pass)]++;
      keys_out[to] = keys[i];
      if (with_order) order_out[to] = order[i];
    }
    keys.swap(keys_out);
    if (with_order) order.swap(order_out);
  }
}

}  // namespace

std::vector<std::uint32_t> stable_sort_order(const std::vector<std::uint32_t>& keys) {
  if (keys.size() > UINT32_MAX) throw std::invalid_argument("stable_sort_order: more than 2^32 - 1 keys");
  std::vector<std::uint32_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  if (order.empty()) return order;
  std::vector<std::uint32_t> copy(keys);
  radix_sort(copy, order);
  return order;
}

std::vector<std::uint32_t> sorted_on_host(std::vector<std::uint32_t> keys) {
  std::vector<std::uint32_t> no_order;
  radix_sort(keys, no_order);
  return keys;
}

std::vector<int> sorted_on_host(std::vector<int> values) {
  // Flipping the sign bit maps int order onto unsigned order.
  std::vector<std::uint32_t> keys(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    keys[i] = static_cast<std::uint32_t>(values[i]) ^ 0x80000000u;
  keys = sorted_on_host(std::move(keys));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(keys[i] ^ 0x80000000u);
  return values;
}

}  // namespace workbook
