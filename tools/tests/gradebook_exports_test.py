#!/usr/bin/env python3
"""Tests of tools/gradebook_exports.py (run by ctest; no GPU, no build): the roster
(Canvas's gradebook export and a plain one), matching submissions to it, canvas.csv
and gradescope.csv to the byte, the late policy's arithmetic, the feedback files
(never the seed), and `grade-batch --gather OUT --roster ...` end to end on an OUT
folder made of status.json and results.json fixtures.

    python3 tools/tests/gradebook_exports_test.py [-v]
"""
import csv
import io
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import gradebook_exports as ge  # noqa: E402

LABS = ["01-hello-world", "02-abc"]
RUBRIC = json.loads((ROOT / "grader" / "rubric.json").read_text())
SEED = "8172635"

CANVAS_EXPORT = (
    "\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,Lab 01 hello-world (901),Current Score,Final Score\n"
    "    Points Possible,,,,,10.00,(read only),(read only)\n"
    '"Doe, Jane",1001,S001,jdoe,CUDA 101,,,\n'
    '"Roe, Richard",1002,S002,rroe,CUDA 101,,,\n'
    '"Poe, Edgar",1003,S003,epoe@uni.edu,CUDA 102,,,\n'
    '"Moe, Mia",1004,S004,mmoe,CUDA 102,,,\n'
    '"Student, Test",1999,,,CUDA 101,,,\n'
)
PLAIN_ROSTER = (
    "Full Name,Student ID,E-mail,Username\n"
    "Jane Doe,S001,jane.doe@uni.edu,jdoe\n"
    "Richard Roe,S002,richard@uni.edu,rroe\n"
    "\n"
    "Edgar Poe,S003,epoe@uni.edu,epoe\n"
)


def lab_max(lab):
    entry = RUBRIC["labs"][lab]
    return sum(g["points"] for g in entry.get("groups", [])) + sum(s["points"] for s in entry.get("speed", []))


def results_for(failing=(), output_extra=""):
    """A results.json as the grader writes it (report_gradescope.cpp): one test per group and speed
    item of LABS; the items named in failing score 0, with a message that names the seed."""
    tests = []
    for lab in LABS:
        entry = RUBRIC["labs"][lab]
        for item in entry.get("groups", []) + entry.get("speed", []):
            name = f"{lab}: {item['name']}"
            failed = item["name"] in failing
            output = (f"2 of 3 tests passed.\nFailing:\n- Abc.Small/7\n    expected 3, got 4 (seed={SEED})\n"
                      f"    rerun: WORKBOOK_SEED={SEED} ./workbook test abc <script>x</script>"
                      if failed else "all 3 tests passed")
            tests.append({"name": name, "score": 0 if failed else item["points"], "max_score": item["points"],
                          "status": "failed" if failed else "passed", "visibility": item.get("visibility", "visible"),
                          "output": output})
    score = sum(t["score"] for t in tests)
    output = (f"GPU: NVIDIA H200 | seed: {SEED} | sandboxed\n\nLab  Tests  Speed  Points\n"
              f"grade --seed {SEED}\n" + output_extra)
    return {"score": score, "execution_time": 12.5, "output": output, "tests": tests}


def make_out(folder, students):
    """OUT with batch.json and, per student, status.json and results.json. students:
    {name: dict(status=..., failing=[...], identity=..., submitted_at=..., late_marker=..., warnings=...)}"""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    total_max = float(sum(lab_max(lab) for lab in LABS))
    (out / "batch.json").write_text(json.dumps({"submissions_dir": "/nowhere", "students": sorted(students),
                                                "labs": LABS, "max": total_max, "settings": "x"}))
    for name, spec in students.items():
        folder = out / name
        folder.mkdir()
        state = spec.get("status", "graded")
        status = {"student": name, "status": state, "labs": LABS, "max": total_max, "scores": {}, "total": None,
                  "notes": spec.get("notes", []), "files": [], "reason": spec.get("reason", "")}
        if state == "graded":
            results = results_for(spec.get("failing", ()))
            (folder / "results.json").write_text(json.dumps(results))
            status["files"] = ["results.json"]
            for lab in LABS:
                status["scores"][lab] = float(sum(t["score"] for t in results["tests"]
                                                  if t["name"].startswith(lab + ": ")))
            status["total"] = float(results["score"])
        for key in ("identity", "submitted_at", "late_marker", "warnings"):
            if key in spec:
                status[key] = spec[key]
        (folder / "status.json").write_text(json.dumps(status))
    return out


def statuses_of(out):
    return {p.parent.name: json.loads(p.read_text()) for p in Path(out).glob("*/status.json")}


class Temp(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="gradebook-exports-"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        return path


class RosterTest(Temp):
    def test_canvas_export_skips_points_possible_and_the_test_student(self):
        students, warnings, kind = ge.read_roster(self.write("canvas.csv", CANVAS_EXPORT))
        self.assertEqual(kind, "Canvas gradebook export")
        self.assertEqual([s.name for s in students], ["Doe, Jane", "Roe, Richard", "Poe, Edgar", "Moe, Mia"])
        jane = students[0]
        self.assertEqual((jane.canvas_id, jane.sid, jane.login, jane.email, jane.section),
                         ("1001", "S001", "jdoe", "", "CUDA 101"))
        self.assertEqual(students[2].gradescope_email(), "epoe@uni.edu")  # a login that is an email
        self.assertEqual(warnings, [])

    def test_plain_roster_with_aliases_and_a_blank_line(self):
        students, warnings, kind = ge.read_roster(self.write("plain.csv", PLAIN_ROSTER))
        self.assertEqual(kind, "roster")
        self.assertEqual([(s.name, s.canvas_id, s.sid, s.email, s.login) for s in students],
                         [("Jane Doe", "", "S001", "jane.doe@uni.edu", "jdoe"),
                          ("Richard Roe", "", "S002", "richard@uni.edu", "rroe"),
                          ("Edgar Poe", "", "S003", "epoe@uni.edu", "epoe")])

    def test_first_and_last_name_semicolons_and_id_as_the_student_id(self):
        path = self.write("split.csv", "First Name;Last Name;ID;EMAIL ADDRESS\nJane;Doe;S001;jd@uni.edu\n")
        students, _, _ = ge.read_roster(path)
        self.assertEqual((students[0].name, students[0].sid, students[0].email, students[0].canvas_id),
                         ("Jane Doe", "S001", "jd@uni.edu", ""))

    def test_rows_without_a_key_and_repeated_keys_are_warned_about(self):
        path = self.write("r.csv", "name,email\nJane,j@u.edu\nNobody,\nJanet,J@u.edu\n")
        students, warnings, _ = ge.read_roster(path)
        self.assertEqual(len(students), 3)
        self.assertTrue(any("roster line 3 (Nobody) has no ID" in w and "fill one in" in w for w in warnings),
                        warnings)
        self.assertTrue(any("roster lines 2 and 4 have the same email" in w for w in warnings), warnings)

    def test_unusable_rosters_say_what_to_give(self):
        with self.assertRaisesRegex(ge.OptionError, "names no column to match students by; it needs one of"):
            ge.read_roster(self.write("bad.csv", "Name,Grade\nJane,A\n"))
        with self.assertRaisesRegex(ge.OptionError, "the file is empty"):
            ge.read_roster(self.write("empty.csv", ""))
        with self.assertRaisesRegex(ge.OptionError, "no such file"):
            ge.check_option("roster", str(self.dir / "missing.csv"))


class MatchTest(Temp):
    def setUp(self):
        super().setUp()
        self.students, _, _ = ge.read_roster(self.write("plain.csv", PLAIN_ROSTER + "Ann Lee,S004,,alee\n"))

    def match(self, statuses):
        return ge.match_students(sorted(statuses), statuses, self.students)

    def test_each_key_in_order(self):
        canvas_students, _, _ = ge.read_roster(self.write("canvas.csv", CANVAS_EXPORT))
        statuses = {"x1": {"identity": {"canvas_id": "1002", "email": "nobody@x"}}}
        matched, _ = ge.match_students(["x1"], statuses, canvas_students)
        self.assertEqual((matched["x1"][0].name, matched["x1"][1]), ("Roe, Richard", "canvas_id"))
        statuses = {"a": {"identity": {"sid": "s001"}},                       # case does not matter
                    "b": {"identity": {"email": "Richard@Uni.edu"}},
                    "c": {"identity": {"login": "epoe", "sid": "S999"}},      # an unknown sid: the next key
                    "alee": {},                                               # folder = login
                    "jane.doe": {},                                           # folder = email's local part
                    "S002": {}}                                               # folder = sid
        matched, warnings = self.match(statuses)
        got = {name: (student.name, how) for name, (student, how) in matched.items()}
        self.assertEqual(got, {"a": ("Jane Doe", "sid"), "b": ("Richard Roe", "email"), "c": ("Edgar Poe", "login"),
                               "alee": ("Ann Lee", "folder"), "jane.doe": ("Jane Doe", "folder"),
                               "S002": ("Richard Roe", "folder")})
        self.assertEqual(warnings, [])

    def test_unmatched_both_ways_and_duplicates_in_the_summary(self):
        out = make_out(self.dir / "out", {
            "jdoe": {"failing": ["2-D thread ids"]},
            "jdoe-resubmitted": {"identity": {"email": "jane.doe@uni.edu"}},
            "stranger": {"identity": {"name": "Sam Stranger"}},
        })
        batch = json.loads((out / "batch.json").read_text())
        batch["exports"] = {"roster": str(self.dir / "plain.csv")}
        exports = ge.Exports(out, batch, statuses_of(out), LABS)
        lines = exports.write(sorted(statuses_of(out)))
        text = "\n".join(lines)
        self.assertIn("Submissions with no roster student (1;", text)
        self.assertIn("  stranger (name Sam Stranger)", text)
        self.assertIn("Roster students without a submission (3; their cells in canvas.csv and gradescope.csv are "
                      "empty, not 0", text)
        self.assertIn("  Richard Roe (SID S002, email richard@uni.edu, login rroe), roster line 3", text)
        self.assertIn("jdoe and jdoe-resubmitted match the same roster student, Jane Doe", text)
        self.assertIn("(jdoe by folder name, jdoe-resubmitted by email): the exports take jdoe-resubmitted "
                      "(the higher final points)", text)

    def test_a_key_on_two_roster_rows_decides_nothing(self):
        students, _, _ = ge.read_roster(self.write("dup.csv", "name,sid,login\nA,1,same\nB,2,same\n"))
        matched, warnings = ge.match_students(["x"], {"x": {"identity": {"login": "same"}}}, students)
        self.assertEqual(matched, {})
        self.assertIn("its login 'same' is on 2 roster rows (lines 2, 3)", warnings[0])


class LateTest(unittest.TestCase):
    DEADLINE = "2026-03-01T23:59:00-05:00"

    def policy(self, per_day=10.0, max_days=None):
        return {"text": self.DEADLINE, "deadline": ge.parse_time(self.DEADLINE), "per_day": per_day,
                "max_days": max_days}

    def late(self, submitted=None, marker=None, **policy):
        status = {}
        if submitted:
            status["submitted_at"] = submitted
        if marker is not None:
            status["late_marker"] = marker
        return ge.lateness(status, self.policy(**policy))

    def test_started_days(self):
        self.assertEqual(self.late("2026-03-01T23:59:00-05:00"), (None, None))         # on the dot
        late, _ = self.late("2026-03-02T04:59:01Z")                                     # 1 s late, in UTC
        self.assertEqual((late.days, late.percent), (1, 10.0))
        late, _ = self.late("2026-03-02T23:59:00-05:00")                                # exactly 24 h
        self.assertEqual((late.days, late.percent), (1, 10.0))
        late, _ = self.late("2026-03-02T23:59:01-05:00")                                # 24 h 1 s
        self.assertEqual((late.days, late.percent), (2, 20.0))
        self.assertEqual(late.describe(), "1 day 1 s late (2 started days)")
        late, _ = self.late("2026-03-20T00:00:00-05:00")                                # 18 started days
        self.assertEqual((late.days, late.percent), (19, 100.0))                       # capped at 100 %

    def test_max_days_and_the_canvas_marker(self):
        late, _ = self.late("2026-03-04T23:59:00-05:00", max_days=3)
        self.assertEqual((late.days, late.percent), (3, 30.0))
        late, _ = self.late("2026-03-05T00:00:00-05:00", max_days=3)
        self.assertEqual((late.days, late.percent, late.note), (4, 100.0, "more than 3 days late: scores 0"))
        late, _ = self.late(marker=True)
        self.assertEqual((late.days, late.unknown, late.percent), (1, True, 10.0))
        self.assertIn("unknown amount", late.describe())
        late, warning = self.late("2026-03-01T12:00:00-05:00", marker=True)             # an extension in Canvas
        self.assertIsNone(late)
        self.assertIn("Canvas marked it LATE, but it was submitted before --deadline", warning)
        late, warning = self.late("yesterday", marker=False)
        self.assertIsNone(late)
        self.assertIn("cannot be read", warning)

    def test_points_after_the_penalty(self):
        self.assertEqual(ge.after_penalty(29.0, 10.0), 26.1)
        self.assertEqual(ge.after_penalty(7.0, 15.0), 5.95)
        self.assertEqual(ge.after_penalty(1.0, 100.0 / 3), 0.67)
        self.assertEqual(ge.after_penalty(22.0, 100.0), 0.0)

    def test_options_are_checked(self):
        self.assertEqual(ge.merge_options({}, {"deadline": self.DEADLINE, "late_penalty": "10",
                                               "late_max_days": "7"}),
                         {"deadline": self.DEADLINE, "late_penalty": 10.0, "late_max_days": 7})
        with self.assertRaisesRegex(ge.OptionError, "give the time zone too"):
            ge.merge_options({}, {"deadline": "2026-03-01T23:59:00"})
        with self.assertRaisesRegex(ge.OptionError, "--late-penalty needs --deadline"):
            ge.merge_options({}, {"late_penalty": "10"})
        with self.assertRaisesRegex(ge.OptionError, "a number from 0 to 100"):
            ge.merge_options({}, {"deadline": self.DEADLINE, "late_penalty": "ten"})
        with self.assertRaisesRegex(ge.OptionError, "a whole number of days"):
            ge.merge_options({}, {"deadline": self.DEADLINE, "late_max_days": "-1"})
        stored = {"deadline": self.DEADLINE, "late_penalty": 10.0}
        self.assertEqual(ge.merge_options(stored, {"late_penalty": ""}), {"deadline": self.DEADLINE})


class FeedbackTest(Temp):
    def test_no_seed_anywhere_and_html_escaped(self):
        out = make_out(self.dir / "out", {"alice": {
            "failing": ["2-D thread ids", "grid-stride loop: bandwidth"],
            "notes": [f"02-abc does not compile (seed: {SEED})"],
            "warnings": ["abc-1.cu matches no lab: did you mean abc.cu (lab 02-abc)?"],
            "submitted_at": "2026-03-02T10:00:00-05:00"}})
        batch = json.loads((out / "batch.json").read_text())
        batch["exports"] = {"deadline": "2026-03-01T23:59:00-05:00", "late_penalty": 10.0}
        statuses = statuses_of(out)
        ge.Exports(out, batch, statuses, LABS).write(["alice"])
        text = (out / "feedback" / "alice.txt").read_text()
        page = (out / "feedback" / "alice.html").read_text()
        for content in (text, page):
            self.assertNotIn(SEED, content)
            self.assertIn("seed: hidden", content)
        self.assertIn("WORKBOOK_SEED=hidden", text)
        self.assertIn("seed=hidden", text)
        self.assertIn("--seed hidden", text)
        total = statuses["alice"]["total"]
        self.assertIn(f"Points: {total:.2f} of {lab_max(LABS[0]) + lab_max(LABS[1]):.2f}; after the late penalty: "
                      f"{ge.after_penalty(total, 10.0):.2f}", text)
        self.assertIn("Late: 10 h 1 min late (1 started day): submitted 2026-03-02T10:00:00-05:00", text)
        self.assertIn("Lab 01 hello-world: 8.00 of 10.00 points", text)
        self.assertIn("  Tests: 4 of 5 passed", text)
        self.assertIn("    [FAILED] 2-D thread ids: 0.00 of 2.00", text)
        self.assertIn("        expected 3, got 4 (seed=hidden)", text)
        self.assertIn("  Speed: 1 of 2 passed", text)
        self.assertIn("abc-1.cu matches no lab", text)
        self.assertIn("&lt;script&gt;x&lt;/script&gt;", page)
        self.assertNotIn("<script>", page)

    def test_scrub(self):
        self.assertEqual(ge.scrub("GPU: H200 | seed: 42 | sandboxed"), "GPU: H200 | seed: hidden | sandboxed")
        self.assertEqual(ge.scrub("SEED = 7, WORKBOOK_SEED=9, --seed=3, --seed 4, seed:5"),
                         "SEED = hidden, WORKBOOK_SEED=hidden, --seed=hidden, --seed hidden, seed:hidden")
        self.assertEqual(ge.scrub("seeded 3 times, 42 seeds"), "seeded 3 times, 42 seeds")

    def test_not_graded_says_why(self):
        out = make_out(self.dir / "out", {"bob": {"status": "failed", "reason": "zip refused: member '../x' has '..'"},
                                           "carl": {"status": "error", "reason": "no GPU: not graded"}})
        ge.Exports(out, json.loads((out / "batch.json").read_text()), statuses_of(out), LABS).write(["bob", "carl"])
        self.assertIn("Not graded: your submission could not be graded as handed in: zip refused",
                      (out / "feedback" / "bob.txt").read_text())
        self.assertIn("Not graded yet: no GPU", (out / "feedback" / "carl.html").read_text())


class EndToEndTest(Temp):
    DEADLINE = "2026-03-01T23:59:00-05:00"

    def setUp(self):
        super().setUp()
        self.roster = self.write("canvas-export.csv", CANVAS_EXPORT)
        self.out = make_out(self.dir / "out", {
            "jdoe": {"identity": {"canvas_id": "1001", "name": "Jane Doe"},
                     "submitted_at": "2026-03-01T20:00:00-05:00"},
            "rroe": {"failing": ["one thread per element, any n"], "submitted_at": "2026-03-03T08:00:00-05:00"},
            "epoe": {"late_marker": True, "warnings": ["Abc.cu matches no lab: did you mean abc.cu (02-abc)?"]},
            "ghost": {"identity": {"email": "ghost@uni.edu"}},
            "zed": {"status": "error", "reason": "no GPU: not graded; grade again on a machine with an NVIDIA GPU"},
        })

    def gather(self, *options, command="batch"):
        """grade-batch --gather OUT [options]; command "workbook" runs it through ./workbook, and
        "gather" runs `grade_batch.py gather OUT` (what the Slurm instructions run)."""
        if command == "workbook":
            line = [str(ROOT / "workbook"), "grade-batch", "--gather", str(self.out), *options]
        elif command == "gather":
            line = [sys.executable, str(ROOT / "tools" / "grade_batch.py"), "gather", str(self.out), *options]
        else:
            line = [sys.executable, str(ROOT / "tools" / "grade_batch.py"), "batch", "--gather", str(self.out),
                    *options]
        return subprocess.run(line, capture_output=True, text=True, timeout=120)

    def full(self, name):
        return float(statuses_of(self.out)[name]["total"])

    def test_gather_with_a_roster_and_a_late_policy(self):
        result = self.gather("--roster", str(self.roster), "--deadline", self.DEADLINE, "--late-penalty", "10",
                             "--late-max-days", "7", command="workbook")
        self.assertEqual(result.returncode, 0, result.stderr + result.stdout)
        jane, rich, edgar = self.full("jdoe"), self.full("rroe"), self.full("epoe")
        rich_final, edgar_final = ge.after_penalty(rich, 20.0), ge.after_penalty(edgar, 10.0)
        statuses = statuses_of(self.out)

        def lab(name, lab_id, percent):
            return f"{ge.after_penalty(statuses[name]['scores'][lab_id], percent):.2f}"
        expected_canvas = (
            "Student,ID,SIS User ID,SIS Login ID,Section,Lab 01 hello-world,Lab 02 abc\n"
            f"Points Possible,,,,,{lab_max(LABS[0]):.2f},{lab_max(LABS[1]):.2f}\n"
            f'"Doe, Jane",1001,S001,jdoe,CUDA 101,{lab("jdoe", LABS[0], 0)},{lab("jdoe", LABS[1], 0)}\n'
            f'"Roe, Richard",1002,S002,rroe,CUDA 101,{lab("rroe", LABS[0], 20)},{lab("rroe", LABS[1], 20)}\n'
            f'"Poe, Edgar",1003,S003,epoe@uni.edu,CUDA 102,{lab("epoe", LABS[0], 10)},{lab("epoe", LABS[1], 10)}\n'
            '"Moe, Mia",1004,S004,mmoe,CUDA 102,,\n')
        self.assertEqual((self.out / "canvas.csv").read_text(), expected_canvas)
        expected_gradescope = (
            "Name,SID,Email,Total Score\n"
            f'"Doe, Jane",S001,,{jane:.2f}\n'
            f'"Roe, Richard",S002,,{rich_final:.2f}\n'
            f'"Poe, Edgar",S003,epoe@uni.edu,{edgar_final:.2f}\n'
            '"Moe, Mia",S004,,\n'
            "ghost,,ghost@uni.edu,\n".replace("ghost@uni.edu,\n", f"ghost@uni.edu,{self.full('ghost'):.2f}\n"))
        self.assertEqual((self.out / "gradescope.csv").read_text(), expected_gradescope)

        gradebook = list(csv.reader(io.StringIO((self.out / "gradebook.csv").read_text())))
        self.assertEqual(gradebook[0], ["student", *LABS, "total", "max", "status", "reason",
                                        "late", "penalty", "final"])
        rows = {row[0]: row for row in gradebook[1:]}
        self.assertEqual(rows["rroe"][-3:], ["2", f"{rich - rich_final:.2f}", f"{rich_final:.2f}"])
        self.assertEqual(rows["epoe"][-3:], ["unknown (marked LATE; counted as 1 day)", f"{edgar - edgar_final:.2f}",
                                             f"{edgar_final:.2f}"])
        self.assertEqual(rows["jdoe"][-3:], ["0", "0.00", f"{jane:.2f}"])
        self.assertEqual(rows["zed"][-3:], ["0", "", ""])

        summary = (self.out / "summary.txt").read_text()
        self.assertEqual(summary, result.stdout.split("Gradebook: ")[0])
        for text in ["Submissions: 5: 4 graded, 0 failed, 1 not graded",
                     "(Canvas gradebook export): 4 students; 3 of 5 submissions matched (1 by Canvas user ID, "
                     "2 by folder name)",
                     "Submissions with no roster student (2;", "  ghost (email ghost@uni.edu)",
                     "  zed (nothing known but the folder name)",
                     "Roster students without a submission (1;", "  Moe, Mia (Canvas user ID 1004, SID S004",
                     "Late: deadline 2026-03-01T23:59:00-05:00; 10% of the points per started day late, 0 after 7 days",
                     f"  rroe: 1 day 8 h 1 min late (2 started days), submitted 2026-03-03T08:00:00-05:00: -20% "
                     f"({rich - rich_final:.2f} points), final {rich_final:.2f} of {rich:.2f}",
                     "  epoe: late by an unknown amount (Canvas marked it LATE; there is no submission time), "
                     "counted as 1 day: -10%",
                     "Warnings:", "  epoe: Abc.cu matches no lab",
                     "  canvas.csv: 4 rows (the roster's), columns Lab 01 hello-world, Lab 02 abc",
                     "  gradescope.csv: 5 rows", "  feedback/: 5 students",
                     "  1 failed or not graded submission (zed) has empty cells, not 0"]:
            self.assertIn(text, summary)
        self.assertNotIn(SEED, summary)
        self.assertEqual(sorted(p.name for p in (self.out / "feedback").iterdir()),
                         sorted(f"{n}.{ext}" for n in ("epoe", "ghost", "jdoe", "rroe", "zed")
                                for ext in ("html", "txt")))
        stored = json.loads((self.out / "batch.json").read_text())
        self.assertEqual(stored["exports"], {"roster": str(self.roster.resolve()), "deadline": self.DEADLINE,
                                             "late_penalty": 10.0, "late_max_days": 7})
        self.assertEqual(stored["students"], ["epoe", "ghost", "jdoe", "rroe", "zed"])  # the rest is kept

        # --gather alone makes the same files from what batch.json stored.
        before = {name: (self.out / name).read_text() for name in ("canvas.csv", "gradescope.csv", "gradebook.csv",
                                                                   "summary.txt")}
        again = self.gather(command="gather")
        self.assertEqual(again.returncode, 0, again.stderr)
        for name, text in before.items():
            self.assertEqual((self.out / name).read_text(), text, name)

        # One column with the total, named after the Canvas assignment.
        one = self.gather("--assignment", "Labs 1-2 (4242)")
        self.assertEqual(one.returncode, 0, one.stderr)
        lines = (self.out / "canvas.csv").read_text().splitlines()
        self.assertEqual(lines[:3], ["Student,ID,SIS User ID,SIS Login ID,Section,Labs 1-2 (4242)",
                                     f"Points Possible,,,,,{lab_max(LABS[0]) + lab_max(LABS[1]):.2f}",
                                     f'"Doe, Jane",1001,S001,jdoe,CUDA 101,{jane:.2f}'])
        self.assertEqual(lines[3], f'"Roe, Richard",1002,S002,rroe,CUDA 101,{rich_final:.2f}')

    def test_without_options_the_gradebook_is_as_before(self):
        result = self.gather()
        self.assertEqual(result.returncode, 0, result.stderr)
        header = (self.out / "gradebook.csv").read_text().splitlines()[0]
        self.assertEqual(header, "student,01-hello-world,02-abc,total,max,status,reason")
        self.assertFalse((self.out / "canvas.csv").exists())
        summary = (self.out / "summary.txt").read_text()
        self.assertIn("canvas.csv: not made: it needs the roster: run ./workbook grade-batch --gather OUT --roster CSV",
                      summary)
        self.assertIn("Late (Canvas marked these LATE; no --deadline is given, so nothing is taken", summary)
        # gradescope.csv from the identities alone: ghost's email.
        self.assertEqual((self.out / "gradescope.csv").read_text(),
                         f"Name,SID,Email,Total Score\nghost,,ghost@uni.edu,{self.full('ghost'):.2f}\n")
        self.assertIn("gradescope.csv leaves out epoe, jdoe, rroe, zed: no email or SID is known", summary)

    def test_bad_options_stop_before_anything_is_written(self):
        result = self.gather("--roster", str(self.dir / "nope.csv"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("grade-batch: --roster", result.stderr)
        self.assertIn("no such file (give the CSV exported from Canvas's gradebook", result.stderr)
        result = self.gather("--late-penalty", "10")
        self.assertEqual(result.returncode, 1)
        self.assertIn("--late-penalty needs --deadline", result.stderr)
        self.assertFalse((self.out / "gradebook.csv").exists())

    def test_a_roster_gone_since_is_said_and_the_rest_is_made(self):
        self.assertEqual(self.gather("--roster", str(self.roster)).returncode, 0)
        self.roster.unlink()
        result = self.gather()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertFalse((self.out / "canvas.csv").exists())
        self.assertIn("canvas.csv is not made until it can be read", result.stdout)
        self.assertIn("the older canvas.csv is removed", result.stdout)
        self.assertTrue((self.out / "gradebook.csv").exists())
        # A later grading run is not refused for it (the stored roster is checked by gather only).
        self.assertIn("roster", ge.batch_fields(self.out, {})["exports"])

    def test_feedback_is_a_reserved_name(self):
        import grade_batch
        self.assertIn("feedback", grade_batch.RESERVED_NAMES)
        self.assertIn("canvas.csv", grade_batch.RESERVED_NAMES)


if __name__ == "__main__":
    unittest.main()
