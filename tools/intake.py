#!/usr/bin/env python3
"""The intake of grade-batch: a class's submissions as the platforms deliver them.

SUBMISSIONS (a folder, or a .zip of it) is read in one of three layouts, detected
from what it holds (grade-batch --intake LAYOUT forces one):

  folders     one folder or .zip per student, named after the student
  canvas      Canvas's "Download Submissions": one flat folder of files named
              <namekey>_<user id>_<file id>_<file name>, with LATE_ after the name
              key when Canvas marked the submission late (anonymous grading:
              anon_<id> in place of the name key and the user id); a student's
              files are grouped by the user id into one submission, and a .zip
              among them is unpacked
  gradescope  Gradescope's "Export Submissions": submission_metadata.yml and one
              submission_<id>/ folder per submission; the metadata gives the
              submitters (name, sid, email) and the submission time

Each submission becomes an Entry: the name of its OUT/<name>/ folder, how to get
its files, and what its status.json records of it: "identity" (name, canvas_id,
sid, email, login: those the platform gives), "submitted_at" (ISO 8601 with a
zone, or null when unknown), "late_marker" (Canvas's LATE; null elsewhere) and
"warnings" (said loudly: in summary.txt and in the student's feedback).

At grading, resolve_lab_files() looks at the .cu files that staging does not
take (stage_submission.find_student_file: labs/<folder>/<base>.cu,
<folder>/<base>.cu or <base>.cu): a lab's file under another name, such as
abc-1.cu (renamed by Canvas), "abc (1).cu" (by a browser) or Abc.cu, is graded
as that lab with a warning; a file that matches no lab (my_abc_final.cu,
reduction.cu) is graded as nothing, with a warning naming the lab it probably
is (by its name and by what it includes and defines).

The zip rules (no absolute paths, no '..', no links, no encrypted members, a
cap on the unpacked size) are unpack_zip's, for a student's zip, a zip inside a
Canvas download, and the members of a whole class's zip alike.
"""
import datetime
import difflib
import hashlib
import json
import os
import re
import stat
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
import stage_submission  # noqa: E402  (labs_of, find_student_file: the rules of staging)

LAYOUTS = ("folders", "canvas", "gradescope")
METADATA = "submission_metadata.yml"
MAX_ZIP_MEMBERS = 10000          # a student's zip (or a student's part of a class zip)
MAX_CLASS_ZIP_MEMBERS = 1000000  # a whole class's zip: only listed, never unpacked as a whole
MAX_WALK_DEPTH = 8               # how deep resolve_lab_files looks for .cu files
MAX_WALK_FILES = 20000
SKIPPED_FOLDERS = set(stage_submission.SKIPPED_FOLDERS) | {"__MACOSX"}
# What Canvas, browsers and file managers add to a name they make unique: abc-1.cu,
# "abc (1).cu", abc(2).cu, "abc copy.cu", "abc copy 2.cu", "abc - Copy.cu".
RENAME_SUFFIX = re.compile(r"(?:-\d+|\s*\(\d+\)|\s+copy(?:\s+\d+)?|\s+-\s+copy(?:\s+\(\d+\))?)$", re.IGNORECASE)
# Canvas's names (lib/content_zipper.rb): [sortable name, lowered, non-word characters
# removed][_LATE]_<user id or anon_<id>>_<attachment id>_<file name>; a text entry or
# URL is <...>_<user id>_text.html or _link.html.
CANVAS_FILE = re.compile(r"^(?:(?P<key>.+?)_)??(?:(?P<late>LATE)_)?(?P<uid>anon_[A-Za-z0-9]+|\d+)_"
                         r"(?P<fileid>\d+)_(?P<file>.+)$", re.DOTALL)
CANVAS_ONLINE = re.compile(r"^(?:(?P<key>.+?)_)??(?:(?P<late>LATE)_)?(?P<uid>anon_[A-Za-z0-9]+|\d+)_"
                           r"(?P<kind>text|link)\.html$", re.DOTALL)
NAME_CHARS = re.compile(r"[^\w.+@-]+")
# What grade-batch writes at OUT's top (grade_batch.RESERVED_NAMES): no student's folder is named so.
OUTPUT_NAMES = ("status.json", "batch.json", "gradebook.csv", "summary.txt", "canvas.csv", "gradescope.csv",
                "feedback")


class IntakeError(Exception):
    """SUBMISSIONS cannot be read in the layout asked for: one line for the instructor."""


class Refused(Exception):
    """The submission cannot be graded as handed in (an unsafe zip): its row says why."""


def all_labs():
    return stage_submission.labs_of(ROOT)


def is_junk(name):
    """Files no student hands in: macOS's and Windows's own (not '..': a zip's member with it is refused)."""
    return (name.startswith(".") and name not in (".", "..")) or name in ("Thumbs.db", "desktop.ini", "__MACOSX")


# ---------------------------------------------------------------- zips

def check_members(infos, cap=None):
    """[(info, parts)] of a zip's members to unpack, or raises Refused: no absolute paths, no
    '..', no links, no encrypted members, at most MAX_ZIP_MEMBERS of them and cap bytes."""
    if len(infos) > MAX_ZIP_MEMBERS:
        raise Refused(f"zip refused: {len(infos)} members, over the limit of {MAX_ZIP_MEMBERS}")
    plan = []
    for info in infos:
        name = info.filename.replace("\\", "/")
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
            raise Refused(f"zip refused: member '{info.filename}' is an absolute path")
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise Refused(f"zip refused: member '{info.filename}' has '..' in its path (it would "
                          "unpack outside its folder)")
        if "\0" in name:
            raise Refused(f"zip refused: member '{info.filename!r}' has a NUL in its name")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise Refused(f"zip refused: member '{info.filename}' is a symbolic link")
        if info.flag_bits & 0x1:
            raise Refused(f"zip refused: member '{info.filename}' is encrypted")
        if parts:
            plan.append((info, parts))
    if cap is not None and sum(info.file_size for info, _ in plan) > cap:
        raise Refused(f"zip refused: it unpacks to more than {cap >> 20} MiB (--max-unpacked-mb)")
    return plan


def copy_member(archive, info, target, cap, written):
    """Writes one member to target (which must not exist); returns written + its bytes, or
    raises Refused past cap bytes in all (counted as written, not as the headers claim)."""
    try:
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            return written
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, open(target, "xb") as out:
            for block in iter(lambda: source.read(1 << 20), b""):
                written += len(block)
                if written > cap:
                    raise Refused(f"zip refused: it unpacks to more than {cap >> 20} MiB (--max-unpacked-mb)")
                out.write(block)
    except FileExistsError:
        raise Refused(f"zip refused: member '{info.filename}' is in the zip twice")
    except (OSError, zipfile.BadZipFile, RuntimeError, EOFError, ValueError) as e:
        raise Refused(f"zip refused: member '{info.filename}' cannot be unpacked ({e})")
    return written


def open_zip(path):
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise Refused(f"zip refused: not a readable zip file ({e})")


def unpack_zip(zip_path, dest, cap):
    """Unpacks a student's zip into dest (made here), or raises Refused (check_members'
    rules); returns the folder to stage from (submission_root)."""
    with open_zip(zip_path) as archive:
        plan = check_members(archive.infolist(), cap)
        dest.mkdir(parents=True)
        written = 0
        for info, parts in plan:
            written = copy_member(archive, info, dest.joinpath(*parts), cap, written)
    return submission_root(dest)


def submission_root(path):
    """The folder to stage from: an upload that is one folder (a zip of the repository) is
    unwrapped, down to the folder that holds labs/, a lab's folder or the files."""
    stops = {"labs"} | {folder for folder, _ in all_labs()}
    for _ in range(3):
        entries = [e for e in path.iterdir() if not e.name.startswith(".") and e.name != "__MACOSX"]
        if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink() \
                and entries[0].name not in stops:
            path = entries[0]
        else:
            break
    return path


def zip_time(info):
    """A zip member's modification time, aware: from its extended timestamp (UTC) when the
    zip has one, else its DOS time read as this machine's local time."""
    extra = info.extra
    while len(extra) >= 4:
        kind, size = int.from_bytes(extra[0:2], "little"), int.from_bytes(extra[2:4], "little")
        body = extra[4:4 + size]
        if kind == 0x5455 and len(body) >= 5 and body[0] & 1:
            seconds = int.from_bytes(body[1:5], "little", signed=True)
            return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
        extra = extra[4 + size:]
    try:
        return datetime.datetime(*info.date_time).astimezone()
    except (ValueError, OverflowError):
        return None


def iso(moment):
    return moment.isoformat(timespec="seconds") if moment is not None else None


def file_time(path):
    try:
        return datetime.datetime.fromtimestamp(Path(path).stat().st_mtime).astimezone()
    except OSError:
        return None


# ---------------------------------------------------------------- .cu files and labs

def walk_files(root):
    """(the .cu files, the .zip files) under root: [(relative posix path, path)], sorted; the
    folders staging never reads (build/, .git/, ...) and links are left out."""
    cus, zips, seen = [], [], 0
    root = Path(root)
    for folder, subfolders, files in os.walk(root):
        depth = len(Path(folder).relative_to(root).parts)
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith(".")
                               and depth < MAX_WALK_DEPTH)
        for name in sorted(files):
            seen += 1
            if seen > MAX_WALK_FILES:
                return cus, zips
            path = Path(folder) / name
            if is_junk(name) or path.is_symlink() or not path.is_file():
                continue
            lower = name.lower()
            if lower.endswith(".cu"):
                cus.append((path.relative_to(root).as_posix(), path))
            elif lower.endswith(".zip"):
                zips.append((path.relative_to(root).as_posix(), path))
    return cus, zips


def stray_cu_files(root, staged_paths):
    """The .cu files that staging does not take and that are not files of the instructor's
    tree at the same place (a whole repository's tests, experiments and harness)."""
    cus, zips = walk_files(root)
    return [(rel, path) for rel, path in cus if path not in staged_paths and not (ROOT / rel).is_file()], zips


def staged_files(root):
    """{lab folder: (the file staging takes or None, its note)} for every lab."""
    return {folder: stage_submission.find_student_file(root, folder, base) for folder, base in all_labs()}


def renamed_base(filename):
    """The lab file name that filename is, less a rename suffix and case: 'abc-1.cu',
    'abc (1).cu', 'ABC.CU' -> 'abc'; None when it is no .cu file."""
    stem, dot, ext = filename.rpartition(".")
    if not dot or ext.lower() != "cu":
        return None
    previous = None
    stem = stem.strip()
    while previous != stem:
        previous, stem = stem, RENAME_SUFFIX.sub("", stem).strip()
    return stem.lower()


def rename_kind(filename, base):
    """How filename differs from base.cu, in words."""
    stem = filename.rpartition(".")[0].strip()
    ways = []
    if RENAME_SUFFIX.search(stem):
        stripped = stem
        while RENAME_SUFFIX.search(stripped):
            stripped = RENAME_SUFFIX.sub("", stripped).strip()
        ways.append(f"'{stem[len(stripped):].strip()}' added to the name (as Canvas or a browser does with a "
                    "second upload or download)")
        stem = stripped
    if stem != base or not filename.endswith(".cu"):
        ways.append("other upper/lower case")
    return " and ".join(ways) or "another folder"


_contracts = {}


def contract_functions(folder, base):
    """The functions a lab's contract (labs/<folder>/<base>.cuh) declares at namespace level."""
    if (folder, base) not in _contracts:
        try:
            text = (ROOT / "labs" / folder / f"{base}.cuh").read_text(errors="replace")
        except OSError:
            text = ""
        names = re.findall(r"^(?:template\s*<[^>]*>\s*)?(?:(?:__global__|__host__|__device__|inline|static)\s+)*"
                           r"[A-Za-z_][\w:<>]*[\s*&]+([A-Za-z_]\w*)\s*\(", text, re.MULTILINE)
        _contracts[(folder, base)] = sorted(set(names) - {"return", "if", "for", "while", "switch", "sizeof",
                                                          "alignas", "decltype", "static_assert"})
    return _contracts[(folder, base)]


def guess_lab(filename, text):
    """(lab folder or None, why): the lab a .cu file that matches no lab's name probably is:
    by what it includes (<base>.cuh) or defines (the contract's functions, its namespace),
    else by the closest lab name."""
    labs = all_labs()
    included = {Path(name).name for name in re.findall(r'#\s*include\s*["<]([^">]+)\.cuh[">]', text)}
    for folder, base in labs:
        if base in included:
            return folder, f"it includes {base}.cuh"
    best, best_hits = None, []
    for folder, base in labs:
        hits = [name for name in contract_functions(folder, base) if re.search(rf"\b{re.escape(name)}\s*\(", text)]
        if len(hits) > len(best_hits):
            best, best_hits = folder, hits
    if best is not None and len(best_hits) >= 2:
        return best, f"it defines {len(best_hits)} of the lab's functions ({', '.join(best_hits[:3])})"
    for folder, base in labs:
        if re.search(rf"\bnamespace\s+{re.escape(base)}\s*\{{", text):
            return folder, f"its code is in namespace {base}"
    stem = (renamed_base(filename) or filename.rpartition(".")[0]).lower().replace(" ", "_")
    names = {}
    for folder, base in labs:
        names[base] = folder
        topic = folder.partition("-")[2]
        names[topic] = folder
        names[topic.replace("-", "_")] = folder
    close = difflib.get_close_matches(stem, list(names), n=1, cutoff=0.6)
    if not close:
        # my_abc_final.cu: a lab's name inside a longer one
        inside = [base for _, base in labs if re.search(rf"(?:^|[^a-z]){re.escape(base)}(?:[^a-z]|$)", stem)]
        if len(inside) == 1:
            return names[inside[0]], f"its name holds '{inside[0]}'"
        return None, ""
    return names[close[0]], f"its name is close to '{close[0]}'"


def lab_base(folder):
    return dict(all_labs())[folder]


def resolve_lab_files(root, selected, dest, entry=None):
    """Matches a submission's misnamed .cu files to the selected labs. Returns (the folder to
    grade, warnings, log lines): root itself when every lab's file is where staging looks, else
    dest, made here with each lab's file at labs/<folder>/<base>.cu. entry (the Entry that root
    was materialized from) says where a file is in what was handed in, and what to rename it to."""
    where = entry.where if entry is not None else (lambda rel: rel)
    rename_to = entry.rename_to if entry is not None else (lambda rel, name: rel_renamed(rel, name))
    labs = all_labs()
    bases = {base: folder for folder, base in labs}
    staged = staged_files(root)
    used = {found for found, _ in staged.values() if found is not None}
    strays, zips = stray_cu_files(root, used)
    by_lab, others = {}, []
    for rel, path in strays:
        base = renamed_base(path.name)
        if base in bases:
            by_lab.setdefault(bases[base], []).append((rel, path))
        else:
            others.append((rel, path))
    picks, warnings, log = {}, [], []
    for folder, base in labs:
        if folder not in selected:
            continue
        found, note = staged[folder]
        candidates = by_lab.get(folder, [])
        if found is not None:
            for rel, _ in candidates:
                warnings.append(f"{where(rel)} was not graded: it looks like lab {folder}'s {base}.cu under "
                                f"another name, but {note} is there too and was graded. If {rel} is the file to "
                                f"grade, remove {where(note)} from the submission, rename {where(rel)} to "
                                f"{rename_to(rel, base + '.cu')} and run the same grade-batch command again (only "
                                "changed submissions are graded again)")
        elif len(candidates) == 1:
            rel, path = candidates[0]
            size = path.stat().st_size
            if size > stage_submission.MAX_STUDENT_FILE_BYTES:
                warnings.append(f"{where(rel)} looks like lab {folder}'s {base}.cu, but it is {size} bytes, over "
                                f"the {stage_submission.MAX_STUDENT_FILE_BYTES}-byte limit: refused, so lab "
                                f"{folder} scores 0; ask the student for the real {base}.cu")
                continue
            picks[folder] = path
            if path.name == f"{base}.cu":
                how = (f"it has that name, but in {Path(rel).parent.as_posix()}/, where staging does not look "
                       f"(it looks for labs/{folder}/{base}.cu, {folder}/{base}.cu and {base}.cu)")
            else:
                how = f"no file has that name, and this one is it with {rename_kind(path.name, base)}"
            warnings.append(f"{where(rel)} was GRADED AS lab {folder}'s {base}.cu: {how}. Check that it is the "
                            f"student's lab {folder} file (its points count as they are); ask the student to hand "
                            f"in {base}.cu under its own name")
            log.append(f"grade-batch intake: {rel} is graded as labs/{folder}/{base}.cu")
        elif candidates:
            names = ", ".join(where(rel) for rel, _ in candidates)
            warnings.append(f"lab {folder} was NOT GRADED (its untouched skeleton scores 0): {names} each look "
                            f"like its {base}.cu under another name, and which one to grade is not clear. Rename "
                            f"the one to grade to {rename_to(candidates[0][0], base + '.cu')} or the like (and "
                            "remove the others), then run the same grade-batch command again (only changed "
                            "submissions are graded again)")
    missing = [folder for folder, _ in labs if folder in selected and staged[folder][0] is None
               and folder not in picks]
    for rel, path in others:
        try:
            with open(path, "rb") as f:
                text = f.read(stage_submission.MAX_STUDENT_FILE_BYTES).decode(errors="replace")
        except OSError:
            text = ""
        lab, why = guess_lab(path.name, text)
        if lab is None:
            if missing:
                names = ", ".join(f"{b}.cu" for f, b in labs if f in selected)
                warnings.append(f"{where(rel)} matches no lab's file and was NOT GRADED (the lab files are "
                                f"{names}; "
                                f"{', '.join(missing)} scored 0 as the untouched skeleton). If it is one of them, "
                                f"rename it to that lab's file name ({rename_to(rel, '<file>.cu')}) and run the same "
                                "grade-batch command again")
            continue
        if lab not in selected:
            continue
        base = lab_base(lab)
        if lab in missing:
            state = f"lab {lab} had no {base}.cu, so it scored 0 (its untouched skeleton was graded)"
        else:
            state = f"lab {lab} was graded from {staged[lab][1] if staged[lab][0] is not None else picks[lab].name}"
        warnings.append(f"{where(rel)} matches no lab's file and was NOT GRADED; it is probably lab {lab}'s "
                        f"{base}.cu ({why}); {state}. If it is that lab's file, rename it to "
                        f"{rename_to(rel, base + '.cu')} (and remove any other) and run the same grade-batch command "
                        "again (only changed submissions are graded again)")
    if missing and zips:
        warnings.append(f"{', '.join(where(rel) for rel, _ in zips)}: a zip inside the submission is not opened, "
                        f"and {', '.join(missing)} had no file. If the files are in it, unzip it in place and run "
                        "the same grade-batch command again")
    if not picks:
        return root, warnings, log
    for folder, base in labs:
        found = picks.get(folder) or staged[folder][0]
        if found is not None:
            target = dest / "labs" / folder / f"{base}.cu"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(found.read_bytes())
    return dest, warnings, log


def rel_renamed(rel, name):
    parent = Path(rel).parent.as_posix()
    return name if parent in ("", ".") else f"{parent}/{name}"


def fingerprint_of(path):
    """A hash of what grading reads: a zip's bytes, or a folder's student files (those staging
    takes, and the .cu files under other names that resolve_lab_files may take)."""
    digest = hashlib.sha256()
    path = Path(path)
    if path.is_file():
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return "zip:" + digest.hexdigest()[:16]
    root = submission_root(path)
    used = set()
    for folder, base in all_labs():
        found, note = stage_submission.find_student_file(root, folder, base)
        digest.update(f"{folder}\0{note}\0".encode())
        if found is not None:
            used.add(found)
            digest.update(found.read_bytes())
    for rel, stray in stray_cu_files(root, used)[0]:
        digest.update(f"other\0{rel}\0".encode())
        digest.update(stray.read_bytes())
    return "dir:" + digest.hexdigest()[:16]


# ---------------------------------------------------------------- entries

class Source:
    """One file of a platform's submission: where it is (a file, or a member of the class's
    zip), the name it had in the download, and where it goes in the submission."""

    def __init__(self, target, origin, path=None, member=None, moment=None):
        self.target, self.origin, self.path, self.member, self.moment = target, origin, path, member, moment


class Entry:
    """One submission: OUT/<name>/, what to grade, and what status.json says of it."""

    def __init__(self, name, layout, source, path=None, files=None, archive=None, identity=None,
                 submitted_at=None, time_source=None, late_marker=None, warnings=None, platform=None):
        self.name, self.layout, self.source = name, layout, Path(source)
        self.path = Path(path) if path is not None else None  # folders: the student's folder or zip
        self.files = files or []                                  # canvas, gradescope: the Sources
        self.archive = Path(archive) if archive is not None else None
        self.identity = identity or {}
        self.submitted_at, self.time_source, self.late_marker = submitted_at, time_source, late_marker
        self.warnings = list(warnings or [])
        self.platform = platform or {}
        self._origins = {}

    def __repr__(self):
        return f"Entry({self.name!r}, {self.layout})"

    def one_args(self):
        """The submission argument (and options) of `grade_batch.py one` for this entry."""
        if self.path is not None:
            return [str(self.path)]
        return [str(self.source), "--intake", self.layout]

    def describe(self):
        if self.path is not None:
            return str(self.path)
        return ", ".join(s.origin for s in self.files)

    def fingerprint(self):
        if self.path is not None:
            return fingerprint_of(self.path) if self.path.exists() else "missing"
        digest = hashlib.sha256()
        meta = {"identity": self.identity, "submitted_at": self.submitted_at, "late_marker": self.late_marker}
        digest.update(json.dumps(meta, sort_keys=True).encode())
        try:
            if self.archive is not None:
                with zipfile.ZipFile(self.archive) as archive:
                    for source in sorted(self.files, key=lambda s: s.target):
                        info = archive.getinfo(source.member)
                        digest.update(f"{source.target}\0{info.CRC}\0{info.file_size}\0".encode())
            else:
                for source in sorted(self.files, key=lambda s: s.target):
                    digest.update(f"{source.target}\0".encode())
                    digest.update(source.path.read_bytes())
        except (OSError, KeyError, zipfile.BadZipFile):
            return "missing"
        return f"{self.layout}:" + digest.hexdigest()[:16]

    def materialize(self, dest, cap):
        """The folder to grade from, with the submission's files (unpacked into dest when they are
        a zip or come from a platform's download), or raises Refused."""
        if self.path is not None:
            if not self.path.exists():
                raise Refused("the submission is gone (no such file or folder)")
            if self.path.is_file():
                root = unpack_zip(self.path, dest, cap)
                self._root_offset = root.relative_to(dest).as_posix()
                return root
            root = submission_root(self.path)
            self._root_offset = root.relative_to(self.path).as_posix()
            return root
        dest.mkdir(parents=True)
        written = 0
        nested = []
        archive = open_zip(self.archive) if self.archive is not None else None
        try:
            if archive is not None:
                try:
                    infos = [archive.getinfo(s.member) for s in self.files]
                except KeyError as e:
                    raise Refused(f"the submission is gone from {self.archive.name} ({e})")
                check_members(infos, cap)
            for source in self.files:
                target = dest / source.target
                if source.target.lower().endswith(".zip"):
                    nested.append(source)
                    continue
                self._origins[source.target] = source.origin
                if archive is not None:
                    written = copy_member(archive, archive.getinfo(source.member), target, cap, written)
                else:
                    if source.path.is_symlink() or not source.path.is_file():
                        raise Refused(f"{source.origin} is not a plain file (a link?): refused")
                    written += source.path.stat().st_size
                    if written > cap:
                        raise Refused(f"the submission's files come to more than {cap >> 20} MiB "
                                      "(--max-unpacked-mb): refused")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(source.path.read_bytes())
            for index, source in enumerate(nested):
                zip_path = dest.parent / f".nested-{index}.zip"
                if archive is not None:
                    copy_member(archive, archive.getinfo(source.member), zip_path, cap, 0)
                else:
                    zip_path.write_bytes(source.path.read_bytes())
                stem = source.target[:-4] or "zip"
                folder = dest / stem
                while folder.exists():
                    folder = folder.with_name(folder.name + "_")
                try:
                    unpack_zip(zip_path, folder, max(0, cap - written))
                except Refused as e:
                    raise Refused(f"{e} (in {source.origin}); ask the student for a zip without it")
                written += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
                self._origins[folder.relative_to(dest).as_posix()] = source.origin
                zip_path.unlink()
        finally:
            if archive is not None:
                archive.close()
        root = submission_root(dest)
        self._root_offset = root.relative_to(dest).as_posix()
        return root

    def _full(self, rel):
        """rel (relative to the folder materialize returned) from the top of what was handed in."""
        offset = getattr(self, "_root_offset", ".")
        return rel if offset in ("", ".") else f"{offset}/{rel}"

    def _origin_of(self, rel):
        """(the file or member as handed in, the path inside a zip of it or None) for rel."""
        full = self._full(rel)
        if full in self._origins:
            return self._origins[full], None
        for prefix, origin in self._origins.items():
            if full.startswith(prefix + "/"):
                return origin, full[len(prefix) + 1:]
        return full, None

    def where(self, rel):
        """Where the file at rel (relative to the folder materialize returned) is in what was
        handed in: a file of the download (Canvas's own name), or a member of a zip."""
        if self.path is not None:
            full = self._full(rel)
            return f"{full} in {self.path.name}" if self.path.is_file() else f"{self.path.name}/{full}"
        origin, inner = self._origin_of(rel)
        text = f"{inner} in {origin}" if inner else origin
        return f"{text} in {self.archive.name}" if self.archive is not None else text

    def rename_to(self, rel, name):
        """What to rename the file at rel to, in what was handed in, for it to be name."""
        if self.path is not None:
            new = rel_renamed(self._full(rel), name)
            if self.path.is_file():
                return f"{new} (in {self.path.name}: unzip it, rename, zip it again)"
            return f"{self.path.name}/{new}"
        origin, inner = self._origin_of(rel)
        if inner:
            return f"{rel_renamed(inner, name)} (in {origin}: unzip it, rename, zip it again)"
        current = Path(rel).name
        new = origin[:-len(current)] + name if origin.endswith(current) else rel_renamed(origin, name)
        return f"{new} (unzip {self.archive.name} first)" if self.archive is not None else new

    def status_fields(self):
        """What status.json records of the submission, besides its grading."""
        submitted_at, time_source = self.submitted_at, self.time_source
        if self.path is not None and submitted_at is None and time_source is None:
            moment = newest_file_time(self.path)
            submitted_at = iso(moment)
            time_source = ("the newest .cu file's modification time in the submission (not a platform's "
                           "submission time)" if moment is not None else "unknown")
        return {"intake": self.layout, "identity": dict(self.identity), "submitted_at": submitted_at,
                "submitted_at_source": time_source, "late_marker": self.late_marker,
                "platform": dict(self.platform), "warnings": list(self.warnings)}


def newest_file_time(path):
    """The newest modification time of a folder's .cu files, or of a zip's (else of any member)."""
    path = Path(path)
    try:
        if path.is_file():
            with zipfile.ZipFile(path) as archive:
                infos = [i for i in archive.infolist() if not i.is_dir()]
                cus = [i for i in infos if i.filename.lower().endswith(".cu")] or infos
                times = [t for t in (zip_time(i) for i in cus) if t is not None]
        else:
            cus, _ = walk_files(path)
            times = [t for t in (file_time(p) for _, p in cus) if t is not None]
    except (OSError, zipfile.BadZipFile):
        return None
    return max(times) if times else None


class Intake:
    """What find() read: the layout, the entries (sorted by name), and what it left out."""

    def __init__(self, layout, source, entries, skipped=None, warnings=None, summary=""):
        self.layout, self.source, self.entries = layout, Path(source), entries
        self.skipped = skipped or []
        self.warnings = warnings or []
        self.summary = summary

    def names(self):
        return [entry.name for entry in self.entries]

    def get(self, name):
        for entry in self.entries:
            if entry.name == name:
                return entry
        return None

    def describe(self):
        """The batch's first line: the layout found and the number of students."""
        what = {"folders": "one folder or .zip per student",
                "canvas": "Canvas's bulk download (\"Download Submissions\": files named "
                          "<namekey>_<user id>_<file id>_<file>)",
                "gradescope": f"Gradescope's submissions export ({METADATA} and one folder per submission)"}
        count = len(self.entries)
        if self.layout == "gradescope":
            counted = self.summary  # submissions, and the students of group submissions
        else:
            counted = f"{count} student{'s' if count != 1 else ''}" + (f" ({self.summary})" if self.summary else "")
        return f"intake: {what[self.layout]}: {counted} in {self.source}"

    def record(self):
        """What batch.json keeps of the intake."""
        return {"layout": self.layout, "line": self.describe(), "warnings": list(self.warnings),
                "skipped": list(self.skipped)}


def clean_name(text):
    """A folder name of OUT from a student's name: letters, digits and - _ . + @ only."""
    text = NAME_CHARS.sub("_", text.strip()).strip("._")
    return text[:80] or "student"


def unique_names(wanted, reserved=()):
    """[(preferred name, distinguishing suffix)] -> names, unique (case-insensitively too, for
    the folders of OUT): a clash adds the suffix to every name in it."""
    counts = {}
    for name, _ in wanted:
        counts[name.casefold()] = counts.get(name.casefold(), 0) + 1
    reserved = {r.casefold() for r in reserved}
    names, taken = [], set()
    for name, suffix in wanted:
        if counts[name.casefold()] > 1 or name.casefold() in reserved:
            name = f"{name}_{suffix}"
        base, number = name, 2
        while name.casefold() in taken:
            name, number = f"{base}_{number}", number + 1
        taken.add(name.casefold())
        names.append(name)
    return names


# ---------------------------------------------------------------- reading SUBMISSIONS

class Listing:
    """The files of SUBMISSIONS, a folder or a zip, as (relative posix path, Source-maker)."""

    def __init__(self, path):
        self.path = Path(path)
        self.archive = None
        if self.path.is_file():
            try:
                with zipfile.ZipFile(self.path) as archive:
                    infos = archive.infolist()
            except (zipfile.BadZipFile, OSError) as e:
                raise IntakeError(f"{self.path}: not a readable zip file ({e}); give the folder of the "
                                  "submissions or the zip that Canvas or Gradescope made")
            if len(infos) > MAX_CLASS_ZIP_MEMBERS:
                raise IntakeError(f"{self.path}: {len(infos)} members, over the limit of {MAX_CLASS_ZIP_MEMBERS}")
            self.archive = self.path
            # A member outside the zip's top ('/etc/x', '../x') is nobody's: left out, and said.
            self.unsafe = [i.filename for i in infos if re.match(r"^(/|\\|[A-Za-z]:|\.\.?(/|\\|$))", i.filename)]
            self.infos = {i.filename: i for i in infos if not i.is_dir() and i.filename not in self.unsafe}
            self.dirs = {i.filename.rstrip("/") for i in infos if i.is_dir()}
            for name in self.infos:
                parts = name.split("/")
                for n in range(1, len(parts)):
                    self.dirs.add("/".join(parts[:n]))
        elif self.path.is_dir():
            self.infos = None
            self.unsafe = []
        else:
            raise IntakeError(f"{self.path}: no such folder or zip (give the folder of the submissions: one "
                              "folder or .zip per student, Canvas's bulk download or Gradescope's export)")

    def top(self):
        """[(name, is_folder)] at the top, junk left out."""
        if self.infos is None:
            return [(e.name, e.is_dir() and not e.is_symlink()) for e in sorted(self.path.iterdir())
                    if not is_junk(e.name)]
        names = {}
        for name in list(self.infos) + list(self.dirs):
            first, _, rest = name.partition("/")
            if first and not is_junk(first) and first not in (".", ".."):
                names[first] = names.get(first, False) or bool(rest) or name in self.dirs
        return sorted(names.items())

    def exists(self, rel):
        if self.infos is None:
            return (self.path / rel).is_file()
        return rel in self.infos

    def read(self, rel):
        if self.infos is None:
            return (self.path / rel).read_bytes()
        with zipfile.ZipFile(self.path) as archive:
            return archive.read(rel)

    def files_under(self, prefix):
        """[(relative path below prefix, Source)] of the files under prefix ('' for the top)."""
        out = []
        if self.infos is None:
            base = self.path / prefix if prefix else self.path
            if not base.is_dir():
                return out
            for folder, subfolders, files in os.walk(base):
                subfolders[:] = sorted(d for d in subfolders if not is_junk(d))
                for name in sorted(files):
                    path = Path(folder) / name
                    if is_junk(name):
                        continue
                    rel = path.relative_to(base).as_posix()
                    out.append((rel, Source(rel, path.relative_to(self.path).as_posix(), path=path,
                                            moment=file_time(path))))
            return out
        lead = prefix + "/" if prefix else ""
        for name, info in sorted(self.infos.items()):
            if name.startswith(lead) and not any(is_junk(p) for p in name.split("/")):
                rel = name[len(lead):]
                out.append((rel, Source(rel, name, member=name, moment=zip_time(info))))
        return out


def find(path, layout=None):
    """The submissions in SUBMISSIONS (a folder or a zip) as an Intake; layout forces one of
    LAYOUTS (None: detect it). Raises IntakeError when they cannot be read."""
    listing = Listing(path)
    if layout not in (None, "auto") and layout not in LAYOUTS:
        raise IntakeError(f"--intake {layout}: the layouts are {', '.join(LAYOUTS)}")
    found = detect(listing) if layout in (None, "auto") else layout
    if found == "gradescope":
        result = _gradescope(listing)
    elif found == "canvas":
        result = _canvas(listing, forced=layout == "canvas")
    else:
        result = _folders(listing)
    if listing.unsafe:
        result.warnings.append(f"{listing.path.name}: members outside the zip's top (an absolute path or '..') "
                               f"were left out, unpacked for no one: {', '.join(listing.unsafe[:10])}. If one is a "
                               "student's file, take it out by hand")
    return result


def detect(listing):
    """The layout of a Listing: gradescope (a submission_metadata.yml at the top, or in the one
    folder at the top), canvas (at least half of the top's entries are files named as Canvas
    names them), else folders."""
    if metadata_prefix(listing) is not None:
        return "gradescope"
    top = listing.top()
    files = [name for name, is_folder in top if not is_folder]
    canvas = [name for name in files if parse_canvas_name(name)]
    if canvas and 2 * len(canvas) >= len(top):
        return "canvas"
    return "folders"


def metadata_prefix(listing):
    if listing.exists(METADATA):
        return ""
    top = listing.top()
    if len(top) == 1 and top[0][1] and listing.exists(f"{top[0][0]}/{METADATA}"):
        return top[0][0]
    return None


def parse_canvas_name(name):
    """{key, late, uid, fileid, file, kind} of a file of Canvas's bulk download, or None."""
    for pattern, kind in ((CANVAS_ONLINE, "online"), (CANVAS_FILE, "upload")):
        match = pattern.match(name)
        if match:
            parts = match.groupdict()
            key, late = parts.get("key"), bool(parts.get("late"))
            if key == "LATE" and not late:  # LATE_anon_x_...: no name key (anonymous grading)
                key, late = None, True
            if key and key.endswith("_LATE"):
                key, late = key[:-5], True
            if kind == "upload" and parts["file"].strip() in ("", ".", ".."):
                return None
            return {"key": key or None, "late": late, "uid": parts["uid"], "fileid": parts.get("fileid"),
                    "file": parts.get("file") or f"{parts['kind']}.html", "kind": kind if kind == "upload"
                    else parts["kind"]}
    return None


def _folders(listing):
    """One folder or .zip per student (today's layout); from a zip, its top folders and zips."""
    entries, skipped = [], []
    if listing.infos is None:
        dirs, zips = {}, {}
        for entry in sorted(listing.path.iterdir()):
            name = entry.name
            if is_junk(name):
                continue
            if entry.is_dir() and not entry.is_symlink():
                dirs[name] = entry
            elif entry.is_file() and not entry.is_symlink() and name.lower().endswith(".zip"):
                zips[name] = entry
            else:
                skipped.append(name)
        found = dict(dirs)
        for name, path in zips.items():
            student = name[:-4]
            found[name if (student in found or not student) else student] = path
        for name, path in sorted(found.items(), key=lambda item: (item[0].casefold(), item[0])):
            entries.append(Entry(name, "folders", listing.path, path=path))
        return Intake("folders", listing.path, entries, skipped)
    groups = {}
    for name, is_folder in listing.top():
        if is_folder:
            groups[name] = listing.files_under(name)
        elif name.lower().endswith(".zip"):
            student = name[:-4]
            groups[name if student in groups or not student else student] = \
                [(name, Source(name, name, member=name, moment=zip_time(listing.infos[name])))]
        else:
            skipped.append(name)
    for name in sorted(groups, key=lambda n: (n.casefold(), n)):
        files = [source for _, source in groups[name]]
        moment = max((s.moment for s in files if s.moment and s.target.lower().endswith((".cu", ".zip"))),
                     default=None)
        entries.append(Entry(name, "folders", listing.path, files=files, archive=listing.archive,
                             submitted_at=iso(moment), time_source="the newest file's modification time in the zip "
                             "(not a platform's submission time)" if moment else "unknown",
                             platform={"layout": "folders", "files": [s.origin for s in files]}))
    return Intake("folders", listing.path, entries, skipped)


def _canvas(listing, forced=False):
    students, skipped = {}, []
    for name, is_folder in listing.top():
        parsed = None if is_folder else parse_canvas_name(name)
        if parsed is None:
            skipped.append(name + ("/" if is_folder else ""))
            continue
        students.setdefault(parsed["uid"], []).append((name, parsed))
    if not students:
        raise IntakeError(f"{listing.path}: no file is named as in Canvas's bulk download "
                          "(<namekey>_<user id>_<file id>_<file name>)" + ("; leave out --intake canvas" if forced
                                                                           else ""))
    sources = {}
    if listing.infos is None:
        for name in (n for files in students.values() for n, _ in files):
            path = listing.path / name
            sources[name] = Source(None, name, path=path, moment=file_time(path))
    else:
        for name in (n for files in students.values() for n, _ in files):
            sources[name] = Source(None, name, member=name, moment=zip_time(listing.infos[name]))
    order = sorted(students, key=lambda uid: (not uid.isdigit(), int(uid) if uid.isdigit() else 0, uid))
    wanted = []
    for uid in order:
        key = next((p["key"] for _, p in students[uid] if p["key"]), None)
        wanted.append((clean_name(key or uid), uid.replace("anon_", "")))
    names = unique_names(wanted, reserved=OUTPUT_NAMES)
    entries, warnings = [], []
    for uid, name in zip(order, names):
        files, notes, targets = [], [], {}
        late = False
        key = None
        for filename, parsed in sorted(students[uid], key=lambda item: int(item[1]["fileid"] or 0)):
            late = late or parsed["late"]
            key = key or parsed["key"]
            target = Path(parsed["file"].replace("\\", "/")).name
            if parsed["kind"] in ("text", "link"):
                what = "text entry" if parsed["kind"] == "text" else "URL"
                notes.append(f"{filename}: the student submitted a {what}"
                             " in Canvas, not files: nothing in it is graded; ask the student to upload the lab "
                             "files (abc.cu, ...) to the assignment")
            if target in targets:
                notes.append(f"{targets[target].origin} and {filename} have the same name {target}; the later "
                             f"upload, {filename}, is used. If the other is the one to grade, remove {filename} "
                             "from the download and run the same grade-batch command again")
            source = sources[filename]
            source.target = target
            targets[target] = source
        files = list(targets.values())
        newest = max((s.moment for s in files if s.moment), default=None)
        identity = {"canvas_id": uid} if not uid.startswith("anon_") else {"canvas_anonymous_id": uid[5:]}
        if key:
            identity["name_key"] = key
        entries.append(Entry(
            name, "canvas", listing.path, files=files, archive=listing.archive, identity=identity,
            submitted_at=None, late_marker=late, warnings=notes,
            time_source="unknown: Canvas's download holds no submission time (its zip stamps every file with the "
                        "time the zip was made); Canvas's LATE marker is in late_marker",
            platform={"layout": "canvas", "files": [s.origin for s in files], "file_time": iso(newest)}))
    summary = f"{sum(len(e.files) for e in entries)} files"
    if skipped:
        warnings.append(f"not named as in Canvas's bulk download, so not part of any submission: "
                        f"{', '.join(skipped[:20])}{' ...' if len(skipped) > 20 else ''}. If one is a student's, "
                        "give it Canvas's name (<namekey>_<user id>_<file id>_<file>) or grade it on its own")
    entries.sort(key=lambda e: (e.name.casefold(), e.name))
    return Intake("canvas", listing.path, entries, skipped, warnings, summary)


def _gradescope(listing):
    prefix = metadata_prefix(listing)
    lead = f"{prefix}/" if prefix else ""
    try:
        metadata = read_metadata(listing.read(lead + METADATA).decode("utf-8-sig", errors="replace"))
    except (OSError, KeyError, ValueError) as e:
        raise IntakeError(f"{listing.path}: {lead}{METADATA} cannot be read ({e}); export the submissions from "
                          "Gradescope again (Assignment > Review Grades > Export Submissions)")
    folders = {}
    skipped = []
    if listing.infos is None:
        base = listing.path / prefix if prefix else listing.path
        for entry in sorted(base.iterdir()):
            if is_junk(entry.name) or entry.name == METADATA:
                continue
            if entry.is_dir() and not entry.is_symlink():
                folders[entry.name] = listing.files_under(f"{lead}{entry.name}")
            else:
                skipped.append(entry.name)
    else:
        for name in sorted(listing.infos):
            if not name.startswith(lead) or name == lead + METADATA:
                continue
            first, slash, rest = name[len(lead):].partition("/")
            if not first:
                skipped.append(name)
                continue
            if is_junk(first):
                continue
            if slash and rest:
                folders.setdefault(first, [])
            else:
                skipped.append(first)
        for folder in folders:
            folders[folder] = listing.files_under(f"{lead}{folder}")
    warnings = []
    order = sorted(set(folders) | set(metadata), key=lambda k: (re.sub(r"\D", "", k).zfill(20), k))
    infos = []
    for key in order:
        meta = metadata.get(key) or {}
        if key not in folders:
            people = ", ".join(s.get("name") or s.get("email") or s.get("sid") or "?"
                               for s in meta.get("submitters", []))
            warnings.append(f"{METADATA} lists {key} ({people or 'no submitter'}), but the export has no folder "
                            f"{key}/: not graded. Export the submissions again, or grade that student on its own")
            continue
        infos.append((key, meta))
    wanted = []
    for key, meta in infos:
        people = [clean_name(s["name"]) for s in meta.get("submitters", []) if s.get("name")]
        if not people:
            people = [clean_name(s.get("sid") or s.get("email") or "") for s in meta.get("submitters", [])]
            people = [p for p in people if p != "student"]
        wanted.append(("+".join(people)[:120] if people else clean_name(key), key.replace("submission_", "")))
    names = unique_names(wanted, reserved=OUTPUT_NAMES)
    entries = []
    for (key, meta), name in zip(infos, names):
        submitters = meta.get("submitters", [])
        notes = []
        if key not in metadata:
            notes.append(f"{key}/ is not in {METADATA}: who submitted it is unknown, so it matches no roster "
                         "row; export the submissions from Gradescope again")
        elif not submitters:
            notes.append(f"{METADATA} names no submitter for {key}: it matches no roster row; assign it to "
                         "its student in Gradescope and export again")
        identity = dict(submitters[0]) if submitters else {}
        platform = {"layout": "gradescope", "submission": key,
                    "files": [source.origin for _, source in folders[key]]}
        if meta.get("status") is not None:
            platform["status"] = meta["status"]
        if len(submitters) > 1:
            platform["group"] = [dict(s) for s in submitters]
            notes.append(f"a group submission of {len(submitters)} students "
                         f"({', '.join(s.get('name') or s.get('sid') or '?' for s in submitters)}): its identity "
                         "is the first one's (platform.group in status.json lists them all), so the exports give "
                         "its points to the first one only: give the others the same points by hand")
        created = meta.get("created_at")
        entries.append(Entry(name, "gradescope", listing.path, files=[s for _, s in folders[key]],
                             archive=listing.archive, identity=identity, submitted_at=created,
                             time_source=f"Gradescope's :created_at: in {METADATA}" if created else
                             f"unknown: {METADATA} has no :created_at: for it",
                             warnings=notes, platform=platform))
    if skipped:
        warnings.append(f"not a submission's folder, so not graded: {', '.join(skipped[:20])}")
    people = sum(max(1, len(e.platform.get("group", []))) for e in entries)
    summary = f"{len(entries)} submission{'s' if len(entries) != 1 else ''}" + \
        (f" of {people} students" if people != len(entries) else "")
    entries.sort(key=lambda e: (e.name.casefold(), e.name))
    return Intake("gradescope", listing.path, entries, skipped, warnings, summary)


# ---------------------------------------------------------------- submission_metadata.yml

def read_metadata(text):
    """{submission folder: {"submitters": [{name, sid, email}], "created_at": ISO or None,
    "status": str or None}} from Gradescope's submission_metadata.yml. With PyYAML when it is
    installed (and reads it), else with read_yaml below, which reads just this file's shape."""
    data = None
    try:
        data = _pyyaml(text)
    except Exception:  # PyYAML missing, or a file it rejects: the small reader tries
        data = None
    if data is None:
        data = read_yaml(text)
    if not isinstance(data, dict):
        raise ValueError("its top is not a mapping of submission folders")
    out = {}
    for key, value in data.items():
        if not isinstance(value, dict):
            continue
        value = {_plain_key(k): v for k, v in value.items()}
        if "submitters" not in value and not str(key).startswith("submission_"):
            continue
        submitters = []
        for person in value.get("submitters") or []:
            if not isinstance(person, dict):
                continue
            person = {_plain_key(k): v for k, v in person.items()}
            one = {k: str(person[k]).strip() for k in ("name", "sid", "email")
                   if person.get(k) not in (None, "")}
            submitters.append(one)
        out[str(key)] = {"submitters": submitters, "created_at": _time_text(value.get("created_at")),
                         "status": None if value.get("status") is None else str(value.get("status"))}
    return out


def _plain_key(key):
    return str(key).lstrip(":")


def _pyyaml(text):
    import yaml  # noqa: PLC0415  (optional)

    class Loader(yaml.SafeLoader):
        pass

    def tagged(loader, _suffix, node):  # Ruby's !ruby/object:... tags: their plain content
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    Loader.add_multi_constructor("!", tagged)
    merged = {}
    for document in yaml.load_all(text, Loader=Loader):  # Gradescope's file may hold several (a '...' line)
        if document is None:
            continue
        if not isinstance(document, dict):
            raise ValueError("a document is not a mapping")
        merged.update(document)
    return merged


TIME = re.compile(r"^(\d{4})-(\d\d?)-(\d\d?)(?:[Tt ]+(\d\d?):(\d\d):(\d\d)(?:\.(\d+))?\s*"
                  r"(Z|z|[-+]\d\d?(?::?\d\d)?)?)?$")


def _time_text(value):
    """ISO 8601 with a zone from a YAML time (a datetime from PyYAML, or the text), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
        return iso(moment)
    match = TIME.match(str(value).strip())
    if not match:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    zone_info = datetime.timezone.utc
    if zone and zone not in "Zz":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        hours, minutes = (int(digits[:-2]), int(digits[-2:])) if len(digits) > 2 else (int(digits), 0)
        zone_info = datetime.timezone(sign * datetime.timedelta(hours=hours, minutes=minutes))
    moment = datetime.datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0),
                               int(second or 0), int((fraction or "0")[:6].ljust(6, "0")), zone_info)
    return iso(moment)


class _Line:
    __slots__ = ("indent", "text", "key", "value")

    def __init__(self, indent, text, key=None, value=None):
        self.indent, self.text, self.key, self.value = indent, text, key, value


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _split_key(text):
    """(key, value) of a 'key: value' line ('' when the value is on the next lines), else None."""
    if text[:1] in ("'", '"'):
        end = _quote_end(text, 0)
        if end is None:
            return None
        rest = text[end + 1:]
        if rest.startswith(":") and (len(rest) == 1 or rest[1] in " \t"):
            return _scalar(text[:end + 1]), rest[1:].strip()
        return None
    match = re.match(r"^([^\s#][^\n]*?):(?:[ \t]+(.*))?$", text)
    if not match or match.group(1).startswith(("- ", "[", "{")):
        return None
    return match.group(1).strip(), (match.group(2) or "").strip()


def _quote_end(text, start):
    """The index of the quote that closes the one at start, or None."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        if quote == "'" and text[i] == "'":
            if text[i + 1:i + 2] == "'":
                i += 2
                continue
            return i
        if quote == '"':
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == '"':
                return i
        i += 1
    return None


def _strip_properties(value):
    """A value less its leading tags (!ruby/...) and anchors (&1)."""
    while value[:1] in ("!", "&"):
        head, _, value = value.partition(" ")
        value = value.strip()
    return value


def _scalar(text):
    text = text.strip()
    if text[:1] == "'":
        end = _quote_end(text, 0)
        body = text[1:end] if end is not None else text[1:]
        return _fold(body).replace("''", "'")
    if text[:1] == '"':
        end = _quote_end(text, 0)
        body = text[1:end] if end is not None else text[1:]
        try:
            return json.loads('"' + _fold(body).replace("\t", "\\t") + '"')
        except ValueError:
            return _fold(body)
    text = re.sub(r"\s+#.*$", "", text)
    if text in ("~", "null", "Null", "NULL", ""):
        return None
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return text


def _fold(body):
    """A multi-line quoted scalar's lines, folded as YAML does: a line break is a space, an
    empty line a line break."""
    lines = [line.strip() for line in body.split("\n")]
    out = lines[0] if lines else ""
    for line in lines[1:]:
        out += "\n" if not line else (line if out.endswith("\n") or not out else " " + line)
    return out


def _logical_lines(text):
    """The YAML text as _Lines: a '- ' item split off its content (at the content's column),
    a multi-line scalar (quoted, block or plain) joined into its line, comments and
    document markers ('---', '...') left out (the documents are read as one)."""
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out, i = [], 0
    while i < len(raw):
        line = raw[i].rstrip()
        i += 1
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if re.match(r"^(---|\.\.\.)(\s|$)", line):
            rest = _strip_properties(line[3:].strip())
            if not rest or rest.startswith("#"):
                continue
            line = rest  # '--- value': the document's content on the marker's line
        indent = _indent(line)
        text_part = line[indent:]
        owner = indent
        while text_part == "-" or text_part.startswith("- "):
            out.append(_Line(indent, "-"))
            owner = indent
            rest = text_part[1:]
            indent += 1 + _indent(rest)
            text_part = rest.strip()
        if not text_part:
            continue
        split = _split_key(text_part)
        if split is not None:
            key, value = split
            owner = indent
        else:
            key, value = None, text_part
        value = _strip_properties(value)
        if re.match(r"^[|>][-+0-9]*\s*(#.*)?$", value):
            block = []
            while i < len(raw) and (not raw[i].strip() or _indent(raw[i]) > owner):
                block.append(raw[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            depth = min((_indent(b) for b in block if b.strip()), default=0)
            value = json.dumps("\n".join(b[depth:] for b in block))  # a double-quoted scalar
        elif value[:1] in ("'", '"'):
            while _quote_end(value, 0) is None and i < len(raw):
                value += "\n" + raw[i]
                i += 1
        elif value:
            while i < len(raw) and raw[i].strip() and _indent(raw[i]) > owner \
                    and not raw[i].strip().startswith("#"):
                value += " " + raw[i].strip()
                i += 1
        out.append(_Line(indent, text_part, key, value))
    return out


def read_yaml(text):
    """The block mappings, sequences and scalars of a YAML text, as dicts, lists and strings
    (a scalar stays text: '12' and 12 are both '12'); flow collections other than [] and {}
    stay text. Enough for submission_metadata.yml without PyYAML; not a YAML parser."""
    lines = _logical_lines(text)
    if not lines:
        return None
    top = lines[0].indent
    value, i = _node(lines, 0, top)
    while isinstance(value, dict) and i < len(lines):  # past a line that could not be read
        if lines[i].indent == top and lines[i].key is not None:
            more, i = _mapping(lines, i, top)
            value.update(more)
        else:
            i += 1
    return value


def _node(lines, i, indent):
    if i >= len(lines) or lines[i].indent < indent:
        return None, i
    line = lines[i]
    if line.text == "-":
        return _sequence(lines, i, line.indent)
    if line.key is not None:
        return _mapping(lines, i, line.indent)
    return _scalar(line.value), i + 1


def _mapping(lines, i, indent):
    result = {}
    while i < len(lines) and lines[i].indent == indent and lines[i].key is not None:
        line = lines[i]
        i += 1
        if line.value:
            result[line.key] = _scalar(line.value)
        elif i < len(lines) and (lines[i].indent > indent or (lines[i].indent == indent and lines[i].text == "-")):
            result[line.key], i = _node(lines, i, lines[i].indent)
        else:
            result[line.key] = None
        while i < len(lines) and lines[i].indent > indent:  # what could not be read: skipped
            i += 1
    return result, i


def _sequence(lines, i, indent):
    items = []
    while i < len(lines) and lines[i].indent == indent and lines[i].text == "-":
        i += 1
        if i < len(lines) and lines[i].indent > indent:
            value, i = _node(lines, i, lines[i].indent)
        else:
            value = None
        items.append(value)
        while i < len(lines) and lines[i].indent > indent:
            i += 1
    return items, i


def summary_lines(record):
    """summary.txt's lines of the intake (batch.json's "intake", from Intake.record()): the
    layout and count, and the warnings that belong to no student (theirs are in status.json)."""
    if not isinstance(record, dict) or not record.get("line"):
        return []
    lines = [f"Intake: {record['line'].removeprefix('intake: ')}"]
    warnings = [w for w in record.get("warnings") or [] if str(w).strip()]
    if warnings:
        lines.append("Intake warnings (no student's; each student's own are under Warnings):")
        lines += [f"  {w}" for w in warnings]
    return lines
