/// @file compare.hpp
/// @brief Comparing a result with the expected one: exact for integers,
/// relative tolerance for floats. A report names how many elements differ and
/// the first few with expected and got.
#pragma once

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace workbook {

/// @brief One element that differs.
struct Mismatch {
  std::size_t index = 0;  ///< Position in the array.
  std::string expected;   ///< The expected value, printed.
  std::string got;        ///< The value found, printed.
};

/// @brief The outcome of a comparison.
struct ComparisonReport {
  std::size_t compared = 0;        ///< Elements compared.
  std::size_t mismatch_count = 0;  ///< Elements that differ.
  std::vector<Mismatch> first;     ///< The first few that differ, in index order.
  std::string size_problem;        ///< Set when the sizes differ.

  /// @brief Whether everything matched.
  /// @return true when sizes agree and no element differs.
  bool ok() const { return mismatch_count == 0 && size_problem.empty(); }

  /// @brief A readable account: "3 of 1000 elements differ; first: [17] expected 5, got 4; ...".
  /// @return The description.
  std::string describe() const;
};

/// @brief How close two floats must be: |got - expected| <= absolute + relative * |expected|.
struct FloatTolerance {
  double relative = 1e-6;  ///< Allowed error relative to the expected value.
  double absolute = 0.0;   ///< Allowed error near zero.

  /// @brief A tolerance for results accumulated over @p n terms: rounding
  /// error of a sum grows with the number of terms, so the relative tolerance
  /// is @p per_term times log2(n) (tree order) plus a floor.
  /// @param[in] n Number of terms accumulated into each result.
  /// @param[in] per_term Relative error allowed per doubling of n.
  /// @return The tolerance.
  static FloatTolerance growing_with(std::size_t n, double per_term = 2.0e-7);
};

/// @brief How many mismatches a report keeps.
constexpr std::size_t kMismatchesShown = 5;

namespace detail {
template <typename T>
std::string print(const T& value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}
inline void check_sizes(std::size_t expected, std::size_t got, ComparisonReport& report) {
  report.compared = expected < got ? expected : got;
  if (expected != got) {
    report.size_problem = "expected " + std::to_string(expected) + " elements, got " + std::to_string(got);
  }
}
}  // namespace detail

/// @brief Element-wise exact comparison (integers, indices, records with ==).
/// @tparam T An element type with == and <<.
/// @param[in] expected The right answer.
/// @param[in] got The answer to check.
/// @return The report.
template <typename T>
ComparisonReport compare_exact(const std::vector<T>& expected, const std::vector<T>& got) {
  ComparisonReport report;
  detail::check_sizes(expected.size(), got.size(), report);
  for (std::size_t i = 0; i < report.compared; ++i) {
    if (expected[i] == got[i]) continue;
    if (report.mismatch_count++ < kMismatchesShown) {
      report.first.push_back({i, detail::print(expected[i]), detail::print(got[i])});
    }
  }
  return report;
}

/// @brief Element-wise comparison of floats within a tolerance; NaN never matches.
/// @param[in] expected The right answer (computed in double on the host, say).
/// @param[in] got The answer to check.
/// @param[in] tolerance How close is close enough.
/// @return The report.
ComparisonReport compare_floats(const std::vector<float>& expected, const std::vector<float>& got,
                                FloatTolerance tolerance);

}  // namespace workbook
