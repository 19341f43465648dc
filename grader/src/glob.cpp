#include "glob.hpp"

#include <cstddef>

namespace workbook::grader {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with one backtrack point: linear for the patterns we
  // see, no recursion blow-up on "*a*a*a*...".
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
  for (const std::string& glob : globs) {
    if (glob_match(glob, name)) return true;
  }
  return false;
}

}  // namespace workbook::grader
