"""The rules of a handout beyond its outline (CONTRIBUTING.md, "Handout outline"),
used by tools/check_handouts.py:

  - figures: one number, one source. Every measured time or rate (a number
    followed by ms, µs, GB/s, Gkeys/s, ...) that the handout, its
    measurements.md, its walkthrough or its ANSWERS.md quotes is in a file of
    the lab's figures/ folder (measured.txt, measured.csv, a chart's CSV,
    then-and-now.csv, quoted.csv), at the precision it is printed with (4.2
    TB/s for 4202 GB/s), or is the result of arithmetic written before it
    (`1.61 GB / 4202 GB/s = 0.383 ms`), which is recomputed. Decimal numbers in
    the tables of the measurement sections are checked the same way.
  - measured figures name their run: "What to expect" names the GPU and the
    date of figures/measured.txt.
  - hint sketches: no code block of "Hints by task" repeats more than
    MAX_COPIED_LINES consecutive lines of the reference solution.
  - answers: solutions/NN-name/ANSWERS.md answers every question of
    "Questions to answer under your tables" (### Table question k).
  - references: every entry has a year and a link.
  - then and now: its chart, figures/then-and-now.svg, drawn from
    then-and-now.csv.
  - length: the main path (all but what is inside <details> folds) is at
    most MAIN_PATH_LINES lines, and at most MAIN_PATH_WORDS words outside
    <details> folds, code blocks and References; "What the tests check" and
    "Then and now" at most SECTION_WORDS words each outside their folds.
  - predict first: "Speed of light" asks for the student's prediction on a
    line to fill in (`**Your prediction:** ____`) before any fold of ours;
    "What to expect" asks for the student's measurement the same way
    (`**Your measurement:** ____`) and shows the project's measured table only
    inside a <details> fold.
Each rule is a function that returns problems, one line each, starting with
the lab's folder name.
"""
from __future__ import annotations

import bisect
import re
from pathlib import Path

MAX_COPIED_LINES = 3  # CONTRIBUTING.md, item "Hints": more than this many is the code, not a sketch
MAIN_PATH_LINES = 500  # CONTRIBUTING.md, "Length"
HANDOUT_LINES = 440  # CONTRIBUTING.md, "Length": the whole README, folds included
MAIN_PATH_WORDS = 3000  # CONTRIBUTING.md, "Length": outside folds, code blocks and References
# CONTRIBUTING.md, items "What the tests check" and "Then and now": words outside their folds.
SECTION_WORDS = {"What the tests check": 250, "Then and now": 300}
FILL_IN = re.compile(r"_{3,}")
PREDICT_FIRST = {"Speed of light": "**Your prediction:**", "What to expect": "**Your measurement:**"}
MEASUREMENT_SECTIONS = ("Speed of light", "What to expect", "Then and now")
TABLE_QUESTIONS = "Questions to answer under your"  # "... tables:", or lab 01's "... `bench hello` output:"

# A number (digits, optionally grouped by threes with spaces, optionally a
# decimal part) right before a unit of time or rate.
SPACE = "[ \u00a0\u2009\u202f]"
NUMBER = rf"(?<![\w.^/\-])(\d{{1,3}}(?:{SPACE}\d{{3}})+|\d+)(?:\.(\d+))?"
UNIT = (r"(GB/s|TB/s|MB/s|ms|µs|μs|us|ns|"
        r"[GMT]{SPACE}?(?:keys|pairs|elem|elements|objects|atomics|queries|ops|updates|flop)/s)(?![\w/])")
QUANTITY = re.compile(rf"{NUMBER}{SPACE}?{UNIT.format(SPACE=SPACE)}")
SOURCE_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
SCALES = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9)
DECIMAL_CELL = re.compile(r"^[~≈]?\s*(\d+)\.(\d+)\s*(?:%|×|x)?$")
# Shared with check_handouts.py: a code fence (its marker, then its info string) and a numbered item.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
NUMBERED = re.compile(r"^(\d+)\.[ \t]")
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
LINK = re.compile(r"https?://|\]\((?!#)")
HEADING2 = re.compile(r"^##[ \t]+(.*?)\s*$")


# ---------------------------------------------------------------------------
# One number, one source

class Sources:
    """Every number in the lab's figures/*.csv and *.txt, scaled by powers of 1000 and sorted."""

    def __init__(self, figures: Path):
        self.files = sorted(p for p in figures.glob("*") if p.suffix in (".csv", ".txt")) if figures.is_dir() else []
        values = set()
        for path in self.files:
            for text in SOURCE_NUMBER.findall(path.read_text(encoding="utf-8", errors="replace")):
                values.add(float(text))
        self.values = sorted(value * scale for value in values for scale in SCALES)

    def has(self, value: float, decimals: int) -> bool:
        """Whether a source number rounds to `value` at `decimals` places (or, for a whole number
        ending in zeros, at the tens, hundreds or thousands it is rounded to)."""
        steps = [10.0 ** -decimals]
        if decimals == 0 and value >= 10:
            whole = int(round(value))
            zeros = len(str(whole)) - len(str(whole).rstrip("0"))
            steps += [10.0 ** k for k in range(1, min(zeros, 3) + 1)]
        for step in steps:
            low = bisect.bisect_left(self.values, value - step / 2 - 1e-12 * max(1.0, value))
            if low < len(self.values) and self.values[low] <= value + step / 2 + 1e-12 * max(1.0, value):
                return True
        return False


def number_value(whole: str, fraction: str | None) -> tuple[float, int]:
    digits = re.sub(SPACE, "", whole)
    return float(f"{digits}.{fraction}" if fraction else digits), len(fraction or "")


EXPRESSION_TOKEN = re.compile(r"\d+(?:\.\d+)?(?:\^\d+)?|[×x*·/÷+−\-()]|[^\s\d×*·/÷+−\-()]+")


def evaluate(tokens: list[str]) -> float | None:
    """The value of numbers and operators (× / + − ^ and parentheses), or None."""
    text = []
    for token in tokens:
        if re.fullmatch(r"\d+(?:\.\d+)?(?:\^\d+)?", token):
            base, _, power = token.partition("^")
            text.append(f"({base}**{power})" if power else base)
        else:
            text.append({"×": "*", "x": "*", "·": "*", "÷": "/", "−": "-"}.get(token, token))
    expression = " ".join(text)
    if not re.fullmatch(r"[\d.\s*/+\-()]+", expression) or not re.search(r"[*/+\-]", expression.replace("**", "")):
        return None
    try:
        return float(eval(expression, {"__builtins__": {}}, {}))  # digits and operators only, checked above
    except (SyntaxError, ZeroDivisionError, TypeError, OverflowError):
        return None


def derived_by_arithmetic(before: str, value: float, decimals: int) -> bool:
    """Whether `before` ends in "expression =" (words and units dropped) whose value, in some
    power of 1000, rounds to `value`."""
    match = re.search(r"=\s*(?:about\s+|≈\s*|~\s*)?$", before)
    if not match:
        return False
    left = re.split(r"[=:;,]|(?<=[a-z])\.\s", before[:match.start()])[-1]
    left = re.sub(r"[A-Za-zµμ]+/[A-Za-z]+", " ", left)  # units such as GB/s and B/elem are no division
    tokens = [t for t in EXPRESSION_TOKEN.findall(left)
              if re.fullmatch(r"\d+(?:\.\d+)?(?:\^\d+)?|[×*·/÷+−\-()]", t) or t == "x"]
    tolerance = 0.5 * 10.0 ** -decimals
    for start in range(len(tokens) - 1, -1, -1):
        result = evaluate(tokens[start:])
        if result is None:
            continue
        for scale in SCALES:
            if abs(result * scale - value) <= tolerance + 0.005 * abs(value):
                return True
    return False


def paragraphs(lines: list[str]):
    """(first line number, text) of each paragraph or table row outside fences;
    a fence's lines are checked one by one (pasted output)."""
    block: list[str] = []
    start = 0
    fence = None
    for number, line in enumerate(lines, 1):
        if fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = None
            else:
                yield number, line
            continue
        opening = FENCE.match(line)
        if opening or not line.strip() or line.lstrip().startswith("|"):
            if block:
                yield start, " ".join(block)
                block = []
            if opening:
                fence = opening.group(1)
            elif line.strip():
                yield number, line
            continue
        if not block:
            start = number
        block.append(line.strip())
    if block:
        yield start, " ".join(block)


def check_quantities(lab: str, path: Path, sources: Sources, shown: str) -> list[str]:
    problems = []
    for number, text in paragraphs(path.read_text(encoding="utf-8").splitlines()):
        for match in QUANTITY.finditer(text):
            value, decimals = number_value(match.group(1), match.group(2))
            if sources.has(value, decimals) or derived_by_arithmetic(text[:match.start()], value, decimals):
                continue
            problems.append(f"{lab}: {shown}:{number}: \"{match.group(0).strip()}\" is in no file of "
                            f"labs/{lab}/figures/ and no arithmetic before it gives it: copy it from "
                            "measured.txt, or write the sum that derives it (a = b / c)")
    return problems


def section_lines(lines: list[str], heading: str) -> list[tuple[int, str]]:
    """(line number, line) of the `## heading` section."""
    inside = False
    found = []
    for number, line in enumerate(lines, 1):
        match = HEADING2.match(line)
        if match:
            inside = match.group(1) == heading
            continue
        if inside:
            found.append((number, line))
    return found


def check_table_cells(lab: str, rows: list[tuple[int, str]], sources: Sources, shown: str) -> list[str]:
    problems = []
    for number, line in rows:
        if not line.lstrip().startswith("|"):
            continue
        for cell in line.strip().strip("|").split("|"):
            cell = cell.strip().strip("*")
            match = DECIMAL_CELL.match(cell)
            if match and not sources.has(float(f"{match.group(1)}.{match.group(2)}"), len(match.group(2))):
                problems.append(f"{lab}: {shown}:{number}: the table cell \"{cell}\" is in no file of "
                                f"labs/{lab}/figures/: copy measured figures from measured.txt")
    return problems


def check_figures(lab: str, folder: Path, root: Path) -> list[str]:
    sources = Sources(folder / "figures")
    if not (folder / "figures" / "measured.txt").is_file():
        return [f"{lab}: no figures/measured.txt: run ./workbook bench --all --solution on a GPU, then "
                "python3 tools/record_measurements.py build/<preset>/bench/solution --date YYYY-MM-DD"]
    problems = []
    readme = folder / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    documents = [(readme, f"labs/{lab}/README.md"),
                 (folder / "measurements.md", f"labs/{lab}/measurements.md"),
                 (root / "docs" / "walkthroughs" / f"{lab}.md", f"docs/walkthroughs/{lab}.md"),
                 (root / "solutions" / lab / "ANSWERS.md", f"solutions/{lab}/ANSWERS.md")]
    for path, shown in documents:
        if path.is_file():
            problems += check_quantities(lab, path, sources, shown)
    for heading in MEASUREMENT_SECTIONS:
        problems += check_table_cells(lab, section_lines(lines, heading), sources, f"labs/{lab}/README.md")
    measurements = folder / "measurements.md"
    if measurements.is_file():
        problems += check_table_cells(lab, list(enumerate(measurements.read_text(encoding="utf-8").splitlines(), 1)),
                                      sources, f"labs/{lab}/measurements.md")
        if "measurements.md" not in "\n".join(lines):
            problems.append(f"{lab}: labs/{lab}/measurements.md exists but the handout never links it: link it "
                            "from \"What to expect\" as [measurements in depth](measurements.md)")
    # The run the figures come from: its GPU and date, named where the table is.
    recorded = (folder / "figures" / "measured.txt").read_text(encoding="utf-8").splitlines()[0]
    run = re.match(r"# recorded: .*, (.+), (\d{4}-\d{2}-\d{2})$", recorded)
    if not run:
        problems.append(f"{lab}: figures/measured.txt does not start with \"# recorded: COMMAND, GPU, DATE\": "
                        "write it with tools/record_measurements.py")
    elif section_lines(lines, "What to expect"):  # (a missing section is reported by the outline check)
        gpu, date = run.groups()
        expect = "\n".join(line for _, line in section_lines(lines, "What to expect"))
        model = gpu.split()[-1]
        for what, text in (("GPU", model), ("date", date)):
            if text not in expect:
                problems.append(f"{lab}: \"## What to expect\" never names the {what} of its figures, {text} "
                                "(figures/measured.txt): say which GPU measured them and when")
    return problems


# ---------------------------------------------------------------------------
# Hint sketches

def code_lines(text: str) -> list[str]:
    """Lines of code without comments, blank lines, braces-only lines and extra spaces."""
    lines = []
    for line in text.splitlines():
        line = re.sub(r"//.*$", "", line)
        line = re.sub(r"\s+", " ", line).strip()
        if line and not re.fullmatch(r"[{}();,\s]*", line):
            lines.append(line)
    return lines


def longest_shared_run(hint: list[str], reference: list[str]) -> tuple[int, int]:
    """(length, start in hint) of the longest run of consecutive hint lines equal to consecutive reference lines."""
    best, best_start = 0, 0
    previous = [0] * (len(reference) + 1)
    for i, line in enumerate(hint):
        current = [0] * (len(reference) + 1)
        for j, other in enumerate(reference):
            if line == other:
                current[j + 1] = previous[j] + 1
                if current[j + 1] > best:
                    best, best_start = current[j + 1], i - current[j + 1] + 1
        previous = current
    return best, best_start


def reference_file(folder: Path, root: Path) -> Path | None:
    for source in sorted(folder.glob("*.cu")):
        if source.name != "experiment.cu":
            candidate = root / "solutions" / folder.name / source.name
            if candidate.is_file():
                return candidate
    return None


def check_hint_sketches(lab: str, folder: Path, root: Path) -> list[str]:
    reference = reference_file(folder, root)
    if reference is None:
        return []
    reference_lines = code_lines(reference.read_text(encoding="utf-8"))
    problems = []
    # The hints by task sit under "### Hints by task" in the handout, or on a page
    # of their own, hints.md, where every line is a hint's.
    pages = [("README.md", False)] + ([("hints.md", True)] if (folder / "hints.md").is_file() else [])
    for name, whole_page in pages:
        lines = (folder / name).read_text(encoding="utf-8").splitlines()
        hint = "before the first hint"
        block: list[str] | None = None
        block_start = 0
        in_hints = whole_page
        for number, line in enumerate(lines, 1):
            if block is None:
                if line.startswith("### Hints by task"):
                    in_hints = True
                elif HEADING2.match(line) and not whole_page:
                    in_hints = False
                summary = re.search(r"<summary>(TODO\(\d+\)[^<]*?(?:<code>[^<]*</code>)?[^<]*)</summary>", line)
                if summary:
                    hint = re.sub(r"</?code>", "`", summary.group(1))
                if in_hints and FENCE.match(line):
                    block, block_start = [], number
                continue
            if FENCE.match(line) and set(line.strip()) <= {"`", "~"}:
                length, start = longest_shared_run(code_lines("\n".join(block)), reference_lines)
                if length > MAX_COPIED_LINES:
                    first = code_lines("\n".join(block))[start]
                    problems.append(f"{lab}: labs/{lab}/{name}:{block_start}: the hint \"{hint}\" repeats {length} "
                                    f"consecutive lines of {reference.relative_to(root)} (from \"{first}\"): a hint "
                                    f"shows at most {MAX_COPIED_LINES}; make it a sketch (pseudocode, or the key lines "
                                    "with ____ blanks)")
                block = None
                continue
            block.append(line)
    return problems


# ---------------------------------------------------------------------------
# Answers, references, then and now, length

def table_questions(lines: list[str]) -> int:
    """The numbered questions after "Questions to answer under your tables",
    not counting numbered lines in a code block or a fold (answers, output)."""
    count = 0
    started = False
    in_code = False
    folds = 0
    for _, line in section_lines(lines, "What to expect"):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if not in_code:
            folds = max(0, folds + line.count("<details>") - line.count("</details>"))
        if TABLE_QUESTIONS in line:
            started = True
            continue
        if started and not in_code and folds == 0 and NUMBERED.match(line):
            count += 1
    return count


def check_answers(lab: str, folder: Path, root: Path) -> list[str]:
    answers = root / "solutions" / lab / "ANSWERS.md"
    lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    questions = table_questions(lines)
    if not section_lines(lines, "What to expect"):
        return []  # the outline check reports the missing section
    if not answers.is_file():
        return [f"{lab}: no solutions/{lab}/ANSWERS.md: write the answers to the {questions} questions under "
                "the tables there (### Table question k), for instructors"]
    text = answers.read_text(encoding="utf-8").splitlines()
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text:
        heading = re.match(r"^###\s+(Table question|Check yourself)\s+(\d+)\s*$", line)
        if heading:
            current = f"{heading.group(1)} {heading.group(2)}"
            bodies[current] = []
        elif line.startswith("#"):
            current = None
        elif current:
            bodies[current].append(line)
    problems = []
    for k in range(1, questions + 1):
        body = bodies.get(f"Table question {k}")
        if body is None:
            problems.append(f"{lab}: solutions/{lab}/ANSWERS.md has no \"### Table question {k}\": the handout asks "
                            f"{questions} questions under its tables, and each gets its answer")
        elif not any(line.strip() for line in body):
            problems.append(f"{lab}: solutions/{lab}/ANSWERS.md: \"### Table question {k}\" is empty")
    extra = sorted(int(key.split()[-1]) for key in bodies if key.startswith("Table") and int(key.split()[-1]) > questions)
    if extra:
        problems.append(f"{lab}: solutions/{lab}/ANSWERS.md answers table question {extra[0]}, but the handout asks "
                        f"{questions}")
    return problems


def check_references(lab: str, lines: list[str]) -> list[str]:
    entries: list[str] = []
    for _, line in section_lines(lines, "References"):
        if NUMBERED.match(line):
            entries.append(line)
        elif entries and line.strip():
            entries[-1] += " " + line.strip()
    if not entries:
        return [f"{lab}: \"## References\" has no numbered entries: one per source (authors, title, venue, year, link)"]
    problems = []
    for k, entry in enumerate(entries, 1):
        lacks = [what for what, pattern in (("a year", YEAR), ("a link", LINK)) if not pattern.search(entry)]
        if lacks:
            problems.append(f"{lab}: \"## References\", entry {k} has no {' and no '.join(w[2:] for w in lacks)}: "
                            f"give authors, title, venue, year and a link ({entry[:60].strip()}...)")
    return problems


def check_then_and_now(lab: str, folder: Path, lines: list[str]) -> list[str]:
    section = "\n".join(line for _, line in section_lines(lines, "Then and now"))
    problems = []
    if not (folder / "figures" / "then-and-now.csv").is_file():
        problems.append(f"{lab}: no figures/then-and-now.csv: the then and now figures (the source's and this "
                        "lab's measurement) go there, drawn as a chart by tools/make_figures.py")
    if section and "figures/then-and-now.svg" not in section:
        problems.append(f"{lab}: \"## Then and now\" does not show its chart: add "
                        "![the figures it compares](figures/then-and-now.svg)")
    return problems


def main_path_lines(lines: list[str]) -> int:
    """Lines of the handout outside <details> folds (hints, our figures, the details), code blocks included."""
    return sum(1 for _, _, depth in unfolded(lines, with_code=True) if not depth)


def check_length(lab: str, lines: list[str]) -> list[str]:
    length = main_path_lines(lines)
    if length > MAIN_PATH_LINES:
        return [f"{lab}: the main path of the handout (all but what is inside <details> folds) is {length} "
                f"lines, more than {MAIN_PATH_LINES}: move the long discussion of the measurements to "
                "measurements.md, and cut what restates a table"]
    if len(lines) > HANDOUT_LINES:
        # Readers read the folds too: a handout of 500 lines does not read in one sitting.
        return [f"{lab}: the handout is {len(lines)} lines with its folds, more than {HANDOUT_LINES}: cut what "
                "is said twice (a derivation in a fold and in measurements.md, an answer that repeats the Ours "
                "fold, a link given twice) rather than move it"]
    return []


def unfolded(lines: list[str], with_code: bool = False):
    """(line number, line, depth) of each line, depth > 0 inside a <details> fold (its own <details> and
    </details> lines included); a code block's lines only with_code (they never open or close a fold)."""
    depth = 0
    fence = None
    for number, line in enumerate(lines, 1):
        if fence is None:
            opening = FENCE.match(line) or re.match(r"^ {0,3}(:{3,})", line)
            if opening:
                fence = opening.group(1)
        elif line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
            fence = None
            if with_code:
                yield number, line, depth
            continue
        if fence is not None:
            if with_code:
                yield number, line, depth
            continue
        before = depth
        depth = max(0, depth + len(re.findall(r"<details\b", line)) - len(re.findall(r"</details>", line)))
        yield number, line, max(before, depth)


def words(line: str) -> int:
    """Words a reader reads: tokens with a letter or digit, HTML tags and table rules left out."""
    return sum(1 for token in re.sub(r"<[^>]*>", " ", line).split() if re.search(r"[^\W_]", token))


def in_sections(lines: list[str]):
    """(line number, line, depth, section) of each line unfolded() gives, under its `## section` heading
    (None before the first); the heading lines themselves are left out."""
    section = None
    for number, line, depth in unfolded(lines):
        match = HEADING2.match(line)
        if match:
            section = match.group(1)
            continue
        yield number, line, depth, section


def main_path_words(lines: list[str], heading: str | None = None) -> int:
    """Words outside folds, code blocks and References (of one `## heading` section when given)."""
    return sum(words(line) for _, line, depth, section in in_sections(lines)
               if not depth and section != "References" and (heading is None or section == heading))


def check_words(lab: str, lines: list[str], headings: list[str]) -> list[str]:
    problems = []
    total = main_path_words(lines)
    if total > MAIN_PATH_WORDS:
        problems.append(f"{lab}: the main path of the handout is {total} words (outside <details>, code blocks "
                        f"and References), more than {MAIN_PATH_WORDS}: fold the details a student reads only "
                        "when needed, move long derivations to a fold or measurements.md")
    for heading, limit in SECTION_WORDS.items():
        count = main_path_words(lines, heading)
        if heading in headings and count > limit:
            problems.append(f"{lab}: \"## {heading}\" has {count} words outside its folds, more than {limit}: "
                            "keep a short table or paragraph, and fold the rest")
    return problems


def check_predict_first(lab: str, lines: list[str], headings: list[str]) -> list[str]:
    problems = []
    for heading, label in PREDICT_FIRST.items():
        if heading not in headings:
            continue
        asked = folded_before = table_outside = False
        for number, line, depth, section in in_sections(lines):
            if section != heading:
                continue
            if depth:
                folded_before = folded_before or not asked
                continue
            if label in line and FILL_IN.search(line) and not folded_before:
                asked = True
            if heading == "What to expect" and line.lstrip().startswith("|") and not table_outside:
                table_outside = True
                problems.append(f"{lab}: labs/{lab}/README.md:{number}: \"## {heading}\" shows a table outside a fold: "
                                "put the project's measurements in <details>, after the student's own")
        if not asked:
            problems.append(f"{lab}: \"## {heading}\" does not ask for the student's figure first: write a line "
                            f"\"{label} ____ ...\" before any <details> of the section")
    return problems


def check_lab(lab: str, folder: Path, root: Path, headings: list[str]) -> list[str]:
    """Every rule above for one lab (only the rules whose section the outline has)."""
    lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
    problems = check_figures(lab, folder, root)
    problems += check_hint_sketches(lab, folder, root)
    problems += check_answers(lab, folder, root)
    if "References" in headings:
        problems += check_references(lab, lines)
    if "Then and now" in headings:
        problems += check_then_and_now(lab, folder, lines)
    problems += check_length(lab, lines)
    problems += check_words(lab, lines, headings)
    problems += check_predict_first(lab, lines, headings)
    return problems
