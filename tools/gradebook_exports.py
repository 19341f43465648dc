#!/usr/bin/env python3
"""What grade-batch hands on after grading: the roster, the platforms' CSVs, late work, feedback.

Called by grade_batch.gather() (so by every `grade-batch` run and by
`grade-batch --gather OUT`), from the students' OUT/<student>/status.json and
results.json. It writes, into OUT:

    canvas.csv            Canvas's gradebook import layout (needs --roster): Student, ID,
                          SIS User ID, SIS Login ID, Section, then one column per lab
                          ("Lab 01 hello-world") or one --assignment column with the total;
                          a "Points Possible" row; one row per roster student
    gradescope.csv        Gradescope's score upload: Name, SID, Email, Total Score
    feedback/<student>.txt and .html
                          the student's labs, points, tests, speed items and what failed,
                          the late penalty and the reason when not graded; never the seed

and it adds the columns late, penalty and final to gradebook.csv when a
deadline is set, and the sections Roster, Late, Warnings and Exports to
summary.txt. The options (--roster, --assignment, --deadline, --late-penalty,
--late-max-days) are stored in OUT/batch.json under "exports", so that a later
--gather makes the same files; an empty value ("--roster ''") drops a stored
one. See "Grades for Canvas and Gradescope" in docs/instructor-guide.md.

Rules, in short (the guide has them in full):
- A roster is Canvas's gradebook export (Student, ID, SIS User ID, SIS Login ID,
  Section, ...; its "Points Possible" row and Canvas's "Student, Test" are
  skipped) or a plain CSV whose header names some of: name (or first name and
  last name), sid / student id, email, login / username, section; see ALIASES.
  A plain roster's "id" column is the student id; in a Canvas export it is
  Canvas's user id.
- A submission is matched to a roster row by the first key that finds exactly
  one row: its identity's Canvas user id, then SIS id (sid), email, login
  (identity: from the intake, in status.json), then the submission's folder
  name against a row's login, the part of its email before the @, its sid or
  its email. A roster student without a submission, and a submission without
  a roster student, are listed in summary.txt; their cells in the exports are
  EMPTY, never 0 (so is every failed or not graded submission's).
- Late: a submission time after --deadline is late by each started day (24 h)
  after it; --late-penalty P takes P percent of the points per such day;
  beyond --late-max-days D days it scores 0. Without a submission time, a
  submission that Canvas marked LATE is late by an unknown amount and is
  charged one day. The penalty applies to the exported points and to
  gradebook.csv's final column, never to the grader's own total.
"""
import csv
import datetime
import html
import io
import json
import math
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CANVAS_CSV = "canvas.csv"
GRADESCOPE_CSV = "gradescope.csv"
FEEDBACK_DIR = "feedback"
OPTIONS_KEY = "exports"  # the key of batch.json that holds the stored options
OPTION_NAMES = ("roster", "assignment", "deadline", "late_penalty", "late_max_days")
CANVAS_ID_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
GRADESCOPE_COLUMNS = ["Name", "SID", "Email", "Total Score"]
GRADED, FAILED, ERROR = "graded", "failed", "error"  # as in grade_batch

# Roster header aliases: a header cell is lowered, every run of characters other
# than letters and digits becomes one space, then it is looked up here.
ALIASES = {
    "name": ["student", "name", "student name", "full name", "display name", "sortable name"],
    "first": ["first name", "first", "given name", "firstname"],
    "last": ["last name", "last", "surname", "family name", "lastname"],
    "canvas_id": ["canvas id", "canvas user id"],
    "sid": ["sis user id", "sid", "student id", "student number", "sis id", "id number", "studentid"],
    "login": ["sis login id", "login", "login id", "username", "user name", "netid", "net id"],
    "email": ["email", "e mail", "email address", "mail"],
    "section": ["section", "sections", "section name"],
}
KEYS = ("canvas_id", "sid", "email", "login")  # the matching order of the identity's keys
KEY_WORDS = {"canvas_id": "Canvas user ID", "sid": "SID", "email": "email", "login": "login",
             "folder": "folder name"}
SKIPPED_ROSTER_NAMES = {"points possible", "student, test", "test student"}
# Canvas ignores an imported column whose name holds these words (canvas-lms issue 2134 for "final";
# the others are the names of its read-only total columns).
CANVAS_READ_ONLY_WORDS = ("final", "current score", "current points", "unposted")

# The seed the inputs were drawn from: never in what students read. The grader prints
# "seed: hidden" (or, before that change, "seed: N"); its tests' messages say "seed=N".
SEED_PATTERNS = [
    (re.compile(r"((?:\b|_)seed\s*[=:]\s*)-?\d+", re.IGNORECASE), r"\1hidden"),
    (re.compile(r"(--seed(?:\s+|\s*=\s*))-?\d+", re.IGNORECASE), r"\1hidden"),
]


class OptionError(Exception):
    """A bad export option or roster: one line for the instructor, exit status 1."""


# ---------------------------------------------------------------- options

def add_options(parser):
    """The export options of `grade-batch` (also with --gather)."""
    group = parser.add_argument_group(
        "exports and late work (stored in OUT/batch.json; --gather OUT makes the same files again; "
        "an empty value drops a stored option)")
    group.add_argument("--roster", metavar="CSV",
                       help="the class list: Canvas's gradebook export, or a CSV with name, sid / student id, "
                            "email, login columns; maps each submission to a student and makes canvas.csv")
    group.add_argument("--assignment", metavar="NAME",
                       help="canvas.csv gets one column NAME with the total (default: one column per lab, "
                            "'Lab 01 hello-world'); 'NAME (12345)' names Canvas's assignment 12345")
    group.add_argument("--deadline", metavar="ISO8601",
                       help="the deadline, with its zone: 2026-03-01T23:59:00-05:00 (or ...Z for UTC)")
    group.add_argument("--late-penalty", metavar="PERCENT",
                       help="percent of the points taken per started day (24 h) after --deadline (default 0: "
                            "late work is listed, not penalised)")
    group.add_argument("--late-max-days", metavar="DAYS",
                       help="a submission more started days late than this scores 0 (default: no limit)")


def given_options(args):
    """{option: value} of the export options given on the command line ('' drops a stored one)."""
    return {name: getattr(args, name) for name in OPTION_NAMES if getattr(args, name, None) is not None}


def merge_options(stored, given):
    """The stored options updated with the given ones, each checked (OptionError)."""
    merged = dict(stored or {})
    for name, value in (given or {}).items():
        if value == "":
            merged.pop(name, None)
        else:
            merged[name] = check_option(name, value)
    if merged.get("deadline") is None:
        needing = [f"--{name.replace('_', '-')}" for name in ("late_penalty", "late_max_days") if name in merged]
        if needing:
            raise OptionError(f"{' and '.join(needing)} need{'s' if len(needing) == 1 else ''} --deadline "
                              "(the time after which a submission is late), e.g. --deadline 2026-03-01T23:59:00-05:00")
    if (given or {}).get("roster"):
        read_roster(merged["roster"])  # refused now, not after the grading (a stored one: by gather)
    return merged


def check_option(name, value):
    """The value to store for one option, or OptionError saying what to give."""
    if name == "roster":
        path = Path(value).expanduser().resolve()
        if not path.is_file():
            raise OptionError(f"--roster {value}: no such file (give the CSV exported from Canvas's gradebook, "
                              "or a CSV with name, sid, email and login columns)")
        return str(path)
    if name == "assignment":
        text = str(value).strip()
        if not text:
            raise OptionError("--assignment needs a name (the Canvas assignment's, e.g. 'Labs 1-3')")
        return text
    if name == "deadline":
        try:
            parse_time(value)
        except ValueError as e:
            raise OptionError(f"--deadline {value}: {e}")
        return str(value).strip()
    if name == "late_penalty":
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not 0 <= number <= 100 or math.isnan(number):
            raise OptionError(f"--late-penalty {value}: give the percent of the points taken per day late, "
                              "a number from 0 to 100 (e.g. --late-penalty 10)")
        return number
    if name == "late_max_days":
        if not re.fullmatch(r"\d{1,4}", str(value).strip()):
            raise OptionError(f"--late-max-days {value}: give a whole number of days (0: any late "
                              "submission scores 0)")
        return int(value)
    raise OptionError(f"unknown export option {name}")


def batch_fields(out, given, rubric_path=None):
    """What grade-batch adds to OUT/batch.json: the stored export options updated with the given
    ones (checked now: a bad roster is refused before any grading) and the rubric's path."""
    try:
        stored = json.loads((Path(out) / "batch.json").read_text()).get(OPTIONS_KEY, {})
    except (OSError, ValueError, AttributeError):
        stored = {}
    fields = {OPTIONS_KEY: merge_options(stored, given)}
    if rubric_path:
        fields["rubric"] = str(rubric_path)
    return fields


def parse_time(text):
    """An aware datetime from ISO 8601 text with a zone; ValueError says what to give."""
    text = str(text).strip()
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError("not an ISO 8601 time; write it as 2026-03-01T23:59:00-05:00 (or ...Z for UTC)")
    if moment.tzinfo is None:
        raise ValueError("give the time zone too, e.g. 2026-03-01T23:59:00-05:00 or 2026-03-01T23:59:00Z "
                         "(a time without one is ambiguous)")
    return moment


# ---------------------------------------------------------------- roster

class Student:
    """One row of the roster."""

    def __init__(self, line, name="", canvas_id="", sid="", login="", email="", section=""):
        self.line, self.name, self.section = line, name, section
        self.canvas_id, self.sid, self.login, self.email = canvas_id, sid, login, email

    def key(self, which):
        return normal(getattr(self, which))

    def label(self):
        ids = ", ".join(f"{KEY_WORDS[k]} {getattr(self, k)}" for k in KEYS if getattr(self, k))
        return f"{self.name or '(no name)'}" + (f" ({ids})" if ids else "") + f", roster line {self.line}"

    def gradescope_email(self):
        return self.email or (self.login if "@" in self.login else "")


def normal(value):
    return str(value if value is not None else "").strip().casefold()


def header_key(cell):
    return re.sub(r"[^a-z0-9]+", " ", cell.lower()).strip()


def read_text(path):
    data = Path(path).read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")  # Excel on Windows


def read_roster(path):
    """(students, warnings, kind) from a roster CSV; OptionError when it cannot be used."""
    try:
        text = read_text(path)
    except OSError as e:
        raise OptionError(f"--roster {path}: cannot read it ({e.strerror or e}); give the roster's CSV file")
    first = text.splitlines()[0] if text.strip() else ""
    delimiter = max((",", ";", "\t"), key=first.count)
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    while rows and not any(cell.strip() for cell in rows[0]):
        rows.pop(0)
    if not rows:
        raise OptionError(f"--roster {path}: the file is empty; export the class list from Canvas's gradebook "
                          "(Export > CSV) or write one with name, sid, email and login columns")
    header = [header_key(cell) for cell in rows[0]]
    canvas = "student" in header and "id" in header and ("sis user id" in header or "sis login id" in header)
    columns = {}
    for field, names in ALIASES.items():
        for name in names:
            if name in header:
                columns[field] = header.index(name)
                break
    if "id" in header:
        columns.setdefault("canvas_id" if canvas else "sid", header.index("id"))
    if not any(key in columns for key in KEYS):
        raise OptionError(
            f"--roster {path}: its first line ({', '.join(rows[0][:8])}) names no column to match students "
            "by; it needs one of: ID / Canvas user ID, SIS User ID / sid / student id, email, SIS Login ID / "
            "login / username (Canvas's gradebook export has them)")
    students, warnings = [], []
    for number, row in enumerate(rows[1:], start=2):
        def cell(field):
            index = columns.get(field)
            return row[index].strip() if index is not None and index < len(row) else ""
        name = cell("name") or " ".join(part for part in (cell("first"), cell("last")) if part)
        if normal(name) in SKIPPED_ROSTER_NAMES:
            continue  # Canvas's "Points Possible" row and its Student View student
        student = Student(number, name, cell("canvas_id"), cell("sid"), cell("login"), cell("email"),
                          cell("section"))
        if not (name or any(getattr(student, key) for key in KEYS)):
            continue  # a blank line
        if not any(getattr(student, key) for key in KEYS):
            warnings.append(f"roster line {number} ({name}) has no ID, SIS id, email or login, so no submission "
                            "can be matched to it: fill one in")
        students.append(student)
    for key in KEYS:
        seen = {}
        for student in students:
            value = student.key(key)
            if value and value in seen:
                warnings.append(f"roster lines {seen[value].line} and {student.line} have the same "
                                f"{KEY_WORDS[key]} '{getattr(student, key)}': a submission with it is matched "
                                "by another key or not at all; fix the roster")
            seen.setdefault(value, student)
    if not students:
        raise OptionError(f"--roster {path}: no students in it (only a header); export the class list again")
    return students, warnings, "Canvas gradebook export" if canvas else "roster"


def match_students(names, statuses, students):
    """{submission: (Student, how)} for the matched, and warnings (ambiguous keys)."""
    index = {key: {} for key in KEYS}
    for student in students:
        for key in KEYS:
            value = student.key(key)
            if value:
                index[key].setdefault(value, []).append(student)
    folder_index = {}
    for student in students:
        values = {student.key("login"), student.key("sid"), student.key("email")}
        values |= {value.partition("@")[0] for value in values if "@" in value}  # an email's local part
        for value in values - {""}:
            folder_index.setdefault(value, []).append(student)
    matched, warnings = {}, []
    for name in names:
        identity = statuses[name].get("identity") or {}
        if not isinstance(identity, dict):
            identity = {}
        tries = [(key, normal(identity.get(key)), index[key]) for key in KEYS]
        tries.append(("folder", normal(name), folder_index))
        for key, value, table in tries:
            if not value:
                continue
            hits = table.get(value, [])
            if len(hits) == 1:
                matched[name] = (hits[0], key)
                break
            if len(hits) > 1:
                warnings.append(f"{name}: its {KEY_WORDS[key]} '{value}' is on {len(hits)} roster rows (lines "
                                f"{', '.join(str(s.line) for s in hits)}), so it does not decide; fix the roster")
    return matched, warnings


# ---------------------------------------------------------------- late work

class Late:
    """How late one submission is and what it costs."""

    def __init__(self, days=0, seconds=None, unknown=False, percent=0.0, note=""):
        self.days, self.seconds, self.unknown, self.percent, self.note = days, seconds, unknown, percent, note

    def describe(self):
        if self.unknown:
            return "late by an unknown amount (Canvas marked it LATE; there is no submission time), counted as 1 day"
        return f"{duration(self.seconds)} late ({self.days} started day{'s' if self.days != 1 else ''})"


def duration(seconds):
    seconds = int(round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    if hours:
        parts.append(f"{hours} h")
    if minutes:
        parts.append(f"{minutes} min")
    if not (hours or minutes) and (seconds % 60 or not parts):
        parts.append(f"{seconds % 60} s")
    return " ".join(parts)


def lateness(status, policy):
    """(Late or None, a warning or None) for one submission under the policy (None: no --deadline)."""
    marked = status.get("late_marker") is True
    submitted, warning = None, None
    if status.get("submitted_at"):
        try:
            submitted = parse_time(status["submitted_at"])
        except ValueError as e:
            warning = (f"its submission time '{status['submitted_at']}' cannot be read ({e}); "
                       "it is treated as unknown")
    if policy is None:
        return (Late(unknown=True, note="no --deadline: not penalised") if marked else None), warning
    deadline = policy["deadline"]
    if submitted is not None:
        late_by = (submitted - deadline).total_seconds()
        if late_by <= 0:
            if marked:
                warning = ("Canvas marked it LATE, but it was submitted before --deadline "
                           f"({submitted.isoformat()}): not penalised")
            return None, warning
        late = Late(days=math.ceil(late_by / 86400), seconds=late_by)
    elif marked:
        late = Late(days=1, unknown=True)
    else:
        return None, warning
    late.percent = min(100.0, late.days * policy["per_day"])
    if policy["max_days"] is not None and late.days > policy["max_days"]:
        late.percent = 100.0
        late.note = f"more than {policy['max_days']} day{'s' if policy['max_days'] != 1 else ''} late: scores 0"
    return late, warning


def after_penalty(points, percent):
    """The points left after taking percent of them, to the cent."""
    return round(points * (100.0 - percent) / 100.0 + 1e-9, 2)


def policy_text(policy):
    text = f"deadline {policy['text']}; "
    if policy["per_day"]:
        text += f"{fmt_number(policy['per_day'])}% of the points per started day late"
    else:
        text += "no penalty (--late-penalty not given: late work is listed, not penalised)"
    if policy["max_days"] is not None:
        text += f", 0 after {policy['max_days']} day{'s' if policy['max_days'] != 1 else ''}"
    return text


def fmt_number(value):
    return f"{value:g}"


def points(value):
    return f"{value:.2f}"


# ---------------------------------------------------------------- seed, text

def scrub(text):
    """text without the seed: every 'seed: N', 'seed=N', 'WORKBOOK_SEED=N', '--seed N' made 'hidden'."""
    text = "" if text is None else str(text)
    for pattern, replacement in SEED_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def lab_title(lab):
    number, _, name = lab.partition("-")
    return f"Lab {number} {name}" if name else f"Lab {lab}"


def read_json(path):
    """A JSON file's content, or None when it is missing or not JSON."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def write_atomically(path, text):
    """Writes path whole or not at all (a temporary file beside it, then a rename)."""
    path = Path(path)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text)
    os.replace(temp, path)


def csv_text(rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


# ---------------------------------------------------------------- the exports

class Exports:
    """The roster matching, late penalties, exports and feedback of one gather."""

    def __init__(self, out, batch, statuses, labs):
        self.out, self.batch, self.statuses, self.labs = Path(out), batch or {}, statuses, list(labs)
        self.options = dict(self.batch.get(OPTIONS_KEY) or {})
        self.problems = []   # what could not be made, with what to do
        self.warnings = []   # roster and matching warnings
        self.students, self.roster_kind, self.matched = None, None, {}
        if self.options.get("roster"):
            try:
                self.students, roster_warnings, self.roster_kind = read_roster(self.options["roster"])
                self.warnings += roster_warnings
            except OptionError as e:
                self.problems.append(f"{e}; canvas.csv is not made until it can be read: fix it, then run "
                                     f"./workbook grade-batch --gather {self.out} --roster FILE")
        self.policy = None
        if self.options.get("deadline"):
            try:
                self.policy = {"text": self.options["deadline"], "deadline": parse_time(self.options["deadline"]),
                               "per_day": float(self.options.get("late_penalty") or 0.0),
                               "max_days": self.options.get("late_max_days")}
            except ValueError as e:
                self.problems.append(f"the stored deadline '{self.options['deadline']}' cannot be read ({e}): no "
                                     "late penalty is applied; run --gather OUT --deadline ISO8601 to set it")
        self.late, self.late_warnings = {}, {}
        for name, status in statuses.items():
            self.late[name], warning = lateness(status, self.policy)
            if warning:
                self.late_warnings[name] = warning
        if self.students is not None:
            self.matched, warnings = match_students(sorted(statuses), statuses, self.students)
            self.warnings += warnings
        self.by_student = {}
        for name, (student, _) in sorted(self.matched.items()):
            self.by_student.setdefault(id(student), []).append(name)
        self.chosen = {}  # id(student) -> the submission its exported points come from
        for key, names in self.by_student.items():
            self.chosen[key] = max(names, key=lambda n: (self.final(n) if self.final(n) is not None else -1.0,
                                                         str(self.statuses[n].get("submitted_at") or ""), n))
            if len(names) > 1:
                student = self.matched[names[0]][0]
                how = ", ".join(f"{n} by {KEY_WORDS[self.matched[n][1]]}" for n in names)
                self.warnings.append(
                    f"{' and '.join(names)} match the same roster student, {student.label()} ({how}): the "
                    f"exports take {self.chosen[key]} (the higher final points); if that is wrong, remove "
                    f"the other submission's folder from {self.out} (or fix its identity) and run --gather again")

    # ---- points

    def percent(self, name):
        late = self.late.get(name)
        return late.percent if late is not None and self.policy is not None else 0.0

    def final(self, name):
        """The exported total (after the late penalty), or None when it has none."""
        status = self.statuses[name]
        if status.get("status") != GRADED or status.get("total") is None:
            return None
        return after_penalty(float(status["total"]), self.percent(name))

    def final_lab(self, name, lab):
        status = self.statuses[name]
        scores = status.get("scores") or {}
        if status.get("status") != GRADED or lab not in scores:
            return None
        return after_penalty(float(scores[lab]), self.percent(name))

    # ---- gradebook.csv

    def gradebook_header(self):
        return ["late", "penalty", "final"] if self.policy is not None else []

    def gradebook_cells(self, name):
        if self.policy is None:
            return []
        late = self.late.get(name)
        if late is None:
            when = "0"
        elif late.unknown:
            when = "unknown (marked LATE; counted as 1 day)"
        else:
            when = str(late.days)
        final = self.final(name)
        if final is None:
            return [when, "", ""]
        total = float(self.statuses[name]["total"])
        return [when, points(total - final), points(final)]

    # ---- maxima and the rubric

    def rubric(self):
        if not hasattr(self, "_rubric"):
            path = self.batch.get("rubric") or ROOT / "grader" / "rubric.json"
            self._rubric = read_json(path) or read_json(ROOT / "grader" / "rubric.json") or {}
        return self._rubric

    def lab_maxima(self):
        """{lab: its points} from a graded results.json (what was graded), else from the rubric."""
        maxima = {}
        for name in sorted(self.statuses):
            if self.statuses[name].get("status") != GRADED:
                continue
            results = read_json(self.out / name / "results.json") or {}
            found = {}
            for test in results.get("tests", []) if isinstance(results, dict) else []:
                lab, sep, _ = str(test.get("name", "")).partition(": ")
                if sep and lab in self.labs:
                    found[lab] = found.get(lab, 0.0) + float(test.get("max_score") or 0)
            for lab, value in found.items():
                maxima.setdefault(lab, value)
            if all(lab in maxima for lab in self.labs):
                break
        for lab in self.labs:
            if lab not in maxima:
                entry = self.rubric().get("labs", {}).get(lab, {})
                maxima[lab] = sum(float(g.get("points", 0)) for g in entry.get("groups", [])) + \
                    sum(float(s.get("points", 0)) for s in entry.get("speed", []))
        return maxima

    def maximum(self):
        maxima = [s.get("max") for s in self.statuses.values() if s.get("max") is not None]
        if self.batch.get("max") is not None:
            return float(self.batch["max"])
        return float(max(maxima)) if maxima else sum(self.lab_maxima().values())

    def speed_names(self):
        names = set()
        for lab, entry in self.rubric().get("labs", {}).items():
            for item in entry.get("speed", []):
                names.add(f"{lab}: {item.get('name')}")
        return names

    # ---- identities

    def identity(self, name):
        identity = self.statuses[name].get("identity")
        return identity if isinstance(identity, dict) else {}

    def display_name(self, name):
        if name in self.matched and self.matched[name][0].name:
            return self.matched[name][0].name
        return str(self.identity(name).get("name") or name)

    # ---- writing

    def write(self, order):
        """Writes canvas.csv, gradescope.csv and feedback/; returns the summary's added lines."""
        lines = []
        lines += self.roster_lines(order)
        lines += self.late_lines(order)
        lines += self.warning_lines(order)
        exports = []
        exports += self.write_canvas()
        exports += self.write_gradescope(order)
        exports += self.write_feedback(order)
        empty = [n for n in order if self.statuses[n].get("status") != GRADED]
        if empty and (self.students is not None or (self.out / GRADESCOPE_CSV).exists()):
            exports.append(f"  {len(empty)} failed or not graded submission{'s' if len(empty) != 1 else ''} "
                           f"({', '.join(empty)}) {'has' if len(empty) == 1 else 'have'} empty cells, not 0: "
                           "grade again what was not graded, and enter by hand the points of what failed")
        lines.append("Exports:")
        lines += exports
        lines += [f"  {problem}" for problem in self.problems]
        return lines

    def roster_lines(self, order):
        if self.students is None:
            if not self.options.get("roster"):
                return ["Roster: none (--roster CSV maps submissions to students and makes canvas.csv)"]
            return []
        by_key = {}
        for name in order:
            if name in self.matched:
                by_key.setdefault(self.matched[name][1], []).append(name)
        lines = [f"Roster: {self.options['roster']} ({self.roster_kind}): {len(self.students)} students; "
                 f"{len(self.matched)} of {len(order)} submissions matched"
                 + (f" ({', '.join(f'{len(v)} by {KEY_WORDS[k]}' for k, v in sorted(by_key.items()))})"
                    if by_key else "")]
        unmatched = [n for n in order if n not in self.matched]
        if unmatched:
            lines.append(f"Submissions with no roster student ({len(unmatched)}; not in canvas.csv, whose rows "
                         "are the roster's: add them to the roster or fix their identity, then --gather again):")
            for name in unmatched:
                identity = {k: v for k, v in self.identity(name).items() if v}
                known = ", ".join(f"{k} {v}" for k, v in identity.items())
                lines.append(f"  {name}" + (f" ({known})" if known else " (nothing known but the folder name)"))
        missing = [s for s in self.students if id(s) not in self.by_student]
        if missing:
            lines.append(f"Roster students without a submission ({len(missing)}; their cells in canvas.csv and "
                         "gradescope.csv are empty, not 0: give them 0 in Canvas if that is your rule):")
            lines += [f"  {s.label()}" for s in missing]
        return lines

    def late_lines(self, order):
        late = [n for n in order if self.late.get(n) is not None]
        if self.policy is None:
            if not late:
                return []
            return ["Late (Canvas marked these LATE; no --deadline is given, so nothing is taken: give "
                    "--deadline and --late-penalty to apply a policy):"] + [f"  {n}" for n in late]
        lines = [f"Late: {policy_text(self.policy)}"]
        if not late:
            timed = sum(1 for n in order if self.statuses[n].get("submitted_at"))
            lines.append("  no late submission" + ("" if timed else
                         " (no submission has a submission time, from the platform's export or the file's, "
                         "and none is marked LATE: check the intake)"))
            return lines
        for name in late:
            entry = self.late[name]
            line = f"  {name}: {entry.describe()}"
            if self.statuses[name].get("submitted_at") and not entry.unknown:
                line += f", submitted {self.statuses[name]['submitted_at']}"
            line += f": -{fmt_number(entry.percent)}%"
            final = self.final(name)
            if final is not None:
                total = float(self.statuses[name]["total"])
                line += f" ({points(total - final)} points), final {points(final)} of {points(total)}"
            else:
                line += " (not graded: nothing to take yet)"
            if entry.note:
                line += f"; {entry.note}"
            lines.append(line)
        return lines

    def warning_lines(self, order):
        lines = list(self.warnings)
        for name in order:
            lines += [f"{name}: {w}" for w in self.statuses[name].get("warnings") or [] if str(w).strip()]
            if name in self.late_warnings:
                lines.append(f"{name}: {self.late_warnings[name]}")
        return (["Warnings:"] + [f"  {line}" for line in lines]) if lines else []

    def remove_stale(self, filename):
        path = self.out / filename
        if path.exists():
            path.unlink()
            return f" (the older {filename} is removed)"
        return ""

    def write_canvas(self):
        if self.students is None:
            reason = "the roster cannot be read" if self.options.get("roster") else \
                "it needs the roster: run ./workbook grade-batch --gather OUT --roster CSV with the CSV that " \
                "Canvas's gradebook exports (Export > CSV)"
            return [f"  canvas.csv: not made: {reason}{self.remove_stale(CANVAS_CSV)}"]
        assignment = self.options.get("assignment")
        if assignment:
            titles, maxima = [assignment], [self.maximum()]
        else:
            lab_max = self.lab_maxima()
            titles, maxima = [lab_title(lab) for lab in self.labs], [lab_max[lab] for lab in self.labs]
        rows = [CANVAS_ID_COLUMNS + titles, ["Points Possible", "", "", "", ""] + [points(m) for m in maxima]]
        unmatchable = 0
        for student in self.students:
            name = self.chosen.get(id(student))
            if assignment:
                cells = [self.final(name) if name else None]
            else:
                cells = [self.final_lab(name, lab) if name else None for lab in self.labs]
            rows.append([student.name, student.canvas_id, student.sid, student.login, student.section]
                        + ["" if value is None else points(value) for value in cells])
            unmatchable += not (student.canvas_id or student.sid or student.login)
        write_atomically(self.out / CANVAS_CSV, csv_text(rows))
        lines = [f"  canvas.csv: {len(self.students)} rows (the roster's), columns {', '.join(titles)}: in Canvas, "
                 "Grades > Import, then check the preview"]
        if unmatchable:
            lines.append(f"  canvas.csv: {unmatchable} of its rows have no ID, SIS User ID or SIS Login ID, which "
                         "Canvas matches rows by: give the CSV that Canvas's gradebook exports as --roster")
        for title in titles:
            if any(word in title.casefold() for word in CANVAS_READ_ONLY_WORDS):
                lines.append(f"  canvas.csv: Canvas ignores an imported column named like '{title}' (its read-only "
                             "total columns; canvas-lms issue 2134): choose another --assignment name")
        return lines

    def write_gradescope(self, order):
        rows = [GRADESCOPE_COLUMNS]
        left_out = []
        if self.students is not None:
            for student in self.students:
                name = self.chosen.get(id(student))
                final = self.final(name) if name else None
                if student.sid or student.gradescope_email():
                    rows.append([student.name, student.sid, student.gradescope_email(),
                                 "" if final is None else points(final)])
                else:
                    left_out.append(f"{student.name or '(no name)'} (roster line {student.line})")
        for name in order:
            if name in self.matched:
                continue
            identity = self.identity(name)
            email = str(identity.get("email") or "")
            email = email or (str(identity.get("login")) if "@" in str(identity.get("login") or "") else "")
            sid = str(identity.get("sid") or "")
            if not (email or sid):
                left_out.append(name)
                continue
            final = self.final(name)
            rows.append([self.display_name(name), sid, email, "" if final is None else points(final)])
        if len(rows) == 1:
            why = ("no roster student and no submission has an email or SID" if self.students is not None else
                   "it needs each student's email or SID: give --roster CSV (with email or sid columns)")
            return [f"  gradescope.csv: not made: {why}{self.remove_stale(GRADESCOPE_CSV)}"]
        write_atomically(self.out / GRADESCOPE_CSV, csv_text(rows))
        lines = [f"  gradescope.csv: {len(rows) - 1} rows (Total Score after the late penalty): upload it to the "
                 "Gradescope assignment's scores, matching students by Email or SID"]
        if left_out:
            lines.append(f"  gradescope.csv leaves out {', '.join(left_out)}: no email or SID is known, "
                         "which Gradescope matches students by: add them to the roster")
        return lines

    def write_feedback(self, order):
        folder = self.out / FEEDBACK_DIR
        folder.mkdir(exist_ok=True)
        speed = self.speed_names()
        for name in order:
            report = self.feedback(name, speed)
            write_atomically(folder / f"{name}.txt", feedback_text(report))
            write_atomically(folder / f"{name}.html", feedback_html(report))
        return [f"  feedback/: {len(order)} student{'s' if len(order) != 1 else ''}, <student>.txt and .html "
                "(no seed in them): hand each student theirs"]

    # ---- feedback

    def feedback(self, name, speed_names):
        """The facts of one student's feedback, every text scrubbed of the seed."""
        status = self.statuses[name]
        results = read_json(self.out / name / "results.json") if status.get("status") == GRADED else None
        results = results if isinstance(results, dict) else {}
        report = {"student": name, "name": self.display_name(name), "labs": [], "status": status.get("status"),
                  "reason": scrub(status.get("reason") or ""),
                  "notes": [scrub(n) for n in status.get("notes") or []],
                  "warnings": [scrub(w) for w in status.get("warnings") or [] if str(w).strip()],
                  "total": status.get("total"), "max": status.get("max"), "late": None, "final": None,
                  "output": scrub(results.get("output") or "")}
        late = self.late.get(name)
        if late is not None and self.policy is not None:
            text = late.describe()
            if status.get("submitted_at") and not late.unknown:
                text += f": submitted {status['submitted_at']}, deadline {self.policy['text']}"
            text += f"; penalty {fmt_number(late.percent)}% of the points"
            if late.note:
                text += f" ({late.note})"
            report["late"] = scrub(text)
            report["final"] = self.final(name)
        tests = results.get("tests") if isinstance(results.get("tests"), list) else []
        labs = list(status.get("labs") or self.labs)
        for lab in labs:
            entries = []
            for test in tests:
                full = str(test.get("name", ""))
                prefix, sep, short = full.partition(": ")
                if not sep or prefix != lab:
                    continue
                entries.append({"name": scrub(short), "score": float(test.get("score") or 0),
                                "max": float(test.get("max_score") or 0),
                                "passed": test.get("status") == "passed",
                                "speed": full in speed_names,
                                "hidden": test.get("visibility") == "hidden",
                                "output": scrub(test.get("output") or "")})
            scores = status.get("scores") or {}
            report["labs"].append({"lab": lab, "title": lab_title(lab), "entries": entries,
                                   "points": scores.get(lab) if status.get("status") == GRADED else None,
                                   "max": sum(e["max"] for e in entries) if entries else None})
        return report


# ---------------------------------------------------------------- feedback files

def outcome_line(report):
    if report["status"] == GRADED and report["total"] is not None:
        line = f"Points: {points(report['total'])} of {points(report['max'] or 0)}"
        if report["final"] is not None:
            line += f"; after the late penalty: {points(report['final'])} of {points(report['max'] or 0)}"
        return line
    if report["status"] == FAILED:
        return f"Not graded: your submission could not be graded as handed in: {report['reason']}"
    return f"Not graded yet: {report['reason']}"


def entry_groups(lab):
    shown = [e for e in lab["entries"] if not e["hidden"]]
    hidden = [e for e in lab["entries"] if e["hidden"]]
    return ([e for e in shown if not e["speed"]], [e for e in shown if e["speed"]], hidden)


# The intake's warnings are written for the instructor ("ask the student to ..."): the
# student's copy says so, and what it means for them.
WARNINGS_TITLE = ("Warnings about the files you handed in (written for your instructor: a file under "
                  "another name than the lab's was graded or not graded as said here)")


def feedback_text(report):
    lines = [f"Feedback for {report['name']}" + (f" ({report['student']})" if report["name"] != report["student"]
                                                   else ""), "", outcome_line(report)]
    if report["late"]:
        lines.append(f"Late: {report['late']}")
    for title, items in (("Notes", report["notes"]), (WARNINGS_TITLE, report["warnings"])):
        if items:
            lines += ["", f"{title}:"] + [f"  - {item}" for item in items]
    for lab in report["labs"]:
        if not lab["entries"] and lab["points"] is None:
            continue
        lines += ["", f"{lab['title']}" + (f": {points(lab['points'])} of {points(lab['max'] or 0)} points"
                                           if lab["points"] is not None else "")]
        tests, speed, hidden = entry_groups(lab)
        for heading, entries in (("Tests", tests), ("Speed", speed)):
            if not entries:
                continue
            passed = sum(e["passed"] for e in entries)
            lines.append(f"  {heading}: {passed} of {len(entries)} passed")
            for e in entries:
                mark = "passed" if e["passed"] else "FAILED"
                lines.append(f"    [{mark}] {e['name']}: {points(e['score'])} of {points(e['max'])}")
                if e["output"] and (not e["passed"] or e["speed"]):
                    lines += [f"        {line}" for line in e["output"].splitlines()]
        if hidden:
            lines.append(f"  Hidden items: {len(hidden)}, {points(sum(e['score'] for e in hidden))} of "
                         f"{points(sum(e['max'] for e in hidden))} points")
    if report["output"]:
        lines += ["", "The grader's report:", ""] + [f"  {line}" for line in report["output"].splitlines()]
    return "\n".join(lines).rstrip() + "\n"


HTML_STYLE = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}"
              "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;"
              "text-align:left;vertical-align:top}pre{background:#f6f6f6;padding:.5em;overflow-x:auto;"
              "white-space:pre-wrap;margin:.25em 0}.passed{color:#176117}.failed{color:#a31515;font-weight:bold}")


def feedback_html(report):
    e = html.escape
    title = f"Feedback for {report['name']}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{e(title)}</title><style>{HTML_STYLE}</style></head><body>",
             f"<h1>{e(title)}</h1>"]
    if report["name"] != report["student"]:
        parts.append(f"<p>Submission: {e(report['student'])}</p>")
    parts.append(f"<p><strong>{e(outcome_line(report))}</strong></p>")
    if report["late"]:
        parts.append(f"<p>Late: {e(report['late'])}</p>")
    for heading, items in (("Notes", report["notes"]), (WARNINGS_TITLE, report["warnings"])):
        if items:
            parts.append(f"<h2>{heading}</h2><ul>" + "".join(f"<li>{e(i)}</li>" for i in items) + "</ul>")
    for lab in report["labs"]:
        if not lab["entries"] and lab["points"] is None:
            continue
        head = lab["title"] + (f": {points(lab['points'])} of {points(lab['max'] or 0)} points"
                               if lab["points"] is not None else "")
        parts.append(f"<h2>{e(head)}</h2>")
        tests, speed, hidden = entry_groups(lab)
        for heading, entries in (("Tests", tests), ("Speed", speed)):
            if not entries:
                continue
            passed = sum(x["passed"] for x in entries)
            parts.append(f"<h3>{heading}: {passed} of {len(entries)} passed</h3><table>"
                         "<tr><th>Result</th><th>Item</th><th>Points</th><th>Details</th></tr>")
            for x in entries:
                mark = "passed" if x["passed"] else "failed"
                detail = f"<pre>{e(x['output'])}</pre>" if x["output"] and (not x["passed"] or x["speed"]) else ""
                parts.append(f'<tr><td class="{mark}">{mark}</td><td>{e(x["name"])}</td>'
                             f"<td>{points(x['score'])} of {points(x['max'])}</td><td>{detail}</td></tr>")
            parts.append("</table>")
        if hidden:
            parts.append(f"<p>Hidden items: {len(hidden)}, {points(sum(x['score'] for x in hidden))} of "
                         f"{points(sum(x['max'] for x in hidden))} points</p>")
    if report["output"]:
        parts.append(f"<h2>The grader's report</h2><pre>{e(report['output'])}</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
