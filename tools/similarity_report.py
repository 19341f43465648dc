#!/usr/bin/env python3
"""The class's similarity report: which submissions share code that the skeleton did not give.

    ./workbook similarity SUBMISSIONS [LAB...] [--out DIR] [--threshold PERCENT]
                          [--min-run TOKENS] [--intake LAYOUT] [--top N]

SUBMISSIONS is what grade-batch grades (a folder or .zip per student, Canvas's bulk
download or Gradescope's export; tools/intake.py reads it, misnamed lab files included).
For each lab, every student's file is compared with every other's by Debian's
similarity-tester (`sim_c++`, Dick Grune's token-based tester: layout, comments and the
names of variables and functions do not hide a copy, and functions in another order are
found piece by piece). The lab's skeleton is the base code: the lines a student's file
shares with labs/NN-name/<file>.cu (difflib's matching blocks, and blocks of at least
MOVED_MIN_LINES of the skeleton's lines found elsewhere, where a student moved a function)
are taken out before the comparison, so that what every student was given is no evidence.
What is left, the student's own part, keeps a mark where skeleton lines were taken out (a
few keywords that differ from student to student), so that no run joins the end of one
hole's code to the start of the next one's.

For each pair, sim_c++ lists the runs of at least --min-run tokens (default MIN_RUN, 40:
sim_c++'s own default of 24 is one kernel launch, `k<Op><<<g, kThreadsPerBlock, 0,
stream>>>(in, n, out, combine);`, which every student writes alike) that the two own parts
share; a's share of b is the tokens of a's own part in those runs (each counted once,
however many runs of b it is in) over the tokens of a's own part. A pair's similarity is
the larger of the two shares, and a pair at or above --threshold (default THRESHOLD, 50 %)
is flagged, unless one of the two own parts is shorter than MIN_OWN_TOKENS tokens (too
little written to say). The numbers are calibrated on the made-up class of lab 04 in
tools/tests/similarity_class/ (tools/tests/similarity_report_test.py): a copy with
renamed variables and helper functions and its functions in another order scores 93 %
(100 % with runs of 24); the highest of the 275 other pairs, twenty honest students, the
copier's source and two untouched skeletons, 31 % (42 % with runs of 24), below HONEST_MAX
(35 %), which the test checks. Honest students of a lab write the same idioms (the
global index, the tree's loop, the launches), and the made-up ones share, pair by pair, up
to one long hole written alike; a copy shares everything.

Writes OUT/similarity.csv (lab, the two students, both shares, the similarity, the own
tokens of each, flagged) and OUT/similarity.html (per lab the pairs ranked, the flagged
ones and the top --top with their shared fragments side by side, from the students' own
files, with line numbers). OUT defaults to grade-reports/similarity.

Without sim_c++ it says what to install (./workbook setup --instructor, or apt-get
install similarity-tester) and exits 3; grade-batch goes on without the report.
A similarity is a reason to look, not a verdict: two students who follow the same hint
write similar short code, and the report shows the fragments so that a person decides.
"""
from __future__ import annotations

import argparse
import csv
import difflib
import html
import io
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import intake  # noqa: E402  (the class's submissions, as grade-batch reads them)

ROOT = Path(__file__).resolve().parent.parent
TOOL = "sim_c++"
THRESHOLD = 50.0  # percent; calibrated in tools/tests/similarity_report_test.py (see the docstring)
HONEST_MAX = 35.0  # the made-up honest class's highest pair must stay below this (the test checks it)
MIN_RUN = 40  # tokens: the shortest run counted (sim_c++'s default, 24, is one launch line; see the docstring)
MIN_OWN_TOKENS = 60  # a pair is flagged only if both wrote at least this many tokens of their own
MOVED_MIN_LINES = 3  # a block of this many skeleton lines found out of order (a moved function) is the skeleton's
MOVED_LINE_TOKENS = 6  # and so is a line this long that is one of the skeleton's lines left unmatched (its signature)
# sim_c++ reads each of these as a token of its own (not as a name): the mark put where skeleton
# lines were taken out spells the student's number in them, so two students' marks never match whole.
MARK_WORDS = ("goto", "asm", "typeid", "mutable", "friend", "virtual", "explicit", "union")
TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|\S")
MISSING = 3  # exit status without sim_c++
MAX_UNPACKED_BYTES = 100 * 1024 * 1024  # as grade-batch's --max-unpacked-mb default
RUN_LINE = re.compile(r"^(?P<a>\S+): line (?P<a0>\d+)-(?P<a1>\d+)\s*\|(?P<b>\S+): line (?P<b0>\d+)-(?P<b1>\d+)\s*\[(?P<n>\d+)\]")
FILE_LINE = re.compile(r"^File (?P<f>\S+): (?P<n>\d+) tokens")


class ReportError(Exception):
    """Something the instructor must fix (a missing tool, no submissions)."""


@dataclass
class OwnPart:
    """A student's file less the skeleton's lines: the text given to sim_c++ and, for each of
    its lines, the line of the student's file it came from (a mark: the line after it)."""
    student: str
    path: Path
    lines: list[str]
    origin: list[int]
    mark_lines: set[int] = field(default_factory=set)  # the marks' line numbers (from 1) in lines
    mark_tokens: int = 0  # the tokens of one mark
    tokens: int = 0  # sim_c++'s count, less the marks'

    @property
    def marks(self) -> int:
        return len(self.mark_lines)

    def weights(self) -> list[int]:
        """A rough count of each line's tokens (comments left out, marks 0), to tell how much
        of a run another run of the same pair already covers."""
        return [0 if number in self.mark_lines else len(TOKEN.findall(line.split("//", 1)[0]))
                for number, line in enumerate(self.lines, 1)]

    def student_lines(self, first: int, last: int) -> tuple[int, int]:
        """The lines of the student's file that lines first..last of the own part (from 1) came
        from; a run that begins or ends with a bit of a mark, without it."""
        if first in self.mark_lines and first < last:
            first += 1
        if last in self.mark_lines and last > first:
            last -= 1
        return self.origin[first - 1], self.origin[last - 1]


@dataclass
class Pair:
    lab: str
    a: str
    b: str
    a_in_b: float
    b_in_a: float
    runs: list[tuple[int, int, int, int, int]] = field(default_factory=list)  # a0, a1, b0, b1 (student lines), tokens
    tokens: tuple[int, int] = (0, 0)  # of each own part

    @property
    def similarity(self) -> float:
        return max(self.a_in_b, self.b_in_a)


def find_tool() -> str:
    found = shutil.which(TOOL)
    if not found:
        raise ReportError(f"{TOOL} not found: the similarity report needs Debian's similarity-tester. Install it with "
                          "./workbook setup --instructor (or: sudo apt-get install similarity-tester); grades are "
                          "not affected")
    return found


def normalized(line: str) -> str:
    return " ".join(line.split())


def mark_for(index: int, count: int) -> str:
    """The mark of the index-th of count students: its number in base len(MARK_WORDS)."""
    base, digits = len(MARK_WORDS), 2
    while base ** digits < count:
        digits += 1
    return " ".join(MARK_WORDS[index // base ** d % base] for d in range(digits))


def moved_blocks(skeleton: list[str], lines: list[str], given: set[int]) -> set[int]:
    """The lines of lines, not yet given, in runs of at least MOVED_MIN_LINES lines that are,
    in the same order, somewhere in the skeleton (a function of the skeleton moved), with at
    least two of them more than a brace."""
    where: dict[str, list[int]] = {}
    for j, line in enumerate(skeleton):
        where.setdefault(line, []).append(j)
    moved: set[int] = set()
    i = 0
    while i < len(lines):
        best = 0
        if i not in given and lines[i]:
            for j in where.get(lines[i], []):
                k = 0
                while (i + k < len(lines) and j + k < len(skeleton) and i + k not in given
                       and lines[i + k] == skeleton[j + k]):
                    k += 1
                best = max(best, k)
        block = range(i, i + best)
        if best >= MOVED_MIN_LINES and sum(len(lines[b].strip("{}; ")) > 0 for b in block) >= 2:
            moved.update(block)
            i += best
        else:
            i += 1
    return moved


def moved_lines(skeleton: list[str], lines: list[str], matcher: difflib.SequenceMatcher, given: set[int]) -> set[int]:
    """The lines of lines, not yet given, of at least MOVED_LINE_TOKENS tokens, that are one
    of the skeleton's lines that difflib left unmatched (the first line of a moved function),
    each skeleton line taken once."""
    matched = set()
    for block in matcher.get_matching_blocks():
        matched.update(range(block.a, block.a + block.size))
    free: dict[str, int] = {}
    for j, line in enumerate(skeleton):
        if j not in matched and len(TOKEN.findall(line.split("//", 1)[0])) >= MOVED_LINE_TOKENS:
            free[line] = free.get(line, 0) + 1
    moved = set()
    for i, line in enumerate(lines):
        if i not in given and free.get(line, 0) > 0:
            free[line] -= 1
            moved.add(i)
    return moved


def own_part(student: str, text: str, skeleton: list[str], mark: str = "") -> OwnPart:
    """The lines of text that are not the skeleton's, in order (blank lines dropped), with
    the mark in the place of each stretch of skeleton lines taken out between them."""
    lines = text.splitlines()
    skeleton_lines = [normalized(s) for s in skeleton]
    student_lines = [normalized(s) for s in lines]
    matcher = difflib.SequenceMatcher(None, skeleton_lines, student_lines, autojunk=False)
    given = set()
    for block in matcher.get_matching_blocks():
        given.update(range(block.b, block.b + block.size))
    given |= moved_blocks(skeleton_lines, student_lines, given)
    given |= moved_lines(skeleton_lines, student_lines, matcher, given)
    part = OwnPart(student, Path(), [], [], mark_tokens=len(mark.split()))
    gap = False
    for number, line in enumerate(lines, 1):
        if number - 1 in given:
            gap = gap or bool(line.strip())
        elif line.strip():
            if gap and mark and part.lines:
                part.lines.append(mark)
                part.origin.append(number)
                part.mark_lines.add(len(part.lines))
            gap = False
            part.lines.append(line)
            part.origin.append(number)
    return part


def run_sim(tool: str, parts: list[OwnPart], min_run: int, folder: Path) -> str:
    for index, part in enumerate(parts):
        part.path = folder / f"s{index:04d}.cu"
        part.path.write_text("\n".join(part.lines) + "\n", encoding="utf-8")
    listing = "".join(f"{p.path.name}\n" for p in parts)
    result = subprocess.run([tool, "-e", "-s", "-n", "-w", "200", "-r", str(min_run), "-i"], input=listing,
                            cwd=folder, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise ReportError(f"{tool} failed (exit {result.returncode}): {result.stderr.strip()[:300]}")
    return result.stdout


def compare_lab(tool: str, lab: str, files: dict[str, str], skeleton: list[str], min_run: int) -> list[Pair]:
    """Every pair of the lab's students with their shares of each other's own part."""
    students = sorted(files)
    parts = [own_part(student, files[student], skeleton, mark_for(index, len(students)))
             for index, student in enumerate(students)]
    if len(parts) < 2:
        return []
    with tempfile.TemporaryDirectory(prefix="workbook-similarity-") as tmp:
        output = run_sim(tool, parts, min_run, Path(tmp))
    by_file = {p.path.name: p for p in parts}
    for line in output.splitlines():
        match = FILE_LINE.match(line)
        if match and match["f"] in by_file:
            part = by_file[match["f"]]
            part.tokens = max(0, int(match["n"]) - part.marks * part.mark_tokens)
    # The runs of each pair, in the lines of the own parts given to sim_c++.
    shared: dict[tuple[str, str], list[tuple[int, int, int, int, int]]] = {}
    for line in output.splitlines():
        match = RUN_LINE.match(line)
        if not match or match["a"] not in by_file or match["b"] not in by_file:
            continue
        a, b = by_file[match["a"]], by_file[match["b"]]
        run = (int(match["a0"]), int(match["a1"]), int(match["b0"]), int(match["b1"]), int(match["n"]))
        if a.student > b.student:
            a, b = b, a
            run = (run[2], run[3], run[0], run[1], run[4])
        shared.setdefault((a.student, b.student), []).append(run)
    weights = {p.student: p.weights() for p in parts}
    pairs = []
    for i, a in enumerate(parts):
        for b in parts[i + 1:]:
            runs = shared.get((a.student, b.student), [])
            a_common = covered([(r[0], r[1], r[4]) for r in runs], weights[a.student])
            b_common = covered([(r[2], r[3], r[4]) for r in runs], weights[b.student])
            shown = sorted((*a.student_lines(a0, a1), *b.student_lines(b0, b1), n) for a0, a1, b0, b1, n in runs)
            pairs.append(Pair(lab, a.student, b.student, share(a_common, a.tokens), share(b_common, b.tokens),
                              shown, (a.tokens, b.tokens)))
    pairs.sort(key=lambda p: (-p.similarity, p.a, p.b))
    return pairs


def covered(runs: list[tuple[int, int, int]], weights: list[int]) -> float:
    """The tokens of one side that runs (first line, last line, tokens) cover, each once: a
    stretch of a's code that b holds twice is in two runs, and counts once. A run partly
    over lines an earlier (longer) run covered counts for the share of its lines' tokens
    that is new."""
    seen: set[int] = set()
    total = 0.0
    for first, last, tokens in sorted(runs, key=lambda run: (-run[2], run[0])):
        lines = range(first, last + 1)
        every = sum(weights[line - 1] for line in lines)
        new = sum(weights[line - 1] for line in lines if line not in seen)
        total += tokens if every == 0 or new == every else tokens * new / every
        seen.update(lines)
    return total


def share(common: float, total: int) -> float:
    return 0.0 if total <= 0 else min(100.0, 100.0 * common / total)


def flagged(pair: Pair, threshold: float) -> bool:
    return pair.similarity >= threshold and min(pair.tokens) >= MIN_OWN_TOKENS


def class_files(submissions: Path, labs: list[str], layout: str | None, scratch: Path):
    """{lab: {student: the text of the student's lab file}} and the warnings of the intake."""
    found = intake.find(submissions, layout)
    if not found.entries:
        raise ReportError(f"{submissions}: no submissions (one folder or .zip per student, Canvas's bulk download or "
                          "Gradescope's export)")
    files: dict[str, dict[str, str]] = {lab: {} for lab in labs}
    warnings = list(found.warnings)
    for index, entry in enumerate(found.entries):
        work = scratch / f"e{index:04d}"
        try:
            root = entry.materialize(work / "unpacked", MAX_UNPACKED_BYTES)
            root, more, _ = intake.resolve_lab_files(root, labs, work / "resolved", entry)
            warnings += [f"{entry.name}: {w}" for w in more]
        except intake.Refused as e:
            warnings.append(f"{entry.name}: not compared: {e}")
            continue
        for lab in labs:
            path = Path(root) / "labs" / lab / f"{intake.lab_base(lab)}.cu"
            if path.is_file():
                files[lab][entry.name] = path.read_text(encoding="utf-8", errors="replace")
    return files, warnings


def fragment(lines: list[str], first: int, last: int) -> str:
    width = len(str(last))
    return "\n".join(f"{n:>{width}}  {lines[n - 1]}" for n in range(first, min(last, len(lines)) + 1))


def write_csv(path: Path, pairs: list[Pair], threshold: float) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["lab", "student_a", "student_b", "a_share_of_b_percent", "b_share_of_a_percent",
                     "similarity_percent", "own_tokens_a", "own_tokens_b", "flagged"])
    for p in pairs:
        writer.writerow([p.lab, p.a, p.b, f"{p.a_in_b:.1f}", f"{p.b_in_a:.1f}", f"{p.similarity:.1f}",
                         p.tokens[0], p.tokens[1], "yes" if flagged(p, threshold) else "no"])
    path.write_text(buffer.getvalue(), encoding="utf-8")


def write_html(path: Path, by_lab: dict[str, list[Pair]], files: dict[str, dict[str, str]], threshold: float,
               top: int, min_run: int) -> None:
    e = html.escape
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>Similarity report</title><style>",
           "body{font-family:sans-serif;margin:2em;max-width:1400px} table{border-collapse:collapse}",
           "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left} .flag{background:#fdd}",
           ".side{display:flex;gap:1em} .side pre{flex:1;background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:85%}",
           "</style></head><body><h1>Similarity report</h1>",
           f"<p>Each lab's files compared pair by pair by <code>{TOOL}</code> (similarity-tester), the skeleton's "
           f"lines taken out first; runs of at least {min_run} tokens. A pair's similarity is the larger share of "
           f"one student's own code found in the other's. Flagged: {threshold:.0f} % or more, both with at least "
           f"{MIN_OWN_TOKENS} tokens of their own. A similarity is a reason to look at the fragments, not a "
           "verdict.</p>"]
    for lab, pairs in by_lab.items():
        shown = [p for p in pairs if flagged(p, threshold)] or []
        shown += [p for p in pairs[:top] if p not in shown]
        out.append(f"<h2>{e(lab)}</h2><p>{len(files[lab])} files, {len(pairs)} pairs, "
                   f"{sum(flagged(p, threshold) for p in pairs)} flagged.</p>")
        if not pairs:
            continue
        out.append("<table><tr><th>#</th><th>student a</th><th>student b</th><th>a's share of b</th>"
                   "<th>b's share of a</th><th>similarity</th><th>own tokens</th></tr>")
        for rank, p in enumerate(shown, 1):
            css = " class='flag'" if flagged(p, threshold) else ""
            out.append(f"<tr{css}><td><a href='#{e(lab)}-{rank}'>{rank}</a></td><td>{e(p.a)}</td><td>{e(p.b)}</td>"
                       f"<td>{p.a_in_b:.0f} %</td><td>{p.b_in_a:.0f} %</td><td>{p.similarity:.0f} %</td>"
                       f"<td>{p.tokens[0]} / {p.tokens[1]}</td></tr>")
        out.append("</table>")
        for rank, p in enumerate(shown, 1):
            a_lines = files[lab][p.a].splitlines()
            b_lines = files[lab][p.b].splitlines()
            out.append(f"<h3 id='{e(lab)}-{rank}'>{rank}. {e(p.a)} and {e(p.b)}: {p.similarity:.0f} %</h3>")
            if not p.runs:
                out.append("<p>No shared run.</p>")
            for a0, a1, b0, b1, n in p.runs:
                out.append(f"<p>{n} tokens</p><div class='side'><pre>{e(p.a)}\n{e(fragment(a_lines, a0, a1))}</pre>"
                           f"<pre>{e(p.b)}\n{e(fragment(b_lines, b0, b1))}</pre></div>")
    out.append("</body></html>")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def report(submissions: Path, labs: list[str], out: Path, threshold: float = THRESHOLD, min_run: int = MIN_RUN,
           layout: str | None = None, top: int = 10, say=print) -> dict[str, list[Pair]]:
    tool = find_tool()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="workbook-similarity-intake-") as tmp:
        files, warnings = class_files(submissions, labs, layout, Path(tmp))
    by_lab = {}
    for lab in labs:
        skeleton = (ROOT / "labs" / lab / f"{intake.lab_base(lab)}.cu").read_text(encoding="utf-8").splitlines()
        by_lab[lab] = compare_lab(tool, lab, files[lab], skeleton, min_run)
    everything = [p for pairs in by_lab.values() for p in pairs]
    write_csv(out / "similarity.csv", everything, threshold)
    write_html(out / "similarity.html", by_lab, files, threshold, top, min_run)
    for warning in warnings:
        say(f"similarity: warning: {warning}")
    for lab, pairs in by_lab.items():
        hits = [p for p in pairs if flagged(p, threshold)]
        best = f"; highest {pairs[0].a} and {pairs[0].b}, {pairs[0].similarity:.0f} %" if pairs else ""
        say(f"similarity: {lab}: {len(files[lab])} files, {len(hits)} pair(s) at {threshold:.0f} % or more{best}")
        for p in hits:
            say(f"  {p.a} and {p.b}: {p.similarity:.0f} % ({p.a}'s own code {p.a_in_b:.0f} % in {p.b}'s, "
                f"{p.b_in_a:.0f} % the other way)")
    say(f"similarity: report in {out / 'similarity.html'} and {out / 'similarity.csv'}")
    return by_lab


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="./workbook similarity", description=__doc__.splitlines()[0])
    parser.add_argument("submissions", help="the class's submissions (what grade-batch grades)")
    parser.add_argument("labs", nargs="*", metavar="LAB", help="labs to compare (default: all)")
    parser.add_argument("--out", default=str(ROOT / "grade-reports" / "similarity"), help="report folder")
    parser.add_argument("--threshold", type=float, default=THRESHOLD, help=f"flag pairs at or above (default {THRESHOLD:.0f})")
    parser.add_argument("--min-run", type=int, default=MIN_RUN, help=f"shortest shared run in tokens (default {MIN_RUN})")
    parser.add_argument("--top", type=int, default=10, help="pairs shown per lab besides the flagged (default 10)")
    parser.add_argument("--intake", choices=intake.LAYOUTS, help="the submissions' layout (default: detected)")
    args = parser.parse_args(argv)
    try:
        import grade_batch  # here, not at the top: grade_batch imports this module for --similarity
        try:
            labs = grade_batch.resolve_labs(args.labs)  # the grader's lab names: 4, 04, 04-reductions, reductions
        except grade_batch.BatchError as error:
            raise ReportError(str(error))
        report(Path(args.submissions), labs, Path(args.out), args.threshold, args.min_run,
               args.intake, args.top)
    except ReportError as error:
        print(f"similarity: {error}", file=sys.stderr)
        return MISSING if TOOL in str(error) and "not found" in str(error) else 1
    except intake.IntakeError as error:
        print(f"similarity: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
