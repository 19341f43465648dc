# Shared by the shell tests of tools/tests (source it first): ROOT (the
# repository), work (a temporary folder removed on exit), and checks that
# count failures instead of stopping, reported by finish.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

expect_in() { # expect_in FILE TEXT WHAT: FILE must contain TEXT
  grep -qF -- "$2" "$1" || {
    fail "$3: expected '$2' in:"
    sed 's/^/    /' "$1"
  }
}

finish() { # finish MESSAGE: exit 1 after any failure, else print MESSAGE
  if ((failures)); then
    echo "$failures check(s) failed"
    exit 1
  fi
  echo "$1"
}

# Instructor mode compiles in a bubblewrap sandbox; where none can be made,
# the tests that are about something else grade without it.
"$ROOT/tools/sandboxed_compile.sh" --probe || export WORKBOOK_ALLOW_UNSANDBOXED=1

# reuse_main_build: the builds that a test makes from scratch (a Gradescope
# package's, a grade-batch worker's) take the objects that the project's own
# build already compiled, where they are the same (tools/tests/reuse_main_build.sh,
# a compiler launcher), instead of compiling the grader and the harness again.
# The main build is ctest's working folder (where it runs a test), else
# build/default; WORKBOOK_TEST_MAIN_BUILD names another, or none when empty.
# A launcher of the caller's own (ccache) is kept instead. Each compile is
# noted in $work/reuse.log.
reuse_main_build() {
  [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}${CMAKE_CUDA_COMPILER_LAUNCHER:-}" ]] || return 0
  local main candidate
  if [[ -n "${WORKBOOK_TEST_MAIN_BUILD+set}" ]]; then
    main="$WORKBOOK_TEST_MAIN_BUILD"
  else
    main=""
    for candidate in "$PWD" "$ROOT/build/default"; do
      if [[ -f "$candidate/compile_commands.json" ]] &&
        grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT" "$candidate/CMakeCache.txt" 2>/dev/null; then
        main="$candidate"
        break
      fi
    done
  fi
  [[ -n "$main" ]] || return 0
  export WORKBOOK_TEST_MAIN_BUILD="$main" WORKBOOK_TEST_REUSE_LOG="$work/reuse.log"
  export CMAKE_CXX_COMPILER_LAUNCHER="$ROOT/tools/tests/reuse_main_build.sh"
  export CMAKE_CUDA_COMPILER_LAUNCHER="$ROOT/tools/tests/reuse_main_build.sh"
}

# reused_summary: how many objects the test's builds took from the main
# build, and the ones they compiled, with the reason (less CMake's compiler
# checks, which come through the launcher too).
reused_summary() {
  [[ -s "$work/reuse.log" ]] || return 0
  grep -v '/cmTC_' "$work/reuse.log" >"$work/reuse.shown"
  echo "objects taken from the main build ($WORKBOOK_TEST_MAIN_BUILD): $(grep -c '^reused ' "$work/reuse.shown")," \
    "compiled: $(grep -c '^compiled ' "$work/reuse.shown")"
  grep '^compiled ' "$work/reuse.shown" | sed 's/^/  /'
}
