# Find what the workbook needs; a missing piece stops configure with the fix.
find_package(CUDAToolkit REQUIRED)

find_package(GTest QUIET)
# Debian's googletest package and others ship only the sources: build them here.
set(WORKBOOK_GTEST_SOURCE "" CACHE PATH "A GoogleTest source tree to build when no installed GTest is found")
if(NOT GTest_FOUND)
  foreach(candidate ${WORKBOOK_GTEST_SOURCE} $ENV{WORKBOOK_GTEST_SOURCE} /usr/src/googletest)
    if(EXISTS ${candidate}/CMakeLists.txt)
      message(STATUS "Building GoogleTest from ${candidate}")
      set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
      set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
      add_subdirectory(${candidate} ${CMAKE_BINARY_DIR}/_deps/googletest EXCLUDE_FROM_ALL)
      add_library(GTest::gtest ALIAS gtest)
      add_library(GTest::gtest_main ALIAS gtest_main)
      set(GTest_FOUND TRUE)
      break()
    endif()
  endforeach()
endif()
if(NOT GTest_FOUND)
  message(FATAL_ERROR
    "GoogleTest was not found. Install it and configure again:\n"
    "  Debian/Ubuntu: sudo apt-get install libgtest-dev\n"
    "  Fedora:        sudo dnf install gtest-devel\n"
    "  Conda:         conda install -c conda-forge gtest\n"
    "or point CMake at an installed copy with -DGTest_DIR=<prefix>/lib/cmake/GTest,\n"
    "or at a source tree with -DWORKBOOK_GTEST_SOURCE=<googletest checkout> (or that environment variable).")
endif()

# nlohmann_json, the grader's JSON library: headers only, so a pinned copy
# travels with the repository (third_party/README.md) and is always used.
add_library(workbook_nlohmann_json INTERFACE)
target_include_directories(workbook_nlohmann_json SYSTEM INTERFACE
  ${PROJECT_SOURCE_DIR}/third_party/nlohmann_json-3.11.2/include)
add_library(nlohmann_json::nlohmann_json ALIAS workbook_nlohmann_json)

find_package(Python3 3.8 QUIET COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(FATAL_ERROR
    "Python 3.8 or newer was not found; the workbook's tools need it.\n"
    "  Debian/Ubuntu: sudo apt-get install python3")
endif()

include(GoogleTest)
