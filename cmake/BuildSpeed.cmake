# What keeps the build short (measured on a 2-core machine without a GPU,
# g++ 12 and nvcc 13.0; ./workbook build, 2026-11-26). A new lab or tool
# needs nothing from here: workbook_add_lab uses it.

# A compiler cache: a rebuild after `git pull` or a branch switch, or a
# second build folder of the same tree, compiles only what it has not
# compiled before. Used when ccache is installed (./workbook setup installs
# it) and no other launcher was asked for; -DWORKBOOK_USE_CCACHE=OFF turns it
# off. No CCACHE_BASEDIR: it would make __FILE__ and the device line tables
# relative paths, which the grader's tests and compute-sanitizer's reports
# rely on being absolute (copies of the tree in tools/tests reuse the main
# build's objects their own way: reuse_main_build in tools/tests/lib.sh).
option(WORKBOOK_USE_CCACHE "Compile through ccache where it is installed" ON)
if(WORKBOOK_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  find_program(WORKBOOK_CCACHE ccache)
  if(WORKBOOK_CCACHE)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${WORKBOOK_CCACHE})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${WORKBOOK_CCACHE})
    message(STATUS "Compiling through ${WORKBOOK_CCACHE}")
  endif()
endif()

# workbook_host_optimization(<target> <level>)
# The host compiler's optimization level of a target's Release build, instead
# of -O3, for code whose speed does not matter as much as its compile time.
# Measured (CPU seconds of one compile, g++ 12 under nvcc 13.0, 2 cores):
# labs/09-histograms/tests/histogram_test.cu 17.1 at -O3, 13.7 at -O2, 11.7
# at -O1; grader/tests/unit_tests.cpp 13.4 at -O3, 8.0 at -O1. Used at:
# - 1, the grader and the project's own tests (tools that wait for test
#   programs and parse their output);
# - 2, the labs' test programs, whose host-side checks run in every grade
#   (at -O1 the ten labs' solutions graded 49 s instead of 43-46 on the H200).
# The code under test (the labs' implementations, workbook::common,
# workbook::testing, the experiments) stays at -O3, and device code is the
# same at every level (nvcc's -O is the host compiler's). The level is one
# compile option chosen per target (nvcc warns about a second -O), so it is
# taken out of the Release flags here, before any target of ours exists.
string(REGEX REPLACE "-O[0-9]" "" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
string(REGEX REPLACE "-O[0-9]" "" CMAKE_CUDA_FLAGS_RELEASE "${CMAKE_CUDA_FLAGS_RELEASE}")
set(level "$<TARGET_PROPERTY:WORKBOOK_HOST_OPTIMIZATION>")
add_compile_options("$<$<CONFIG:Release>:-O$<IF:$<BOOL:${level}>,${level},3>>")
function(workbook_host_optimization target level)
  set_target_properties(${target} PROPERTIES WORKBOOK_HOST_OPTIMIZATION ${level})
endfunction()
