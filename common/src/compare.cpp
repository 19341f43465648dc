#include "workbook/compare.hpp"

#include <algorithm>

namespace workbook {

std::string ComparisonReport::describe() const {
  std::ostringstream out;
  if (!size_problem.empty()) out << size_problem << "; ";
  out << mismatch_count << " of " << compared << " elements differ";
  if (!first.empty()) {
    out << "; first:";
    for (const Mismatch& m : first)
      out << " [" << m.index << "] expected " << m.expected << ", got " << m.got << ";";
  }
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
  for (std::size_t i = 0; i < report.compared; ++i) {
    const double e = expected[i];
    const double g = got[i];
    const bool close = std::fabs(g - e) <= tolerance.absolute + tolerance.relative * std::fabs(e);
    if (close) continue;  // NaN compares false, so it lands below as a mismatch.
    if (report.mismatch_count++ < kMismatchesShown) {
      report.first.push_back({i, detail::print(expected[i]), detail::print(got[i])});
    }
  }
  return report;
}

}  // namespace workbook
