#!/usr/bin/env bash
# Tests of ./workbook's own set-up, run by ctest (workbook_setup):
#  1. a machine without GoogleTest: the missing package is named with its
#     install command, or installed with apt-get as root or through sudo
#     (apt-get, sudo and id are stand-ins that record what they were asked);
#  2. a configure that fails is repaired by the next command, which builds;
#  3. when building, a GoogleTest not seen in the usual places only warns.
# nlohmann_json cannot be missing: the repository carries it (third_party/).
source "$(dirname "$0")/lib.sh"

# A machine with no GoogleTest anywhere: an empty fake root, no hints.
fake_root="$work/root"
stubs="$work/stubs"
mkdir -p "$fake_root" "$stubs"
cat >"$stubs/apt-get" <<STUB
#!/usr/bin/env bash
echo "apt-get \$*" >>"$work/apt.log"
if [[ "\$1" == install ]]; then mkdir -p "$fake_root/usr/include/gtest" && touch "$fake_root/usr/include/gtest/gtest.h"; fi
STUB
cat >"$stubs/sudo" <<STUB
#!/usr/bin/env bash
echo "sudo \$*" >>"$work/sudo.log"
[[ "\$1" == -n && "\${SUDO_WORKS:-1}" == 0 ]] && exit 1
[[ "\$1" == -n ]] && shift
exec "\$@"
STUB
cat >"$stubs/id" <<STUB
#!/usr/bin/env bash
echo "\${FAKE_UID:-0}"
STUB
chmod +x "$stubs"/*

run_setup() { # run_setup LOG ENV...: ./workbook setup on the fake machine, no terminal
  local log="$1"
  shift
  rm -rf "$fake_root/usr" "$work/apt.log" "$work/sudo.log"
  env -u CMAKE_PREFIX_PATH -u GTest_DIR -u WORKBOOK_GTEST_SOURCE -u WORKBOOK_NO_INSTALL \
    PATH="$stubs:$PATH" WORKBOOK_SYSROOT="$fake_root" "$@" "$ROOT/workbook" setup </dev/null >"$log" 2>&1
}

# Cannot install (told not to): one message with every missing package and the command.
run_setup "$work/no-install.log" WORKBOOK_NO_INSTALL=1 && fail "setup without GoogleTest and no install succeeded"
expect_in "$work/no-install.log" "missing here: libgtest-dev" "no install"
expect_in "$work/no-install.log" "sudo apt-get install libgtest-dev" "no install"

# Not root, and sudo needs a password with no terminal to type it: the same message.
run_setup "$work/no-sudo.log" FAKE_UID=1000 SUDO_WORKS=0 && fail "setup without root or sudo succeeded"
expect_in "$work/no-sudo.log" "sudo apt-get install libgtest-dev" "no sudo"
[[ -f "$work/apt.log" ]] && fail "apt-get ran without root or sudo"

# Root: says what it installs, installs it with apt-get, succeeds.
run_setup "$work/root.log" FAKE_UID=0 || fail "setup as root failed"
expect_in "$work/root.log" "installing with: apt-get install libgtest-dev" "root"
expect_in "$work/apt.log" "apt-get install -y -qq --no-install-recommends libgtest-dev" "root"

# Not root but sudo works: the same through sudo.
run_setup "$work/sudo.log" FAKE_UID=1000 SUDO_WORKS=1 || fail "setup through sudo failed"
expect_in "$work/sudo.log" "installing with: sudo apt-get install libgtest-dev" "sudo"
expect_in "$work/sudo.log" "everything the build needs is installed" "sudo"
expect_in "$work/apt.log" "apt-get install -y -qq --no-install-recommends libgtest-dev" "sudo"

# A configure that fails (no CUDA compiler) leaves a cache but no build.ninja;
# the next command configures from scratch and builds (one library, to stay quick).
build="$work/build"
WORKBOOK_BUILD_DIR="$build" CUDACXX=/nonexistent/nvcc "$ROOT/workbook" build >"$work/broken.log" 2>&1 &&
  fail "a configure with CUDACXX=/nonexistent/nvcc succeeded"
[[ -f "$build/CMakeCache.txt" && ! -f "$build/build.ninja" ]] ||
  fail "the broken configure should leave CMakeCache.txt and no build.ninja"
env -u CUDACXX WORKBOOK_BUILD_DIR="$build" WORKBOOK_BUILD_TARGET=workbook_common "$ROOT/workbook" build \
  >"$work/repaired.log" 2>&1 || fail "the configure was not repaired: $(tail -5 "$work/repaired.log")"
expect_in "$work/repaired.log" "the last configure of $build did not finish; configuring again" "repair"
[[ -f "$build/common/libworkbook_common.a" ]] || fail "the repaired build did not build workbook_common"

# A GoogleTest this script cannot see (another prefix) only warns before a
# configure: CMake's own search decides. The hints that would let the script
# see one (WORKBOOK_GTEST_SOURCE, GTest_DIR, ...) are taken away, whatever the
# caller's environment holds. Where CMake's search finds GoogleTest on this
# machine (/usr/src/googletest, or installed under /usr or /usr/local) the
# build goes on; elsewhere (a GPU machine given a source tree by
# WORKBOOK_GTEST_SOURCE only) CMake's own message must say how to point at one.
rm -rf "$fake_root/usr"
env -u CUDACXX -u CMAKE_PREFIX_PATH -u GTest_DIR -u GTEST_ROOT -u WORKBOOK_GTEST_SOURCE \
  WORKBOOK_SYSROOT="$fake_root" WORKBOOK_NO_INSTALL=1 WORKBOOK_BUILD_DIR="$work/build-lenient" \
  WORKBOOK_BUILD_TARGET=workbook_common "$ROOT/workbook" build >"$work/lenient.log" 2>&1
lenient_status=$?
expect_in "$work/lenient.log" "trying CMake's search" "lenient"
if [[ -f /usr/src/googletest/CMakeLists.txt ]] || compgen -G "/usr/lib*/cmake/GTest/GTestConfig.cmake" >/dev/null ||
  compgen -G "/usr/lib/*/cmake/GTest/GTestConfig.cmake" >/dev/null || [[ -f /usr/include/gtest/gtest.h ]] ||
  [[ -f /usr/local/include/gtest/gtest.h ]]; then
  ((lenient_status == 0)) || fail "a GoogleTest outside the usual places stopped the build: $(tail -5 "$work/lenient.log")"
else
  ((lenient_status != 0)) || fail "the build went on without any GoogleTest"
  expect_in "$work/lenient.log" "-DWORKBOOK_GTEST_SOURCE=<googletest checkout>" "lenient, no GoogleTest for CMake"
fi

# setup --instructor needs a working bubblewrap: without one it says so and fails.
WORKBOOK_SANDBOX_TOOL=/nonexistent/bwrap WORKBOOK_NO_INSTALL=1 WORKBOOK_ALLOW_UNSANDBOXED=1 \
  "$ROOT/workbook" setup --instructor >"$work/instructor.log" 2>&1 &&
  fail "setup --instructor succeeded without bubblewrap"
expect_in "$work/instructor.log" "none can be made here" "setup --instructor"

# Its last line says what it checked, in English, for every combination of
# options (where this machine has it all: nothing is installed here).
setup_said() { # setup_said EXPECTED OPTION...: the last line of ./workbook setup OPTION...
  local expected="$1"
  shift
  if ! WORKBOOK_NO_INSTALL=1 "$ROOT/workbook" setup "$@" >"$work/said.log" 2>&1 </dev/null; then
    echo "(setup $*: not everything is installed here, so its last line is not checked)"
    return 0
  fi
  [[ "$(tail -1 "$work/said.log")" == "workbook: everything $expected is installed." ]] ||
    fail "setup $*: expected 'workbook: everything $expected is installed.', got: $(tail -1 "$work/said.log")"
}
setup_said "the build needs"
setup_said "the build and the docs site need" --docs
setup_said "the build and the sandbox of instructor grading need" --instructor
setup_said "the build, the docs site and the sandbox of instructor grading need" --instructor --docs

finish "workbook set-up: missing packages named or installed (root, sudo); a failed configure repaired"
