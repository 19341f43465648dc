// The main() of every lab's test program.
#include <gtest/gtest.h>

#include "testing_internal.hpp"

int main(int argc, char** argv) {
  // First of all: a thread already running here was started by a static
  // initializer (the speed tests fail on it, see workbook/speed.hpp).
  workbook::testing::internal::record_threads_at_main();
  ::testing::InitGoogleTest(&argc, argv);
  workbook::testing::internal::install_result_stream();
  // Listing the tests (the grader, ctest's discovery) needs no GPU.
  if (!GTEST_FLAG_GET(list_tests)) workbook::testing::internal::record_thread_baseline();
  return RUN_ALL_TESTS();
}
