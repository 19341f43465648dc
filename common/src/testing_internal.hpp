#pragma once

#include <string>

namespace workbook::testing::internal {
// Appends a JSON line per test start and end to $WORKBOOK_RESULTS when set.
void install_result_stream();
// "Suite.Name" of the running test, or "" outside one.
std::string running_test_name();
}  // namespace workbook::testing::internal
