#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image; the
# package (tools/make_gradescope_package.py) was unpacked into $AUTOGRADER/source.
# It installs what the build needs and builds the labs with the skeletons in
# place, so that grading a submission rebuilds only the student files.
set -euo pipefail
AUTOGRADER="${AUTOGRADER_ROOT:-/autograder}"
cd "$AUTOGRADER/source"
empty=$(mktemp -d)
labs=()
[[ -s gradescope/labs ]] && read -r -a labs <gradescope/labs
./workbook grade "${labs[@]}" --submission "$empty" --build-only
rmdir "$empty"
