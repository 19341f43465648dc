#!/usr/bin/env bash
# Compiles a submission's student file in a bubblewrap sandbox (instructor
# mode: CMake's compiler launcher for the labNN_student targets when
# WORKBOOK_SANDBOX_COMPILE is on). Compiling is running untrusted input too:
# `#include "/some/where/secret"` must not put another student's file or the
# instructor's into the student's error messages. The compiler sees the
# system folders read-only, the instructor tree's labs/ and common/ (the
# contracts and the harness) read-only, the build folder (which holds the
# staged student files) read-write, a private /tmp, no network.
#   tools/sandboxed_compile.sh ROOT BUILD COMPILER ARGS...
#   tools/sandboxed_compile.sh --probe     exit 0 when a sandbox can be made here
set -uo pipefail
# WORKBOOK_SANDBOX_TOOL: the bwrap to use (the grader's --sandbox reads it too).
tool="${WORKBOOK_SANDBOX_TOOL:-bwrap}"
bwrap_cmd() {  # bwrap_cmd ROOT BUILD: the sandbox's options
  local root="$1" build="$2" folder
  local cmd=("$tool" --die-with-parent --unshare-pid --unshare-net --unshare-ipc --unshare-uts)
  for folder in /usr /lib /lib64 /lib32 /bin /sbin /etc /opt; do cmd+=(--ro-bind-try "$folder" "$folder"); done
  # The private /tmp is the only temporary folder: a TMPDIR from outside
  # (grade-batch sets one) does not exist in here.
  cmd+=(--proc /proc --dev /dev --tmpfs /tmp --setenv TMPDIR /tmp)
  [[ -n "$root" ]] && cmd+=(--ro-bind "$root/labs" "$root/labs" --ro-bind "$root/common" "$root/common"
    --ro-bind-try "$root/third_party" "$root/third_party")
  [[ -n "$build" ]] && cmd+=(--bind "$build" "$build" --chdir "$PWD")
  printf '%s\n' "${cmd[@]}"
}

if [[ "${1:-}" == --probe ]]; then
  command -v "$tool" >/dev/null || exit 1
  mapfile -t cmd < <(bwrap_cmd "" "")
  "${cmd[@]}" -- /bin/true 2>/dev/null
  exit
fi
[[ $# -ge 3 ]] || { echo "usage: $0 ROOT BUILD COMPILER ARGS..." >&2; exit 2; }
root="$1" build="$2"
shift 2
if ! "$0" --probe; then
  if [[ "${WORKBOOK_ALLOW_UNSANDBOXED:-0}" == 1 ]]; then
    exec "$@"
  fi
  echo "workbook: the submission's files are compiled in a sandbox, and bubblewrap (bwrap) cannot make one" \
    "here: install it (sudo apt-get install bubblewrap), or grade without it: ./workbook grade" \
    "--allow-unsandboxed ..." >&2
  exit 1
fi
mapfile -t cmd < <(bwrap_cmd "$root" "$build")
exec "${cmd[@]}" -- "$@"
