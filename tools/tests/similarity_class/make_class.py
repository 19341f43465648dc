#!/usr/bin/env python3
"""The made-up class of lab 04 that tools/tests/similarity_report_test.py runs the
similarity report on (issue 38): twenty honest students, one copier pair, two who
handed in the skeleton untouched.

    python3 tools/tests/similarity_class/make_class.py OUT_DIR   # writes OUT_DIR/<student>/labs/...

Each honest student is the skeleton (labs/04-reductions/reductions.cu) with every
TODO(k) hole filled by one of the independently written fills of 04-reductions/todoK.txt
(different loops, names, order of statements, helpers; some of them wrong, as honest
students' code is; a few are the reference's own fill). The choice is deterministic
(SEED): each student in turn takes, out of CANDIDATES random choices, the one that shares
the fewest tokens of identical fills with the students before, so that pairs share few
long fills, and no two students choose alike for every hole.

copier_a is one more honest student (its fills fixed: COPIER_FILLS, mostly those with
helper functions). copier_b is copier_a's file with its local variables and helper
functions renamed (RENAMES), the TODO comments dropped, and whole functions moved
(MOVES: the sequential kernel before the interleaved one, the float Max before the Min,
and so on). skeleton_1 and skeleton_2 handed in the skeleton as it is.

The fills' format: lines starting with "#" before the first variant are notes; a line
"=== NAME" starts a variant (NAME ends in "-wrong" for a fill that is knowingly wrong);
in a variant, lines after "--- above" (up to "--- body") are a helper put at file scope
before the hole's function, and the other lines replace the hole (the TODO comment and
the stub's return) inside the function.
"""
from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
LAB = "04-reductions"
FILE = "reductions.cu"
SKELETON = ROOT / "labs" / LAB / FILE
FILLS = HERE / LAB
SEED = 38
CANDIDATES = 400
HONEST = [f"honest_{i:02d}" for i in range(1, 21)]
COPIERS = ("copier_a", "copier_b")
UNTOUCHED = ("skeleton_1", "skeleton_2")
# copier_a's fills: the ones with helper functions where a hole has one.
COPIER_FILLS = {1: "helper-is-power", 2: "helper-load", 3: "helper-fold", 4: "pragma-temp", 5: "helper-ids",
                6: "helper-sign", 7: "early-return", 8: "helper-gather", 9: "helper-launch"}
# What copier_b renames in copier_a's fills (whole words; local variables and helper functions).
RENAMES = {
    "is_power_of_two": "pow2_check", "x": "val", "candidate": "guess",
    "value_or_zero": "load_or_zero", "data": "ptr", "partial_sums": "sums_smem", "local": "tid_local",
    "distance": "dist", "active": "working", "has_partner": "partner_ok",
    "fold_half": "halve_step", "tid": "thread_id", "half": "h", "limit": "count_limit", "scratch": "smem",
    "pos": "gidx",
    "v": "acc_v", "delta": "off", "other": "from_above",
    "lane_index": "my_lane", "warp_index": "my_warp", "staging": "warp_partials", "has_result": "warp_has_value",
    "sign_bit_set": "is_negative", "f": "fv",
    "raw": "u_bits",
    "gather_items": "fetch_chunk", "src": "source", "first": "begin_idx", "stride": "grid_step", "dst": "buffer",
    "q": "e", "at": "where_at", "partial": "thread_acc", "items": "chunk", "item": "element",
    "launch_grid_stride": "run_grid_stride", "count": "length", "how": "mode", "grid": "num_blocks",
    "what": "label", "block_count": "nblocks",
}
# copier_b's moves of whole functions: (the function moved, the function it is put before),
# each named by a piece of its first line.
MOVES = [
    ("void block_sum_sequential(", "void block_sum_interleaved("),
    ("void launch_block_sum_sequential(", "void launch_block_sum_interleaved("),
    ("void block_sum_shuffle(", "void warp_sums("),
    ("void launch_block_sum_shuffle(", "void launch_warp_sums("),
    ("value, Max<float>)", "value, Min<float>)"),
    ("int reduction_grid_blocks(", "__global__ void reduce_grid_stride("),
]


@dataclass
class Fill:
    hole: int
    name: str
    above: str  # a helper at file scope, before the hole's function ("" for none)
    body: str

    @property
    def tokens(self) -> int:
        return len(re.findall(r"\w+|[^\w\s]", re.sub(r"//[^\n]*", "", self.above + self.body)))


def read_fills(hole: int) -> list[Fill]:
    fills, current = [], None
    for line in (FILLS / f"todo{hole}.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("=== "):
            current = {"name": line[4:].strip(), "above": [], "body": [], "part": "body"}
            fills.append(current)
        elif current is None:
            continue  # the notes at the top
        elif line == "--- above":
            current["part"] = "above"
        elif line == "--- body":
            current["part"] = "body"
        else:
            current[current["part"]].append(line)
    result = [Fill(hole, f["name"], "\n".join(f["above"]).strip("\n"), "\n".join(f["body"]).rstrip("\n"))
              for f in fills]
    names = [f.name for f in result]
    assert len(set(names)) == len(names), f"todo{hole}.txt: two variants named alike"
    return result


def all_fills() -> dict[int, list[Fill]]:
    holes = sorted(int(m) for m in re.findall(r"// TODO\((\d+)\)", SKELETON.read_text(encoding="utf-8")))
    assert holes == list(range(1, len(holes) + 1)), holes
    return {hole: read_fills(hole) for hole in holes}


def hole_span(lines: list[str], hole: int) -> tuple[int, int]:
    """[start, end) of TODO(hole)'s comment and stub in the skeleton's lines."""
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"// TODO({hole}):"))
    end = start + 1
    while lines[end].strip().startswith("//"):
        end += 1
    if re.match(r"^\s*return [^;]*;\s*$", lines[end]) and lines[end + 1] == "}":
        end += 1  # the stub's return
    return start, end


def function_start(lines: list[str], inside: int) -> int:
    """The first line of the function that holds line `inside`, with its template line and
    the comment right above it."""
    i = inside
    while lines[i][:1] in ("", " ") or lines[i].startswith("//"):
        i -= 1
    while i > 0 and (lines[i - 1].startswith("template") or lines[i - 1].startswith("//")):
        i -= 1
    return i


def rename(text: str, renames: dict[str, str]) -> str:
    # Whole names, not members (threadIdx.x stays).
    pattern = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True))) + r")\b")
    return pattern.sub(lambda m: renames[m.group(1)], text)


def student_file(skeleton: str, fills: list[Fill], keep_todo: list[bool], renames: dict[str, str] | None = None) -> str:
    """The skeleton with each hole replaced by its fill (and the fill's helper above its function)."""
    lines = skeleton.splitlines()
    for fill, keep in sorted(zip(fills, keep_todo), key=lambda pair: -pair[0].hole):
        start, end = hole_span(lines, fill.hole)
        body, above = fill.body, fill.above
        if renames:
            body, above = rename(body, renames), rename(above, renames)
        kept = lines[start:end] if keep else []
        kept = [line for line in kept if not line.strip().startswith("return")]
        lines[start:end] = kept + body.splitlines()
        if above:
            at = function_start(lines, start)
            lines[at:at] = above.splitlines() + [""]
    return "\n".join(lines) + "\n"


def code_of(line: str) -> str:
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', line.split("//", 1)[0])


def chunks(text: str) -> list[tuple[str | None, list[str]]]:
    """The file as (key, lines) pieces: a function (its first line's text as key, with the
    comment and template lines right above it) or a piece that stays (key None)."""
    lines = text.splitlines()
    pieces: list[tuple[str | None, list[str]]] = []
    pending: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("//") or line.startswith("template"):
            pending.append(line)
            i += 1
            continue
        if not line.strip() or re.match(r"^namespace\b.*\{\s*$", line) or re.match(r"^\}\s*//\s*namespace", line) \
                or line.startswith("#"):
            pieces.append((None, pending + [line]))
            pending = []
            i += 1
            continue
        # A declaration at namespace scope: up to where its braces close again.
        start, depth, opened = i, 0, False
        while True:
            code = code_of(lines[i])
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            i += 1
            if (opened and depth == 0) or (not opened and code.rstrip().endswith(";")) or i >= len(lines):
                break
        pieces.append((lines[start], pending + lines[start:i]))
        pending = []
    if pending:
        pieces.append((None, pending))
    return pieces


def move_functions(text: str, moves: list[tuple[str, str]]) -> str:
    pieces = chunks(text)
    for moved, before in moves:
        found = [k for k, (key, _) in enumerate(pieces) if key and moved in key]
        assert len(found) == 1, f"{moved}: {len(found)} functions"
        piece = pieces.pop(found[0])
        target = [k for k, (key, _) in enumerate(pieces) if key and before in key]
        assert len(target) == 1, f"{before}: {len(target)} functions"
        pieces.insert(target[0], (piece[0], piece[1] + [""]))
    return "\n".join(line for _, piece in pieces for line in piece) + "\n"


def shared_tokens(a: tuple[int, ...], b: tuple[int, ...], fills: dict[int, list[Fill]]) -> int:
    return sum(fills[hole + 1][x].tokens for hole, (x, y) in enumerate(zip(a, b)) if x == y)


def choose(fills: dict[int, list[Fill]]) -> dict[str, tuple[int, ...]]:
    """Each student's variant per hole: COPIER_FILLS for copier_a, then for each honest
    student the candidate that shares the fewest tokens of identical fills with anyone before."""
    rng = random.Random(SEED)
    holes = sorted(fills)
    names = {hole: [f.name for f in fills[hole]] for hole in holes}
    chosen = {"copier_a": tuple(names[hole].index(COPIER_FILLS[hole]) for hole in holes)}
    for student in HONEST:
        best = None
        for _ in range(CANDIDATES):
            candidate = tuple(rng.randrange(len(fills[hole])) for hole in holes)
            if candidate in chosen.values():
                continue
            worst = max(shared_tokens(candidate, other, fills) for other in chosen.values())
            total = sum(shared_tokens(candidate, other, fills) for other in chosen.values())
            if best is None or (worst, total) < best[0]:
                best = ((worst, total), candidate)
        chosen[student] = best[1]
    assert len(set(chosen.values())) == len(chosen)
    return chosen


def make_class(out: Path) -> dict:
    """Writes the class into out (the "folders" layout of tools/intake.py) and returns what
    was made: {"choices": {student: {hole: fill name}}, "renames": RENAMES, "moves": MOVES}."""
    skeleton = SKELETON.read_text(encoding="utf-8")
    fills = all_fills()
    holes = sorted(fills)
    chosen = choose(fills)
    rng = random.Random(SEED + 1)
    texts = {}
    for student, choice in chosen.items():
        keep = [rng.random() < 0.5 for _ in holes]  # some keep the TODO comments, some delete them
        texts[student] = student_file(skeleton, [fills[h][x] for h, x in zip(holes, choice)], keep)
    copied = student_file(skeleton, [fills[h][x] for h, x in zip(holes, chosen["copier_a"])],
                          [False] * len(holes), RENAMES)
    texts["copier_b"] = move_functions(copied, MOVES)
    for student in UNTOUCHED:
        texts[student] = skeleton
    for student, text in texts.items():
        path = out / student / "labs" / LAB / FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return {"choices": {s: {h: fills[h][x].name for h, x in zip(holes, c)} for s, c in chosen.items()},
            "renames": RENAMES, "moves": MOVES}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    made = make_class(Path(argv[0]))
    for student, choice in made["choices"].items():
        print(f"{student:12} " + " ".join(f"{h}:{name}" for h, name in choice.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
