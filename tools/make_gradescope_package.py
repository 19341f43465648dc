#!/usr/bin/env python3
"""Build a Gradescope autograder package (a zip) from this tree.

    python3 tools/make_gradescope_package.py OUT.zip [--seed N] [--rubric FILE] [--labs LAB ...]

The zip holds the student tree (tools/release_student_tree.sh: no solutions,
no walkthroughs) with Gradescope's two scripts at its top: setup.sh (installs
and builds once, when Gradescope builds the image) and run_autograder (grades
/autograder/submission with ./workbook grade --submission and writes
/autograder/results/results.json). --seed puts your secret seed in the package
(gradescope/seed), never in the repository; --rubric replaces
grader/rubric.json with yours; --labs grades only those labs (an assignment
of one lab: --labs abc). Upload the zip as the assignment's autograder;
the image needs an NVIDIA GPU and the CUDA Toolkit (see docs/instructor-guide.md).
"""
import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def release_tree(out):
    subprocess.run([str(ROOT / "tools" / "release_student_tree.sh"), str(out)], check=True,
                   stdout=subprocess.DEVNULL)


def write_zip(tree, zip_path):
    """Zip the tree with each file's permissions, so the scripts stay executable."""
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(tree.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            info = zipfile.ZipInfo.from_file(path, str(path.relative_to(tree)))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="the zip to write")
    parser.add_argument("--seed", help="the secret seed of the generated inputs (an integer)")
    parser.add_argument("--rubric", help="your rubric, instead of grader/rubric.json")
    parser.add_argument("--labs", nargs="+", metavar="LAB",
                        help="grade only these labs (a number, folder or name: 2, 02-abc, abc); default: all")
    args = parser.parse_args()
    if args.seed is not None and not args.seed.isdigit():
        parser.error(f"--seed must be a non-negative integer, got '{args.seed}'")
    if args.labs and not all(re.fullmatch(r"[A-Za-z0-9_-]+", lab) for lab in args.labs):
        parser.error("--labs takes lab numbers, folders or names such as 2, 02-abc or abc")
    if args.rubric and not Path(args.rubric).is_file():
        parser.error(f"--rubric {args.rubric}: no such file")
    out = Path(args.out).resolve()
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "source"
        release_tree(tree)
        for script in ("setup.sh", "run_autograder"):
            shutil.copy2(ROOT / "tools" / "gradescope" / script, tree / script)
            mode = (tree / script).stat().st_mode
            os.chmod(tree / script, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        (tree / "gradescope").mkdir(exist_ok=True)
        if args.seed is not None:
            (tree / "gradescope" / "seed").write_text(args.seed + "\n")
        if args.labs:
            (tree / "gradescope" / "labs").write_text(" ".join(args.labs) + "\n")
        if args.rubric:
            shutil.copyfile(args.rubric, tree / "grader" / "rubric.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        write_zip(tree, out)
    seed_note = "with your seed" if args.seed is not None else "without a seed (the labs' default inputs)"
    print(f"Wrote {out} ({out.stat().st_size // 1024} KiB), {seed_note}. Upload it as the autograder.")
    print("It grades only on a machine with an NVIDIA GPU: Gradescope's documented autograder containers "
          "have none, and there every submission scores 0. Without a GPU runner of your own, grade offline "
          "with ./workbook grade-batch and upload its gradescope.csv (docs/instructor-guide.md, "
          "\"Gradescope's autograder: only with a GPU behind it\").")
    return 0


if __name__ == "__main__":
    sys.exit(main())
