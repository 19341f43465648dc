#!/usr/bin/env bash
# Test of tools/release_student_tree.sh, run by ctest in the full repository:
# --help prints the usage (and makes no folder named --help); a release holds
# none of the paths it must leave out, says nothing of them in what students
# read, and passes the leak check; and a tree with a renamed fragment of a
# hole planted in a lab's experiment is refused, leaving nothing behind.
source "$(dirname "$0")/lib.sh"
release="$ROOT/tools/release_student_tree.sh"

# 1. --help and bad arguments.
(cd "$work" && "$release" --help >"$work/help.txt" 2>&1) || fail "--help exited with $?"
expect_in "$work/help.txt" "usage: tools/release_student_tree.sh OUT_DIR [--head]" "--help"
[[ ! -e "$work/--help" ]] || fail "--help made a folder named --help"
(cd "$work" && "$release" --frobnicate >"$work/bad.txt" 2>&1) && fail "an unknown option was accepted"
expect_in "$work/bad.txt" "unknown option '--frobnicate'" "an unknown option"

# 2. A release of this tree.
"$release" "$work/release" >"$work/release.log" 2>&1 || fail "the release failed: $(tail -20 "$work/release.log")"
expect_in "$work/release.log" "Leak check: none of the" "the release's leak check"
while read -r path; do
  [[ ! -e "$work/release/$path" ]] || fail "the release holds $path"
done < <(sed -n '/^NOT_RELEASED=(/,/^)/p' "$release" | sed '1d;$d' | tr -d ' ')
[[ -z "$(find "$work/release" -name 'experiment_reference.cu' -print -quit)" ]] ||
  fail "the release holds a comparison kept beside the solutions"
if grep -n "solutions/\|<!-- full repository only -->" "$work/release/README.md"; then
  fail "the released README names solutions/ or kept a full-repository block"
fi
(cd "$work/release" && ./workbook --help >"$work/release-help.txt" 2>&1) || fail "the release's ./workbook --help failed"
if grep -n -- "--solution" "$work/release-help.txt"; then
  fail "the release's ./workbook --help offers --solution(s)"
fi

# 3. A fragment of a real hole, renamed and laid out on one line, planted in
# lab 04's experiment of a copy of this tree: the copy's release is refused.
mkdir -p "$work/copy"
tar -C "$ROOT" --exclude=./build --exclude=./.deps --exclude=./.git --exclude=./grade-reports -cf - . |
  tar -x -C "$work/copy"
python3 - "$ROOT" "$work/copy/labs/04-reductions/experiment.cu" <<'PY' || fail "could not plant the fragment"
import re, sys
from pathlib import Path
sys.path.insert(0, str(Path(sys.argv[1]) / "tools"))
import check_release_leaks as leaks
where, code = next((w, c) for w, c in leaks.holes(Path(sys.argv[1]) / "solutions")
                   if w.startswith("04-") and len(c) >= 80)
renamed = [token + "_" if token[0].isalpha() and token not in leaks.KEYWORDS else token for _, token in code]
with open(sys.argv[2], "a") as f:
    f.write("\n// planted by release_test.sh: " + where + "\nvoid planted() { " + " ".join(renamed[:80]) + " }\n")
PY
"$work/copy/tools/release_student_tree.sh" "$work/leaky" >"$work/leaky.log" 2>&1 &&
  fail "a release with a planted fragment was made"
expect_in "$work/leaky.log" "labs/04-reductions/experiment.cu" "the leak check names the planted file"
expect_in "$work/leaky.log" "the leak check found solution code; nothing was released" "the refusal"
[[ ! -e "$work/leaky" ]] || fail "the refused release left $work/leaky behind"

finish "release: --help, a clean release, and a planted fragment refused"
