#!/usr/bin/env python3
"""Generate each lab's student file from its reference solution.

Markers in solutions/NN-name/*.cu (the only place they appear):

    // HOLE: What the student must write (one or more lines of hint).
    // STUB: int index = 0;   <- optional: code the skeleton keeps so it compiles
    ...the solution's code...
    // END HOLE

    // SOLUTION-ONLY: a comment line that the skeleton drops
    // STUDENT-ONLY: a comment line that only the skeleton has (marker removed)
    // WALKTHROUGH: name      } a region the docs site pulls in with literalinclude
    // END WALKTHROUGH: name  } (:start-after: / :end-before:); dropped from skeletons

The skeleton gets "// TODO(k): hint" (k counts holes in the file), the STUB
lines as code, and nothing of the solution's code between the markers.

    python3 tools/make_skeletons.py          # rewrite labs/*/ from solutions/*/
    python3 tools/make_skeletons.py --check  # exit 1 if labs/ differs (CI, ctest)
"""
import argparse
import difflib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(?P<indent>\s*)// (?P<kind>HOLE|STUB|END HOLE|SOLUTION-ONLY|STUDENT-ONLY|WALKTHROUGH|END WALKTHROUGH)(?::\s?(?P<text>.*))?$")


class MarkerError(Exception):
    pass


def skeleton_of(path: pathlib.Path) -> str:
    out = []
    hole_count = 0
    in_hole = False  # inside a hole: solution code is dropped
    hole_start = 0
    collecting_hint = False
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        where = f"{path.relative_to(ROOT)}:{number}"
        match = MARKER.match(line)
        kind = match.group("kind") if match else None
        text = (match.group("text") or "") if match else ""
        indent = match.group("indent") if match else ""
        if kind == "HOLE":
            if in_hole and not collecting_hint:
                raise MarkerError(f"{where}: HOLE inside the hole opened at line {hole_start}; close it with // END HOLE")
            if not in_hole:
                hole_count += 1
                in_hole, collecting_hint, hole_start = True, True, number
                out.append(f"{indent}// TODO({hole_count}): {text}".rstrip())
                # Continuation lines line up with the text after "TODO(k): ".
                continuation = " " * len(f"TODO({hole_count}): ")
            else:
                out.append(f"{indent}// {continuation}{text}".rstrip())
        elif kind == "STUB":
            if not in_hole:
                raise MarkerError(f"{where}: STUB outside a hole")
            out.append(f"{indent}{text}")
        elif kind == "END HOLE":
            if not in_hole:
                raise MarkerError(f"{where}: END HOLE without a HOLE")
            in_hole = collecting_hint = False
        elif kind in ("SOLUTION-ONLY", "WALKTHROUGH", "END WALKTHROUGH"):
            continue
        elif kind == "STUDENT-ONLY":
            out.append(f"{indent}// {text}".rstrip())
        else:
            collecting_hint = False
            if not in_hole:
                out.append(line)
    if in_hole:
        raise MarkerError(f"{path.relative_to(ROOT)}:{hole_start}: HOLE is never closed with // END HOLE")
    return "\n".join(out) + "\n"


# Beside a solution, not a student file: the comparisons of the lab's experiment
# that would answer a TODO (cmake/Labs.cmake builds them as labNN_experiment_reference).
NOT_STUDENT_FILES = {"experiment_reference.cu"}


def pairs():
    for solution in sorted((ROOT / "solutions").glob("[0-9][0-9]-*/*.cu")):
        if solution.name not in NOT_STUDENT_FILES:
            yield solution, ROOT / "labs" / solution.parent.name / solution.name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a student file differs")
    args = parser.parse_args()
    drifted = []
    try:
        for solution, student in pairs():
            wanted = skeleton_of(solution)
            if not student.parent.is_dir():
                raise MarkerError(f"{solution.relative_to(ROOT)} has no lab folder {student.parent.relative_to(ROOT)}")
            current = student.read_text() if student.exists() else ""
            if current == wanted:
                continue
            if args.check:
                drifted.append(student)
                diff = difflib.unified_diff(current.splitlines(), wanted.splitlines(),
                                            str(student.relative_to(ROOT)), "generated from " + str(solution.relative_to(ROOT)),
                                            lineterm="", n=1)
                print("\n".join(list(diff)[:40]))
            else:
                student.write_text(wanted)
                print(f"wrote {student.relative_to(ROOT)}")
    except MarkerError as error:
        print(f"make_skeletons: {error}", file=sys.stderr)
        return 2
    if drifted:
        names = ", ".join(str(p.relative_to(ROOT)) for p in drifted)
        print(f"make_skeletons: {names} differ from what the solutions generate. "
              "Edit the solution, not the student file, then run: python3 tools/make_skeletons.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
