#include "workbook/generators.hpp"

#include <cstdlib>
#include <stdexcept>

namespace workbook {

std::string to_string(Pattern pattern) {
  switch (pattern) {
    case Pattern::uniform:
      return "uniform";
    case Pattern::sorted:
      return "sorted";
    case Pattern::reverse_sorted:
      return "reverse_sorted";
    case Pattern::all_equal:
      return "all_equal";
    case Pattern::few_unique:
      return "few_unique";
  }
  return "unknown";
}

std::vector<Pattern> all_patterns() {
  return {Pattern::uniform, Pattern::sorted, Pattern::reverse_sorted, Pattern::all_equal,
          Pattern::few_unique};
}

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* text = std::getenv("WORKBOOK_SEED");
    if (text == nullptr || *text == '\0') return std::uint64_t{20261121};
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 0);
    if (end == text || *end != '\0') {
      throw std::invalid_argument(std::string("WORKBOOK_SEED must be a non-negative integer, got '") + text +
                                  "'");
    }
    return static_cast<std::uint64_t>(value);
  }();
  return seed;
}

namespace {
// A uniform double in [0, 1) from the top 53 bits of the hash.
double unit(std::uint64_t seed, std::uint64_t index) {
  return static_cast<double>(hash64(seed, index) >> 11) * (1.0 / 9007199254740992.0);
}

// Position in [0, 1] of element i for the pattern; sorted patterns are a
// monotone ramp with random steps, built in O(n) without sorting.
template <typename Emit>
void fill(std::size_t n, Pattern pattern, std::uint64_t seed, Emit emit) {
  const double constant = unit(seed, 0);
  double ramp = 0.0;
  const double step_scale = n > 1 ? 2.0 / static_cast<double>(n) : 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double position = 0.0;
    switch (pattern) {
      case Pattern::uniform:
        position = unit(seed, i);
        break;
      case Pattern::all_equal:
        position = constant;
        break;
      case Pattern::few_unique:
        position = static_cast<double>(hash64(seed, i) % 8) / 7.0;
        break;
      case Pattern::sorted:
      case Pattern::reverse_sorted:
        ramp += unit(seed, i) * step_scale;  // Mean step 1/n: the ramp ends near 1.
        position = ramp > 1.0 ? 1.0 : ramp;
        if (pattern == Pattern::reverse_sorted) position = 1.0 - position;
        break;
    }
    emit(i, position);
  }
}
}  // namespace

std::vector<float> generate_floats(std::size_t n, Pattern pattern, std::uint64_t seed, float lo, float hi) {
  std::vector<float> values(n);
  fill(n, pattern, seed, [&](std::size_t i, double position) {
    values[i] = static_cast<float>(lo + position * (static_cast<double>(hi) - lo));
  });
  return values;
}

std::vector<std::int32_t> generate_ints(std::size_t n, Pattern pattern, std::uint64_t seed, std::int32_t lo,
                                        std::int32_t hi) {
  if (hi < lo) throw std::invalid_argument("generate_ints: hi < lo");
  std::vector<std::int32_t> values(n);
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  fill(n, pattern, seed, [&](std::size_t i, double position) {
    double value = static_cast<double>(lo) + position * (span + 1.0);
    if (value > hi) value = hi;
    values[i] = static_cast<std::int32_t>(value);
  });
  return values;
}

}  // namespace workbook
