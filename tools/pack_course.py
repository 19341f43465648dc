#!/usr/bin/env python3
"""./workbook pack: zip the course for the Colab notebook (colab/workbook.ipynb).

    ./workbook pack [OUT.zip] [--full]

In the full repository (the one with the reference solutions), the zip holds the
course as the students get it: tools/release_student_tree.sh makes the release
into a temporary folder (with all its checks), and that folder is zipped. With
--full it holds the whole repository instead, reference solutions included: a
self-learner's own copy. In the students' release (no reference solutions), the
zip holds the tree as it is.

The files are those git knows or would add (tracked and untracked, not ignored),
or, outside a git checkout, every file less what .gitignore names. Every file
lies under one folder, cuda-workbook/, with its Unix mode (./workbook stays
executable) and its time; the zip's comment says what it holds and where from.
OUT.zip defaults to build/cuda-workbook.zip (build/cuda-workbook-full.zip with
--full); it is written whole or not at all.

The notebook takes the zip in its step 3 (an upload button, or a path on Google
Drive); outside Colab, its script takes it from WORKBOOK_ZIP (colab/README.md).
"""
import fnmatch
import os
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOP = "cuda-workbook"  # the one folder in the zip

USAGE = """\
usage: ./workbook pack [OUT.zip]{full}

Zips the course for the Colab notebook (colab/workbook.ipynb), which asks for
the zip in its step 3, or takes it from Google Drive.
{modes}
  OUT.zip   where to write it (default: build/{default})
  --help    this text

Then, in Colab (https://colab.research.google.com): File > Upload notebook >
colab/workbook.ipynb, Runtime > Run all, and choose the zip when step 3 asks.
"""
MODES_FULL = """
In this repository it holds the course as the students get it: the release
that tools/release_student_tree.sh makes, without the reference solutions.
  --full    the whole repository instead, reference solutions included
            (a self-learner's own copy)
"""
MODES_RELEASE = """
It holds this folder's course as it is.
"""


def die(message):
    print(f"workbook pack: {message}", file=sys.stderr)
    sys.exit(1)


def has_solutions(root):
    return (root / "solutions").is_dir()


def is_checkout(root):
    """Whether root is the top of a git checkout (not an unpacked copy, nor a folder inside one)."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True)
    except OSError:
        return False
    return top.returncode == 0 and Path(top.stdout.strip()).resolve() == root.resolve()


def ignore_patterns(root):
    patterns = []
    gitignore = root / ".gitignore"
    if gitignore.is_file():
        for line in gitignore.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "!")):
                patterns.append(line)
    return patterns


def ignored(rel, is_dir, patterns):
    """A simple reading of .gitignore: '/x' only at the top, 'x/' only folders, else any part of the path."""
    parts = rel.split("/")
    for pattern in patterns:
        directory_only = pattern.endswith("/")
        pattern = pattern.rstrip("/")
        if pattern.startswith("/"):
            if fnmatch.fnmatchcase(parts[0], pattern[1:]) and (len(parts) > 1 or is_dir or not directory_only):
                return True
        elif "/" in pattern:
            if fnmatch.fnmatchcase(rel, pattern):
                return True
        else:
            names = parts if is_dir or not directory_only else parts[:-1]
            if any(fnmatch.fnmatchcase(name, pattern) for name in names):
                return True
    return False


def tree_files(root):
    """The tree's files (relative posix paths), sorted: what git knows or would add, or, outside a
    checkout, every file less .git and what .gitignore names."""
    if is_checkout(root):
        listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                 cwd=root, capture_output=True)
        if listing.returncode != 0:
            die(f"git ls-files failed in {root}: {listing.stderr.decode(errors='replace').strip()}")
        names = [name for name in listing.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
        # Deleted in the working tree but not yet in git; a nested repository is listed as 'dir/'.
        return sorted(name for name in names if (root / name).is_file() and not name.endswith("/"))
    patterns = ignore_patterns(root)
    found = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder).relative_to(root).as_posix()
        base = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if d != ".git" and not ignored(base + d, True, patterns))
        found += [base + name for name in files if not ignored(base + name, False, patterns)]
    return sorted(found)


def commit_of(root):
    if not is_checkout(root):
        return None
    try:
        line = subprocess.run(["git", "log", "-1", "--format=%h of %cd", "--date=short"], cwd=root,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return (line + (", with changes not committed" if dirty else "")) if line else None


def write_zip(source, files, out, comment):
    """Zips source's files under TOP/ into out (through a temporary file: all or nothing); returns bytes."""
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent)
    os.close(handle)
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            for rel in files:
                path = source / rel
                info_stat = path.lstat()
                if stat.S_ISLNK(info_stat.st_mode):
                    die(f"{rel} is a symbolic link: the notebook unpacks no links. Replace it with the file.")
                moment = time.localtime(max(info_stat.st_mtime, 315532800))[:6]  # zip times start in 1980
                info = zipfile.ZipInfo(f"{TOP}/{rel}", date_time=moment)
                info.create_system = 3  # Unix: the mode below is read back (./workbook stays executable)
                info.external_attr = (stat.S_IFREG | (0o755 if info_stat.st_mode & 0o111 else 0o644)) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(path, "rb") as data, archive.open(info, "w") as target:
                    for block in iter(lambda: data.read(1 << 20), b""):
                        target.write(block)
            archive.comment = comment.encode("utf-8")[:65535]
        os.replace(partial, out)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return out.stat().st_size


def main(argv):
    full_repository = has_solutions(ROOT)
    default = "cuda-workbook-full.zip" if "--full" in argv else "cuda-workbook.zip"
    out, full = None, False
    for arg in argv:
        if arg in ("-h", "--help"):
            print(USAGE.format(modes=MODES_FULL if full_repository else MODES_RELEASE, default=default,
                               full=" [--full]" if full_repository else ""), end="")
            return 0
        if arg == "--full":
            full = True
        elif arg.startswith("-"):
            die(f"unknown option '{arg}' (see ./workbook pack --help)")
        elif out is not None:
            die(f"give one OUT.zip, not '{out}' and '{arg}' (see ./workbook pack --help)")
        else:
            out = arg
    if full and not full_repository:
        die("--full zips the repository with the reference solutions, and this tree (the students' release) "
            "has none. ./workbook pack (without --full) zips this course as it is.")
    out = Path(out).resolve() if out else ROOT / "build" / default
    if out.suffix.lower() != ".zip":
        die(f"{out}: give a name that ends in .zip (the notebook looks for one)")
    if out.is_dir():
        die(f"{out} is a folder: give the zip's file name, e.g. {out / default}")

    began = time.time()
    version = commit_of(ROOT)
    where = f" ({version})" if version else ""
    with tempfile.TemporaryDirectory(prefix="workbook-pack-") as temporary:
        if full_repository and not full:
            source = Path(temporary) / TOP
            print("Making the students' release (tools/release_student_tree.sh) to zip it ...", flush=True)
            release = subprocess.run([str(ROOT / "tools" / "release_student_tree.sh"), str(source)],
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if release.returncode != 0:
                print(release.stdout, end="", file=sys.stderr)
                die("the release was refused (its message is above), so nothing was packed. Fix what it names "
                    "and run ./workbook pack again; ./workbook pack --full zips the whole repository instead.")
            what = "the course as the students get it (the release, no reference solutions)"
            comment = f"CUDA Workbook: the students' release, made by ./workbook pack from {ROOT.name}{where}"
        else:
            source = ROOT
            what = ("the whole repository (reference solutions included)" if full
                    else "this course as it is (the students' release)")
            comment = (f"CUDA Workbook: the full repository, made by ./workbook pack --full from {ROOT.name}{where}"
                       if full else f"CUDA Workbook, made by ./workbook pack from {ROOT.name}{where}")
        files = tree_files(source)
        try:
            inside = out.relative_to(source.resolve()).as_posix()
            files = [rel for rel in files if rel != inside]  # not the zip itself (when OUT is in the tree)
        except ValueError:
            pass
        if "workbook" not in files:
            die(f"{source} has no ./workbook to pack: run ./workbook pack from the course's folder")
        size = write_zip(source, files, out, comment)
    print(f"Packed {what} into {out}:\n"
          f"  {len(files)} files under {TOP}/, {size / 2**20:.1f} MiB, in {time.time() - began:.0f} s.\n"
          "To use it in Google Colab (a free GPU):\n"
          "  1. Open https://colab.research.google.com, File > Upload notebook, and choose\n"
          f"     {ROOT / 'colab' / 'workbook.ipynb'}.\n"
          "  2. Runtime > Run all. Step 3 shows an upload button: choose this zip.\n"
          "     (Or put the zip on your Google Drive and set COURSE_ZIP in step 1 to its path,\n"
          f"     e.g. /content/drive/MyDrive/{out.name}.)\n"
          f"Elsewhere: unzip {out.name} (a folder {TOP}/), then cd {TOP} && ./workbook grade")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
