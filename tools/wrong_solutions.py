#!/usr/bin/env python3
"""The grader grades itself: wrong solutions must lose their points.

Each wrong solution (tools/wrong_solutions/mutations.json) is a lab's
reference with one mistake: a missing bounds check or barrier, an off-by-one,
output left untouched, a hang, a yardstick call. `run` grades each one as a
submission (instructor mode, only that lab) and checks that it scores less
than the maximum, or is refused; the references must keep full marks and the
untouched skeletons must score 0 (./workbook grade --solutions and
./workbook grade, run beside it by tools/gpu_checks.sh).

  tools/wrong_solutions.py check [--compile] [LAB...]   every mutation applies (and compiles; no GPU needed)
  tools/wrong_solutions.py run [--jobs N] [--hostile | --cheats] [LAB...]   grade them (needs a GPU; minutes per lab)
  tools/wrong_solutions.py explain [--slow] [--rubric FILE] [LAB...]   grade the slow and the shaped ones with
                                           --explain (needs a GPU; --slow: only the slow ones; --rubric: e.g.
                                           the one ./workbook calibrate wrote)
  tools/wrong_solutions.py list            what each wrong solution gets wrong

A LAB is named by its folder (07-prefix-sum), its name (prefix-sum) or its
number (07); without any, every lab. `check --compile 07 08` compiles only
those labs' wrong solutions (seconds each).

`--cheats` grades only the cheats on the speed tests: the "expect": "loses_speed"
ones and those marked "cheat": true (a cheat that the grader refuses before
any test runs: a thread of its own, a persisting L2 window).
`--hostile` grades the hostile submissions of tools/wrong_solutions/hostile.json
instead (the sandbox issue): host code that reads another student's file,
deletes the gradebook, connects to a port on this machine, hoards memory,
forks or fills the disk. Each must lose points with its refusal in the
grader's output ("must_say"), and the bait it went for must be untouched:
the runner plants another student's file and a gradebook in a folder outside
the submission (@PLANTED@) and listens on a port of 127.0.0.1 (@PORT@), and
checks afterwards that the files are unchanged and that no connection came.

A wrong solution must lose points where its mistake is: in the lab's
correctness groups, unless its entry says "where": "speed" (a mistake that
only makes the code slow). A cheat on the speed tests ("expect":
"loses_speed": a remembered answer, a skipped call, a stale buffer) must keep
every correctness point and lose every speed point of its lab. An entry's
"must_say" lists texts that the grader's output must hold (the reason it gave:
"your call wrote its input", "wrong output in warm-up run 1"). `--jobs N` grades N wrong solutions at once on the one
GPU, each in a build folder of its own (build/wrong-solutions-K): sharing the
GPU can slow a speed test but cannot fix a wrong answer, so those verdicts
stand; the "where": "speed" ones are graded afterwards, one at a time, with
the GPU to themselves.

`explain` checks ./workbook grade --explain (issue 28): it grades, one at a
time, each wrong solution that is "where": "speed" or has a "shape", with
`./workbook grade LAB --submission DIR --explain`, and prints its name and
points, then
  - for a slow one, the lines of the grader's section headed "Why it is ..."
    ("Why it is slow", "Why it is as fast as it is (Nsight Compute, ...)");
    a diagnosis in it ("Likely cause: ...", not "none of the rules fires"),
    under a speed item that lost points, must hold a word of the entry's
    "explain_names" (any one, case aside: "uncoalesced", "bytes", "atomic");
  - for one with a "shape", the lines of the failing tests (and of "Where
    the failures start" and "What happened", where a race is noted) that name
    a shape ("Shape of the error", "fails from", a race) or hold the entry's
    own; one of them must hold its shape's sentence (SHAPES below: "shifted"
    -> "shifted by one position", "from_element" -> "right up to element N",
    "tail" -> "the bounds of the last block", "unwritten" -> "never written",
    "constant" -> "every element is off by", as common/src/compare.cpp writes
    them; "race" -> racecheck's finding or "points to a race" (a failing test
    run again answered differently); "guard" -> a write past the end of the
    output, into the tests' guard elements).
It exits 1 when one is not recognised (or not graded, or kept its points), 2
on a wrong argument, and 77 without a GPU, like `run`. Logs stay in a folder
it prints.

`run` exits 77 without a GPU (ctest reports it skipped, with the reason), and
without WORKBOOK_SLOW_TESTS=1 when started by ctest (it takes many minutes).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTATIONS = ROOT / "tools" / "wrong_solutions" / "mutations.json"
HOSTILE = ROOT / "tools" / "wrong_solutions" / "hostile.json"
RUBRIC = ROOT / "grader" / "rubric.json"
SKIP = 77

# The shape of a failure ("shape" in mutations.json) -> a pattern (a regular
# expression, case aside) that ./workbook grade --explain must print for it.
# The first five are the sentences of common/src/compare.cpp
# (ErrorShape::sentence); a race is named by the sanitizer ("racecheck found
# an error in this test", "racecheck: N finding(s)") or by a failing test run
# again that answers differently ("... gave another answer, which points to a
# race"); a write past the end by the tests' guard checks ("the guard elements
# after the output", "the kernel wrote past element n-1", "the records past
# n", "elements past the end of the output").
SHAPES = {
    "shifted": r"shifted by one position",
    "from_element": r"right up to element \d+",
    "tail": r"the bounds of the last block",
    "unwritten": r"never written",
    "constant": r"every element is off by",
    "race": r"points to a race|racecheck found|racecheck: \d+ finding|race reported",
    "guard": r"guard|past the end|past element|past n\b",
}
# Lines of the failing tests that name a shape, whatever the entry's own.
SHAPE_LINES = r"Shape of the error|fails at n=|Two runs, two answers|In the handout|points to a race|racecheck"
# The headings (the start of a line, case aside) of the terminal report's
# sections that explain reads: the speed diagnosis ("Why it is slow", or
# "Why it is as fast as it is (Nsight Compute, ...)"), and where failures are
# described (the failing tests, where the failures start, the notes).
SLOW_SECTION = "Why it is"
FAILURE_SECTIONS = ("Failing tests", "Where the failures start", "What happened")
# A line of the speed diagnosis that names a cause: the grader's "Likely
# cause: ..." lines, but not "Likely cause: none of the rules fires (...)",
# nor an "Expected here, not a cause" line.
CAUSE = r"likely cause:"
NO_CAUSE = r"none of the rules fires"


def lab_matches(lab, name):
    """Whether `name` (a lab's folder, name or number) names `lab` (its folder)."""
    return lab == name or lab[3:] == name or lab[:2] == name


def unknown_labs(selected, labs):
    """The names in `selected` that name no lab of `labs`."""
    return [name for name in selected if not any(lab_matches(lab, name) for lab in labs)]


def labs_in_cmake():
    """Lab folder -> base name, from the workbook_add_lab lines."""
    labs = {}
    for line in (ROOT / "CMakeLists.txt").read_text().splitlines():
        match = re.match(r"\s*workbook_add_lab\((\S+) (\S+)\)", line)
        if match:
            labs[match.group(1)] = match.group(2)
    return labs


def load(path=MUTATIONS):
    data = json.loads(path.read_text())
    return {lab: items for lab, items in data.items() if not lab.startswith("_")}


def fill(text, bait):
    """`text` with the placeholders of a hostile submission filled in from `bait` (a dict)."""
    return text.replace("@PLANTED@", str(bait["planted"])).replace("@PORT@", str(bait["port"]))


# Placeholders for `check --compile`, where nothing is planted and no one listens.
NO_BAIT = {"planted": "/nonexistent/planted", "port": 9}


def mutated(lab, base, mutation, bait=None):
    """The reference of `lab` with `mutation` applied (its find/replace, or its
    'edits' in turn); raises ValueError when one does not apply."""
    source = (ROOT / "solutions" / lab / f"{base}.cu").read_text()
    for edit in mutation.get("edits", [mutation]):
        count = source.count(edit["find"])
        if count != 1:
            raise ValueError(f"{lab}: '{mutation['name']}': the text '{edit['find'][:40]}...' occurs {count} times "
                             f"in solutions/{lab}/{base}.cu (it must occur once): update its entry in "
                             f"{MUTATIONS.parent.relative_to(ROOT)}")
        source = source.replace(edit["find"], edit["replace"], 1)
    return fill(source, bait or NO_BAIT)


def compiles(lab, source, work):
    """'' when `source` compiles as lab's student file (nvcc -c), else the compiler's first lines."""
    path = work / f"{lab}.cu"
    path.write_text(source)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    command = [nvcc, "-std=c++17", "-arch=sm_75", "-c", str(path), "-o", str(work / f"{lab}.o"),
               f"-I{ROOT / 'labs' / lab}", f"-I{ROOT / 'common' / 'include'}"]
    done = subprocess.run(command, capture_output=True, text=True)
    return "" if done.returncode == 0 else "\n".join((done.stdout + done.stderr).splitlines()[:6])


def check(compile_them=False, selected=()):
    """Checks every entry (of the `selected` labs only, when given)."""
    labs = labs_in_cmake()
    problems = []
    count = 0
    for path in (MUTATIONS, HOSTILE):
        mutations = load(path)
        if path == MUTATIONS and not selected:
            problems += [f"{lab}: no wrong solutions in {MUTATIONS.relative_to(ROOT)}"
                         for lab in labs if lab not in mutations]
        for lab, items in mutations.items():
            if lab not in labs:
                problems.append(f"{lab}: not a lab of CMakeLists.txt")
                continue
            if selected and not any(lab_matches(lab, name) for name in selected):
                continue
            for mutation in items:
                count += 1 if check_one(lab, labs[lab], mutation, compile_them, problems) else 0
    for problem in problems:
        print(f"wrong_solutions: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"wrong_solutions: {count} wrong solutions and hostile submissions apply to their references")
    return 0


def check_one(lab, base, mutation, compile_them, problems):
    """Checks one entry's fields, that it applies and (if asked) compiles; False on a problem."""
    name = mutation.get("name")
    if mutation.get("expect") not in ("loses", "loses_speed", "refused"):
        problems.append(f"{lab}: '{name}': expect must be 'loses', 'loses_speed' or 'refused'")
    if not isinstance(mutation.get("cheat", False), bool):
        problems.append(f"{lab}: '{name}': cheat must be true or false")
    said = mutation.get("must_say", [])
    if not isinstance(said, list) or not all(isinstance(text, str) and text for text in said):
        problems.append(f"{lab}: '{name}': must_say must be a list of texts")
    if mutation.get("where", "correctness") not in ("correctness", "speed"):
        problems.append(f"{lab}: '{name}': where must be 'correctness' (the default) or 'speed'")
    if "shape" in mutation and (mutation["shape"] not in SHAPES or mutation.get("expect") != "loses"
                                or mutation.get("where") == "speed"):
        problems.append(f"{lab}: '{name}': a shape must be one of {', '.join(SHAPES)}, on a wrong solution "
                        "that loses correctness points (\"expect\": \"loses\", not \"where\": \"speed\")")
    names = mutation.get("explain_names")
    if mutation.get("where") == "speed" and (not isinstance(names, list) or not names or not all(
            isinstance(word, str) and word.strip() for word in names)):
        problems.append(f"{lab}: '{name}': a \"where\": \"speed\" entry needs \"explain_names\", a list of the "
                        "words (one is enough) that ./workbook grade --explain must print for it")
    if names is not None and mutation.get("where") != "speed":
        problems.append(f"{lab}: '{name}': explain_names belongs only to \"where\": \"speed\" entries")
    try:
        source = mutated(lab, base, mutation)
    except ValueError as error:
        problems.append(str(error))
        return False
    # A wrong solution that does not compile tests the compiler, not the grader.
    if compile_them and mutation["expect"] != "refused":
        with tempfile.TemporaryDirectory(prefix="wrong-solution-") as work:
            error = compiles(lab, source, Path(work))
        if error:
            problems.append(f"{lab}: '{name}' does not compile:\n{error}")
            return False
    return True


def have_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Bait:
    """What a hostile submission goes for: a folder outside the submission with
    another student's file and a gradebook, and a port on 127.0.0.1 where this
    runner listens and counts the connections that arrive."""

    FILES = {"other-student/labs/02-abc/abc.cu": "// another student's work\n",
             "gradebook.csv": "student,02-abc,total,max\nalice,12,12,12\n"}

    def __init__(self, folder):
        self.planted = folder
        shutil.rmtree(folder, ignore_errors=True)
        for relative, text in self.FILES.items():
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_text(text)
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                peer, _ = self.listener.accept()
                self.connections += 1
                peer.close()
            except (socket.timeout, OSError):
                continue

    def values(self):
        return {"planted": self.planted, "port": self.port}

    def close(self):
        """Stops listening; returns what the submission disturbed (empty: nothing)."""
        self.stop.set()
        self.thread.join()
        self.listener.close()
        harm = [f"{self.connections} connection(s) reached port {self.port}"] if self.connections else []
        for relative, text in self.FILES.items():
            path = self.planted / relative
            if not path.exists() or path.read_text() != text:
                harm.append(f"{path} was {'changed' if path.exists() else 'deleted'}")
        if (self.planted / "huge.bin").exists():
            harm.append(f"{self.planted / 'huge.bin'} was written")
        return harm


def speed_item_names():
    """The report names of every lab's speed items ("02-abc: grid-stride loop: bandwidth")."""
    labs = json.loads(RUBRIC.read_text())["labs"]
    return {f"{lab}: {item['name']}" for lab, rubric in labs.items() for item in rubric.get("speed", [])}


def grade(lab, base, mutation, work, build=None, bait=None, extra_args=()):
    """Grades one wrong solution as a submission in `work`.

    Returns (report or None, log path). `build` is the build folder to use
    (default: the grader's own build/submission); `bait` fills a hostile
    submission's placeholders; `extra_args` are more ./workbook grade options
    (explain passes --explain)."""
    submission = work / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    (submission / "labs" / lab).mkdir(parents=True)
    (submission / "labs" / lab / f"{base}.cu").write_text(mutated(lab, base, mutation, bait))
    results = work / "results.json"
    results.unlink(missing_ok=True)
    log = work / f"{lab}-{re.sub(r'[^a-z0-9]+', '-', mutation['name'].lower())}.log"
    command = [str(ROOT / "workbook"), "grade", lab, "--submission", str(submission), "--json", str(results),
               "--color", "never", *mutation.get("grade_args", []), *extra_args]
    env = dict(os.environ, **({"WORKBOOK_BUILD_DIR": str(build)} if build else {}))
    with open(log, "w") as out:
        subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    if not results.exists():
        return None, log
    return json.loads(results.read_text()), log


def hostile_verdict(mutation, log, bait, harm):
    """'' when a hostile submission was caught cleanly, else what went wrong."""
    text = log.read_text(errors="replace") if log.exists() else ""
    missing = [fill(said, bait) for said in mutation.get("must_say", []) if fill(said, bait) not in text]
    if missing:
        return f"MESSAGE MISSING: '{missing[0]}' (see {log})"
    return f"HARM DONE: {'; '.join(harm)}" if harm else ""


def verdict(lab, mutation, report, log, speed_items):
    """(points shown, verdict text, ok) for one graded wrong solution."""
    if report is None:
        return "-", f"NOT GRADED (see {log})", False
    shown, text, ok = points_verdict(lab, mutation, report, log, speed_items)
    said = log.read_text(errors="replace") if log.exists() else ""
    missing = [text for text in mutation.get("must_say", []) if text not in said]
    if ok and missing:
        return shown, f"REASON MISSING: the grader's output lacks '{missing[0]}' (see {log})", False
    return shown, text, ok


def points_verdict(lab, mutation, report, log, speed_items):
    """verdict() by the points alone."""
    tests = report.get("tests", [])
    points, most = report.get("score", 0.0), sum(test.get("max_score", 0.0) for test in tests)
    shown = f"{points:.1f}/{most:.1f}"
    if mutation["expect"] == "refused":
        ok = f"{lab}: refused: " in report.get("output", "") and points == 0
        return shown, "refused" if ok else f"NOT REFUSED (see {log})", ok
    speed_tests = [test for test in tests if test.get("name") in speed_items]
    if mutation["expect"] == "loses_speed":
        kept = sum(test.get("score", 0.0) for test in speed_tests)
        lost = sum(test.get("max_score", 0.0) - test.get("score", 0.0) for test in tests if test not in speed_tests)
        ok = bool(speed_tests) and kept == 0 and lost == 0
        if ok:
            return shown, "loses every speed point, keeps its correctness points", True
        if lost > 0:
            return shown, f"LOST {lost:g} CORRECTNESS POINTS: the cheat must pass the correctness tests (see {log})", False
        return shown, f"KEPT {kept:g} SPEED POINTS (see {log})", False
    if mutation.get("where") == "speed":
        ok = points < most
        return shown, "loses points" if ok else f"KEPT FULL MARKS (see {log})", ok
    lost = sum(test.get("max_score", 0.0) - test.get("score", 0.0) for test in tests
               if test.get("name") not in speed_items)
    if lost > 0:
        return shown, f"loses points ({lost:g} for correctness)", True
    if points < most:
        return shown, f"LOST ONLY SPEED POINTS: its mistake went unseen (see {log})", False
    return shown, f"KEPT FULL MARKS (see {log})", False


def run(selected, jobs=1, hostile=False, cheats=False):
    if not have_gpu():
        print("wrong_solutions: skipped: no NVIDIA GPU here (grading needs one)")
        return SKIP
    if os.environ.get("WORKBOOK_FROM_CTEST") == "1" and os.environ.get("WORKBOOK_SLOW_TESTS") != "1":
        print("wrong_solutions: skipped: grading every wrong solution takes many minutes; "
              "set WORKBOOK_SLOW_TESTS=1 to run it from ctest, or run tools/wrong_solutions.py run")
        return SKIP
    labs = labs_in_cmake()
    speed_items = speed_item_names()
    chosen = [(lab, mutation) for lab, items in load(HOSTILE if hostile else MUTATIONS).items()
              if not selected or any(lab_matches(lab, s) for s in selected)
              for mutation in items if not cheats or mutation["expect"] == "loses_speed" or mutation.get("cheat")]

    def speed_only(mutation):
        return mutation.get("where") == "speed" or mutation["expect"] == "loses_speed" or mutation.get("cheat")

    shared = [item for item in chosen if not speed_only(item[1])]
    alone = [item for item in chosen if speed_only(item[1])]
    work = Path(tempfile.mkdtemp(prefix="wrong-solutions-"))
    free_slots = list(range(jobs))
    lock = threading.Lock()
    failures = []

    def grade_one(lab, mutation, parallel):
        with lock:
            slot = free_slots.pop()
        try:
            folder = work / f"worker-{slot}"
            folder.mkdir(exist_ok=True)
            build = ROOT / "build" / f"wrong-solutions-{slot}" if parallel else None
            bait = Bait(folder / "planted") if hostile else None
            try:
                report, log = grade(lab, labs[lab], mutation, folder, build, bait.values() if bait else None)
            finally:
                harm = bait.close() if bait else []
            shown, text, ok = verdict(lab, mutation, report, log, speed_items)
            problem = hostile_verdict(mutation, log, bait.values(), harm) if bait else ""
            if problem:
                text, ok = problem, False
            with lock:
                failures.extend([] if ok else [mutation["name"]])
                print(f"{lab:<16}{mutation['name'][:38]:<40}{shown:>14}  {text}", flush=True)
        finally:
            with lock:
                free_slots.append(slot)

    print(f"{'lab':<16}{'wrong solution':<40}{'points':>14}  verdict", flush=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for future in [pool.submit(grade_one, lab, mutation, jobs > 1) for lab, mutation in shared]:
            future.result()
    for lab, mutation in alone:  # the GPU to themselves: their loss is in a speed test
        grade_one(lab, mutation, False)
    print(f"logs in {work}")
    return 1 if failures else 0


def sections_under(text, is_heading):
    """The non-empty lines of every section of `text` whose heading line
    satisfies is_heading: the heading itself (it may carry a diagnosis after a
    colon), then the lines after it that are indented deeper, blank lines
    included, up to the first that is not."""
    lines = text.splitlines()
    found = []
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if not line.strip() or not is_heading(line.strip().lower()):
            continue
        depth = len(line) - len(line.lstrip())
        found.append(line)
        while at < len(lines) and (not lines[at].strip() or len(lines[at]) - len(lines[at].lstrip()) > depth):
            if lines[at].strip():
                found.append(lines[at])
            at += 1
    return found


def slow_items(lab, report):
    """The names of `lab`'s speed items that lost points in `report` (None: not known)."""
    if report is None:
        return None
    items = json.loads(RUBRIC.read_text())["labs"].get(lab, {}).get("speed", [])
    tests = {test.get("name"): test for test in report.get("tests", [])}
    slow = set()
    for item in items:
        test = tests.get(f"{lab}: {item['name']}")
        if test is not None and test.get("score", 0.0) < test.get("max_score", 0.0):
            slow.add(item["name"])
    return slow


def diagnoses(lab, lines, slow):
    """The lines of the speed diagnosis that name a cause, for the items in
    `slow` only where the section is divided by item (a line "LAB ITEM").
    A diagnosis written without "Likely cause:" lines counts every line of
    the section but its heading."""
    items = {item["name"] for item in json.loads(RUBRIC.read_text())["labs"].get(lab, {}).get("speed", [])}
    marked = any(re.search(CAUSE, line, re.IGNORECASE) for line in lines)
    current = None  # the item whose part of the section this is; None before any
    found = []
    for line in lines[1:]:
        text = line.strip()
        if text.startswith(lab + " ") and text[len(lab) + 1:] in items:
            current = text[len(lab) + 1:]
            continue
        if slow is not None and current is not None and current not in slow:
            continue
        if (re.search(CAUSE, text, re.IGNORECASE) or not marked) and not re.search(NO_CAUSE, text, re.IGNORECASE):
            found.append(line)
    return found


def explain_lines(lab, mutation, text, report=None):
    """(lines to show, recognised) for one wrong solution graded with --explain.

    A slow one: the section headed "Why it is ..."; recognised when a line of
    it that names a cause ("Likely cause: ...", for an item that lost points)
    holds a word of explain_names. One with a shape: the lines of the failure
    sections that name a shape; recognised when one holds its own."""
    if mutation.get("where") == "speed":
        lines = sections_under(text, lambda heading: heading.startswith(SLOW_SECTION.lower()))
        words = [word.lower() for word in mutation["explain_names"]]
        causes = diagnoses(lab, lines, slow_items(lab, report))
        return lines, any(word in line.lower() for line in causes for word in words)
    own = re.compile(SHAPES[mutation["shape"]], re.IGNORECASE)
    shown = re.compile(SHAPE_LINES, re.IGNORECASE)
    headings = tuple(heading.lower() for heading in FAILURE_SECTIONS)
    lines = [line for line in sections_under(text, lambda heading: heading.startswith(headings))
             if shown.search(line) or own.search(line)]
    return lines, any(own.search(line) for line in lines)


def shortened(lines, keep, most=16):
    """At most `most` of `lines`, those in `keep` (the causes) always among them."""
    if len(lines) <= most:
        return lines
    head = [line for line in lines[:max(most - len(keep), 4)] if line not in keep]
    return head + [f"[{len(lines) - len(head) - len(keep)} more lines]"] + list(keep)


def explain(selected, rubric=None, slow_only=False):
    labs = labs_in_cmake()
    chosen = [(lab, mutation) for lab, items in load().items()
              if not selected or any(lab_matches(lab, s) for s in selected)
              for mutation in items
              if mutation.get("where") == "speed" or ("shape" in mutation and not slow_only)]
    if not chosen:
        print(f"wrong_solutions: no wrong solution of {', '.join(selected) or 'any lab'} is \"where\": \"speed\" "
              f"or has a \"shape\" (see {MUTATIONS.relative_to(ROOT)})", file=sys.stderr)
        return 2
    if not have_gpu():
        print("wrong_solutions: skipped: no NVIDIA GPU here (grading needs one)")
        return SKIP
    speed_items = speed_item_names()
    work = Path(tempfile.mkdtemp(prefix="wrong-solutions-explain-"))
    failures = []
    for lab, mutation in chosen:  # one at a time: a profile wants the GPU to itself
        report, log = grade(lab, labs[lab], mutation, work,
                            extra_args=["--explain", *(["--rubric", str(rubric)] if rubric else [])])
        shown, text, graded = verdict(lab, mutation, report, log, speed_items)
        slow = mutation.get("where") == "speed"
        wanted = (f"a 'Likely cause' under '{SLOW_SECTION}...' with one of: {', '.join(mutation['explain_names'])}"
                  if slow else f"the shape '{mutation['shape']}' ({SHAPES[mutation['shape']]})")
        print(f"{lab}: {mutation['name']} ({shown}: {text})", flush=True)
        output = log.read_text(errors="replace") if log.exists() else ""
        lines, recognised = explain_lines(lab, mutation, output, report)
        causes = diagnoses(lab, lines, slow_items(lab, report)) if slow else []
        for line in shortened(lines, causes):
            print(f"    {line.strip()}")
        if recognised and graded:
            print(f"  recognised: {wanted}", flush=True)
        else:
            failures.append(f"{lab}: {mutation['name']}")
            why = ("NOT GRADED" if report is None else "DID NOT LOSE ITS POINTS" if not graded
                   else "NOT RECOGNISED")
            print(f"  {why}: expected {wanted} (see {log})", flush=True)
    print(f"logs in {work}")
    if failures:
        print(f"wrong_solutions: {len(failures)} of {len(chosen)} not recognised: {'; '.join(failures)}")
        return 1
    print(f"wrong_solutions: all {len(chosen)} recognised")
    return 0


def list_all():
    for lab, items in [*load().items(), *(("hostile " + lab, items) for lab, items in load(HOSTILE).items())]:
        for mutation in items:
            extra = f" (graded with {' '.join(mutation['grade_args'])})" if mutation.get("grade_args") else ""
            extra += f" (shape: {mutation['shape']})" if mutation.get("shape") else ""
            extra += f" (slow; --explain must name: {', '.join(mutation['explain_names'])})" \
                if mutation.get("explain_names") else ""
            print(f"{lab}: {mutation['name']}: {mutation['what']}; must be {mutation['expect']}{extra}")
    return 0


# The usage lines of the docstring, for a message about a wrong argument.
USAGE = next(part for part in __doc__.split("\n\n") if part.lstrip().startswith("tools/wrong_solutions.py"))


def misuse(message):
    print(f"wrong_solutions: {message}\nusage:\n{USAGE}", file=sys.stderr)
    return 2


def main(argv):
    if not argv or argv[0] not in ("check", "run", "explain", "list"):
        print(__doc__, file=sys.stderr)
        return 2
    labs = labs_in_cmake()
    rubric = None
    slow_only = argv[0] == "explain" and "--slow" in argv
    argv = [arg for arg in argv if not (slow_only and arg == "--slow")]
    if argv[0] == "explain" and "--rubric" in argv:
        at = argv.index("--rubric")
        if at + 1 >= len(argv) or not Path(argv[at + 1]).is_file():
            return misuse("--rubric needs a rubric file, e.g. --rubric grader/rubric-nvidia-h200.json")
        rubric = Path(argv[at + 1]).resolve()
        argv = argv[:at] + argv[at + 2:]
    if argv[0] in ("check", "explain"):
        allowed = ("--compile",) if argv[0] == "check" else ()
        options = [arg for arg in argv[1:] if arg.startswith("-") and arg not in allowed]
        if options:
            return misuse(f"{argv[0]} takes {'--compile and ' if allowed else ''}lab names "
                          f"(e.g. `{argv[0]} 03 prefix-sum`), not '{options[0]}'")
        names = [arg for arg in argv[1:] if not arg.startswith("-")]
        unknown = unknown_labs(names, labs)
        if unknown:
            return misuse(f"'{unknown[0]}' is not a lab; the labs are {', '.join(labs)} "
                          "(a folder, its name after the number, or its number)")
        if argv[0] == "check":
            return check(compile_them="--compile" in argv[1:], selected=names)
        return explain(names, rubric, slow_only)
    if argv[0] == "list":
        return list_all()
    args, jobs = argv[1:], 1
    hostile = "--hostile" in args
    cheats = "--cheats" in args
    args = [arg for arg in args if arg not in ("--hostile", "--cheats")]
    if "--jobs" in args:
        at = args.index("--jobs")
        if at + 1 >= len(args) or not args[at + 1].isdigit() or int(args[at + 1]) < 1:
            print("wrong_solutions: --jobs needs a positive number, e.g. --jobs 3", file=sys.stderr)
            return 2
        jobs = int(args[at + 1])
        del args[at:at + 2]
    return run(args, jobs, hostile, cheats)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
