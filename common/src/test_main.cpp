// The main() of every lab's test program.
#include <gtest/gtest.h>

#include "testing_internal.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  workbook::testing::internal::install_result_stream();
  return RUN_ALL_TESTS();
}
