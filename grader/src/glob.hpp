/// @file glob.hpp
/// @brief GoogleTest-style wildcard matching of test names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace workbook::grader {

/// @brief Whether @p text matches @p pattern, where '*' matches any run of
/// characters (including '/' and '.') and '?' matches one character, as in
/// --gtest_filter.
/// @param[in] pattern The glob, e.g. "AbcSizes/*".
/// @param[in] text The full test name, e.g. "AbcSizes/AbcTest.MatchesHost/7".
/// @return true when the whole of @p text matches.
bool glob_match(std::string_view pattern, std::string_view text);

/// @brief Whether @p name matches any of @p globs.
/// @param[in] globs Patterns as for glob_match().
/// @param[in] name The full test name.
/// @return true when one of the globs matches.
bool matches_any(const std::vector<std::string>& globs, const std::string& name);

}  // namespace workbook::grader
