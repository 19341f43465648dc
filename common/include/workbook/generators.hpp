/// @file generators.hpp
/// @brief Seeded input generators. The same (n, pattern, seed) always gives the
/// same data, so a failure can be reproduced from the seed it prints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workbook/random.hpp"  // hash64, the one generator behind these

namespace workbook {

/// @brief The shape of generated data.
enum class Pattern {
  uniform,         ///< Independent values spread evenly over [lo, hi].
  sorted,          ///< Non-decreasing from lo towards hi.
  reverse_sorted,  ///< Non-increasing from hi towards lo.
  all_equal,       ///< Every element the same value.
  few_unique,      ///< Values drawn from only eight distinct ones.
};

/// @brief The pattern's name as printed in test output, e.g. "few_unique".
/// @param[in] pattern The pattern.
/// @return Its name.
std::string to_string(Pattern pattern);

/// @brief Every pattern, for tests that run over all of them.
/// @return The list of patterns.
std::vector<Pattern> all_patterns();

/// @brief The seed of this run: $WORKBOOK_SEED when set (instructors grade with
/// a secret one), otherwise a fixed default.
/// @return The seed.
std::uint64_t test_seed();

/// @brief @p n floats in [lo, hi] with the given pattern.
/// @param[in] n Number of elements.
/// @param[in] pattern Shape of the data.
/// @param[in] seed Seed of the random stream.
/// @param[in] lo Smallest value.
/// @param[in] hi Largest value.
/// @return The generated values.
std::vector<float> generate_floats(std::size_t n, Pattern pattern, std::uint64_t seed, float lo = -1.0f,
                                   float hi = 1.0f);

/// @brief @p n 32-bit integers in [lo, hi] with the given pattern.
/// @param[in] n Number of elements.
/// @param[in] pattern Shape of the data.
/// @param[in] seed Seed of the random stream.
/// @param[in] lo Smallest value.
/// @param[in] hi Largest value.
/// @return The generated values.
std::vector<std::int32_t> generate_ints(std::size_t n, Pattern pattern, std::uint64_t seed, std::int32_t lo,
                                        std::int32_t hi);

}  // namespace workbook
