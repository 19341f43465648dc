#!/usr/bin/env python3
"""Stage a student's submission for instructor-mode grading.

    python3 tools/stage_submission.py SUBMISSION_DIR STAGE_DIR

Copies each lab's student file, labs/<folder>/<base>.cu, from the submission
into STAGE_DIR/labs/<folder>/<base>.cu, and nothing else: the build then takes
the contracts, tests, harness, CMake and rubric from this (the instructor's)
tree. A submission may be a student's repository (labs/<folder>/<base>.cu) or
an unpacked upload (<folder>/<base>.cu, or <base>.cu at its top). A lab with no
file is staged as the untouched skeleton (it scores 0). Every other file of the
submission that differs from this tree is listed as ignored. Used by
./workbook grade --submission DIR.
"""
import filecmp
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A student file larger than this is refused: no lab's file comes near it.
MAX_STUDENT_FILE_BYTES = 1 << 20
# Folders of a student's repository that are never part of a submission.
SKIPPED_FOLDERS = {".git", "build", "grade-reports", "__pycache__", ".deps"}
IGNORED_SHOWN = 40


def labs_of(root):
    """(folder, base) of every lab, from workbook_add_lab() in CMakeLists.txt."""
    text = (root / "CMakeLists.txt").read_text()
    return re.findall(r"^\s*workbook_add_lab\(\s*(\S+)\s+(\S+)\s*\)", text, re.MULTILINE)


def find_student_file(submission, folder, base):
    """The submission's file for one lab and a note, or (None, why not)."""
    for candidate in (submission / "labs" / folder / f"{base}.cu", submission / folder / f"{base}.cu",
                      submission / f"{base}.cu"):
        if candidate.is_symlink():
            return None, f"{candidate.relative_to(submission)} is a symbolic link, not a file: refused"
        if candidate.is_file():
            size = candidate.stat().st_size
            if size > MAX_STUDENT_FILE_BYTES:
                return None, (f"{candidate.relative_to(submission)} is {size} bytes, over the "
                              f"{MAX_STUDENT_FILE_BYTES}-byte limit: refused")
            return candidate, str(candidate.relative_to(submission))
    return None, "no file"


def ignored_files(submission, used):
    """Files of the submission, other than the student files, that differ from this tree."""
    ignored = []
    for folder, subfolders, files in os.walk(submission):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS)
        for name in sorted(files):
            path = Path(folder) / name
            relative = path.relative_to(submission)
            if path in used:
                continue
            mine = ROOT / relative
            if not mine.is_file():
                ignored.append(f"{relative} (not in the instructor's tree)")
            elif path.is_symlink() or not filecmp.cmp(path, mine, shallow=False):
                ignored.append(f"{relative} (differs from the instructor's copy)")
    return ignored


def put(source, target):
    """Copies source to target unless target already holds the same bytes: an
    unchanged file keeps its time stamp, so the build does not recompile it."""
    data = source.read_bytes()
    if target.is_file() and not target.is_symlink() and target.read_bytes() == data:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    target.write_bytes(data)


def stage(submission, stage_dir):
    labs_dir = stage_dir / "labs"
    targets = {labs_dir / folder / f"{base}.cu" for folder, base in labs_of(ROOT)}
    # Only the student files may be there: anything else is an earlier layout's.
    if labs_dir.exists():
        for path in sorted(labs_dir.rglob("*"), reverse=True):
            if path.is_symlink() or (path.is_file() and path not in targets):
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    used = set()
    print(f"Submission {submission}:")
    for folder, base in labs_of(ROOT):
        target = labs_dir / folder / f"{base}.cu"
        found, note = find_student_file(submission, folder, base)
        if found is None:
            put(ROOT / "labs" / folder / f"{base}.cu", target)
            print(f"  {folder}: {note}; graded as the untouched skeleton")
        else:
            put(found, target)
            used.add(found)
            print(f"  {folder}: {note}")
    ignored = ignored_files(submission, used)
    if ignored:
        print(f"Ignored ({len(ignored)} files: grading uses only the student files above, and the "
              "instructor's tests, harness, contracts, CMake and rubric):")
        for line in ignored[:IGNORED_SHOWN]:
            print(f"  {line}")
        if len(ignored) > IGNORED_SHOWN:
            print(f"  ... and {len(ignored) - IGNORED_SHOWN} more")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 1
    submission = Path(sys.argv[1]).resolve()
    if not submission.is_dir():
        print(f"stage_submission: {sys.argv[1]} is not a folder; give the folder of the student's "
              "repository or of the unpacked upload", file=sys.stderr)
        return 1
    if submission == ROOT:
        print("stage_submission: the submission is the instructor's own tree; give the student's folder",
              file=sys.stderr)
        return 1
    stage(submission, Path(sys.argv[2]).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
