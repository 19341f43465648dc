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
