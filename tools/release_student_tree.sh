#!/usr/bin/env bash
# Make the tree an instructor hands to students: the repository without the
# reference solutions, without what explains or was made from them, and
# without the maintainers' tools that need them.
#
#   tools/release_student_tree.sh OUT_DIR [--head]
#   tools/release_student_tree.sh --help
#
# Copies the working tree's files that git knows or would add (tracked and
# untracked, not ignored), or with --head the last commit (git archive), into
# OUT_DIR, which must not exist. A tree that is not a git checkout (an
# unpacked copy) is copied whole, less what .gitignore names (build outputs);
# --head needs a checkout. Then, in the copy:
#   1. every path of NOT_RELEASED below is left out;
#   2. every Markdown file loses its blocks between "<!-- full repository only -->"
#      and "<!-- end full repository only -->" (what only the full repository
#      has: the solutions, the maintainers' tools);
#   3. no document a student follows (README, student guide, handouts, the
#      notebook, ./workbook --help) may still name what the release lacks
#      (solutions/, the wrong solutions, the sweeps, the walkthroughs,
#      grade --solutions);
#   4. tools/check_release_leaks.py: no released file holds code of the
#      solutions' holes, as it is or renamed.
# A failed step deletes the copy: nothing half-made is left to hand out.
# Before copying, it checks that every student file is exactly what
# tools/make_skeletons.py generates, so that no solution code leaks through a
# hand-edited skeleton. The copy configures and builds as usual (CMake builds
# solution targets and registers the maintainers' tests only where solutions/
# is there), `./workbook grade` grades the students' files, and
# `./workbook docs` builds a site with handouts, API and rubrics but no
# walkthroughs.
set -euo pipefail
cd "$(dirname "$0")/.."

# Never released. The solutions and the walkthroughs that explain them; the
# comparison kernels beside them; the maintainers' tools that grade, mutate,
# sweep or demonstrate with the solutions, and the tests that use them.
NOT_RELEASED=(
  solutions
  docs/walkthroughs
  CONTRIBUTING.md
  tools/gpu_checks.sh
  tools/sweeps
  tools/wrong_solutions
  tools/wrong_solutions.py
  tools/make_skeletons.py
  tools/make_gradescope_package.py
  tools/make_demo_class.py
  tools/batch_demo.sh
  tools/hostile_demo.sh
  tools/sandbox_demo.sh
  tools/sanitizer_demo.sh
  tools/tests/grade_batch_test.sh
  tools/tests/grade_submission_test.sh
  tools/tests/gradescope_package_test.sh
  tools/tests/release_test.sh
  tools/tests/similarity_class
  tools/tests/similarity_report_test.py
)
# What the documents a student follows (the README, the student guide, the
# handouts, the notebook, ./workbook --help) may not name (grep -E). The
# instructor guide and grader/README.md may: they describe the release itself.
STUDENT_DOCUMENTS=(README.md docs/index.md docs/student-guide.md docs/concepts.md labs colab)
MENTIONS='solutions/|wrong_solutions|tools/sweeps|walkthroughs/|gpu_checks|grade --solutions|make_skeletons'

usage() {
  cat <<'EOF'
usage: tools/release_student_tree.sh OUT_DIR [--head]

Makes OUT_DIR (a new folder): the tree to hand to students, without the
reference solutions, their walkthroughs, the comparison kernels beside them
and the maintainers' tools that use them. It fails, and leaves nothing, when
a student file differs from its generated skeleton, when a released document
still names what the release lacks, or when a released file holds code of
the solutions' holes (tools/check_release_leaks.py).

  OUT_DIR   where to put the tree; it must not exist yet
  --head    release the last commit instead of the working tree's files
  --help    this text

Then: cd OUT_DIR && ./workbook test && ./workbook grade
EOF
}

out=""
mode=worktree
for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    --head) mode=--head ;;
    -*) echo "release: unknown option '$arg' (see tools/release_student_tree.sh --help)" >&2; exit 1 ;;
    *)
      [[ -z "$out" ]] || { echo "release: give one OUT_DIR, not '$out' and '$arg' (see --help)" >&2; exit 1; }
      out="$arg"
      ;;
  esac
done
[[ -n "$out" ]] || { usage >&2; exit 1; }
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
[[ -d solutions ]] || {
  echo "release: $(pwd -P) has no solutions/: it is a release already; release from the full repository" >&2
  exit 1
}

python3 tools/make_skeletons.py --check >/dev/null || {
  echo "release: the student files differ from the generated skeletons; run python3 tools/make_skeletons.py" >&2
  exit 1
}

fail() {
  echo "release: $*; nothing was released" >&2
  rm -rf "$out"
  exit 1
}

excluded=()
for path in "${NOT_RELEASED[@]}"; do excluded+=(":(exclude)$path"); done
mkdir -p "$out"
if [[ "$mode" == --head ]]; then
  git archive --format=tar HEAD -- . "${excluded[@]}" | tar -x -C "$out"
elif [[ "$checkout" == 0 ]]; then
  # No git to ask what is ignored: leave out what .gitignore names, and the list above.
  ignored=(--exclude=./.git)
  for path in "${NOT_RELEASED[@]}"; do ignored+=("--exclude=./$path"); done
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

[[ -x "$out/workbook" ]] || fail "$out has no ./workbook after the copy"
for path in "${NOT_RELEASED[@]}"; do
  [[ ! -e "$out/$path" ]] || fail "$path was copied into $out"
done

# 2. What only the full repository has leaves the documents.
python3 - "$out" <<'PY' || fail "could not cut the full-repository blocks out of the documents"
import pathlib, re, sys
# A block on lines of its own goes with its lines; one inside a line, with what is between.
lines = re.compile(r"^[ \t]*<!-- full repository only -->[ \t]*\n.*?^[ \t]*<!-- end full repository only -->[ \t]*\n",
                   re.S | re.M)
inline = re.compile(r"<!-- full repository only -->.*?<!-- end full repository only -->", re.S)
for path in pathlib.Path(sys.argv[1]).rglob("*.md"):
    text = path.read_text(encoding="utf-8")
    if "<!-- full repository only -->" in text:
        cut = inline.sub("", lines.sub("", text))
        if "full repository only -->" in cut:
            sys.exit(f"{path}: a '<!-- full repository only -->' block is not closed")
        path.write_text(cut, encoding="utf-8")
PY

# 3. Nothing released names what the release lacks.
mentions=$(cd "$out" && {
  grep -rnE "$MENTIONS" --include="*.md" --include="*.ipynb" "${STUDENT_DOCUMENTS[@]}" 2>/dev/null || true
  ./workbook --help 2>&1 | grep -nE "$MENTIONS|--solution" | sed 's|^|./workbook --help:|' || true
})
if [[ -n "$mentions" ]]; then
  echo "release: these released lines name what the student release does not have:" >&2
  head -40 <<<"$mentions" >&2
  echo "(wrap them in <!-- full repository only --> ... <!-- end full repository only -->, or reword them)" >&2
  fail "the documents name what the release lacks"
fi

# 4. No released file holds code of the solutions' holes.
python3 tools/check_release_leaks.py "$out" --solutions solutions || fail "the leak check found solution code"

echo "Released the student tree into $out ($(find "$out" -type f | wc -l) files, no solutions/)."
echo "Check it: cd $out && ./workbook test && ./workbook grade"
