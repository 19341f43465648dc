#!/usr/bin/env python3
"""Grade a whole class in instructor mode: every submission, one gradebook.

    ./workbook grade-batch SUBMISSIONS [LAB...] [--seed N] [--rubric F] [--out DIR]
                           [--workers K] [--again] [--timeout S] [--intake LAYOUT]
    ./workbook grade-batch --gather OUT
    and, with either, the exports and late work (stored in OUT/batch.json, kept by later runs):
      [--roster CSV] [--assignment NAME] [--deadline ISO8601] [--late-penalty PERCENT]
      [--late-max-days DAYS]

Subcommands of this script (./workbook grade-batch is `batch`):

    batch SUBMISSIONS_DIR [LAB...] [options]   grade them all, one worker per GPU, then gather
    batch --gather OUT                         only rebuild OUT/gradebook.csv and OUT/summary.txt
                                               (and the exports: canvas.csv, gradescope.csv, feedback/)
    one SUBMISSION --out OUT [LAB...] [options] grade one submission (a folder or a .zip)
    one SUBMISSIONS --intake LAYOUT --name NAME --out OUT [LAB...] [options]
                                               grade the student NAME of a whole class's
                                               SUBMISSIONS (what the batch's workers run)
    task SUBMISSIONS_DIR --out OUT [--index I] [--chunk C] [LAB...] [options]
                                               grade chunk I (of C submissions) of the sorted
                                               list: one Slurm array task (tools/slurm/)
    list SUBMISSIONS_DIR [--chunk C] [--intake LAYOUT]
                                               the submissions in grading order, and the
                                               Slurm --array range for chunks of C
    gather OUT [SUBMISSIONS_DIR]               the gradebook and summary from OUT/*/status.json

SUBMISSIONS is a folder, or the .zip of one, in one of three layouts (tools/intake.py),
detected (--intake folders|canvas|gradescope forces one) and named in the batch's first line:
  folders     one folder (a repository or an unpacked upload) or .zip per student, named
              after the student
  canvas      Canvas's bulk download ("Download Submissions"): flat files named
              <namekey>_[LATE_]<user id>_<file id>_<file name>, grouped per user id into one
              submission per student (OUT/<namekey>/); a student's uploaded .zip is unpacked
  gradescope  Gradescope's "Export Submissions": submission_metadata.yml and one
              submission_<id>/ folder per submission, named after its submitters
Each status.json gets "identity" (canvas_id, name_key; or name, sid, email), "submitted_at"
(ISO 8601, null when unknown: Canvas's download has no submission time), "late_marker"
(Canvas's LATE) and "warnings". A lab's file under another name (abc-1.cu, "abc (1).cu",
Abc.cu) is graded as that lab, with a warning; a .cu file that matches no lab is graded as
nothing, with a warning naming the lab it probably is: in the console, summary.txt and
the student's feedback.

Every submission is graded by grade_one(), whichever way it is started (the
batch's workers run `one`, a Slurm task runs `task`): it unpacks a .zip safely,
runs `./workbook grade --submission` with its own build folder under a
wall-clock limit, and writes OUT/<student>/ (results.json, junit.xml, row.csv,
grade.log, lab-logs/) with status.json last, atomically: a submission whose
status.json is there and final is not graded again (unless --again), so an
interrupted batch resumes where it stopped. Only gather writes the gradebook.

gather also makes what goes to the platforms and the students
(tools/gradebook_exports.py): with --roster CSV (Canvas's gradebook export, or a
CSV with name, sid, email and login columns) each submission is matched to a
student and OUT/canvas.csv is Canvas's gradebook import (one column per lab, or
one --assignment NAME column with the total); OUT/gradescope.csv is Gradescope's
score upload (Name, SID, Email, Total Score); OUT/feedback/<student>.txt and
.html are each student's report, without the seed. --deadline with
--late-penalty P (percent per started day late) and --late-max-days D (0 after
D days) take the late penalty from the exported points and add the columns
late, penalty and final to the gradebook. summary.txt lists the unmatched
submissions, the roster students without one, the late ones and the warnings.
See "Grading a whole class" in docs/instructor-guide.md.
"""
import argparse
import contextlib
import csv
import ctypes
import datetime
import fcntl
import hashlib
import io
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import stage_submission  # noqa: E402  (labs_of, find_student_file: the same rules as staging)
import gradebook_exports  # noqa: E402  (roster, canvas.csv, gradescope.csv, late work, feedback/)
import similarity_report  # noqa: E402  (--similarity: the class's similarity report)
import intake  # noqa: E402  (the layouts of SUBMISSIONS, safe unzipping, misnamed lab files)

STATUS_FILE = "status.json"
BATCH_FILE = "batch.json"
GRADEBOOK = "gradebook.csv"
SUMMARY = "summary.txt"
RESERVED_NAMES = {STATUS_FILE, BATCH_FILE, GRADEBOOK, SUMMARY, gradebook_exports.CANVAS_CSV,
                  gradebook_exports.GRADESCOPE_CSV, gradebook_exports.FEEDBACK_DIR}
# Outcomes. graded and failed are final (not graded again without --again);
# error (no GPU, the tree's build broken, a grader crash) is tried again next run.
GRADED, FAILED, ERROR = "graded", "failed", "error"
FINAL = {GRADED, FAILED}
DEFAULT_MAX_UNPACKED_MB = 100
MAX_ZIP_MEMBERS = intake.MAX_ZIP_MEMBERS
# The time limit of one submission: the build, plus every selected lab's budget
# (rubric timeout_s, 300 s when absent) and its test listing, times --timeout-scale.
BUILD_ALLOWANCE_S = 1200
LIST_ALLOWANCE_S = 60
KILL_GRACE_S = 10
# WORKBOOK_BATCH_GRADE_COMMAND replaces ./workbook in the grading command: for
# this script's own tests only (a stand-in that hangs), never for real grading.
GRADE_COMMAND_ENV = "WORKBOOK_BATCH_GRADE_COMMAND"


class BatchError(Exception):
    """Bad input: one line for the user, exit status 1."""


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits with 1 (2 means "no GPU" here, as for grade)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        raise BatchError(message)


Refused = intake.Refused  # the submission cannot be graded as handed in (an unsafe zip): its row says why


# ---------------------------------------------------------------- labs, rubric, settings

def all_labs():
    return stage_submission.labs_of(ROOT)


def resolve_labs(wanted):
    """The lab ids that LAB... selects, in the build's order (as the grader selects them)."""
    labs = all_labs()
    if not wanted:
        return [folder for folder, _ in labs]
    chosen = set()
    for name in wanted:
        hits = [folder for folder, base in labs if lab_matches(folder, base, name)]
        if not hits:
            raise BatchError(f"unknown lab '{name}'; the labs are: {', '.join(f for f, _ in labs)}")
        chosen.update(hits)
    return [folder for folder, _ in labs if folder in chosen]


def lab_matches(folder, base, name):
    if name in (folder, base):
        return True
    if name.isdigit() and len(name) <= 6:
        return int(name) == int(folder.split("-")[0])
    return folder.partition("-")[2] == name


def load_rubric(path):
    try:
        rubric = json.loads(Path(path).read_text())
        return rubric, hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (OSError, ValueError) as e:
        raise BatchError(f"--rubric {path}: cannot read it as JSON ({e})")


def max_points(rubric, lab_ids):
    total = 0.0
    for lab in lab_ids:
        entry = rubric.get("labs", {}).get(lab, {})
        total += sum(float(g.get("points", 0)) for g in entry.get("groups", []))
        total += sum(float(s.get("points", 0)) for s in entry.get("speed", []))
    return total


class Settings:
    """What a grading depends on besides the submission: the labs, seed, rubric and limits."""

    def __init__(self, args):
        self.lab_args = list(args.labs)
        self.labs = resolve_labs(self.lab_args)
        self.seed = args.seed
        if self.seed is not None and not re.fullmatch(r"\d+", self.seed):
            raise BatchError(f"--seed must be a non-negative integer, got '{self.seed}'")
        self.rubric_path = str(Path(args.rubric).resolve()) if args.rubric else None
        rubric, rubric_sha = load_rubric(self.rubric_path or ROOT / "grader" / "rubric.json")
        self.max = max_points(rubric, self.labs)
        self.no_explain = args.no_explain
        self.timeout_scale = args.timeout_scale
        if self.timeout_scale is not None and not self.timeout_scale > 0:
            raise BatchError("--timeout-scale must be a positive number")
        scale = self.timeout_scale or 1.0
        budgets = sum(float(rubric.get("labs", {}).get(lab, {}).get("timeout_s", 300)) + LIST_ALLOWANCE_S
                      for lab in self.labs)
        self.timeout = args.timeout if args.timeout else math.ceil(BUILD_ALLOWANCE_S + budgets * scale)
        self.max_unpacked = int(args.max_unpacked_mb * (1 << 20))
        # A hash, so that a changed seed or rubric grades again; the seed itself is
        # not written (results.json shows it to whoever reads it anyway).
        key = {"labs": self.labs, "seed": self.seed, "rubric": rubric_sha, "timeout_scale": self.timeout_scale}
        self.fingerprint = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]

    def grade_args(self):
        """The options of ./workbook grade that these settings give (after LAB...)."""
        out = list(self.lab_args)
        if self.seed is not None:
            out += ["--seed", self.seed]
        if self.rubric_path:
            out += ["--rubric", self.rubric_path]
        if self.timeout_scale is not None:
            out += ["--timeout-scale", repr(self.timeout_scale)]
        if self.no_explain:
            out += ["--no-explain"]
        return out

    def cli_args(self, again):
        """The same settings as options of `one`/`task` (what a worker passes on)."""
        out = self.grade_args() + ["--timeout", str(self.timeout), "--max-unpacked-mb",
                                   repr(self.max_unpacked / (1 << 20))]
        return out + (["--again"] if again else [])


def add_setting_options(parser):
    parser.add_argument("labs", nargs="*", metavar="LAB", help="labs to grade (default: all)")
    parser.add_argument("--seed", help="seed of the generated inputs (your secret one)")
    parser.add_argument("--rubric", help="points and speed targets (default: grader/rubric.json)")
    parser.add_argument("--timeout-scale", type=float, help="multiply every time limit of the grader by X")
    parser.add_argument("--no-explain", action="store_true",
                        help="profile no slow speed item under Nsight Compute (an exam; saves its seconds per item)")
    parser.add_argument("--timeout", type=int,
                        help="wall-clock limit of one submission, build and grading, in seconds "
                             "(default: 1200 s for the build plus every lab's budget from the rubric)")
    parser.add_argument("--max-unpacked-mb", type=float, default=DEFAULT_MAX_UNPACKED_MB,
                        help=f"refuse a zip that unpacks to more than this (default {DEFAULT_MAX_UNPACKED_MB})")
    parser.add_argument("--again", action="store_true", help="grade again what was graded before")


def add_intake_option(parser, one=False):
    parser.add_argument("--intake", choices=intake.LAYOUTS,
                        help="with --name: SUBMISSION is the whole class's SUBMISSIONS in this layout, and --name "
                             "picks the student" if one else
                        "the layout of SUBMISSIONS (default: detected): folders (one folder or .zip per student), "
                        "canvas (Canvas's bulk download: name_userid_fileid_file files, or its .zip), gradescope "
                        "(Gradescope's export: submission_metadata.yml and submission_<id>/ folders, or its .zip)")


# ---------------------------------------------------------------- submissions
# The layouts (a folder or .zip per student, Canvas's bulk download, Gradescope's
# export), safe unzipping and misnamed lab files are tools/intake.py's.

submission_root = intake.submission_root
fingerprint_of = intake.fingerprint_of
unpack_zip = intake.unpack_zip


def find_intake(path, layout=None):
    """intake.find(): the submissions of SUBMISSIONS (a folder or a zip) in their layout."""
    try:
        return intake.find(path, layout)
    except intake.IntakeError as e:
        raise BatchError(str(e))


# ---------------------------------------------------------------- processes

_stop = threading.Event()  # set by SIGINT/SIGTERM/SIGHUP: stop, write nothing more
_stop_signal = [0]


def _on_signal(number, _frame):
    _stop_signal[0] = _stop_signal[0] or number
    _stop.set()


def install_signal_handlers():
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _on_signal)


def become_subreaper():
    """Orphans of the grading (a test program its grader left behind) become our children,
    so that kill_descendants finds them. Linux only; elsewhere a no-op."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def die_with_parent(parent_pid):
    """A worker of the batch dies (SIGTERM, so it cleans up) when the batch is killed."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGTERM)


def descendants():
    """Pids of every process below this one (from /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(text[text.rindex(")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_descendants():
    """SIGKILL to every process below this one, then reap them (we are their subreaper)."""
    give_up = time.monotonic() + 5
    while True:
        left = descendants()
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        if not left or time.monotonic() > give_up:
            return
        time.sleep(0.05)


def stop_process_group(proc):
    """SIGTERM to the group (the grader then stops its running lab), SIGKILL after a grace
    period, then every process left below us (orphans reparented to us, the subreaper)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(KILL_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)
    kill_descendants()


def run_limited(command, env, log, deadline):
    """Runs command in its own session, output appended to log. 'ok' with the exit status,
    'timeout' or 'interrupted' (the process group and what it left are killed)."""
    with open(log, "ab") as out:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True, cwd=ROOT)
    while True:
        try:
            return "ok", proc.wait(0.5)
        except subprocess.TimeoutExpired:
            pass
        if _stop.is_set():
            stop_process_group(proc)
            return "interrupted", None
        if time.monotonic() > deadline:
            stop_process_group(proc)
            return "timeout", None


@contextlib.contextmanager
def file_lock(path, wait):
    """An flock on path (released when the process dies, too): the handle, or None when the
    lock is held elsewhere and wait is False (or a stop came while waiting)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a")
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not wait or _stop.is_set():
                    handle.close()
                    handle = None
                    break
                time.sleep(0.5)
        yield handle
    finally:
        if handle is not None:
            handle.close()


# ---------------------------------------------------------------- one submission

# One reader and one writer of the batch's files, shared with the exports.
read_json = gradebook_exports.read_json
write_atomically = gradebook_exports.write_atomically


def is_complete(student_dir, fingerprint, settings):
    """The status of a finished grading of this very submission with these settings, else None."""
    status = read_json(student_dir / STATUS_FILE)
    if not isinstance(status, dict) or status.get("status") not in FINAL:
        return None
    if status.get("fingerprint") != fingerprint or status.get("settings") != settings.fingerprint:
        return None
    if not all((student_dir / name).is_file() for name in status.get("files", [])):
        return None
    return status


def broken_labs(log_text, lab_ids):
    """The labs whose student file failed the build (ninja's FAILED: lines), with the first error."""
    number_to_lab = {lab.split("-")[0]: lab for lab in lab_ids}
    broken = {}
    lines = log_text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("FAILED: "):
            continue
        lab = None
        for candidate in lab_ids:
            if f"submission-files/labs/{candidate}/" in line:
                lab = candidate
        match = re.search(r"\blab(\d+)_(student|tests_student|experiment)(?![A-Za-z0-9_])", line)
        if lab is None and match:
            lab = number_to_lab.get(match.group(1))
        if lab is None:
            return None  # a failure that is not a student file's: not the student's
        error = next((l.strip() for l in lines[i + 1:i + 200]
                      if re.search(r"\berror\b|undefined reference", l, re.IGNORECASE)
                      and not l.startswith("FAILED: ")), "")
        error = re.sub(r"\S*/submission-files/", "", error)[:240]
        broken.setdefault(lab, error)
    return broken


def first_error(log_text):
    for line in log_text.splitlines():
        if re.search(r"\berror\b", line, re.IGNORECASE) and not line.startswith("FAILED: "):
            return re.sub(r"\S*/submission-files/", "", line.strip())[:240]
    return last_line(log_text)


def last_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1][:300] if lines else "(no output)"


def copy_without(staged, dest, skip):
    """A submission with the staged student files of every lab but those in skip (staged
    again, those are the untouched skeleton: 0 points instead of a broken build)."""
    for folder, base in all_labs():
        if folder in skip:
            continue
        source = staged / "labs" / folder / f"{base}.cu"
        if source.is_file():
            (dest / "labs" / folder).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest / "labs" / folder / f"{base}.cu")


def default_student_name(path):
    path = Path(path)
    return path.name[:-4] if path.is_file() and path.name.lower().endswith(".zip") else path.name


def grade_one(submission, out, settings, build_dir, student=None, again=False, say=print, entry=None):
    """Grades one submission into OUT/<student>/ and returns its status (a dict), or None
    when interrupted (nothing final is written then). The one code path of every mode.
    entry: the intake's Entry (a platform's submission); else submission is a folder or zip."""
    submission = Path(submission).resolve()
    student = student or (entry.name if entry is not None else default_student_name(submission))
    if entry is None:
        entry = intake.Entry(student, "folders", submission.parent, path=submission)
    if student in RESERVED_NAMES or student.startswith(".") or "/" in student:
        raise BatchError(f"'{student}' cannot be a student's name (it is an output file of grade-batch)")
    student_dir = Path(out).resolve() / student
    student_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = entry.fingerprint()
    with file_lock(student_dir / ".lock", wait=False) as held:
        if held is None:
            say(f"{student}: being graded by another process; skipped")
            return {"student": student, "status": "busy", "skipped": True}
        done = None if again else is_complete(student_dir, fingerprint, settings)
        if done is not None:
            say(f"{student}: {done['status']} before; not graded again (--again grades it again)")
            return dict(done, skipped=True)
        with contextlib.suppress(FileNotFoundError):
            os.remove(student_dir / STATUS_FILE)  # from here on, this submission is not complete
        with file_lock(Path(str(build_dir) + ".lock"), wait=True) as held_build:
            if held_build is None:
                return None
            return _grade_locked(submission, student, student_dir, fingerprint, settings, Path(build_dir), say,
                                 entry)


def _grade_locked(submission, student, student_dir, fingerprint, settings, build_dir, say, entry):
    started = time.monotonic()
    deadline = started + settings.timeout
    status = {"student": student, "submission": str(submission), "fingerprint": fingerprint,
              "settings": settings.fingerprint, "labs": settings.labs, "max": settings.max,
              "device": os.environ.get("CUDA_VISIBLE_DEVICES"), "build_dir": str(build_dir),
              "scores": {}, "total": None, "notes": [], "files": []}
    status.update(entry.status_fields())  # identity, submitted_at, late_marker, warnings (intake.py)
    work = Path(tempfile.mkdtemp(prefix=".partial-", dir=student_dir))
    # The grading's own temporary folder (the grader's lab logs, the compilers' files):
    # its logs are kept in lab-logs/, the rest goes, even after a crash.
    scratch = Path(tempfile.mkdtemp(prefix="workbook-batch-"))
    log = work / "grade.log"
    outcome = None
    try:
        try:
            root = entry.materialize(work / "unpacked", settings.max_unpacked)
            # A lab's file under another name (abc-1.cu, Abc.cu) is graded, loudly; one that
            # matches no lab is named with the lab it probably is.
            root, warnings, lines = intake.resolve_lab_files(root, settings.labs, work / "resolved", entry)
            status["warnings"] += warnings
            with open(log, "a") as f:
                f.writelines(f"{line}\n" for line in
                             lines + [f"grade-batch intake: warning: {w}" for w in status["warnings"]])
        except Refused as e:
            outcome = (FAILED, str(e))
        if outcome is None:
            outcome = _run_grader(root, student, work, log, settings, build_dir, deadline, status, scratch)
        if outcome is None:
            return None  # interrupted: nothing final written
        status["status"], status["reason"] = outcome
        status["seconds"] = round(time.monotonic() - started, 2)
        status["finished"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        _publish(work, student_dir, status)
        say(f"{student}: {describe(status)}")
        return status
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def _run_grader(root, student, work, log, settings, build_dir, deadline, status, scratch):
    """Runs ./workbook grade on root (again, with a lab's skeleton, when a student file does
    not compile); returns (status, reason), or None when interrupted."""
    env = dict(os.environ, WORKBOOK_BUILD_DIR=str(build_dir), TMPDIR=str(scratch))
    if not env.get("WORKBOOK_BUILD_TARGET"):
        # Only what grading runs: the grader and the selected labs' student tests.
        env["WORKBOOK_BUILD_TARGET"] = " ".join(
            ["workbook-grader"] + [f"lab{lab.split('-')[0]}_tests_student" for lab in settings.labs])
    threads = env.get("CMAKE_BUILD_PARALLEL_LEVEL")
    workbook = os.environ.get(GRADE_COMMAND_ENV) or str(ROOT / "workbook")
    skipped_labs = {}
    current = root
    for attempt in range(len(all_labs()) + 1):
        start = log.stat().st_size if log.exists() else 0
        with open(log, "a") as f:
            if attempt:
                f.write(f"\n=== grade-batch: graded again with the untouched skeleton of "
                        f"{', '.join(sorted(skipped_labs))}, which did not compile ===\n\n")
        command = [workbook, "grade", *settings.grade_args(), "--submission", str(current),
                   "--json", str(work / "results.json"), "--junit", str(work / "junit.xml"),
                   "--csv", str(work / "row.csv"), "--student", student, "--color", "never"]
        for name in ("results.json", "junit.xml", "row.csv"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(work / name)
        if threads:
            env["CMAKE_BUILD_PARALLEL_LEVEL"] = threads
        state, code = run_limited(command, env, log, deadline)
        with open(log, "rb") as f:
            f.seek(start)
            text = f.read().decode(errors="replace")  # this attempt's output
        if state == "interrupted":
            return None
        if state == "timeout":
            return FAILED, (f"timed out: the build and grading took more than {settings.timeout} s "
                            "and were stopped (see grade.log)")
        if code == 1 and "the build failed" in text:
            broken = broken_labs(text, [folder for folder, _ in all_labs()])
            if broken and not set(broken) <= set(skipped_labs):
                skipped_labs.update(broken)
                reduced = work / f"without-broken-{attempt + 1}"
                copy_without(build_dir / "submission-files", reduced, set(skipped_labs))
                current = reduced
                continue
            return ERROR, f"the build failed: {first_error(text)}"
        break
    status["notes"] = [f"{lab} does not compile, so it scores 0 (its untouched skeleton was graded "
                       f"instead): {error or 'see grade.log'}" for lab, error in sorted(skipped_labs.items())
                       if lab in settings.labs]
    notes = "; ".join(status["notes"])
    if code == 0 and (work / "results.json").is_file() and (work / "row.csv").is_file():
        _read_row(work / "row.csv", status)
        results = read_json(work / "results.json") or {}
        status["grader_seconds"] = results.get("execution_time")
        if status["notes"]:
            results["output"] = "\n".join(status["notes"]) + "\n\n" + results.get("output", "")
            (work / "results.json").write_text(json.dumps(results, indent=2) + "\n")
        return GRADED, notes
    if code == 2:
        cause = re.search(r"cudaError\w+", last_line(text))
        why = (f"no GPU{f' ({cause.group(0)})' if cause else ''}: not graded; grade again on a machine "
               "with an NVIDIA GPU")
        return ERROR, why + (f"; {notes}" if notes else "")
    if code is not None and code < 0:
        return ERROR, f"the grading was killed by signal {signal.Signals(-code).name}: {last_line(text)}"
    return ERROR, f"grading stopped (exit status {code}): {last_line(text)}" + (f"; {notes}" if notes else "")


def _read_row(path, status):
    rows = list(csv.reader(io.StringIO(Path(path).read_text())))
    if len(rows) >= 2:
        header, row = rows[0], rows[-1]
        values = dict(zip(header, row))
        status["scores"] = {lab: float(values[lab]) for lab in header[1:-2]}
        status["total"] = float(values["total"])
        status["max"] = float(values["max"])


def _publish(work, student_dir, status):
    """Moves the outputs into OUT/<student>/ (each by rename), then writes status.json last."""
    files = []
    for name in ("results.json", "junit.xml", "row.csv", "grade.log"):
        target = student_dir / name
        if (work / name).is_file():
            os.replace(work / name, target)
            files.append(name)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.remove(target)
    logs = re.findall(r"^Logs of the test programs: (.+)$", (student_dir / "grade.log").read_text(errors="replace")
                      if "grade.log" in files else "", re.MULTILINE)
    shutil.rmtree(student_dir / "lab-logs", ignore_errors=True)
    if logs and Path(logs[-1].strip()).is_dir():
        with contextlib.suppress(OSError, shutil.Error):
            shutil.move(logs[-1].strip(), student_dir / "lab-logs")
    status["files"] = files
    write_atomically(student_dir / STATUS_FILE, json.dumps(status, indent=2) + "\n")


def describe(status):
    if status.get("status") == GRADED:
        text = f"graded {status['total']:.2f}/{status['max']:.2f}"
    else:
        text = f"{status.get('status')}: {status.get('reason')}"
    if status.get("status") == GRADED and status.get("reason"):
        text += f" ({status['reason']})"
    if status.get("seconds") is not None and not status.get("skipped"):
        text += f" [{status['seconds']:.1f} s]"
    warnings = status.get("warnings") or []
    if warnings:
        text += f"\n    WARNING ({len(warnings)}, also in summary.txt): " + "\n    WARNING: ".join(warnings)
    return text


# ---------------------------------------------------------------- gather

def gather(out, expected=None, exports=None):
    """Writes OUT/gradebook.csv (one row per student, sorted) and OUT/summary.txt from the
    students' status.json, and the exports (gradebook_exports: canvas.csv, gradescope.csv,
    feedback/) with the options stored in batch.json, updated with exports ({option: value});
    returns (the summary's text, the statuses)."""
    out = Path(out)
    if not out.is_dir():
        raise BatchError(f"{out}: no such folder (the --out of a grade-batch)")
    batch = read_json(out / BATCH_FILE) or {}
    if exports:
        batch[gradebook_exports.OPTIONS_KEY] = gradebook_exports.merge_options(
            batch.get(gradebook_exports.OPTIONS_KEY), exports)
        write_atomically(out / BATCH_FILE, json.dumps(batch, indent=2) + "\n")
    if expected is None:
        expected = batch.get("students", [])
    statuses = {}
    for entry in out.iterdir():
        if entry.is_dir() and not entry.name.startswith(".") and (entry / STATUS_FILE).is_file():
            status = read_json(entry / STATUS_FILE)
            if isinstance(status, dict) and status.get("status"):
                statuses[entry.name] = status
    for name in expected:
        statuses.setdefault(name, {"student": name, "status": ERROR, "max": batch.get("max"),
                                   "reason": "not graded yet (the batch was interrupted or is still running)"})
    order = sorted(statuses, key=lambda name: (name.casefold(), name))
    lab_order = [folder for folder, _ in all_labs()]
    labs = list(batch.get("labs", []))
    for status in statuses.values():
        for lab in status.get("labs", []):
            if lab not in labs:
                labs.append(lab)
    labs.sort(key=lambda lab: lab_order.index(lab) if lab in lab_order else len(lab_order))
    maxima = {s.get("max") for s in statuses.values() if s.get("max") is not None}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    exporter = gradebook_exports.Exports(out, batch, statuses, labs)
    writer.writerow(["student", *labs, "total", "max", "status", "reason", *exporter.gradebook_header()])
    for name in order:
        s = statuses[name]
        graded = s["status"] == GRADED
        scores = s.get("scores", {})
        writer.writerow([name, *[f"{scores[lab]:.2f}" if graded and lab in scores else "" for lab in labs],
                         f"{s['total']:.2f}" if graded and s.get("total") is not None else "",
                         f"{s['max']:.2f}" if s.get("max") is not None else "", s["status"],
                         s.get("reason") or "", *exporter.gradebook_cells(name)])
    write_atomically(out / GRADEBOOK, buffer.getvalue())

    lines = [f"grade-batch: {out.resolve()}",
             f"Labs: {', '.join(labs) if labs else '(none graded)'}"
             + (f"; maximum {max(maxima):.2f} points" if maxima else "")]
    lines += intake.summary_lines(batch.get("intake"))  # the layout read, and what no student owns
    counts = {kind: [n for n in order if statuses[n]["status"] == kind] for kind in (GRADED, FAILED, ERROR)}
    lines.append(f"Submissions: {len(order)}: {len(counts[GRADED])} graded, {len(counts[FAILED])} failed, "
                 f"{len(counts[ERROR])} not graded")
    totals = [statuses[n]["total"] for n in counts[GRADED] if statuses[n].get("total") is not None]
    if totals:
        lines.append(f"Totals of the graded: mean {statistics.mean(totals):.2f}, median "
                     f"{statistics.median(totals):.2f}, lowest {min(totals):.2f}, highest {max(totals):.2f}")
    if len(maxima) > 1:
        lines.append(f"Warning: the rows have different maxima ({', '.join(f'{m:.2f}' for m in sorted(maxima))}):"
                     " some were graded with other labs or another rubric; grade them --again")
    settings = {statuses[n].get("settings") for n in order if statuses[n].get("settings")}
    if len(settings) > 1:
        lines.append("Warning: the rows were graded with different settings (labs, seed, rubric or "
                     "--timeout-scale); run grade-batch --again with one set")
    sections = [(FAILED, "Failed (the submission itself could not be graded; final until --again):"),
                (ERROR, "Not graded (no GPU, an interruption, the tree's build or the grader; the next run "
                        "grades them):")]
    for kind, title in sections:
        if counts[kind]:
            lines.append(title)
            lines += [f"  {n}: {statuses[n].get('reason')}" for n in counts[kind]]
    noted = [n for n in counts[GRADED] if statuses[n].get("notes")]
    if noted:
        lines.append("Graded with notes:")
        lines += [f"  {n}: {note}" for n in noted for note in statuses[n]["notes"]]
    seconds = [statuses[n]["seconds"] for n in order if statuses[n].get("seconds") is not None]
    if seconds:
        grading = [statuses[n]["grader_seconds"] for n in order if statuses[n].get("grader_seconds")]
        line = f"Time per submission: mean {statistics.mean(seconds):.1f} s, median {statistics.median(seconds):.1f} s"
        if grading:
            line += f" (the grader's part: mean {statistics.mean(grading):.1f} s)"
        lines.append(line)
    lines += exporter.write(order)
    text = "\n".join(lines) + "\n"
    write_atomically(out / SUMMARY, text)
    return text, statuses


# ---------------------------------------------------------------- GPUs and the batch

def visible_gpus():
    """The device ids to pin workers to (CUDA_VISIBLE_DEVICES entries, nvidia-smi -L indices,
    or MIG UUIDs), and a line saying where they came from."""
    given = os.environ.get("CUDA_VISIBLE_DEVICES")
    if given is not None:
        ids = []
        for item in (x.strip() for x in given.split(",")):
            if not item or item.startswith("-"):
                break  # CUDA ignores everything from an invalid entry on
            ids.append(item)
        return ids, f"CUDA_VISIBLE_DEVICES={given}"
    smi = shutil.which("nvidia-smi")
    if not smi:
        return [], "no nvidia-smi"
    try:
        result = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], f"nvidia-smi -L failed ({e})"
    if result.returncode != 0:
        return [], f"nvidia-smi -L failed: {last_line(result.stdout + result.stderr)}"
    gpus = []
    for line in result.stdout.splitlines():
        match = re.match(r"GPU (\d+):", line)
        if match:
            gpus.append((match.group(1), []))
        mig = re.search(r"\(UUID: (MIG-[^)\s]+)\)", line)
        if mig and line.lstrip().startswith("MIG") and gpus:
            gpus[-1][1].append(mig.group(1))
    ids = [device for index, migs in gpus for device in (migs or [index])]
    return ids, f"nvidia-smi -L: {len(ids)} GPU{'s' if len(ids) != 1 else ''}"


def run_batch(args):
    settings = Settings(args)
    found = find_intake(args.submissions, args.intake)
    submissions, skipped = found.entries, found.skipped
    if not submissions:
        raise BatchError(f"{args.submissions}: no submissions (one folder or .zip per student, Canvas's bulk "
                         "download or Gradescope's export)")
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = [entry.name for entry in submissions]
    clashes = [name for name in names if name in RESERVED_NAMES]
    if clashes:
        raise BatchError(f"rename the submission(s) {', '.join(clashes)}: the names are grade-batch's output files")
    # The export options (roster, deadline, ...): checked now, before any grading; kept from the last run.
    stored = gradebook_exports.batch_fields(out, gradebook_exports.given_options(args), settings.rubric_path)
    write_atomically(out / BATCH_FILE, json.dumps({"submissions_dir": str(Path(args.submissions).resolve()),
                                                   "students": names, "labs": settings.labs,
                                                   "max": settings.max,
                                                   "settings": settings.fingerprint,
                                                   "intake": found.record(), **stored}, indent=2) + "\n")
    pending = []
    for entry in submissions:
        done = None if args.again else is_complete(out / entry.name, entry.fingerprint(), settings)
        if done is None:
            pending.append((entry.name, entry))
    gpus, source = visible_gpus()
    workers = args.workers or max(1, len(gpus))
    print(f"grade-batch: {found.describe()}")
    for warning in found.warnings:
        print(f"grade-batch: WARNING: {warning}")
    print(f"grade-batch: {len(submissions)} submissions in {args.submissions}, "
          f"{len(submissions) - len(pending)} graded before"
          f"{' (--again grades them again)' if len(pending) < len(submissions) else ''}; results in {out}")
    if skipped and found.layout == "folders":
        print(f"grade-batch: skipped, not submissions (neither a folder nor a .zip file): {', '.join(skipped)}")
    if gpus:
        if workers > len(gpus):
            print(f"grade-batch: warning: {workers} workers share {len(gpus)} GPUs: speed tests "
                  "measured on a shared GPU are unfair; leave out --workers", file=sys.stderr)
        plan = ", ".join(f"worker {i}: GPU {gpus[i % len(gpus)]}" for i in range(min(workers, len(pending) or 1)))
        print(f"grade-batch: {source}; {plan}")
    else:
        print(f"grade-batch: no GPU found ({source}); {workers} worker{'s' if workers != 1 else ''}: "
              "each submission is built and recorded as not graded (no GPU)")
    build_root = Path(args.build_root or ROOT / "build").resolve()
    install_signal_handlers()
    become_subreaper()
    if pending:
        _run_workers(pending, out, settings, args, gpus, workers, build_root, len(submissions))
    if _stop.is_set():
        print("grade-batch: interrupted; what finished is kept, and the next run goes on from there")
    text, statuses = gather(out, names)
    print()
    print(text, end="")
    print(f"Gradebook: {out / GRADEBOOK}")
    if args.similarity and not _stop.is_set():
        similarity_stage(args, settings, out)
    if _stop.is_set():
        return 128 + (_stop_signal[0] or signal.SIGINT)
    errors = [s for s in statuses.values() if s["status"] == ERROR]
    if not errors:
        return 0
    return 2 if all(str(s.get("reason", "")).startswith("no GPU") for s in errors) else 1


def similarity_stage(args, settings, out):
    """The class's similarity report beside the gradebook; a missing tool is one line, and the grades stand."""
    try:
        similarity_report.report(Path(args.submissions), settings.labs, out, layout=args.intake)
    except (similarity_report.ReportError, intake.IntakeError) as error:
        print(f"grade-batch: no similarity report: {error}", file=sys.stderr)


def _run_workers(pending, out, settings, args, gpus, workers, build_root, count):
    queue = list(pending)
    running = {}  # worker -> its `one` process
    lock = threading.Lock()
    done = [count - len(pending)]
    workers = min(workers, len(pending))
    cpus = os.cpu_count() or 1

    def work(index):
        env = dict(os.environ)
        if gpus:
            env["CUDA_VISIBLE_DEVICES"] = gpus[index % len(gpus)]
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in env and workers > 1:
            env["CMAKE_BUILD_PARALLEL_LEVEL"] = str(max(1, cpus // workers))
        env["WORKBOOK_BATCH_PARENT"] = str(os.getpid())
        build_dir = build_root / f"batch-worker-{index}"
        while not _stop.is_set():
            with lock:
                if not queue:
                    return
                name, entry = queue.pop(0)
            command = [sys.executable, str(Path(__file__).resolve()), "one", *entry.one_args(), "--out", str(out),
                       f"--name={name}", "--build-dir", str(build_dir), *settings.cli_args(args.again)]
            with lock:
                if _stop.is_set():
                    return
                proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, env=env, text=True, errors="replace")
                running[index] = proc
            output = proc.communicate()[0]
            with lock:
                running.pop(index, None)
            with lock:
                status = read_json(out / name / STATUS_FILE)
                if proc.returncode == 0 and status and status.get("fingerprint"):
                    done[0] += 1
                    print(f"[{done[0]}/{count}] {name}: {describe(status)}", flush=True)
                elif not _stop.is_set():
                    print(f"[{done[0]}/{count}] {name}: not graded (worker exit status {proc.returncode}):\n"
                          + "".join(f"    {line}\n" for line in output.splitlines()[-10:]), end="", flush=True)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    forwarded = False
    while any(thread.is_alive() for thread in threads):
        for thread in threads:
            thread.join(0.5)
        if _stop.is_set() and not forwarded:
            # A Ctrl-C reached the workers too; a kill of this process alone did not.
            forwarded = True
            with lock:
                for proc in running.values():
                    with contextlib.suppress(ProcessLookupError):
                        proc.send_signal(signal.SIGTERM)
    kill_descendants()


# ---------------------------------------------------------------- command line

def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    command, rest = argv[0], argv[1:]
    try:
        if command == "batch":
            parser = Parser(prog="./workbook grade-batch",
                            usage="./workbook grade-batch SUBMISSIONS_DIR [LAB...] [options]\n"
                                  "       ./workbook grade-batch --gather OUT")
            parser.add_argument("--gather", metavar="OUT", help="only rebuild OUT's gradebook, summary and exports")
            parser.add_argument("--out", default=str(ROOT / "grade-reports" / "batch"),
                                help="results folder (default: grade-reports/batch)")
            parser.add_argument("--workers", type=int, help="parallel workers (default: one per GPU, or 1)")
            parser.add_argument("--build-root", help="where the workers' build folders go (default: build/)")
            parser.add_argument("--similarity", action="store_true",
                                help="also write the class's similarity report in OUT (tools/similarity_report.py)")
            add_setting_options(parser)
            add_intake_option(parser)
            gradebook_exports.add_options(parser)
            args = parser.parse_intermixed_args(rest)
            if args.gather:
                if args.labs:
                    parser.error("--gather OUT takes no submissions or labs")
                text, _ = gather(Path(args.gather), exports=gradebook_exports.given_options(args))
                print(text, end="")
                print(f"Gradebook: {Path(args.gather) / GRADEBOOK}")
                return 0
            if not args.labs:
                parser.error("give the folder of the submissions: ./workbook grade-batch SUBMISSIONS_DIR [LAB...]")
            if args.workers is not None and args.workers < 1:
                parser.error("--workers must be at least 1")
            args.submissions = args.labs.pop(0)
            return run_batch(args)
        if command in ("one", "task"):
            parser = Parser(prog=f"grade_batch.py {command}")
            parser.add_argument("--out", required=True, help="results folder")
            parser.add_argument("--build-dir", help="build folder (default: build/batch-one, build/batch-task-I)")
            if command == "one":
                parser.add_argument("--name", help="the student's name (default: the folder's, or the zip's stem)")
            else:
                parser.add_argument("--index", type=int, help="the chunk to grade (default: $SLURM_ARRAY_TASK_ID)")
                parser.add_argument("--chunk", type=int, default=1, help="submissions per task (default 1)")
            add_setting_options(parser)
            add_intake_option(parser, one=command == "one")
            args = parser.parse_intermixed_args(rest)
            if not args.labs:
                parser.error("give the submission" + ("s' folder" if command == "task" else ""))
            target = args.labs.pop(0)
            settings = Settings(args)
            install_signal_handlers()
            become_subreaper()
            parent = os.environ.get("WORKBOOK_BATCH_PARENT")
            if parent and parent.isdigit():
                die_with_parent(int(parent))
            if command == "one":
                build_dir = Path(args.build_dir or ROOT / "build" / "batch-one").resolve()
                entry = None
                if args.intake:
                    if not args.name:
                        parser.error("--intake needs --name: the student to grade in the class's SUBMISSIONS")
                    entry = find_intake(target, args.intake).get(args.name)
                    if entry is None:
                        raise BatchError(f"{target}: no submission named '{args.name}' in it as {args.intake} "
                                         f"(python3 tools/grade_batch.py list {target} lists them)")
                status = grade_one(target, args.out, settings, build_dir, args.name, args.again, entry=entry)
                return 128 + (_stop_signal[0] or signal.SIGINT) if status is None else 0
            return run_task(target, args, settings)
        if command == "list":
            parser = Parser(prog="grade_batch.py list")
            parser.add_argument("submissions")
            parser.add_argument("--chunk", type=int, default=1)
            add_intake_option(parser)
            args = parser.parse_args(rest)
            found = find_intake(args.submissions, args.intake)
            print(f"# {found.describe()}", file=sys.stderr)
            submissions = found.entries
            for entry in submissions:
                print(f"{entry.name}\t{entry.describe()}")
            tasks = math.ceil(len(submissions) / max(1, args.chunk))
            print(f"# {len(submissions)} submissions; for chunks of {args.chunk}: sbatch --array=0-{max(0, tasks - 1)}",
                  file=sys.stderr)
            return 0
        if command == "gather":
            if not rest or len(rest) > 2:
                print("usage: grade_batch.py gather OUT [SUBMISSIONS_DIR]", file=sys.stderr)
                return 1
            expected = find_intake(rest[1]).names() if len(rest) == 2 else None
            text, _ = gather(Path(rest[0]), expected)
            print(text, end="")
            return 0
        print(f"grade_batch.py: unknown command '{command}' (batch, one, task, list, gather)", file=sys.stderr)
        return 1
    except (BatchError, gradebook_exports.OptionError) as e:
        print(f"grade-batch: {e}", file=sys.stderr)
        return 1


def run_task(folder, args, settings):
    index = args.index if args.index is not None else os.environ.get("SLURM_ARRAY_TASK_ID")
    if index is None or not str(index).isdigit():
        raise BatchError("task needs --index I (or $SLURM_ARRAY_TASK_ID)")
    index = int(index)
    chunk = max(1, args.chunk)
    submissions = find_intake(folder, args.intake).entries
    mine = submissions[index * chunk:(index + 1) * chunk]
    if not mine:
        print(f"grade-batch task {index}: no submissions in this chunk ({len(submissions)} in all)")
        return 0
    build_dir = Path(args.build_dir or ROOT / "build" / f"batch-task-{index}").resolve()
    for entry in mine:
        if grade_one(entry.path or entry.source, args.out, settings, build_dir, entry.name, args.again,
                     entry=entry) is None:
            return 128 + (_stop_signal[0] or signal.SIGINT)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the output went to a pipe that closed (| head): not an error of ours
        sys.stderr.close()
        sys.exit(1)
