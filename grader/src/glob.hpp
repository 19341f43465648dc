/// @file glob.hpp
/// @brief GoogleTest-style wildcard matching of test names.
#pragma once

#include <string_view>

namespace workbook::grader {

/// @brief Whether @p text matches @p pattern, where '*' matches any run of
/// characters (including '/' and '.') and '?' matches one character, as in
/// --gtest_filter.
/// @param[in] pattern The glob, e.g. "AbcSizes/*".
/// @param[in] text The full test name, e.g. "AbcSizes/AbcTest.MatchesHost/7".
/// @return true when the whole of @p text matches.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace workbook::grader
