#!/usr/bin/env python3
"""Tests of the class's similarity report (tools/similarity_report.py, issue 38) on the
made-up class of lab 04 (tools/tests/similarity_class/make_class.py): twenty honest
students, a copier pair (renamed variables and helper functions, functions in another
order), two untouched skeletons. The copy ranks first and is flagged; no other pair is
flagged, and the highest stays below HONEST_MAX; similarity.csv and similarity.html name
the pair and show both files' fragments; an unknown lab and a missing sim_c++ are said.
No GPU, no build: seconds.

Without sim_c++ (Debian's similarity-tester) it exits 77, ctest's "skipped", unless
WORKBOOK_REQUIRE_SIMILARITY=1.

    python3 tools/tests/similarity_report_test.py [-v]
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "tests" / "similarity_class"))
import make_class  # noqa: E402
import similarity_report  # noqa: E402

LAB = make_class.LAB
COPY = ("copier_a", "copier_b")
SCRIPT = ROOT / "tools" / "similarity_report.py"
SKIP = 77


def cli(*args, env=None):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=300)


class MadeUpClass(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="similarity-test-"))
        cls.submissions = cls.tmp / "class"
        cls.made = make_class.make_class(cls.submissions)
        cls.out = cls.tmp / "report"
        cls.said = []
        cls.pairs = similarity_report.report(cls.submissions, [LAB], cls.out, say=cls.said.append)[LAB]
        # The calibration, for whoever changes the thresholds or the class: the ranked top.
        print("\n".join(cls.said), file=sys.stderr)
        for rank, p in enumerate(cls.pairs[:5], 1):
            print(f"  #{rank} {p.a} and {p.b}: {p.similarity:.1f} % ({p.a_in_b:.1f} / {p.b_in_a:.1f}; own tokens "
                  f"{p.tokens[0]} / {p.tokens[1]})", file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def text(self, student):
        return (self.submissions / student / "labs" / LAB / make_class.FILE).read_text(encoding="utf-8")

    def others(self):
        return [p for p in self.pairs if (p.a, p.b) != COPY]

    def test_the_class_is_as_the_issue_asks(self):
        students = sorted(p.name for p in self.submissions.iterdir())
        self.assertEqual(len(students), 24)
        self.assertEqual(len(self.pairs), 24 * 23 // 2)
        honest = [s for s in students if s.startswith("honest_")]
        self.assertEqual(len(honest), 20)
        choices = self.made["choices"]
        self.assertEqual(len({tuple(choices[s].values()) for s in honest + ["copier_a"]}), 21)
        skeleton = make_class.SKELETON.read_text(encoding="utf-8")
        for student in make_class.UNTOUCHED:
            self.assertEqual(self.text(student), skeleton)
        for student in honest + ["copier_a"]:
            self.assertNotEqual(self.text(student), skeleton)
            self.assertNotIn("  return 0;\n}", self.text(student))  # the stub of TODO(1) replaced
        # copier_b: copier_a's code with its helpers and variables renamed and whole functions moved.
        a, b = self.text("copier_a"), self.text("copier_b")
        for old, new in (("value_or_zero", "load_or_zero"), ("fold_half", "halve_step"),
                         ("gather_items", "fetch_chunk"), ("launch_grid_stride", "run_grid_stride"),
                         ("partial_sums", "sums_smem")):
            self.assertIn(old, a)
            self.assertNotIn(old, b)
            self.assertIn(new, b)
        self.assertNotIn(".val", b)  # threadIdx.x is not a local variable
        for first, second in (("void block_sum_interleaved(", "void block_sum_sequential("),
                              ("value, Min<float>)", "value, Max<float>)"), ("void warp_sums(", "void block_sum_shuffle(")):
            self.assertLess(a.index(first), a.index(second))
            self.assertGreater(b.index(first), b.index(second), f"copier_b: {second} was not moved before {first}")

    def test_the_copy_ranks_first_and_is_flagged(self):
        top = self.pairs[0]
        self.assertEqual((top.a, top.b), COPY)
        self.assertTrue(similarity_report.flagged(top, similarity_report.THRESHOLD))
        self.assertGreaterEqual(top.similarity, 80.0)
        self.assertIn("similarity: 04-reductions: 24 files, 1 pair(s) at 50 % or more; highest copier_a and copier_b",
                      self.said[0])

    def test_no_honest_pair_and_no_skeleton_pair_is_flagged(self):
        flagged = [(p.a, p.b) for p in self.others() if similarity_report.flagged(p, similarity_report.THRESHOLD)]
        self.assertEqual(flagged, [])
        highest = max(self.others(), key=lambda p: p.similarity)
        self.assertLess(highest.similarity, similarity_report.HONEST_MAX,
                        f"{highest.a} and {highest.b}: {highest.similarity:.1f} %")
        self.assertLess(similarity_report.HONEST_MAX, similarity_report.THRESHOLD)
        for p in self.pairs:
            if p.a in make_class.UNTOUCHED or p.b in make_class.UNTOUCHED:
                self.assertEqual(p.runs, [], f"{p.a} and {p.b}")
                self.assertFalse(similarity_report.flagged(p, 0.0))
        both = next(p for p in self.pairs if (p.a, p.b) == make_class.UNTOUCHED)
        self.assertEqual((both.similarity, both.tokens), (0.0, (0, 0)))

    def test_csv_and_html_name_the_copy(self):
        with open(self.out / "similarity.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(self.pairs))
        self.assertEqual((rows[0]["lab"], rows[0]["student_a"], rows[0]["student_b"], rows[0]["flagged"]),
                         (LAB, "copier_a", "copier_b", "yes"))
        self.assertEqual([r for r in rows[1:] if r["flagged"] != "no"], [])
        page = (self.out / "similarity.html").read_text(encoding="utf-8")
        self.assertIn("<td>copier_a</td><td>copier_b</td>", page)
        self.assertIn("1. copier_a and copier_b:", page)
        # Both sides' fragments: copier_a's helper and copier_b's renamed one.
        copy = page.split("1. copier_a and copier_b:")[1].split("<h3")[0]
        self.assertIn("value_or_zero(const int* data", copy)
        self.assertIn("load_or_zero(const int* ptr", copy)

    def test_cli(self):
        out = self.tmp / "cli-report"
        result = cli(self.submissions, "04", "--out", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("copier_a and copier_b:", result.stdout)
        self.assertTrue((out / "similarity.html").is_file())
        unknown = cli(self.submissions, "99-nothing", "--out", self.tmp / "unknown")
        self.assertNotEqual(unknown.returncode, 0)
        self.assertIn("unknown lab '99-nothing'", unknown.stderr)
        self.assertFalse((self.tmp / "unknown").exists())

    def test_cli_without_sim_says_what_to_install(self):
        # A PATH that holds python3 and nothing else: no sim_c++.
        bin_dir = self.tmp / "bin"
        bin_dir.mkdir(exist_ok=True)
        if not (bin_dir / "python3").exists():
            (bin_dir / "python3").symlink_to(sys.executable)
        env = dict(os.environ, PATH=str(bin_dir))
        result = cli(self.submissions, "04", "--out", self.tmp / "no-sim", env=env)
        self.assertEqual(result.returncode, similarity_report.MISSING, result.stderr)
        self.assertIn("sim_c++ not found", result.stderr)
        self.assertIn("apt-get install similarity-tester", result.stderr)
        self.assertIn("./workbook setup --instructor", result.stderr)


class Pieces(unittest.TestCase):
    """The own part and the shares, on small made-up files."""

    SKELETON = ["int f(int a) {", "  // TODO(1)", "  return 0;", "}", "", "int g(int x) {", "  int y = x + 1;",
                "  y = y * 2;", "  return y;", "}", "", "int h(int a, int b) {", "  // TODO(2)", "}"]

    def test_moved_skeleton_functions_are_not_own_code(self):
        # f moved after g: g's lines match in order, f's first line and g's block do not.
        student = ["int g(int x) {", "  int y = x + 1;", "  y = y * 2;", "  return y;", "}", "", "int f(int a) {",
                   "  int mine = 42;", "  return mine;", "}", "", "int h(int a, int b) {", "  while (true) {}", "}"]
        part = similarity_report.own_part("s", "\n".join(student), self.SKELETON, "goto asm")
        self.assertEqual(part.lines, ["  int mine = 42;", "  return mine;", "}", "goto asm", "  while (true) {}"])
        self.assertEqual(part.origin, [8, 9, 10, 13, 13])
        self.assertEqual(part.mark_lines, {4})
        self.assertEqual(part.student_lines(4, 5), (13, 13))  # a run from a bit of the mark on
        self.assertEqual(part.student_lines(1, 4), (8, 10))
        self.assertEqual(part.weights(), [5, 3, 1, 0, 6])
        self.assertEqual(part.marks, 1)
        # h moved first: difflib keeps f's and g's lines in order; h's first line is the skeleton's.
        student = ["int h(int a, int b) {", "  while (true) {}", "}", "int f(int a) {", "  int mine = 42;", "}",
                   "int g(int x) {", "  int y = x + 1;", "  y = y * 2;", "  return y;", "}"]
        part = similarity_report.own_part("s", "\n".join(student), self.SKELETON)
        self.assertEqual(part.lines, ["  while (true) {}", "}", "  int mine = 42;"])
        self.assertEqual(part.marks, 0)  # no mark without one

    def test_marks_differ_between_students(self):
        marks = [similarity_report.mark_for(i, 100) for i in range(100)]
        self.assertEqual(len(set(marks)), 100)
        self.assertEqual({len(m.split()) for m in marks}, {3})

    def test_a_stretch_in_two_runs_counts_once(self):
        weights = [10] * 10
        # Lines 1-4 of one side are in two runs (the other side holds them twice), 40 tokens each.
        self.assertEqual(similarity_report.covered([(1, 4, 40), (1, 4, 40)], weights), 40)
        self.assertEqual(similarity_report.covered([(1, 4, 40), (5, 6, 20)], weights), 60)
        self.assertEqual(similarity_report.covered([(1, 4, 40), (3, 6, 40)], weights), 60)


if __name__ == "__main__":
    if not shutil.which(similarity_report.TOOL):
        message = (f"similarity_report_test: {similarity_report.TOOL} (Debian's similarity-tester) is not installed: "
                   "install it with ./workbook setup --instructor or sudo apt-get install similarity-tester")
        if os.environ.get("WORKBOOK_REQUIRE_SIMILARITY") == "1":
            print(message + " (WORKBOOK_REQUIRE_SIMILARITY=1: a failure)", file=sys.stderr)
            sys.exit(1)
        print(message + "; skipped", file=sys.stderr)
        sys.exit(SKIP)
    unittest.main()
