# What keeps the build short (measured on a 2-core machine without a GPU,
# g++ 12 and nvcc 13.0; ./workbook build, 2026-11-26). A new lab or tool
# needs nothing from here: workbook_add_lab uses it.

# A compiler cache: a rebuild after `git pull`, a second build folder or a
# test that builds a copy of the tree (tools/tests/) compiles only what
# changed. Used when ccache is installed (./workbook setup installs it) and
# no other launcher was asked for; -DWORKBOOK_USE_CCACHE=OFF turns it off.
# CCACHE_BASEDIR makes paths under the source tree relative, so that copies
# of the tree in other folders share the cache.
option(WORKBOOK_USE_CCACHE "Compile through ccache where it is installed" ON)
if(WORKBOOK_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER AND NOT CMAKE_CUDA_COMPILER_LAUNCHER)
  find_program(WORKBOOK_CCACHE ccache)
  if(WORKBOOK_CCACHE)
    set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} ${WORKBOOK_CCACHE})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${launcher})
    set(CMAKE_CUDA_COMPILER_LAUNCHER ${launcher})
    message(STATUS "Compiling through ${WORKBOOK_CCACHE}")
  endif()
endif()

# workbook_compile_lightly(<target>)
# Host code of tests and tools at -O1 instead of Release's -O3: they spend
# their time waiting for the GPU or for test programs, and -O3 doubles the
# compile time of template-heavy test files (GoogleTest, nlohmann_json). The
# device code is unchanged (nvcc's -O is the host compiler's level), and the
# code under test (the labs' implementations, workbook::common and
# workbook::testing, the experiments) stays at -O3. The level is one
# compile option chosen per target (nvcc warns about a second -O), so it is
# taken out of the Release flags here, before any target of ours exists.
string(REGEX REPLACE "-O[0-9]" "" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
string(REGEX REPLACE "-O[0-9]" "" CMAKE_CUDA_FLAGS_RELEASE "${CMAKE_CUDA_FLAGS_RELEASE}")
add_compile_options("$<$<CONFIG:Release>:$<IF:$<BOOL:$<TARGET_PROPERTY:WORKBOOK_COMPILE_LIGHTLY>>,-O1,-O3>>")
function(workbook_compile_lightly target)
  set_target_properties(${target} PROPERTIES WORKBOOK_COMPILE_LIGHTLY ON)
endfunction()
