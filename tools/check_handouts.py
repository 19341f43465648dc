#!/usr/bin/env python3
"""Check that every lab's handout follows the outline of CONTRIBUTING.md.

    python3 tools/check_handouts.py [--root DIR] [LAB ...]
    python3 tools/check_handouts.py --words [LAB ...]
    python3 tools/check_handouts.py --self-test

The outline is read from CONTRIBUTING.md, section "Handout outline": its
numbered items that start with a `## Heading` in backquotes, in order. For
every labs/NN-name/README.md (or only the LABs named: 03, 03-coalescing,
coalescing) it checks that
  - the title is `# Lab NN ...`, NN being the folder's number;
  - the `##` headings are exactly the outline's, in its order (a `##` line
    inside a code fence is not a heading);
  - "Check yourself" has 4 to 6 numbered questions, then a folded answers
    block (<details>, <summary>Answers</summary>, a blank line, one numbered
    answer per question, a blank line, </details>);
  - every image the handout names (![alt](path), <img src="path">, a MyST
    {figure} or {image} directive) exists, relative to the handout;
  - the rules of tools/handout_rules.py: every measured figure quoted by the
    handout, measurements.md, the walkthrough and ANSWERS.md is in a file of
    the lab's figures/ (or derived by arithmetic written before it), and
    "What to expect" names the GPU and date of figures/measured.txt; no hint
    repeats more than 3 consecutive lines of the reference solution;
    solutions/NN-name/ANSWERS.md answers every question under the tables;
    every reference has a year and a link; "Then and now" shows its chart;
    the main path is at most 500 lines and 3,000 words (outside folds, code
    blocks and References), the whole README at most 440 lines; "Speed of light" and "What to expect" ask for the
    student's prediction and measurement before showing the project's.
--words prints each handout's main-path words (in all, and per section).
Each problem is one line naming the lab and what is wrong; the exit status is
1 when there is any, 0 otherwise. --self-test runs the checks on handouts made
wrong on purpose and fails unless each problem is reported as expected.
Run by ctest: handouts_follow_the_outline, handout_check_catches_a_missing_section.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
import handout_rules  # noqa: E402  (the rules beyond the outline: figures, sketches, answers, references)
from handout_rules import FENCE, NUMBERED  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUTLINE_SECTION = "Handout outline"
CHECK_YOURSELF = "Check yourself"
HINTS = "Hints"
HINTS_BY_TASK = "### Hints by task"
HINTS_PAGE = "hints.md"  # the folded hints by task, when they have a page of their own
HINT_KINDS = ("a nudge", "the approach", "a sketch")
HINT_SUMMARY = re.compile(r"<summary>TODO\((\d+)\).*: (a nudge|the approach|a sketch)</summary>")
# The outer fold of one TODO's three hints (the page lists one line per TODO).
HINT_GROUP_SUMMARY = re.compile(r"<summary>TODO\((\d+)\).*: its three hints</summary>")
MIN_QUESTIONS, MAX_QUESTIONS = 4, 6  # CONTRIBUTING.md, "Handout outline", item "Check yourself"

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
OUTLINE_ITEM = re.compile(r"^\d+\.\s+`##\s+([^`]+?)\s*`")
DIRECTIVE_IMAGE = re.compile(r"^ {0,3}(?:`{3,}|~{3,}|:{3,})\{(?:figure|image)\}\s+(\S+)")
MARKDOWN_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\s*\)")
REFERENCE_IMAGE = re.compile(r"!\[([^\]]*)\]\[([^\]]*)\]")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_IMAGE = re.compile(r"<img\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")


class OutlineError(Exception):
    """CONTRIBUTING.md has no readable outline."""


def read_outline(contributing: Path) -> list[str]:
    """The `##` headings listed in the outline section of CONTRIBUTING.md, in order."""
    if not contributing.is_file():
        raise OutlineError(f"{contributing} not found: it holds the handout outline")
    in_section = False
    headings = []
    for line, _ in outside_fences(contributing.read_text(encoding="utf-8").splitlines()):
        heading = HEADING.match(line)
        if heading and len(heading.group(1)) == 2:
            in_section = heading.group(2) == OUTLINE_SECTION
            continue
        if in_section:
            item = OUTLINE_ITEM.match(line)
            if item:
                headings.append(item.group(1))
    if not headings:
        raise OutlineError(f'{contributing}: no section "## {OUTLINE_SECTION}" with numbered items '
                           'like "1. `## Objectives`: ..."')
    return headings


def outside_fences(lines: list[str]):
    """Yields (line, fence_opening) for the lines outside code fences; the
    opening line of a fence is yielded with fence_opening=True, its content
    and closing line not at all."""
    fence = None
    for line in lines:
        if fence is None:
            match = FENCE.match(line)
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = match.group(1)
                yield line, True
                continue
            yield line, False
        else:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                fence = None


def split_sections(lines: list[str]):
    """(title, [(heading, [body lines outside fences])]) of a handout."""
    title = None
    sections = []
    for line, _ in outside_fences(lines):
        heading = HEADING.match(line)
        if heading and len(heading.group(1)) == 1 and title is None and not sections:
            title = heading.group(2)
            continue
        if heading and len(heading.group(1)) == 2:
            sections.append((heading.group(2), []))
            continue
        if sections:
            sections[-1][1].append(line)
    return title, sections


def check_order(lab: str, headings: list[str], outline: list[str]) -> list[str]:
    problems = []
    for heading in sorted({h for h in headings if headings.count(h) > 1}, key=headings.index):
        problems.append(f'{lab}: the section "## {heading}" appears {headings.count(heading)} times')
    for heading in headings:
        if heading not in outline:
            problems.append(f'{lab}: unexpected section "## {heading}": the outline of CONTRIBUTING.md has '
                            'only its own ## headings; make it a ### inside one of them')
    for index, heading in enumerate(outline):
        if heading not in headings:
            before = f'after "## {outline[index - 1]}"' if index > 0 else "first"
            joint = ", before" if index == 0 else " and before"
            after = f'{joint} "## {outline[index + 1]}"' if index + 1 < len(outline) else ""
            problems.append(f'{lab}: missing section "## {heading}" (the outline puts it {before}{after})')
    present = [h for h in headings if h in outline]
    expected = [h for h in outline if h in present]
    deduplicated = list(dict.fromkeys(present))
    if deduplicated != expected:
        for got, want in zip(deduplicated, expected):
            if got != want:
                problems.append(f'{lab}: section "## {got}" is out of order: the outline has "## {want}" '
                                f'there (order: {", ".join(expected)})')
                break
    return problems


def check_questions(lab: str, body: list[str]) -> list[str]:
    """Questions, then <details><summary>Answers</summary> ... </details>."""
    where = f'{lab}: "## {CHECK_YOURSELF}"'
    stripped = [line.strip() for line in body]
    if "<details>" not in stripped:
        questions = sum(1 for line in body if NUMBERED.match(line))
        return [f"{where} has no folded answers: after the {questions} questions put <details>, "
                "<summary>Answers</summary>, a blank line, the numbered answers, a blank line, </details>"]
    start = stripped.index("<details>")
    questions = [line for line in body[:start] if NUMBERED.match(line)]
    problems = []
    if not MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS:
        problems.append(f"{where} has {len(questions)} numbered questions; the outline asks for "
                        f"{MIN_QUESTIONS} to {MAX_QUESTIONS}")
    numbers = [int(NUMBERED.match(line).group(1)) for line in questions]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"{where}: the questions are numbered {numbers}, not 1 to {len(numbers)}")
    rest = stripped[start + 1:]
    following = [line for line in rest if line]
    if not following or following[0] != "<summary>Answers</summary>":
        problems.append(f"{where}: <details> must be followed by <summary>Answers</summary>")
        return problems
    if "</details>" not in rest:
        problems.append(f"{where}: the answers block has no </details>")
        return problems
    summary = rest.index("<summary>Answers</summary>")
    end = rest.index("</details>")
    if summary + 1 >= len(rest) or rest[summary + 1] != "":
        problems.append(f"{where}: put a blank line after <summary>Answers</summary>, or the answers are "
                        "shown as raw text")
    if end == 0 or rest[end - 1] != "":
        problems.append(f"{where}: put a blank line before </details>, or the answers are shown as raw text")
    answers = [line for line in body[start + 1 + summary + 1:start + 1 + end] if NUMBERED.match(line)]
    if len(answers) != len(questions):
        problems.append(f"{where} has {len(questions)} questions but {len(answers)} numbered answers")
    return problems


def count_todos(folder: Path) -> int:
    """The number of TODO(k) of the lab's student file (the experiment has none)."""
    numbers = set()
    for source in folder.glob("*.cu"):
        if source.name != "experiment.cu":
            numbers |= {int(k) for k in re.findall(r"// TODO\((\d+)\)", source.read_text(encoding="utf-8"))}
    return max(numbers, default=0)


def check_task_hints(lab: str, body: list[str], todos: int) -> list[str]:
    """Three folded hints (a nudge, the approach, a sketch) for every
    TODO(k) of the student file, under "### Hints by task" in the Hints section."""
    stripped = [line.strip() for line in body]
    if HINTS_BY_TASK not in stripped:
        if todos == 0:
            return []
        return [f'{lab}: "## {HINTS}" has no "{HINTS_BY_TASK}": the student file has {todos} TODOs, and each '
                f"gets three folded hints ({', '.join(HINT_KINDS)}); see item 8 of the outline"]
    where = f'{lab}: "## {HINTS}" ({HINTS_BY_TASK})'
    found: dict[int, list[str]] = {}
    grouped: set[int] = set()  # TODOs whose outer fold was seen
    problems = []
    in_hint = False  # after a hint's <summary>, before its </details>
    for i, line in enumerate(stripped):
        if line == "</details>" and in_hint:
            in_hint = False
            if stripped[i - 1] != "":
                problems.append(f"{where}: put a blank line before the </details> of line {i + 1} of the "
                                "section, or the hint shows as raw text")
        group = HINT_GROUP_SUMMARY.search(line)
        if group:
            grouped.add(int(group[1]))
            continue
        match = HINT_SUMMARY.search(line)
        if not match:
            continue
        if int(match[1]) not in grouped:
            problems.append(f"{where}: the hints of TODO({match[1]}) are not inside their outer fold: put "
                            f"<details><summary>TODO({match[1]}), <code>name</code>: its three hints</summary> "
                            "before the first and </details> after the last (item 8 of the outline)")
            grouped.add(int(match[1]))  # one message per TODO
        in_hint = True
        found.setdefault(int(match[1]), []).append(match[2])
        if i + 1 < len(stripped) and stripped[i + 1] != "":
            problems.append(f"{where}: put a blank line after the summary of TODO({match[1]}), {match[2]}")
    for k in range(1, todos + 1):
        missing = [kind for kind in HINT_KINDS if kind not in found.get(k, [])]
        if missing:
            problems.append(f"{where}: TODO({k}) lacks {', '.join(missing)}: every TODO of the student file "
                            f"gets three folded hints, {', '.join(HINT_KINDS)}")
    extra = sorted(k for k in found if k > todos)
    if extra:
        problems.append(f"{where}: hints for TODO({extra[0]}), but the student file has {todos} TODOs")
    return problems


def image_targets(lines: list[str]) -> list[str]:
    targets = []
    definitions = {}
    references = []
    for line, opening in outside_fences(lines):
        directive = DIRECTIVE_IMAGE.match(line)
        if directive:
            targets.append(directive.group(1))
        if opening:
            continue
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            definitions[definition.group(1).lower()] = definition.group(2)
        text = INLINE_CODE.sub("", line)
        targets += MARKDOWN_IMAGE.findall(text) + HTML_IMAGE.findall(text)
        references += [(label or alt).lower() for alt, label in REFERENCE_IMAGE.findall(text)]
    targets += [definitions.get(label, f"[{label}] (an image reference with no definition)")
                for label in references]
    return targets


def check_images(lab: str, handout: Path, lines: list[str], root: Path) -> list[str]:
    problems = []
    for target in image_targets(lines):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL (https:, data:) or an anchor: nothing on disk to check
        path = unquote(target.split("#")[0].split("?")[0])
        resolved = (root / "docs" / path.lstrip("/")) if path.startswith("/") else (handout.parent / path)
        if not resolved.is_file():
            problems.append(f'{lab}: the image "{target}" does not exist (looked for '
                            f"{resolved.relative_to(root) if resolved.is_relative_to(root) else resolved})")
    return problems


def check_handout(handout: Path, outline: list[str], root: Path) -> list[str]:
    lab = handout.parent.name
    if not handout.is_file():
        return [f"{lab}: no handout (labs/{lab}/README.md is missing)"]
    lines = handout.read_text(encoding="utf-8").splitlines()
    title, sections = split_sections(lines)
    problems = []
    number = lab.split("-")[0]
    if title is None or not re.match(rf"Lab {re.escape(number)}\b", title):
        problems.append(f'{lab}: the handout must start with the title "# Lab {number} — ...", '
                        f"got {('# ' + title) if title else 'none'}")
    headings = [heading for heading, _ in sections]
    problems += check_order(lab, headings, outline)
    bodies = {heading: body for heading, body in sections}
    if CHECK_YOURSELF in outline and CHECK_YOURSELF in bodies:
        problems += check_questions(lab, bodies[CHECK_YOURSELF])
    if HINTS in bodies:
        # The folded hints may sit on a page of their own, hints.md beside the
        # handout, which "### Hints by task" links: they are checked as if inline.
        hints_page = handout.parent / HINTS_PAGE
        body = bodies[HINTS]
        if hints_page.is_file():
            page_lines = hints_page.read_text(encoding="utf-8").splitlines()
            body = body + page_lines
            problems += check_images(lab, hints_page, page_lines, root)
            if not any(f"({HINTS_PAGE})" in line for line in bodies[HINTS]):
                problems.append(f'{lab}: labs/{lab}/{HINTS_PAGE} exists but "## {HINTS}" never links it: '
                                f'link it under "{HINTS_BY_TASK}" as [hints by task]({HINTS_PAGE})')
        problems += check_task_hints(lab, body, count_todos(handout.parent))
    for heading, body in sections:
        if heading in outline and not any(line.strip() for line in body):
            problems.append(f'{lab}: the section "## {heading}" is empty')
    problems += check_images(lab, handout, lines, root)
    problems += handout_rules.check_lab(lab, handout.parent, root, headings)
    return problems


def lab_folders(root: Path, wanted: list[str]) -> list[Path]:
    folders = sorted(p for p in (root / "labs").glob("[0-9][0-9]-*") if p.is_dir())
    if not wanted:
        return folders
    chosen = []
    for name in wanted:
        hits = [p for p in folders
                if name in (p.name, p.name[:2], p.name[3:]) or (name.isdigit() and int(name) == int(p.name[:2]))]
        if not hits:
            raise SystemExit(f"check_handouts: no lab '{name}' under {root / 'labs'}")
        chosen += hits
    return chosen


def check_all(root: Path, wanted: list[str] | None = None) -> tuple[list[str], int, int]:
    """(problems, handouts checked, sections in the outline)."""
    outline = read_outline(root / "CONTRIBUTING.md")
    folders = lab_folders(root, wanted or [])
    problems = []
    for folder in folders:
        problems += check_handout(folder / "README.md", outline, root)
    return problems, len(folders), len(outline)


# ---------------------------------------------------------------------------
# Self-test: handouts made wrong on purpose.

MEASURED = ("# recorded: ./workbook bench --all --solution, NVIDIA H200, 2026-11-26\n"
            "GPU: NVIDIA H200, 132 SMs\nCopy bandwidth: 4202.2 GB/s\n| your kernel | 0.2789 | 3849.75 |\n")
SECTION_TEXT = {
    "Speed of light": "**Your prediction:** ____ ms.\n\n<details>\n<summary>Our prediction</summary>\n\n"
                      "6 × 2^28 bytes = 1.61 GB to move at 4.2 TB/s (the copy, 4202 GB/s): "
                      "1.61 GB / 4202 GB/s = 0.383 ms.\n\n</details>",
    "What to expect": "**Your measurement:** ____ ms.\n\n<details>\n<summary>Ours</summary>\n\n"
                      "Measured on an NVIDIA H200 on 2026-11-26:\n\n| kernel | ms | GB/s |\n| --- | ---: | ---: |\n"
                      "| yours | 0.279 | 3850 |\n\n</details>\n\nQuestions to answer under your tables:\n\n1. Why?",
    "Then and now": "Then 0.56 ms; now 0.279 ms.\n\n![then and now](figures/then-and-now.svg)",
    "References": "1. A. Author and B. Author. *A title*. A venue, 2009.\n   https://example.org/paper",
}
THEN_AND_NOW = "# title: t\n# source: s\n# x: x\n# y: ms\nseries,x,y\nthen,1,0.56\nnow,2,0.279\n"
ANSWERS = "# Lab NN — answers for instructors\n\n## Questions to answer under your tables\n\n### Table question 1\n\nBecause.\n"


def good_handout(number: str, outline: list[str]) -> str:
    parts = [f"# Lab {number} — Self-test: a handout that follows the outline", "",
             "**You will learn** nothing; this handout tests the checker.", ""]
    for heading in outline:
        parts += [f"## {heading}", ""]
        if heading == CHECK_YOURSELF:
            parts += [f"{k}. Question {k}?" for k in range(1, 5)]
            parts += ["", "<details>", "<summary>Answers</summary>", ""]
            parts += [f"{k}. Answer {k}." for k in range(1, 5)]
            parts += ["", "</details>", ""]
        else:
            parts += [SECTION_TEXT.get(heading, f"Text of {heading}."), ""]
    parts[parts.index("Text of Background.")] = ("Text of Background.\n\n![a figure](figure.svg)\n\n"
                                                 "```{figure} figure.svg\nA MyST figure.\n```\n\n"
                                                 "```md\n## Not a heading: inside a fence\n![x](no-such.png)\n```")
    return "\n".join(parts) + "\n"


def task_hints(kinds_by_todo: dict[int, tuple[str, ...]], grouped: bool = True, sketch: str = "") -> str:
    parts = ["Text of Hints.", "", HINTS_BY_TASK, ""]
    for k, kinds in kinds_by_todo.items():
        if grouped:
            parts += ["<details>", f"<summary>TODO({k}), <code>f{k}</code>: its three hints</summary>", ""]
        for kind in kinds:
            body = sketch if (sketch and kind == "a sketch") else f"Hint for TODO({k})."
            parts += ["<details>", f"<summary>TODO({k}), <code>f{k}</code>: {kind}</summary>", "",
                      body, "", "</details>"]
        if grouped:
            parts += ["", "</details>"]
    return "\n".join(parts) + "\n"


# The handout's "### Hints by task" when the hints have a page of their own.
HINTS_POINTER = f"Text of Hints.\n\n{HINTS_BY_TASK}\n\nThe three hints of every task: [hints by task]({HINTS_PAGE}).\n"

REFERENCE = """__global__ void scale(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // the global index
  if (i >= n) return;
  const float value = data[i];
  data[i] = 2.0f * value;
}
"""
# A hint that is the reference's body (4 lines) and one that is a sketch of it.
COPIED = """```cuda
const int i = blockIdx.x * blockDim.x + threadIdx.x;
if (i >= n) return;
const float value = data[i];   // a comment does not make it a sketch
data[i] = 2.0f * value;
```"""
SKETCH = """```cuda
const int i = ____;            // this thread's element
if (____) return;
data[i] = ____;
```"""


def self_test() -> int:
    outline = read_outline(ROOT / "CONTRIBUTING.md")
    print(f"self-test: the outline of CONTRIBUTING.md has {len(outline)} sections: {', '.join(outline)}")
    missing = outline[len(outline) // 2]
    good = good_handout("90", outline)

    def without_section(text: str, heading: str) -> str:
        start = text.index(f"## {heading}\n")
        end = text.index("\n## ", start + 1) + 1
        return text[:start] + text[end:]

    swapped = good.replace(f"## {outline[0]}\n", "## @@FIRST@@\n").replace(
        f"## {outline[1]}\n", f"## {outline[0]}\n").replace("## @@FIRST@@\n", f"## {outline[1]}\n")
    answers_start = good.index("<details>\n<summary>Answers")
    answers_block = good[answers_start:good.index("</details>", answers_start) + len("</details>")]
    cases = [
        ("90-good", good, []),
        ("91-missing", without_section(good, missing), [f'91-missing: missing section "## {missing}"']),
        ("92-order", swapped, [f'92-order: section "## {outline[1]}" is out of order']),
        ("93-extra", good.replace("## Hints\n", "## The experiment\n\nMore.\n\n## Hints\n"),
         ['93-extra: unexpected section "## The experiment"']),
        ("94-three", good.replace("4. Question 4?\n", "").replace("4. Answer 4.\n", ""),
         ['94-three: "## Check yourself" has 3 numbered questions']),
        ("95-unfolded", good.replace(answers_block, "Answers: 1. yes 2. no 3. maybe 4. never"),
         ['95-unfolded: "## Check yourself" has no folded answers']),
        ("96-image", good.replace("](figure.svg)", "](missing.svg)"),
         ['96-image: the image "missing.svg" does not exist']),
        ("97-raw", good.replace("<summary>Answers</summary>\n\n", "<summary>Answers</summary>\n"),
         ['97-raw: "## Check yourself": put a blank line after <summary>Answers</summary>']),
        ("98-answers", good.replace("4. Answer 4.\n", ""),
         ['98-answers: "## Check yourself" has 4 questions but 3 numbered answers']),
        ("99-title", good.replace("# Lab 90 —", "# Lab 42 —"),
         ['99-title: the handout must start with the title "# Lab 99']),
        ("89-hints", good.replace("Text of Hints.\n", task_hints({1: HINT_KINDS, 2: HINT_KINDS[:2]})),
         ['89-hints: "## Hints" (### Hints by task): TODO(2) lacks a sketch']),
        ("88-hints", good.replace("Text of Hints.\n", task_hints({1: HINT_KINDS, 2: HINT_KINDS})), []),
        ("87-nohints", good, ['87-nohints: "## Hints" has no "### Hints by task": the student file has 2 TODOs']),
        ("86-flat", good.replace("Text of Hints.\n", task_hints({1: HINT_KINDS, 2: HINT_KINDS}, grouped=False)),
         ['86-flat: "## Hints" (### Hints by task): the hints of TODO(1) are not inside their outer fold',
          '86-flat: "## Hints" (### Hints by task): the hints of TODO(2) are not inside their outer fold']),
        ("85-figure", good.replace("now 0.279 ms", "now 0.31 ms"),
         ['85-figure: labs/85-figure/README.md:', ]),
        ("84-arith", good.replace("= 0.383 ms", "= 0.5 ms"), ['84-arith: labs/84-arith/README.md:']),
        ("83-cell", good.replace("| yours | 0.279 |", "| yours | 0.301 |"),
         ['83-cell: labs/83-cell/README.md:']),
        ("82-copied", good.replace("Text of Hints.\n", task_hints({1: HINT_KINDS, 2: HINT_KINDS}, sketch=COPIED)),
         ['82-copied: labs/82-copied/README.md:96: the hint "TODO(1), `f1`: a sketch" repeats 4 consecutive lines',
          '82-copied: labs/82-copied/README.md:124: the hint "TODO(2), `f2`: a sketch" repeats 4']),
        ("81-sketch", good.replace("Text of Hints.\n", task_hints({1: HINT_KINDS, 2: HINT_KINDS}, sketch=SKETCH)), []),
        ("80-refs", good.replace("   https://example.org/paper\n", ""),
         ['80-refs: "## References", entry 1 has no link']),
        ("79-long", good.replace("Text of Tasks.", "Line.\n" * handout_rules.MAIN_PATH_LINES),
         ['79-long: the main path of the handout']),
        ("75-folds", good.replace("Text of Tasks.", "<details>\n<summary>More</summary>\n\n" +
                                  "Line.\n" * handout_rules.HANDOUT_LINES + "\n</details>"),
         ['75-folds: the handout is']),
        ("76-words", good.replace("Text of Tasks.", "word " * handout_rules.MAIN_PATH_WORDS),
         ['76-words: the main path of the handout is 3079 words']),
        ("75-tests", good.replace("Text of What the tests check.", "test " * 251),
         ['75-tests: "## What the tests check" has 251 words outside its folds']),
        ("74-predict", good.replace("**Your prediction:** ____ ms.", "Predict it."),
         ['74-predict: "## Speed of light" does not ask for the student\'s figure first']),
        ("73-shown", good.replace("**Your measurement:** ____ ms.\n\n<details>\n<summary>Ours</summary>",
                                  "<details>\n<summary>Ours</summary>\n\n</details>\n\n**Your measurement:** ____ ms."),
         ['73-shown: labs/73-shown/README.md:', '73-shown: "## What to expect" does not ask']),
        ("78-date", good.replace("on 2026-11-26:", "recently:"),
         ['78-date: "## What to expect" never names the date']),
        # Numbered lines in a code block or a fold after the questions are not questions.
        ("76-blocks", good.replace("tables:\n\n1. Why?", "tables:\n\n1. Why?\n\n```text\n1. a line of output\n"
                                   "2. another\n```\n\n<details>\n<summary>Our answers</summary>\n\n1. Because.\n\n"
                                   "</details>"), []),
        ("77-answers", good, ['77-answers: solutions/77-answers/ANSWERS.md has no "### Table question 1"',
          '77-answers: solutions/77-answers/ANSWERS.md answers table question 2, but the handout asks 1']),
        # The hints by task on a page of their own (hints.md, written below).
        ("72-page", good.replace("Text of Hints.\n", HINTS_POINTER), []),
        ("71-unlinked", good.replace("Text of Hints.\n", HINTS_POINTER.replace("[hints by task](hints.md)", "a page")),
         ['71-unlinked: labs/71-unlinked/hints.md exists but "## Hints" never links it']),
        ("70-pagecopy", good.replace("Text of Hints.\n", HINTS_POINTER),
         ['70-pagecopy: labs/70-pagecopy/hints.md:21: the hint "TODO(1), `f1`: a sketch" repeats 4 consecutive lines',
          '70-pagecopy: labs/70-pagecopy/hints.md:49: the hint "TODO(2), `f2`: a sketch" repeats 4']),
    ]
    hints_pages = {"72-page": task_hints({1: HINT_KINDS, 2: HINT_KINDS}, sketch=SKETCH),
                   "71-unlinked": task_hints({1: HINT_KINDS, 2: HINT_KINDS}),
                   "70-pagecopy": task_hints({1: HINT_KINDS, 2: HINT_KINDS}, sketch=COPIED)}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "CONTRIBUTING.md").write_text((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"),
                                              encoding="utf-8")
        for name, text, _ in cases:
            folder = root / "labs" / name
            folder.mkdir(parents=True)
            text = text.replace("# Lab 90 —", f"# Lab {name[:2]} —") if name != "99-title" else text
            (folder / "README.md").write_text(text, encoding="utf-8")
            (folder / "figure.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n", encoding="utf-8")
            if name in hints_pages:  # the page starts where the handout's section would
                page = hints_pages[name].split(HINTS_BY_TASK + "\n", 1)[1]
                (folder / HINTS_PAGE).write_text("# Lab: hints by task\n" + page, encoding="utf-8")
            if name in ("81-sketch", "82-copied", "86-flat", "87-nohints", "88-hints", "89-hints", *hints_pages):
                (folder / "lab.cu").write_text("// TODO(1): one\n// TODO(2): two\n", encoding="utf-8")
            (folder / "figures").mkdir()
            (folder / "figures" / "measured.txt").write_text(MEASURED, encoding="utf-8")
            (folder / "figures" / "then-and-now.csv").write_text(THEN_AND_NOW, encoding="utf-8")
            (folder / "figures" / "then-and-now.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n",
                                                                 encoding="utf-8")
            (root / "solutions" / name).mkdir(parents=True)
            (root / "solutions" / name / "lab.cu").write_text(REFERENCE, encoding="utf-8")
            answers = ANSWERS.replace("### Table question 1", "### Table question 2") if name == "77-answers" else ANSWERS
            (root / "solutions" / name / "ANSWERS.md").write_text(answers, encoding="utf-8")
        for name, _, expected in cases:
            problems, _, _ = check_all(root, [name])
            for line in problems:
                print(f"  {line}")
            if not expected and problems:
                failures.append(f"{name}: a handout that follows the outline was reported: {problems}")
            for wanted in expected:
                if not any(line.startswith(wanted) for line in problems):
                    failures.append(f"{name}: expected a message starting with {wanted!r}; got {problems}")
            if expected and len(problems) != len(expected):
                failures.append(f"{name}: expected {len(expected)} message(s), got {len(problems)}: {problems}")
        everything, checked, _ = check_all(root)
        if checked != len(cases) or len(everything) != sum(len(c[2]) for c in cases):
            failures.append(f"all labs at once: {checked} handouts and {len(everything)} problems, expected "
                            f"{len(cases)} and {sum(len(c[2]) for c in cases)}")
    for failure in failures:
        print(f"self-test FAILED: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"self-test: {len(cases)} cases passed: each wrong handout was reported with the lab and the problem, "
          "the good one was not")
    return 0


def print_words(root: Path, wanted: list[str]) -> int:
    outline = read_outline(root / "CONTRIBUTING.md")
    print(f"main-path words (limit {handout_rules.MAIN_PATH_WORDS}; outside <details>, code blocks and References)")
    for folder in lab_folders(root, wanted):
        lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
        per_section = ", ".join(f"{heading} {handout_rules.main_path_words(lines, heading)}"
                                for heading in outline if heading != "References")
        print(f"{folder.name}: {handout_rules.main_path_words(lines)} ({per_section})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", metavar="LAB", help="labs to check (default: all)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    parser.add_argument("--self-test", action="store_true", help="check the checker on wrong handouts")
    parser.add_argument("--words", action="store_true",
                        help="print each handout's main-path words (outside folds, code blocks and References)")
    args = parser.parse_args()
    try:
        if args.self_test:
            return self_test()
        if args.words:
            return print_words(args.root.resolve(), args.labs)
        problems, checked, sections = check_all(args.root.resolve(), args.labs)
    except OutlineError as error:
        print(f"check_handouts: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        labs = len({problem.split(":")[0] for problem in problems})
        print(f"check_handouts: {len(problems)} problem(s) in {labs} of {checked} handouts; the outline is "
              f'CONTRIBUTING.md, "{OUTLINE_SECTION}"', file=sys.stderr)
        return 1
    print(f"check_handouts: {checked} handouts follow the outline of CONTRIBUTING.md "
          f"({sections} sections, questions with folded answers, images present)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
