#!/usr/bin/env python3
"""Tests of grade-batch's intake (tools/intake.py): Canvas's bulk download, Gradescope's
export and a folder or zip per student; the layout detected; a lab file under another
name graded loudly, one that matches no lab named with the lab it probably is; and, end
to end through grade_batch.py with a stand-in for ./workbook grade
(WORKBOOK_BATCH_GRADE_COMMAND), identity, submitted_at, late_marker and warnings in each
status.json and the warnings in summary.txt. No GPU, no build: seconds.

    python3 tools/tests/intake_test.py [-v]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import intake  # noqa: E402

# What a student writes: a lab's file, marked so that the stand-in grader can tell it from the skeleton.
def lab_file(base, extra=""):
    return f'// student work\n#include "{base}.cuh"\nnamespace {base} {{\n{extra}}}\n'


# A Canvas "Download Submissions" of five students (Canvas's names: lib/content_zipper.rb):
# doejane hands in hello.cu and abc.cu; smithjohn, late, a resubmitted abc.cu that Canvas
# renamed abc-1.cu; leeann a zip of her repository's labs/ folder; parkmin Abc.cu; kimsu
# reduction.cu (lab 04's file is reductions.cu).
CANVAS = {
    "doejane_12345_678901_hello.cu": lab_file("hello"),
    "doejane_12345_678902_abc.cu": lab_file("abc"),
    "smithjohn_LATE_23456_678903_abc-1.cu": lab_file("abc"),
    "leeann_34567_678904_lab-work.zip": None,  # made by canvas_folder
    "parkmin_45678_678905_Abc.cu": lab_file("abc"),
    "kimsu_56789_678906_reduction.cu": lab_file("reductions"),
}

# Gradescope's submission_metadata.yml as its export writes it (Ruby symbol keys, Psych's
# timestamps, a block scalar and a multi-line quoted scalar closed at column 0 in the
# autograder results, a group submission, a '...' between documents).
METADATA = """---
submission_301:
  :submitters:
  - :name: Jane Doe
    :sid: '1001'
    :email: jane@example.edu
  :created_at: 2026-03-01 22:15:07.123456000 -08:00
  :score: 0.0
  :status: processed
  :results:
    score: 0.0
    output: |-
      The autograder failed to run.
      See the instructor.
    tests:
    - name: Submission check
      output: 'Don''t worry about this test, it checks that you submitted the
        right files.

'
      status: passed
  :history: []
...
submission_302:
  :submitters:
  - :name: Bo Li
    :sid: 1002
    :email: bo@example.edu
  - :name: Cy Ng
    :sid: '1003'
    :email: cy@example.edu
  :created_at: 2026-03-03 08:00:00.000000000 Z
  :score: 0.0
  :status: processed
submission_303:
  :submitters:
  - :name: Di Wu
    :sid: '1004'
    :email: di@example.edu
  :created_at: 2026-03-01 09:30:00.000000000 Z
  :status: processed
"""

STAND_IN = r'''#!/usr/bin/env python3
# A stand-in for ./workbook grade: 1 point for each graded lab whose student file (as staging
# finds it) is the student's work, 0 for the skeleton or no file.
import json, sys
from pathlib import Path
sys.path.insert(0, "TOOLS")
import stage_submission
args = sys.argv[2:]
labs, options, i = [], {}, 0
while i < len(args):
    if args[i] == "--no-explain":
        i += 1
    elif args[i].startswith("--"):
        options[args[i]] = args[i + 1]
        i += 2
    else:
        labs.append(args[i])
        i += 1
submission = Path(options["--submission"])
chosen = [(f, b) for f, b in stage_submission.labs_of(Path("ROOT")) if b in labs or f in labs]
scores = []
for folder, base in chosen:
    found, note = stage_submission.find_student_file(submission, folder, base)
    ok = found is not None and "student work" in found.read_text()
    print(f"stand-in: {folder}: {note}: {'student work' if ok else 'nothing'}")
    scores.append(1.0 if ok else 0.0)
Path(options["--json"]).write_text(json.dumps({"score": sum(scores), "output": "stand-in", "tests": []}))
Path(options["--junit"]).write_text("<testsuites/>")
Path(options["--csv"]).write_text("student," + ",".join(f for f, _ in chosen) + ",total,max\n" +
    options["--student"] + "," + ",".join(f"{s:.2f}" for s in scores) + f",{sum(scores):.2f},{len(scores):.2f}\n")
'''


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="intake-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def canvas_folder(self, extra=None):
        folder = self.tmp / "canvas"
        folder.mkdir()
        for name, text in {**CANVAS, **(extra or {})}.items():
            if name.endswith(".zip"):
                make_zip(folder / name, {"lab-work/labs/02-abc/abc.cu": lab_file("abc"),
                                         "lab-work/labs/01-hello-world/hello.cu": lab_file("hello"),
                                         "lab-work/README.md": "mine\n"})
            else:
                (folder / name).write_text(text)
        return folder

    def gradescope_folder(self, top="assignment_77_export"):
        base = self.tmp / "gradescope" / top if top else self.tmp / "gradescope"
        (base / "submission_301").mkdir(parents=True)
        (base / "submission_302" / "labs" / "02-abc").mkdir(parents=True)
        (base / "submission_303").mkdir(parents=True)
        (base / "submission_304").mkdir(parents=True)
        (base / "submission_metadata.yml").write_text(METADATA)
        (base / "submission_301" / "abc (1).cu").write_text(lab_file("abc"))
        (base / "submission_302" / "labs" / "02-abc" / "abc.cu").write_text(lab_file("abc"))
        (base / "submission_303" / "hello.cu").write_text(lab_file("hello"))
        (base / "submission_304" / "abc.cu").write_text(lab_file("abc"))
        return self.tmp / "gradescope"

    def zip_of(self, folder, name):
        path = self.tmp / name
        with zipfile.ZipFile(path, "w") as z:
            for file in sorted(folder.rglob("*")):
                if file.is_file():
                    z.write(file, file.relative_to(folder).as_posix())
        return path

    def graded_root(self, entry, labs):
        """The folder grading reads for entry, and the intake's warnings, as grade_one gets them."""
        work = Path(tempfile.mkdtemp(dir=self.tmp))
        root = entry.materialize(work / "unpacked", 100 << 20)
        root, warnings, _ = intake.resolve_lab_files(root, labs, work / "resolved", entry)
        return root, entry.warnings + warnings


class CanvasTest(Base):
    def check_entries(self, found):
        self.assertEqual(found.layout, "canvas")
        self.assertEqual(found.names(), ["doejane", "kimsu", "leeann", "parkmin", "smithjohn"])
        smith = found.get("smithjohn").status_fields()
        self.assertEqual(smith["identity"], {"canvas_id": "23456", "name_key": "smithjohn"})
        self.assertIs(smith["late_marker"], True)
        self.assertIsNone(smith["submitted_at"])
        self.assertIn("no submission time", smith["submitted_at_source"])
        self.assertIs(found.get("doejane").status_fields()["late_marker"], False)
        self.assertEqual(sorted(s.target for s in found.get("doejane").files)[:2], ["abc.cu", "hello.cu"])
        self.assertIn("5 students", found.describe())
        self.assertIn("Canvas's bulk download", found.describe())

    def test_flat_folder_grouped_by_user_id(self):
        folder = self.canvas_folder({"grades.csv": "x\n", "doejane_12345_text.html": "<p>hi</p>"})
        found = intake.find(folder)
        self.check_entries(found)
        self.assertEqual(found.skipped, ["grades.csv"])
        self.assertTrue(any("grades.csv" in w for w in found.warnings))
        self.assertTrue(any("text entry" in w for w in found.get("doejane").warnings))
        self.assertIsNotNone(found.get("doejane").platform["file_time"])

    def test_canvas_zip_reads_as_its_folder(self):
        found = intake.find(self.zip_of(self.canvas_folder(), "submissions.zip"))
        self.check_entries(found)
        self.assertEqual(found.get("leeann").one_args()[1:], ["--intake", "canvas"])
        root, warnings = self.graded_root(found.get("leeann"), ["01-hello-world", "02-abc"])
        self.assertEqual(warnings, [])
        self.assertTrue((root / "labs" / "02-abc" / "abc.cu").is_file(), "the student's zip is unpacked")

    def test_renamed_files_are_graded_loudly_and_unknown_ones_named(self):
        found = intake.find(self.canvas_folder())
        labs = ["01-hello-world", "02-abc", "04-reductions"]
        root, warnings = self.graded_root(found.get("smithjohn"), labs)
        self.assertEqual((root / "labs" / "02-abc" / "abc.cu").read_text(), lab_file("abc"))
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("abc-1.cu", warnings[0])
        self.assertIn("GRADED AS lab 02-abc's abc.cu", warnings[0])
        self.assertIn("'-1' added to the name", warnings[0])
        self.assertIn("smithjohn_LATE_23456_678903_abc-1.cu", warnings[0], "the file as it is in the download")
        root, warnings = self.graded_root(found.get("parkmin"), labs)
        self.assertTrue((root / "labs" / "02-abc" / "abc.cu").is_file())
        self.assertIn("other upper/lower case", warnings[0])
        root, warnings = self.graded_root(found.get("kimsu"), labs)
        self.assertFalse((root / "labs" / "04-reductions" / "reductions.cu").exists())
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("reduction.cu matches no lab's file and was NOT GRADED", warnings[0])
        self.assertIn("probably lab 04-reductions's reductions.cu (it includes reductions.cuh)", warnings[0])
        self.assertIn("rename it to kimsu_56789_678906_reductions.cu (and remove any other)", warnings[0])
        root, warnings = self.graded_root(found.get("doejane"), labs)
        self.assertEqual(warnings, [])

    def test_lab_not_selected_is_not_warned_about(self):
        found = intake.find(self.canvas_folder())
        _, warnings = self.graded_root(found.get("kimsu"), ["02-abc"])
        self.assertEqual(warnings, [])

    def test_same_name_key_made_unique(self):
        folder = self.canvas_folder({"doejane_99999_700000_abc.cu": lab_file("abc")})
        self.assertEqual([n for n in intake.find(folder).names() if n.startswith("doejane")],
                         ["doejane_12345", "doejane_99999"])

    def test_unsafe_zip_inside_canvas_refused(self):
        folder = self.canvas_folder()
        make_zip(folder / "leeann_34567_678904_lab-work.zip", {"abc.cu": "x", "../../escaped.cu": "x"})
        entry = intake.find(folder).get("leeann")
        with self.assertRaises(intake.Refused) as caught:
            entry.materialize(self.tmp / "m" / "unpacked", 100 << 20)
        self.assertIn("has '..' in its path", str(caught.exception))
        self.assertIn("leeann_34567_678904_lab-work.zip", str(caught.exception))
        self.assertFalse((self.tmp / "escaped.cu").exists())

    def test_anonymous_grading(self):
        folder = self.tmp / "anon"
        folder.mkdir()
        (folder / "anon_aB3x9_5_abc.cu").write_text(lab_file("abc"))
        (folder / "LATE_anon_Zq7kP_6_abc.cu").write_text(lab_file("abc"))
        found = intake.find(folder)
        self.assertEqual(found.names(), ["anon_aB3x9", "anon_Zq7kP"])
        self.assertEqual(found.get("anon_Zq7kP").status_fields()["identity"], {"canvas_anonymous_id": "Zq7kP"})
        self.assertIs(found.get("anon_Zq7kP").late_marker, True)


class MisnamedFilesTest(Base):
    def folder(self, files):
        folder = self.tmp / "student"
        for name, text in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text)
        return intake.Entry("student", "folders", self.tmp, path=folder)

    def test_two_renamed_copies_grade_nothing(self):
        entry = self.folder({"abc-1.cu": lab_file("abc"), "abc (1).cu": lab_file("abc")})
        root, warnings = self.graded_root(entry, ["02-abc"])
        self.assertFalse((root / "labs" / "02-abc" / "abc.cu").exists())
        self.assertIn("lab 02-abc was NOT GRADED", warnings[0])
        self.assertIn("student/abc (1).cu, student/abc-1.cu each look like its abc.cu", warnings[0])

    def test_renamed_copy_beside_the_real_file_is_named(self):
        entry = self.folder({"abc.cu": lab_file("abc"), "ABC-2.CU": lab_file("abc")})
        root, warnings = self.graded_root(entry, ["02-abc"])
        self.assertEqual(len(warnings), 1)
        self.assertIn("ABC-2.CU was not graded", warnings[0])
        self.assertIn("abc.cu is there too and was graded", warnings[0])

    def test_guesses_by_name_and_by_content(self):
        entry = self.folder({"my_abc_final.cu": "// nothing to tell\n", "prefix_sum.cu": "int x;\n",
                             "kernels.cu": "void launch_warp_scans(...) {}\nvoid reduce_then_scan(...) {}\n"})
        _, warnings = self.graded_root(entry, ["02-abc", "07-prefix-sum"])
        text = "\n".join(warnings)
        self.assertIn("my_abc_final.cu matches no lab's file and was NOT GRADED; it is probably lab 02-abc's "
                      "abc.cu (its name holds 'abc')", text)
        self.assertIn("prefix_sum.cu matches no lab's file and was NOT GRADED; it is probably lab 07-prefix-sum's "
                      "scan.cu (its name is close to 'prefix_sum')", text)
        self.assertIn("kernels.cu matches no lab's file and was NOT GRADED; it is probably lab 07-prefix-sum's "
                      "scan.cu (it defines 2 of the lab's functions", text)

    def test_a_whole_repository_gives_no_warning(self):
        entry = self.folder({"labs/02-abc/abc.cu": lab_file("abc"), "labs/02-abc/experiment.cu": "x",
                             "labs/02-abc/tests/abc_test.cu": "x", "build/labs/x.cu": "x"})
        root, warnings = self.graded_root(entry, ["02-abc"])
        self.assertEqual(warnings, [])
        self.assertEqual(root, entry.path, "nothing renamed: graded from the folder itself")

    def test_fingerprint_sees_a_renamed_file(self):
        entry = self.folder({"hello.cu": lab_file("hello")})
        before = entry.fingerprint()
        self.assertEqual(before, entry.fingerprint())
        (entry.path / "abc-1.cu").write_text(lab_file("abc"))
        after = entry.fingerprint()
        self.assertNotEqual(before, after)
        (entry.path / "abc-1.cu").rename(entry.path / "abc.cu")
        self.assertNotEqual(after, entry.fingerprint())


class GradescopeTest(Base):
    def check_entries(self, found):
        self.assertEqual(found.layout, "gradescope")
        self.assertEqual(found.names(), ["Bo_Li+Cy_Ng", "Di_Wu", "Jane_Doe", "submission_304"])
        jane = found.get("Jane_Doe").status_fields()
        self.assertEqual(jane["identity"], {"name": "Jane Doe", "sid": "1001", "email": "jane@example.edu"})
        self.assertEqual(jane["submitted_at"], "2026-03-01T22:15:07-08:00")
        self.assertIsNone(jane["late_marker"])
        self.assertEqual(jane["platform"]["status"], "processed")
        group = found.get("Bo_Li+Cy_Ng").status_fields()
        self.assertEqual(group["identity"]["sid"], "1002")
        self.assertEqual([p["sid"] for p in group["platform"]["group"]], ["1002", "1003"])
        self.assertEqual(group["submitted_at"], "2026-03-03T08:00:00+00:00")
        self.assertTrue(any("not in submission_metadata.yml" in w for w in found.get("submission_304").warnings))
        self.assertIn("4 submissions of 5 students", found.describe())

    def test_export_folder(self):
        self.check_entries(intake.find(self.gradescope_folder()))

    def test_export_zip_and_its_files(self):
        found = intake.find(self.zip_of(self.gradescope_folder(top=None), "export.zip"))
        self.check_entries(found)
        root, warnings = self.graded_root(found.get("Jane_Doe"), ["02-abc"])
        self.assertTrue((root / "labs" / "02-abc" / "abc.cu").is_file())
        self.assertIn("submission_301/abc (1).cu in export.zip was GRADED AS lab 02-abc's abc.cu", warnings[0])
        root, warnings = self.graded_root(found.get("Bo_Li+Cy_Ng"), ["02-abc"])
        self.assertTrue((root / "labs" / "02-abc" / "abc.cu").is_file())

    def test_the_small_yaml_reader_reads_what_pyyaml_reads(self):
        without = mock.patch.object(intake, "_pyyaml", side_effect=ImportError("no yaml"))
        with without:
            small = intake.read_metadata(METADATA)
        self.assertEqual(small["submission_301"]["submitters"][0]["name"], "Jane Doe")
        self.assertEqual(small["submission_302"]["submitters"][0]["sid"], "1002")
        self.assertEqual(small["submission_303"]["created_at"], "2026-03-01T09:30:00+00:00")
        try:
            import yaml  # noqa: F401
        except ImportError:
            self.skipTest("PyYAML is not installed: only the small reader was checked")
        self.assertEqual(small, intake.read_metadata(METADATA))
        with without:
            self.check_entries(intake.find(self.gradescope_folder()))

    def test_unsafe_member_refuses_its_student_alone(self):
        path = self.tmp / "export.zip"
        make_zip(path, {"submission_metadata.yml": METADATA, "submission_301/abc.cu": lab_file("abc"),
                        "submission_302/../../escaped.cu": "x", "submission_303/hello.cu": lab_file("hello")})
        found = intake.find(path)
        with self.assertRaises(intake.Refused) as caught:
            found.get("Bo_Li+Cy_Ng").materialize(self.tmp / "m" / "unpacked", 100 << 20)
        self.assertIn("has '..' in its path", str(caught.exception))
        self.graded_root(found.get("Jane_Doe"), ["02-abc"])
        self.assertFalse((self.tmp / "escaped.cu").exists())


class DetectionTest(Base):
    def test_no_student_folder_is_named_as_an_output(self):
        import grade_batch
        self.assertLessEqual(set(grade_batch.RESERVED_NAMES), set(intake.OUTPUT_NAMES))
        self.assertEqual(intake.unique_names([("feedback", "7"), ("ann", "8")], intake.OUTPUT_NAMES),
                         ["feedback_7", "ann"])

    def test_layouts(self):
        folders = self.tmp / "folders"
        (folders / "alice").mkdir(parents=True)
        (folders / "alice" / "hello.cu").write_text(lab_file("hello"))
        make_zip(folders / "bob.zip", {"hello.cu": lab_file("hello")})
        (folders / "notes.txt").write_text("x")
        found = intake.find(folders)
        self.assertEqual((found.layout, found.names(), found.skipped), ("folders", ["alice", "bob"], ["notes.txt"]))
        self.assertEqual(found.get("bob").one_args(), [str(folders / "bob.zip")])
        self.assertIn("one folder or .zip per student: 2 students", found.describe())
        self.assertEqual(intake.find(self.canvas_folder()).layout, "canvas")
        self.assertEqual(intake.find(self.gradescope_folder()).layout, "gradescope")
        self.assertEqual(intake.find(self.gradescope_folder(top=None) / "assignment_77_export").layout, "gradescope")

    def test_forced_layout(self):
        canvas = self.canvas_folder()
        self.assertEqual(intake.find(canvas, "folders").names(), ["leeann_34567_678904_lab-work"])
        with self.assertRaises(intake.IntakeError) as caught:
            intake.find(self.tmp, "canvas")
        self.assertIn("no file is named as in Canvas's bulk download", str(caught.exception))
        with self.assertRaises(intake.IntakeError) as caught:
            intake.find(self.tmp / "nothing")
        self.assertIn("no such folder or zip", str(caught.exception))

    def test_class_zip_of_folders(self):
        path = self.tmp / "class.zip"
        make_zip(path, {"alice/labs/02-abc/abc.cu": lab_file("abc"), "__MACOSX/alice/._abc.cu": "x"})
        found = intake.find(path)
        self.assertEqual((found.layout, found.names()), ("folders", ["alice"]))
        root, _ = self.graded_root(found.get("alice"), ["02-abc"])
        self.assertTrue((root / "labs" / "02-abc" / "abc.cu").is_file())


class EndToEndTest(Base):
    """grade_batch.py batch (and task, as Slurm runs it) with a stand-in for ./workbook grade."""

    def run_batch(self, submissions, out, *extra, command="batch"):
        stand_in = self.tmp / "stand-in"
        stand_in.write_text(STAND_IN.replace("TOOLS", str(ROOT / "tools")).replace('"ROOT"', f'"{ROOT}"'))
        stand_in.chmod(0o755)
        env = dict(os.environ, WORKBOOK_BATCH_GRADE_COMMAND=str(stand_in), CUDA_VISIBLE_DEVICES="")
        env.pop("WORKBOOK_BUILD_TARGET", None)
        result = subprocess.run([sys.executable, str(ROOT / "tools" / "grade_batch.py"), command, str(submissions),
                                 "hello", "abc", "reductions", "--out", str(out),
                                 *(["--build-root", str(self.tmp / "build")] if command == "batch" else
                                   ["--build-dir", str(self.tmp / "build" / "task")]), *extra],
                                env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return result.stdout

    def status(self, out, name):
        return json.loads((out / name / "status.json").read_text())

    def test_canvas_download_end_to_end(self):
        folder = self.canvas_folder({"grades.csv": "x\n"})
        out = self.tmp / "out"
        log = self.run_batch(folder, out)
        first = log.splitlines()[0]
        self.assertIn("intake: Canvas's bulk download", first)
        self.assertIn("5 students", first)
        self.assertIn("WARNING: not named as in Canvas's bulk download", log)
        smith = self.status(out, "smithjohn")
        self.assertEqual(smith["status"], "graded")
        self.assertEqual(smith["scores"]["02-abc"], 1.0, "abc-1.cu was graded as lab 02")
        self.assertEqual(smith["identity"], {"canvas_id": "23456", "name_key": "smithjohn"})
        self.assertIs(smith["late_marker"], True)
        self.assertIn("submitted_at", smith)
        self.assertIsNone(smith["submitted_at"])
        self.assertIn("GRADED AS lab 02-abc's abc.cu", smith["warnings"][0])
        kim = self.status(out, "kimsu")
        self.assertEqual(kim["scores"]["04-reductions"], 0.0, "reduction.cu was not graded")
        self.assertIn("probably lab 04-reductions's reductions.cu", kim["warnings"][0])
        lee = self.status(out, "leeann")
        self.assertEqual((lee["scores"]["01-hello-world"], lee["scores"]["02-abc"]), (1.0, 1.0))
        self.assertEqual(lee["warnings"], [])
        self.assertIs(self.status(out, "doejane")["late_marker"], False)
        summary = (out / "summary.txt").read_text()
        self.assertIn("Intake: Canvas's bulk download", summary)
        self.assertIn("Intake warnings (no student's", summary)
        self.assertIn("grades.csv", summary)
        warnings = summary[summary.index("\nWarnings:"):]
        self.assertIn("smithjohn: smithjohn_LATE_23456_678903_abc-1.cu", warnings)
        self.assertIn("kimsu: kimsu_56789_678906_reduction.cu", warnings)
        self.assertIn("parkmin:", warnings)
        self.assertIn("grade-batch intake: abc-1.cu is graded as labs/02-abc/abc.cu",
                      (out / "smithjohn" / "grade.log").read_text())
        # Resume: nothing again; a renamed file grades that student alone again.
        log = self.run_batch(folder, out)
        self.assertIn("5 graded before", log)
        self.assertNotIn("\n[", log)
        (folder / "kimsu_56789_678906_reduction.cu").rename(folder / "kimsu_56789_678906_reductions.cu")
        log = self.run_batch(folder, out)
        self.assertEqual([line.split(":")[0] for line in log.splitlines() if line.startswith("[")], ["[5/5] kimsu"])
        kim = self.status(out, "kimsu")
        self.assertEqual((kim["scores"]["04-reductions"], kim["warnings"]), (1.0, []))

    def test_gradescope_zip_end_to_end_and_slurm_task(self):
        export = self.zip_of(self.gradescope_folder(top="assignment_77_export"), "export.zip")
        out = self.tmp / "out"
        log = self.run_batch(export, out)
        self.assertIn("intake: Gradescope's submissions export", log.splitlines()[0])
        jane = self.status(out, "Jane_Doe")
        self.assertEqual((jane["submitted_at"], jane["identity"]["email"]), ("2026-03-01T22:15:07-08:00",
                                                                            "jane@example.edu"))
        self.assertEqual(jane["scores"]["02-abc"], 1.0)
        self.assertIn("assignment_77_export/submission_301/abc (1).cu in export.zip was GRADED AS",
                      jane["warnings"][0])
        self.assertEqual(self.status(out, "Bo_Li+Cy_Ng")["scores"]["02-abc"], 1.0)
        self.assertIn("Intake: Gradescope's submissions export", (out / "summary.txt").read_text())
        # The same export graded as one Slurm array task: the same students, the same fields.
        task_out = self.tmp / "task-out"
        self.run_batch(export, task_out, "--index", "0", "--chunk", "10", command="task")
        self.assertEqual(sorted(p.name for p in task_out.iterdir() if (p / "status.json").is_file()),
                         ["Bo_Li+Cy_Ng", "Di_Wu", "Jane_Doe", "submission_304"])
        self.assertEqual(self.status(task_out, "Jane_Doe")["submitted_at"], "2026-03-01T22:15:07-08:00")

    def test_folder_per_student_has_file_times(self):
        folders = self.tmp / "folders"
        (folders / "alice").mkdir(parents=True)
        (folders / "alice" / "hello.cu").write_text(lab_file("hello"))
        os.utime(folders / "alice" / "hello.cu", (1767225600, 1767225600))  # 2026-01-01T00:00:00Z
        out = self.tmp / "out"
        self.run_batch(folders, out)
        alice = self.status(out, "alice")
        self.assertEqual(alice["identity"], {})
        self.assertIsNone(alice["late_marker"])
        self.assertEqual(intake.datetime.datetime.fromisoformat(alice["submitted_at"]).timestamp(), 1767225600)
        self.assertIn("modification time", alice["submitted_at_source"])


if __name__ == "__main__":
    unittest.main()
