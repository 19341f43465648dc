#include "workbook/compare.hpp"

#include <algorithm>

namespace workbook {

namespace {
// A stretch of at least this many elements starting at a multiple of it is
// taken for a block or tile: a warp is the smallest unit a kernel tiles by.
constexpr std::size_t kSmallestTile = 32;
}  // namespace

// The grader recognises these sentences by their openings
// (shapes_in_message() in grader/src/failure_analysis.cpp): change both together.
std::string ErrorShape::sentence(std::size_t compared, std::size_t mismatch_count) const {
  if (mismatch_count == 0) return "";
  // Shifted: every mismatch holds its neighbour's expected value, except at
  // the end where that neighbour does not exist (the 0 of an exclusive scan,
  // the total of an inclusive one).
  const std::size_t left_exceptions = first == 0 ? 1 : 0;
  const std::size_t right_exceptions = last + 1 == compared ? 1 : 0;
  const char* shift = nullptr;
  if (shifted_left >= 2 && shifted_left + left_exceptions == mismatch_count)
    shift = "got[i] holds expected[i - 1]";
  if (shifted_right >= 2 && shifted_right + right_exceptions == mismatch_count)
    shift = "got[i] holds expected[i + 1]";
  if (shift != nullptr) {
    return std::string("the values are shifted by one position (") + shift +
           "): an exclusive result where an inclusive one was expected, or the reverse";
  }
  if (!unwritten_value.empty()) {
    return "the wrong elements still hold the value " + unwritten_value +
           " the output was filled with before the call: never written";
  }
  if (!constant_difference.empty()) {
    return "every element is off by " + constant_difference + ": a missing initial value or offset";
  }
  // Position: right before element k, wrong from k to the end (most of it).
  const std::size_t k = first;
  const std::size_t wrong_stretch = compared - k;
  if (k == 0 || last + 1 != compared || 2 * mismatch_count < wrong_stretch) return "";
  const std::size_t tile = k & (~k + 1);  // the largest power of two that divides k
  const bool at_tile = tile >= kSmallestTile;
  // Shorter than the tile it starts (or than the right part): the last block.
  if (at_tile ? wrong_stretch < tile : wrong_stretch < k) {
    if (wrong_stretch == 1) return "right except the last element: the bounds of the last block";
    return "right except the last " + std::to_string(wrong_stretch) +
           " elements: the bounds of the last block";
  }
  std::string text = "right up to element " + std::to_string(k) + ", wrong from there on";
  if (at_tile) {
    text += " (" + std::to_string(k) + " is a multiple of " + std::to_string(tile) +
            ", a block or tile boundary: look at the carry or offset between tiles)";
  }
  return text;
}

std::string ComparisonReport::describe() const {
  std::ostringstream out;
  if (!size_problem.empty()) out << size_problem << "; ";
  out << mismatch_count << " of " << compared << " elements differ";
  if (!first.empty()) {
    out << "; first:";
    for (const Mismatch& m : first)
      out << " [" << m.index << "] expected " << m.expected << ", got " << m.got << ";";
  }
  const std::string shape_sentence = shape.sentence(compared, mismatch_count);
  if (!shape_sentence.empty()) out << " Shape of the error: " << shape_sentence << ".";
  return out.str();
}

FloatTolerance FloatTolerance::growing_with(std::size_t n, double per_term) {
  FloatTolerance tolerance;
  tolerance.relative = 1e-6 + per_term * std::log2(static_cast<double>(std::max<std::size_t>(n, 2)));
  return tolerance;
}

ComparisonReport compare_floats(const std::vector<float>& expected, const std::vector<float>& got,
                                FloatTolerance tolerance) {
  ComparisonReport report;
  detail::check_sizes(expected.size(), got.size(), report);
  detail::ShapeTracker<float> shape(expected, got, report.compared, false);
  for (std::size_t i = 0; i < report.compared; ++i) {
    const double e = expected[i];
    const double g = got[i];
    const bool close = std::fabs(g - e) <= tolerance.absolute + tolerance.relative * std::fabs(e);
    if (close) continue;  // NaN compares false, so it lands below as a mismatch.
    shape.note(i);
    if (report.mismatch_count++ < kMismatchesShown) {
      report.first.push_back({i, detail::print(expected[i]), detail::print(got[i])});
    }
  }
  report.shape = shape.finish();
  return report;
}

}  // namespace workbook
