#!/usr/bin/env python3
"""Make ctest's output readable: what ./workbook test prints.

    ctest ... 2>&1 | python3 tools/ctest_summary.py [--log LastTest.log] [--heartbeat S]

Reads ctest's output line by line and passes it through as it comes, except:

- the GPU tests that were skipped (on a machine without a GPU: all of them
  but a few host-only ones). Their "***Skipped" lines, and the "Start" lines
  of every GoogleTest case (a name with a dot: a result line follows at
  once), are left out during the run, and the
  "The following tests did not run:" block is replaced by one line per lab
  (or group: "common") with the count, under the reason. A skipped test is a
  GPU test when its output in LastTest.log holds "workbook-skip:" (without
  the log: when it is a lab's or common's test). Every other test that did
  not run is listed on its own, with the last line of its output (its reason);
- while tests run and nothing was printed for S seconds (default 30), a line
  names the tests still running and for how long;
- ctest's summary ("N% tests passed, K tests failed out of M", the time, the
  failed tests) is held back and printed last, after the skipped tests, with
  how many of the M were skipped (ctest counts them as passed) and where the
  full log is.

Every line fits in WIDTH columns (120): ctest pads a result line with dots
to its longest test name (223 columns here), so the dots are cut back to
what fits (a name too long on its own loses its middle), and any other
longer line wraps, its continuation indented. Failures keep their output
(--output-on-failure). Exits 0: the caller keeps
ctest's own exit status. `./workbook test` uses it unless an argument asks
for ctest's verbose output (-V, -VV, --output-log ...).
"""
import argparse
import os
import re
import select
import sys
import textwrap
import time

START = re.compile(r"^\s+Start\s+(\d+): (.*)$")
RESULT = re.compile(r"^\s*\d+/\d+ Test\s+#(\d+): (.*?) \.*\s*(\*\*\*)?([A-Za-z][A-Za-z ]*?)\b")
# "88% tests passed, 2 tests failed out of 16"; newer ctest says "100% tests
# passed out of 269" when none failed.
SUMMARY = re.compile(r"^\d+% tests passed(?:, \d+ tests? failed)? out of (\d+)$")
# A result line's parts: "  3/286 Test   #2: ", the name, ctest's dots, "   Passed    0.11 sec".
RESULT_PARTS = re.compile(r"^(\s*\d+/\d+ Test\s+#\d+: )(.*?) \.+(\s*\S.*)$")
WIDTH = 120
MIN_DOTS = 5
NOT_RUN_HEADER = "The following tests did not run:"
NOT_RUN = re.compile(r"^\t\s*(\d+) - (.*) \(([^()]*)\)$")
# The labs' tests ("04-reductions.Sizes/...") and common's ("common.Harness...").
GROUPED = re.compile(r"^(\d\d-[A-Za-z0-9_-]+|common)\.")
LOG_TEST = re.compile(r"^\d+/\d+ Testing: (.*)$")
SKIP_MARK = "workbook-skip:"


def fitted(line, width=WIDTH):
    """The lines to print for one line of output, each at most `width` columns where it can be:
    a result line with fewer dots (and, if need be, its name shortened in the middle), any other
    line wrapped at spaces with its continuation indented."""
    if len(line) <= width:
        return [line]
    match = RESULT_PARTS.match(line)
    if match:
        head, name, tail = match.groups()
        room = width - len(head) - len(tail) - 1 - MIN_DOTS
        if len(name) > room:
            keep = max(room - 3, 8)
            name = name[:keep // 2] + "..." + name[len(name) - (keep - keep // 2):]
        dots = max(MIN_DOTS, width - len(head) - len(name) - 1 - len(tail))
        return [f"{head}{name} {'.' * dots}{tail}"]
    indent = line[:len(line) - len(line.lstrip())]
    return textwrap.wrap(line, width, initial_indent="", subsequent_indent=indent + "    ",
                         break_long_words=False, break_on_hyphens=False) or [line]


def group_of(name):
    match = GROUPED.match(name)
    return match.group(1) if match else None


def read_log(path):
    """Each test's output lines in ctest's LastTest.log, by name ({} without
    the log: the caller removes the last run's before ctest starts)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return {}
    outputs, name, inside = {}, None, False
    for line in lines:
        match = LOG_TEST.match(line)
        if match:
            name, inside = match.group(1), False
            outputs[name] = []
        elif name is not None and line == "Output:":
            inside = None  # the dashes come first
        elif inside is None:
            inside = True
        elif line == "<end of output>":
            inside = False
        elif inside:
            outputs[name].append(line)
    return outputs


def skip_reason(output):
    """Why a test was skipped, from its output: the line after GoogleTest's
    "file:line: Skipped", else the output's last line."""
    lines = [line.strip() for line in output if line.strip()]
    for index, line in enumerate(lines[:-1]):
        if line.endswith(": Skipped"):
            return lines[index + 1]
    return lines[-1] if lines else ""


def duration(seconds):
    seconds = int(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class Folder:
    def __init__(self, out, log, heartbeat):
        self.out = out
        self.log = log
        self.heartbeat = heartbeat
        self.began = time.time()
        self.last_print = time.monotonic()
        self.names = {}  # test number -> name
        self.running = {}  # test number -> when its Start line came
        self.totals = {}  # group -> tests of that group that ran
        self.summary = None  # ctest's summary lines, held back once it starts
        self.not_run = []  # (number, name, status) of "The following tests did not run:"
        self.in_not_run = False
        self.broken = False  # after an error of this script: pass everything through
        self.blank = False  # the last line printed was empty

    def emit(self, line):
        self.out.write("\n".join(fitted(line)) + "\n")
        self.out.flush()
        self.last_print = time.monotonic()
        self.blank = not line.strip()

    def line(self, line):
        if self.broken:
            self.emit(line)
            return
        try:
            self._line(line)
        except OSError:
            raise  # the reader went away (| head): nothing to save
        except Exception as error:  # never lose ctest's output to a bug here
            self.broken = True
            self.emit(f"(ctest_summary.py: {error!r}; the rest of ctest's output unfolded)")
            for held in self.summary or []:
                self.emit(held)
            self.summary = None
            self.emit(line)

    def _line(self, line):
        if self.summary is not None:
            if line == NOT_RUN_HEADER:
                self.in_not_run = True
                return
            if self.in_not_run:
                match = NOT_RUN.match(line)
                if match:
                    self.not_run.append((int(match.group(1)), match.group(2), match.group(3)))
                    return
                self.in_not_run = False
            self.summary.append(line)
            return
        if SUMMARY.match(line):
            self.summary = [line]
            self.running.clear()
            return
        match = START.match(line)
        if match:
            number, name = int(match.group(1)), match.group(2)
            self.names[number] = name
            self.running[number] = time.monotonic()
            if "." not in name:  # a tool's test, maybe a long one; not a GoogleTest case
                self.emit(line)
            return
        match = RESULT.match(line)
        if match:
            number = int(match.group(1))
            name = self.names.get(number, match.group(2))
            self.running.pop(number, None)
            group = group_of(name)
            if group is not None:
                self.totals[group] = self.totals.get(group, 0) + 1
                if "***Skipped" in line:
                    return
            self.emit(line)
            return
        self.emit(line)

    def tick(self):
        """Called when no line came for a while: say what is still running."""
        if self.broken or self.summary is not None or not self.running:
            return
        now = time.monotonic()
        if now - self.last_print < self.heartbeat:
            return
        oldest = sorted(self.running.items(), key=lambda item: item[1])[:4]
        names = ", ".join(f"{self.names.get(number, number)} ({duration(now - began)})"
                          for number, began in oldest)
        more = len(self.running) - len(oldest)
        self.emit(f"      ... still running: {names}{f' and {more} more' if more > 0 else ''}")

    def finish(self):
        if self.broken or self.summary is None:
            return
        outputs = read_log(self.log) if self.log else {}
        gpu, other, reasons = {}, [], {}
        for number, name, status in self.not_run:
            output = outputs.get(name)
            group = group_of(name)
            if status == "Skipped" and output is not None:
                marked = [line.split(SKIP_MARK, 1)[1].strip() for line in output if SKIP_MARK in line]
                if marked:
                    gpu.setdefault(group or name, []).append(name)
                    reasons.setdefault(group or name, []).append(marked[0])
                    continue
            elif status == "Skipped" and group is not None and not outputs:
                gpu.setdefault(group, []).append(name)  # no log: the name says it is a GPU test
                continue
            other.append((number, name, status, skip_reason(output or [])))
        if not self.blank:
            self.emit("")
        if gpu:
            self.print_gpu(gpu, reasons)
        if other:
            self.emit("These tests did not run:")
            for number, name, status, reason in other:
                self.emit(f"  {number} - {name} ({status}){': ' + reason if reason else ''}")
            self.emit("")
        if self.log:
            shown = os.path.relpath(self.log)
            self.emit(f"The full log, with every test's output: {self.log if shown.startswith('..') else shown}")
            self.emit("")
        skipped = sum(1 for _, _, status in self.not_run if status == "Skipped")
        while self.summary and not self.summary[-1].strip():
            self.summary.pop()
        for line in self.summary:
            if self.blank and not line.strip():
                continue  # the did-not-run block was between two empty lines
            self.emit(line)
            match = SUMMARY.match(line)
            if match and skipped:  # ctest counts them as passed
                self.emit(f"({skipped} of the {match.group(1)} were skipped, not passed: see above)")
            if line.startswith("Total Test time (real)"):
                self.emit(f"ctest took {round(time.time() - self.began)} s")

    def print_gpu(self, gpu, reasons):
        count = sum(len(names) for names in gpu.values())
        distinct = sorted({reason for group in reasons.values() for reason in group})
        self.emit(f"Skipped, not passed: {count} GPU test{'s' if count != 1 else ''}, by lab:")
        width = max(len(group) for group in gpu)
        digits = len(str(max(max(len(names), self.totals.get(group, 0)) for group, names in gpu.items())))
        for group in sorted(gpu, key=lambda g: (g == "common", g)):
            names = gpu[group]
            total = self.totals.get(group)
            counted = f"{len(names):>{digits}}" + (f" of its {total:>{digits}}" if total and total >= len(names) else "")
            line = f"  {group:<{width}}  {counted} tests skipped"
            if len(distinct) > 1 and reasons.get(group):
                own = sorted(set(reasons[group]), key=reasons[group].index)
                line += f": {own[0]}" + (f" (and {len(own) - 1} other reasons: see the log)" if len(own) > 1 else "")
            self.emit(line)
        if len(distinct) == 1:
            self.emit(f"Why: {distinct[0]}")
        self.emit("")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", help="ctest's LastTest.log (the skipped tests' reasons)")
    parser.add_argument("--heartbeat", type=float, default=30.0,
                        help="seconds without output before a line names the tests still running")
    args = parser.parse_args()
    folder = Folder(sys.stdout, args.log, args.heartbeat)
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        ready, _, _ = select.select([fd], [], [], min(5.0, args.heartbeat))
        if not ready:
            folder.tick()
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            folder.line(raw.decode("utf-8", errors="replace").rstrip("\r"))
        folder.tick()
    if pending:
        folder.line(pending.decode("utf-8", errors="replace"))
    folder.finish()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:  # the reader went away (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
