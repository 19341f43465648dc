#pragma once

#include <string>

namespace workbook::testing::internal {
// Appends a JSON line per test start and end to $WORKBOOK_RESULTS when set.
void install_result_stream();
// "Suite.Name" of the running test, or "" outside one.
std::string running_test_name();

// The process's threads (/proc/self/task), or -1 where they cannot be counted.
int process_threads();
// main()'s first step: how many threads ran before it (1: main's own).
void record_threads_at_main();
// After the GoogleTest flags, before any test: starts the CUDA runtime (where
// there is a GPU) and counts the threads then, the baseline of thread_problem().
void record_thread_baseline();
// "" when the process has no thread beyond the baseline and none ran before
// main(); else what to tell the student. @p when: "after your call", ...
std::string thread_problem(const std::string& when);
}  // namespace workbook::testing::internal
