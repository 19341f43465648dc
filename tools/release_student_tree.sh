#!/usr/bin/env bash
# Make the tree an instructor hands to students: the repository without the
# reference solutions and without their walkthroughs (docs/walkthroughs/).
#
#   tools/release_student_tree.sh OUT_DIR [--head]
#
# Copies the working tree's files that git knows or would add (tracked and
# untracked, not ignored), or with --head the last commit (git archive), into
# OUT_DIR, which must not exist. A tree that is not a git checkout (an
# unpacked copy) is copied whole, less what .gitignore names (build outputs);
# --head needs a checkout. Before copying it checks that every student
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
# A git checkout of this very folder (not an unpacked copy, nor one inside another repository)?
checkout=0
if command -v git >/dev/null && [[ "$(git rev-parse --show-toplevel 2>/dev/null)" == "$(pwd -P)" ]]; then
  checkout=1
fi
if [[ "$mode" == --head && "$checkout" == 0 ]]; then
  echo "release: --head needs a git checkout, and $(pwd -P) is none; release the files as they are (no --head)" >&2
  exit 1
fi

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
elif [[ "$checkout" == 0 ]]; then
  # No git to ask what is ignored: leave out what .gitignore names, and the same three.
  ignored=(--exclude=./solutions --exclude=./docs/walkthroughs --exclude=./tools/gpu_checks.sh --exclude=./.git)
  while IFS= read -r pattern; do
    [[ -z "$pattern" || "$pattern" == \#* ]] && continue
    pattern="${pattern%/}"
    [[ "$pattern" == /* ]] && pattern=".$pattern"
    ignored+=("--exclude=$pattern")
  done <.gitignore
  out_real="$(cd "$out" && pwd -P)"
  [[ "$out_real" == "$(pwd -P)"/* ]] && ignored+=("--exclude=./${out_real#"$(pwd -P)"/}")
  tar "${ignored[@]}" -cf - . | tar -x -C "$out"
else
  git ls-files -z --cached --others --exclude-standard -- . "${excluded[@]}" |
    while IFS= read -r -d '' file; do
      [[ -e "$file" ]] || continue  # deleted in the working tree, not yet in git
      printf '%s\0' "$file"
    done | tar --null -T - -cf - | tar -x -C "$out"
fi

if [[ ! -x "$out/workbook" ]]; then
  echo "release: $out has no ./workbook after the copy; nothing was released" >&2
  rm -rf "$out"
  exit 1
fi
if [[ -e "$out/solutions" || -e "$out/docs/walkthroughs" ]]; then
  echo "release: solutions leaked into $out; nothing was released" >&2
  rm -rf "$out"
  exit 1
fi
echo "Released the student tree into $out ($(find "$out" -type f | wc -l) files, no solutions/)."
echo "Check it: cd $out && ./workbook test && ./workbook grade"
