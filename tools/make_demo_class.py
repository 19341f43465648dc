#!/usr/bin/env python3
"""Make a class of 60 made-up students for an end-to-end test of the road to
the gradebook: Canvas's bulk download of an assignment of lab 02 (abc.cu),
and the Canvas gradebook export to use as the roster.

    python3 tools/make_demo_class.py OUT_DIR

OUT_DIR/submissions/ is one flat folder as Canvas's "Download Submissions"
gives it (<namekey>[_LATE]_<user id>_<submission id>_<file name>), and
OUT_DIR/roster.csv the gradebook export (Student, ID, SIS User ID, SIS Login
ID, Section, then an assignment column; a "Points Possible" row). The class:

  - 23 references; 14 skeletons; 17 wrong solutions of lab 02 from
    tools/wrong_solutions/mutations.json (4 without the bounds check, 4 that
    read out of bounds, 4 that write their input, 3 that skip every second
    speed call, 2 whose file does not compile);
  - a reference uploaded again (Canvas names it abc-1.cu), one named Abc.cu,
    one named my_abc_final.cu (which names no lab), and one in a .zip of the
    student's repository;
  - two references handed in late (Canvas's LATE mark; file times one and
    three days after DEADLINE);
  - one roster student who handed nothing in, and one submission whose user
    id is on no roster row.

Then, on a machine with a GPU (H200, 2026-11-29: 60 graded in 6 min 8 s):

    ./workbook grade-batch OUT_DIR/submissions abc --roster OUT_DIR/roster.csv \
        --assignment "Lab 02 (48213)" --deadline 2026-11-27T23:59:00Z \
        --late-penalty 10 --seed 81726354 --out OUT --no-explain

What it should give: 32 at 12 points (the two late ones 10.80 after the
penalty), 8 at 5 (no bounds check, input written), 3 at 8 (the speed cheat
loses its speed points), 17 at 0 (skeletons, the two that do not compile,
my_abc_final.cu), and the 4 out-of-bounds reads at 12: only --sanitize sees
them. A maintainers' tool: it reads the solutions.
"""
import csv
import datetime
import io
import os
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import wrong_solutions  # noqa: E402

LAB, BASE = "02-abc", "abc"
DEADLINE = datetime.datetime(2026, 11, 27, 23, 59, tzinfo=datetime.timezone.utc)
FIRST_NAMES = ["Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Katherine",
               "Leslie", "Margaret", "Niklaus", "Radia", "Shafi", "Tim", "Vint", "Whitfield", "Yukihiro", "Zhang"]
LAST_NAMES = ["Lovelace", "Turing", "Liskov", "Shannon", "Knuth", "Dijkstra", "Allen", "Hopper", "Backus",
              "Johnson", "Lamport", "Hamilton", "Wirth", "Perlman", "Goldwasser"]


def students(count):
    """(name, Canvas user id, SIS id, login) of `count` made-up students."""
    for i in range(count):
        first = FIRST_NAMES[i % len(FIRST_NAMES)]
        last = LAST_NAMES[(i * 7) % len(LAST_NAMES)]
        yield f"{first} {last}", str(41000 + i), f"S{900100 + i}", f"{first[0].lower()}{last.lower()}{i:02d}"


def plan():
    """What each of the 60 hands in: (kind, detail)."""
    mutations = {m["name"]: m for m in wrong_solutions.load()[LAB]}
    kinds = [("reference", None)] * 23 + [("skeleton", None)] * 14
    kinds += [("wrong", mutations["no bounds check"])] * 4 + [("wrong", mutations["out of bounds read"])] * 4
    kinds += [("wrong", mutations["input modified"])] * 4
    kinds += [("wrong", mutations["skips every second call of 2^26"])] * 3
    kinds += [("broken", None)] * 2
    kinds += [("resubmitted", None), ("capitalised", None), ("no lab", None), ("zip", None)]
    kinds += [("late", 1), ("late", 3)]
    assert len(kinds) == 60, len(kinds)
    return kinds


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    if out.exists():
        print(f"make_demo_class: {out} exists; give a new folder", file=sys.stderr)
        return 1
    submissions = out / "submissions"
    submissions.mkdir(parents=True)
    reference = (ROOT / "solutions" / LAB / f"{BASE}.cu").read_text()
    skeleton = (ROOT / "labs" / LAB / f"{BASE}.cu").read_text()
    roster = list(students(61))
    on_time = (DEADLINE - datetime.timedelta(hours=5)).timestamp()
    counts = {}
    for number, ((name, user_id, _, _), (kind, detail)) in enumerate(zip(roster[:60], plan())):
        key = "".join(name.lower().split()[::-1]).replace("-", "")
        if kind == "zip":
            user_id = "49999"  # on no roster row
        submission_id = str(700000 + number)
        late = kind == "late"
        prefix = f"{key}{'_LATE' if late else ''}_{user_id}_{submission_id}_"
        file_name, text = f"{BASE}.cu", reference
        if kind == "skeleton":
            text = skeleton
        elif kind == "wrong":
            text = wrong_solutions.mutated(LAB, BASE, detail)
        elif kind == "broken":
            text = reference.replace("return", "retur n", 1)
        elif kind == "resubmitted":
            file_name = f"{BASE}-1.cu"
        elif kind == "capitalised":
            file_name = "Abc.cu"
        elif kind == "no lab":
            file_name = "my_abc_final.cu"
        path = submissions / (prefix + file_name)
        if kind == "zip":
            path = submissions / (prefix + "workbook.zip")
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w") as archive:
                archive.writestr(f"workbook/labs/{LAB}/{BASE}.cu", reference)
                archive.writestr("workbook/README.md", "# my CUDA Workbook\n")
            path.write_bytes(buffer.getvalue())
        else:
            path.write_text(text)
        when = (DEADLINE + datetime.timedelta(days=detail, hours=-2)).timestamp() if late else on_time
        os.utime(path, (when, when))
        label = kind if kind != "wrong" else f"wrong: {detail['name']}"
        counts[label] = counts.get(label, 0) + 1
    with open(out / "roster.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 02 (48213)"])
        writer.writerow(["    Points Possible", "", "", "", "", "12.00"])
        for name, user_id, sis, login in roster:
            last_first = ", ".join(name.split()[::-1])
            writer.writerow([last_first, user_id, sis, login, "CUDA 101 Section 1", ""])
    print(f"Made {out}: 60 submissions in {submissions} (Canvas's bulk download of lab 02), "
          f"the roster in {out / 'roster.csv'} (61 students); deadline {DEADLINE.isoformat()}.")
    for label, count in counts.items():
        print(f"  {count:2d}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
