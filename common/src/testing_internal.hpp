#pragma once

namespace workbook::testing::internal {
// Appends a JSON line per test start and end to $WORKBOOK_RESULTS when set.
void install_result_stream();
}  // namespace workbook::testing::internal
