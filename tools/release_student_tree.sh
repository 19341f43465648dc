#!/usr/bin/env bash
# Make the tree an instructor hands to students: the repository without the
# reference solutions and without their walkthroughs (docs/walkthroughs/).
#
#   tools/release_student_tree.sh OUT_DIR [--head]
#
# Copies the working tree's files that git knows or would add (tracked and
# untracked, not ignored), or with --head the last commit (git archive), into
# OUT_DIR, which must not exist. Before copying it checks that every student
# file is exactly what tools/make_skeletons.py generates, so that no solution
# code can leak through a hand-edited skeleton. The copy configures and builds
# as usual (CMake builds solution targets only where solutions/ has the file),
# `./workbook grade` grades the students' files, and `./workbook docs` builds a
# site with handouts, API and rubrics but no walkthroughs.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: tools/release_student_tree.sh OUT_DIR [--head]" >&2; exit 1; }
[[ $# -ge 1 && $# -le 2 ]] || usage
out="$1"
mode="${2:-worktree}"
[[ "$mode" == worktree || "$mode" == --head ]] || usage
[[ ! -e "$out" ]] || { echo "release: $out already exists; give a new folder" >&2; exit 1; }
command -v git >/dev/null || { echo "release: git is needed" >&2; exit 1; }

python3 tools/make_skeletons.py --check >/dev/null || {
  echo "release: the student files differ from the generated skeletons; run python3 tools/make_skeletons.py" >&2
  exit 1
}

# Never released: the solutions, the walkthroughs that explain them, and the
# maintainers' GPU check (it grades and benchmarks the solutions).
excluded=(':(exclude)solutions' ':(exclude)docs/walkthroughs' ':(exclude)tools/gpu_checks.sh')

mkdir -p "$out"
if [[ "$mode" == --head ]]; then
  git archive --format=tar HEAD -- . "${excluded[@]}" | tar -x -C "$out"
else
  git ls-files -z --cached --others --exclude-standard -- . "${excluded[@]}" |
    while IFS= read -r -d '' file; do
      [[ -e "$file" ]] || continue  # deleted in the working tree, not yet in git
      printf '%s\0' "$file"
    done | tar --null -T - -cf - | tar -x -C "$out"
fi

if [[ -e "$out/solutions" || -e "$out/docs/walkthroughs" ]]; then
  echo "release: solutions leaked into $out; nothing was released" >&2
  rm -rf "$out"
  exit 1
fi
echo "Released the student tree into $out ($(find "$out" -type f | wc -l) files, no solutions/)."
echo "Check it: cd $out && ./workbook test && ./workbook grade"
