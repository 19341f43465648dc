/// @file compare.hpp
/// @brief Comparing a result with the expected one: exact for integers,
/// relative tolerance for floats. A report names how many elements differ,
/// the first few with expected and got, and the shape of the error when it has
/// one (shifted by one, wrong from a tile boundary, a wrong tail, never
/// written, off by a constant).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace workbook {

/// @brief One element that differs.
struct Mismatch {
  std::size_t index = 0;  ///< Position in the array.
  std::string expected;   ///< The expected value, printed.
  std::string got;        ///< The value found, printed.
};

/// @brief What the mismatches of one comparison have in common, gathered while
/// comparing the whole arrays with constant extra memory: enough to name the
/// shape of a wrong array in one sentence.
struct ErrorShape {
  std::size_t first = 0;          ///< Index of the first mismatch.
  std::size_t last = 0;           ///< Index of the last mismatch.
  std::size_t shifted_left = 0;   ///< Mismatches with got[i] == expected[i - 1] (exact comparisons only).
  std::size_t shifted_right = 0;  ///< Mismatches with got[i] == expected[i + 1] (exact comparisons only).
  /// Set, printed, when every mismatch (two or more) holds this one value and
  /// the expected array (not all one value) holds it nowhere: the fill value.
  std::string unwritten_value;
  /// Set, printed, when every element differs (two or more), all by this
  /// amount, and the expected array is not all one value (exact comparisons
  /// of integers only).
  std::string constant_difference;

  /// @brief The shape of the error in one sentence. The first rule that holds
  /// wins: shifted by one position (all mismatches but one at an end), never
  /// written, off by a constant, right except a tail, right up to element k.
  /// @param[in] compared Elements compared.
  /// @param[in] mismatch_count Elements that differ.
  /// @return The sentence, without a final period; "" when nothing differs or no rule holds.
  std::string sentence(std::size_t compared, std::size_t mismatch_count) const;
};

/// @brief The outcome of a comparison.
struct ComparisonReport {
  std::size_t compared = 0;        ///< Elements compared.
  std::size_t mismatch_count = 0;  ///< Elements that differ.
  std::vector<Mismatch> first;     ///< The first few that differ, in index order.
  std::string size_problem;        ///< Set when the sizes differ.
  ErrorShape shape;                ///< What the mismatches have in common.

  /// @brief Whether everything matched.
  /// @return true when sizes agree and no element differs.
  bool ok() const { return mismatch_count == 0 && size_problem.empty(); }

  /// @brief A readable account: "3 of 1000 elements differ; first: [17] expected 5, got 4; ...",
  /// then, when the error has a shape, " Shape of the error: <ErrorShape::sentence>.".
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

// Equal, or the same bits: a poison NaN equals itself.
template <typename T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

// Gathers an ErrorShape during a comparison: note(i) at every mismatch, in
// index order, then finish() once. Holds references, copies nothing.
template <typename T>
class ShapeTracker {
 public:
  // exact: equality decided the comparison, so a neighbour's value or a
  // difference means something (not so under a float tolerance).
  ShapeTracker(const std::vector<T>& expected, const std::vector<T>& got, std::size_t compared, bool exact)
      : expected_(expected), got_(got), compared_(compared), exact_(exact) {}

  void note(std::size_t i) {
    if (count_++ == 0) shape_.first = i;
    shape_.last = i;
    const T& value = got_[i];
    one_value_ = one_value_ && same_value(value, got_[shape_.first]);
    if (!exact_) return;
    if (i > 0 && same_value(value, expected_[i - 1])) ++shape_.shifted_left;
    if (i + 1 < compared_ && same_value(value, expected_[i + 1])) ++shape_.shifted_right;
    if constexpr (kIntegral) {
      // Modulo 2^64, so that no subtraction overflows; printed as signed.
      const std::uint64_t difference =
          static_cast<std::uint64_t>(value) - static_cast<std::uint64_t>(expected_[i]);
      if (count_ == 1) difference_ = difference;
      one_difference_ = one_difference_ && difference == difference_;
    }
  }

  ErrorShape finish() {
    // An expected array of one value says little: in a guard filled with the
    // poison, a constant written over it is neither never written nor an offset.
    if (count_ < 2 || !expected_varies()) return shape_;
    if (one_value_ && !expected_holds(got_[shape_.first])) shape_.unwritten_value = print(got_[shape_.first]);
    if constexpr (kIntegral) {
      if (exact_ && count_ == compared_ && one_difference_) {
        shape_.constant_difference = std::to_string(static_cast<std::int64_t>(difference_));
      }
    }
    return shape_;
  }

 private:
  static constexpr bool kIntegral = std::is_integral_v<T> && !std::is_same_v<T, bool>;

  bool expected_varies() const {
    for (const T& e : expected_) {
      if (!same_value(e, expected_.front())) return true;
    }
    return false;
  }

  bool expected_holds(const T& value) const {
    for (const T& e : expected_) {
      if (same_value(e, value)) return true;
    }
    return false;
  }

  const std::vector<T>& expected_;
  const std::vector<T>& got_;
  std::size_t compared_;
  bool exact_;
  ErrorShape shape_;
  std::size_t count_ = 0;
  bool one_value_ = true;
  bool one_difference_ = true;
  std::uint64_t difference_ = 0;
};
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
  detail::ShapeTracker<T> shape(expected, got, report.compared, true);
  for (std::size_t i = 0; i < report.compared; ++i) {
    if (expected[i] == got[i]) continue;
    shape.note(i);
    if (report.mismatch_count++ < kMismatchesShown) {
      report.first.push_back({i, detail::print(expected[i]), detail::print(got[i])});
    }
  }
  report.shape = shape.finish();
  return report;
}

/// @brief Element-wise comparison of floats within a tolerance; NaN never matches.
/// Of the error shapes, only those of position and the never-written one apply.
/// @param[in] expected The right answer (computed in double on the host, say).
/// @param[in] got The answer to check.
/// @param[in] tolerance How close is close enough.
/// @return The report.
ComparisonReport compare_floats(const std::vector<float>& expected, const std::vector<float>& got,
                                FloatTolerance tolerance);

}  // namespace workbook
