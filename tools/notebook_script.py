#!/usr/bin/env python3
"""Check the Colab notebook, and turn it into a plain Python script that runs anywhere.

    python3 tools/notebook_script.py [NOTEBOOK] [--check]
    python3 tools/notebook_script.py [NOTEBOOK] --emit-script [OUT.py] [--edit-file FILE.cu]
    python3 tools/notebook_script.py --self-test

NOTEBOOK defaults to colab/workbook.ipynb. The project does not run Colab: it
tests the notebook by checking it (--check, the default) and by running the
script that --emit-script writes (to OUT.py, or to standard output) on a Linux
machine with an NVIDIA GPU, taking the course from a zip made by ./workbook pack
(WORKBOOK_ZIP stands for the upload), e.g. from the repository's folder:

    ./workbook pack /tmp/course.zip && python3 tools/notebook_script.py --emit-script > /tmp/nb.py && WORKBOOK_ZIP=/tmp/course.zip python3 /tmp/nb.py

The script unpacks the course into ./cuda-workbook (or WORKBOOK_DIR), builds and
grades lab 01 (or WORKBOOK_LAB). WORKBOOK_NOTEBOOK_STOP_BEFORE=N stops it, with
exit status 0, where the notebook's step N begins (its heading "## N. ..."):
e.g. 4 stops once the course is unpacked and its lab found, before any build.

The check (--check) refuses a notebook unless
  - it is valid JSON with nbformat 4, a metadata object and a list of cells;
  - every cell has the keys its type requires (code: cell_type, metadata,
    source, outputs, execution_count; markdown and raw: cell_type, metadata,
    source; with nbformat_minor >= 5 also a unique id) and no key the format
    does not know;
  - no outputs are stored (every code cell: outputs [] and execution_count null);
  - every code cell is Python once translated as below (it is compiled);
  - a cell that calls files.upload or files.download (google.colab) carries
    the tag "colab-only" in its metadata;
  - no cell holds a placeholder that a student would have to invent a value
    for, such as ORG/REPO or <repository URL> (PLACEHOLDERS below): a student
    has no address to put there;
  - where the nbformat package is installed, its own validator agrees.

The translation of IPython's syntax into plain Python, kept small on purpose:
  - A line `!command` (at any indentation, e.g. inside an `if`) becomes
    `_nb_sh(f"command")`: `{expression}` is substituted as in an f-string, which
    is what IPython does for `{expression}` in a shell line. The script runs the
    command with bash and stops (SystemExit) when it fails; IPython would carry
    on. `$` is refused in `!` lines (IPython would substitute Python variables
    for `$name`, the shell its own: write `{name}` for a Python value, or use
    subprocess), and so are `!!`, a trailing backslash and every other magic
    (`%cd`, `%pip`, ...).
  - A cell whose first line is `%%bash` becomes `_nb_bash("its body")`: bash
    runs the body, and a failure stops the script (IPython raises too).
  - A cell whose first line is `%%writefile [-a|--append] PATH` becomes
    `_nb_writefile(f"PATH", "its body")`: the body is written to PATH (appended
    with -a), with a final newline added if it has none; `{expression}` in PATH
    is substituted as in a `!` line.
  - Markdown cells become comments; a heading (`## 3. Install ...`) is also
    printed, so that the script's log says which step it is in (and where
    WORKBOOK_NOTEBOOK_STOP_BEFORE stops it).

--emit-script [OUT.py] writes the code cells in order, translated, as one script,
to OUT.py, or to standard output without it (the check's line then goes to
standard error).
A cell tagged "colab-only" runs only where `import google.colab` works; elsewhere
the script prints that it skipped it. The script passes its environment on to
every command (WORKBOOK_GTEST_SOURCE, WORKBOOK_NO_INSTALL, CUDACXX, ...).
--edit-file FILE.cu (with --emit-script) puts FILE.cu in place of the body of
the cell tagged "workbook-edit" (the %%writefile cell where a student pastes
their lab file) and turns on `WRITE_MY_FILE = True`, so that the script grades
that file: the way to test the notebook's edit path without a browser.

--self-test checks that the check refuses broken notebooks (stored output, a
missing key, a syntax error, `$` in a shell line, an untagged upload cell, a
placeholder), that the translation gives the expected Python, and that
WORKBOOK_NOTEBOOK_STOP_BEFORE stops an emitted script where it should.
"""
import argparse
import copy
import io
import json
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NOTEBOOK = ROOT / "colab" / "workbook.ipynb"

# The keys nbformat 4 allows in each kind of cell (required ones first).
REQUIRED_KEYS = {
    "code": {"cell_type", "metadata", "source", "outputs", "execution_count"},
    "markdown": {"cell_type", "metadata", "source"},
    "raw": {"cell_type", "metadata", "source"},
}
OPTIONAL_KEYS = {"code": {"id"}, "markdown": {"id", "attachments"}, "raw": {"id", "attachments"}}
COLAB_ONLY_TAG = "colab-only"
EDIT_TAG = "workbook-edit"
WRITE_FLAG_OFF = "WRITE_MY_FILE = False"
COLAB_CALL = re.compile(r"\bfiles\.(upload|download)\s*\(")
# Placeholders a student cannot fill in: an address of a repository they were never given.
PLACEHOLDERS = [
    re.compile(r"\b(?:ORG|OWNER|USER|USERNAME|ACCOUNT)/(?:REPO|REPOSITORY|PROJECT)\b"),
    re.compile(r"(?i)\byour[-_]?(?:org|organi[sz]ation|user|username|account|name)/"),
    re.compile(r"<[^<>\n]*\b(?:URL|url|repository|repo)\b[^<>\n]*>"),
]


class NotebookError(Exception):
    """The notebook cannot be translated; the message says where and why."""


def cell_source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def cell_tags(cell):
    metadata = cell.get("metadata")
    tags = metadata.get("tags", []) if isinstance(metadata, dict) else []
    return tags if isinstance(tags, list) else []


def shell_line(command, indent, where):
    """`!command` -> `_nb_sh(f"command")`, or NotebookError when it is outside the subset."""
    if command.startswith("!"):
        raise NotebookError(f"{where}: '!!' is not supported; use '!' (or subprocess)")
    if "$" in command:
        raise NotebookError(f"{where}: '$' in a shell line: IPython would put a Python variable there, "
                            "the script the shell's; write {name} for a Python value")
    if command.rstrip().endswith("\\"):
        raise NotebookError(f"{where}: a shell line may not continue on the next line")
    if not command.strip():
        raise NotebookError(f"{where}: '!' without a command")
    return f"{indent}_nb_sh(f{command.strip()!r})"


def translate_cell(source, where):
    """The plain Python for one code cell's source (see the module's docstring)."""
    lines = source.split("\n")
    first = lines[0].strip()
    body = "\n".join(lines[1:])
    if first.startswith("%%"):
        words = first[2:].split()
        magic = words[0] if words else ""
        if magic == "bash" and len(words) == 1:
            return f"_nb_bash({body!r})"
        if magic == "writefile":
            arguments = words[1:]
            append = bool(arguments) and arguments[0] in ("-a", "--append")
            if append:
                arguments = arguments[1:]
            if len(arguments) != 1:
                raise NotebookError(f"{where}: %%writefile takes one path (and -a), got {' '.join(words[1:])!r}")
            if "$" in arguments[0]:
                raise NotebookError(f"{where}: '$' in the %%writefile path; write {{name}} for a Python value")
            return f"_nb_writefile(f{arguments[0]!r}, {body!r}, append={append})"
        raise NotebookError(f"{where}: the cell magic {first!r} is not supported (only %%bash and %%writefile)")
    out = []
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if stripped.startswith("!"):
            out.append(shell_line(stripped[1:], indent, f"{where}, line {number}"))
        elif stripped.startswith("%"):
            raise NotebookError(f"{where}, line {number}: the magic {stripped.split()[0]!r} is not supported "
                                "(only '!' lines, %%bash and %%writefile cells)")
        else:
            out.append(line)
    return "\n".join(out)


def check_notebook(notebook, name="the notebook"):
    """Every problem found, as a list of messages (empty: the notebook is valid)."""
    problems = []
    if not isinstance(notebook, dict):
        return [f"{name}: the top level is not a JSON object"]
    if notebook.get("nbformat") != 4:
        problems.append(f"{name}: nbformat is {notebook.get('nbformat')!r}, not 4")
    minor = notebook.get("nbformat_minor")
    if not isinstance(minor, int) or minor < 0:
        problems.append(f"{name}: nbformat_minor is {minor!r}, not a non-negative integer")
        minor = 0
    if not isinstance(notebook.get("metadata"), dict):
        problems.append(f"{name}: no metadata object")
    extra = set(notebook) - {"nbformat", "nbformat_minor", "metadata", "cells"}
    if extra:
        problems.append(f"{name}: unknown top-level keys {sorted(extra)}")
    cells = notebook.get("cells")
    if not isinstance(cells, list) or not cells:
        return problems + [f"{name}: no list of cells"]
    ids = set()
    for index, cell in enumerate(cells):
        where = f"cell {index}"
        if not isinstance(cell, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        kind = cell.get("cell_type")
        if kind not in REQUIRED_KEYS:
            problems.append(f"{where}: cell_type {kind!r} is none of code, markdown, raw")
            continue
        where = f"cell {index} ({kind})"
        required = REQUIRED_KEYS[kind] | ({"id"} if minor >= 5 else set())
        missing = required - set(cell)
        if missing:
            problems.append(f"{where}: missing {sorted(missing)}")
        unknown = set(cell) - REQUIRED_KEYS[kind] - OPTIONAL_KEYS[kind]
        if unknown:
            problems.append(f"{where}: keys nbformat 4 does not know: {sorted(unknown)}")
        if "id" in cell:
            if not isinstance(cell["id"], str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", cell["id"]):
                problems.append(f"{where}: id {cell['id']!r} is not 1-64 letters, digits, '-' or '_'")
            elif cell["id"] in ids:
                problems.append(f"{where}: id {cell['id']!r} is used twice")
            ids.add(cell.get("id"))
        if not isinstance(cell.get("metadata", {}), dict):
            problems.append(f"{where}: metadata is not an object")
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
            problems.append(f"{where}: source is neither a string nor a list of strings")
            continue
        for pattern in PLACEHOLDERS:
            for found in pattern.finditer(cell_source(cell)):
                problems.append(f"{where}: the placeholder {found.group(0)!r}: a student has no value to put there. "
                                "Take the course from the zip (./workbook pack) or an empty setting instead")
        if kind != "code":
            continue
        if cell.get("outputs") != []:
            problems.append(f"{where}: stored outputs (clear them: Edit > Clear all outputs)")
        if cell.get("execution_count") is not None:
            problems.append(f"{where}: execution_count is {cell.get('execution_count')!r}, not null")
        text = cell_source(cell)
        try:
            code = translate_cell(text, where)
            compile(code, where, "exec")
        except NotebookError as error:
            problems.append(str(error))
        except SyntaxError as error:
            problems.append(f"{where}, line {error.lineno}: not Python once translated: {error.msg}")
        if COLAB_CALL.search(text) and COLAB_ONLY_TAG not in cell_tags(cell):
            problems.append(f"{where}: calls files.upload/download but is not tagged {COLAB_ONLY_TAG!r}")
    if not problems:
        try:
            import nbformat  # optional: its JSON schema, where installed
        except ImportError:
            pass
        else:
            try:
                nbformat.validate(nbformat.from_dict(copy.deepcopy(notebook)))
            except nbformat.ValidationError as error:
                problems.append(f"{name}: nbformat's validator: {str(error).splitlines()[0]}")
    return problems


def load(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(f"{path}: cannot read it ({error})") from error
    except json.JSONDecodeError as error:
        raise NotebookError(f"{path}: not valid JSON ({error})") from error


def has_multiline_string(code):
    """Whether a string literal spans lines (indenting the code would change it)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.STRING and token.start[0] != token.end[0]:
                return True
    except (tokenize.TokenError, SyntaxError):
        return True
    return False


PRELUDE = '''\
#!/usr/bin/env python3
# Written by tools/notebook_script.py from {notebook}: the notebook's code cells in
# order, IPython's '!' lines and %%bash / %%writefile cells turned into the
# helpers below (see that tool's docstring). Do not edit it: edit the notebook and
# write it again. Cells tagged "colab-only" run only where google.colab imports.
import os as _nb_os
import subprocess as _nb_subprocess
import sys as _nb_sys

_nb_sys.stdout.reconfigure(line_buffering=True)  # prints and commands' output in order in a log


def _nb_sh(command):
    """A notebook '!' line: run it with bash; stop the script when it fails."""
    print("$ " + command, flush=True)
    status = _nb_subprocess.run(command, shell=True, executable="/bin/bash").returncode
    if status != 0:
        raise SystemExit(f"notebook script: '{{command}}' failed with exit status {{status}}")


def _nb_bash(script):
    """A %%bash cell: run its body with bash; stop the script when it fails."""
    status = _nb_subprocess.run(["bash", "-c", script]).returncode
    if status != 0:
        raise SystemExit(f"notebook script: a %%bash cell failed with exit status {{status}}")


def _nb_writefile(path, text, append=False):
    """A %%writefile cell."""
    if not text.endswith("\\n"):
        text += "\\n"
    with open(path, "a" if append else "w", encoding="utf-8") as handle:
        handle.write(text)
    print(("Appended to " if append else "Writing ") + path, flush=True)


def _nb_step(heading):
    """A markdown heading: printed; WORKBOOK_NOTEBOOK_STOP_BEFORE=N stops the script at step N's ("## N. ...")."""
    print("=== " + heading + " ===", flush=True)
    stop = _nb_os.environ.get("WORKBOOK_NOTEBOOK_STOP_BEFORE", "").strip()
    if stop and heading.split(" ", 1)[0] == stop + ".":
        print(f"notebook script: stopped before step {{stop}} (WORKBOOK_NOTEBOOK_STOP_BEFORE={{stop}})", flush=True)
        raise SystemExit(0)


def _nb_on_colab():
    try:
        import google.colab  # noqa: F401
    except ImportError:
        return False
    return True
'''


def emit_script(notebook, source_name, edit_file=None):
    """The notebook as one Python script (a string)."""
    cells = notebook["cells"]
    if edit_file is not None:
        cells = copy.deepcopy(cells)
        edits = [cell for cell in cells if cell["cell_type"] == "code" and EDIT_TAG in cell_tags(cell)]
        flags = [cell for cell in cells if cell["cell_type"] == "code"
                 and any(line.strip() == WRITE_FLAG_OFF for line in cell_source(cell).split("\n"))]
        if len(edits) != 1 or len(flags) != 1:
            raise NotebookError(f"--edit-file needs one cell tagged {EDIT_TAG!r} and one line "
                                f"'{WRITE_FLAG_OFF}'; found {len(edits)} and {len(flags)}")
        first = cell_source(edits[0]).split("\n")[0]
        if not first.startswith("%%writefile"):
            raise NotebookError(f"the cell tagged {EDIT_TAG!r} is not a %%writefile cell")
        edits[0]["source"] = first + "\n" + Path(edit_file).read_text(encoding="utf-8")
        flags[0]["source"] = "\n".join(
            line.replace(WRITE_FLAG_OFF, "WRITE_MY_FILE = True") if line.strip() == WRITE_FLAG_OFF else line
            for line in cell_source(flags[0]).split("\n"))
    parts = [PRELUDE.format(notebook=source_name)]
    for index, cell in enumerate(cells):
        text = cell_source(cell)
        if cell["cell_type"] == "markdown":
            parts.append("\n".join("# " + line if line else "#" for line in text.rstrip("\n").split("\n")))
            for line in text.split("\n"):
                if re.match(r"#{1,3} ", line):
                    parts.append(f"_nb_step({line.lstrip('#').strip()!r})")
            continue
        if cell["cell_type"] != "code":
            continue
        code = translate_cell(text, f"cell {index}").rstrip("\n")
        header = f"# ---- cell {index} ----"
        if COLAB_ONLY_TAG in cell_tags(cell):
            skipped = f"print('(cell {index} is for Colab only: skipped, google.colab is not importable here)')"
            if has_multiline_string(code):
                body = f"    exec(compile({code!r}, 'cell {index}', 'exec'), globals())"
            else:
                body = "\n".join("    " + line if line.strip() else "" for line in code.split("\n"))
            code = f"if _nb_on_colab():\n{body}\nelse:\n    {skipped}"
        parts.append(header + "\n" + code)
    script = "\n\n".join(parts) + "\n"
    compile(script, "the emitted script", "exec")
    return script


def self_test():
    """The check refuses what it should, and the translation is the documented one."""
    good = load(DEFAULT_NOTEBOOK)
    failures = []
    problems = check_notebook(good, str(DEFAULT_NOTEBOOK))
    if problems:
        failures.append("the notebook itself fails the check: " + "; ".join(problems))

    def code_cells(notebook):
        return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]

    def broken(change):
        notebook = copy.deepcopy(good)
        change(notebook)
        return notebook

    cases = {
        "a stored output": (lambda nb: code_cells(nb)[0].__setitem__(
            "outputs", [{"output_type": "stream", "name": "stdout", "text": "hi"}]), "stored outputs"),
        "an execution count": (lambda nb: code_cells(nb)[0].__setitem__("execution_count", 3), "execution_count"),
        "a missing key": (lambda nb: code_cells(nb)[0].pop("outputs"), "missing ['outputs']"),
        "nbformat 3": (lambda nb: nb.__setitem__("nbformat", 3), "not 4"),
        "a syntax error": (lambda nb: code_cells(nb)[0].__setitem__("source", "if True\n    pass\n"),
                           "not Python"),
        "'$' in a shell line": (lambda nb: code_cells(nb)[0].__setitem__("source", "!echo $HOME\n"), "'$'"),
        "an unknown magic": (lambda nb: code_cells(nb)[0].__setitem__("source", "%cd /tmp\n"), "not supported"),
        "an untagged upload cell": (lambda nb: code_cells(nb)[0].update(
            source="from google.colab import files\nfiles.upload()\n", metadata={}), "colab-only"),
        "a duplicate id": (lambda nb: nb.update(nbformat_minor=5, cells=[
            dict(cell, id="same") for cell in nb["cells"]]), "used twice"),
        "ORG/REPO in a code cell": (lambda nb: code_cells(nb)[0].__setitem__(
            "source", 'REPO_URL = "https://github.com/ORG/REPO.git"\n'), "placeholder 'ORG/REPO'"),
        "<repository URL> in a markdown cell": (lambda nb: nb["cells"][0].__setitem__(
            "source", "git clone <repository URL> cuda-workbook\n"), "placeholder '<repository URL>'"),
    }
    for name, (change, expected) in cases.items():
        found = check_notebook(broken(change))
        if not any(expected in problem for problem in found):
            failures.append(f"the check missed {name} (expected a message with {expected!r}, got {found})")

    translations = {
        "!nvidia-smi": '_nb_sh(f"nvidia-smi")',
        "if x:\n    !ls {path}\n": 'if x:\n    _nb_sh(f"ls {path}")\n',
        "%%bash\nset -e\necho hi": "_nb_bash('set -e\\necho hi')",
        "%%writefile -a {name}.cu\nint x;": "_nb_writefile(f'{name}.cu', 'int x;', append=True)",
    }
    for source, expected in translations.items():
        got = translate_cell(source, "test")
        if got.replace("'", '"') != expected.replace("'", '"'):
            failures.append(f"translating {source!r} gave {got!r}, expected {expected!r}")
    script = emit_script(good, "colab/workbook.ipynb")
    if "if _nb_on_colab():" not in script:
        failures.append("the emitted script does not guard the Colab-only cells")
    # WORKBOOK_NOTEBOOK_STOP_BEFORE=2 stops a script at "## 2. ...": step 1's cell ran, step 2's did not.
    tiny = {"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "## 1. First\n"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "print('ran 1')\n"},
        {"cell_type": "markdown", "metadata": {}, "source": "## 2. Second\n"},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": "print('ran 2')\n"}]}
    import os
    import subprocess
    for stop, expected in (("2", ["ran 1", "stopped before step 2"]), ("", ["ran 1", "ran 2"])):
        done = subprocess.run([sys.executable, "-c", emit_script(tiny, "tiny")], capture_output=True, text=True,
                              env=dict(os.environ, WORKBOOK_NOTEBOOK_STOP_BEFORE=stop))
        missing = [text for text in expected if text not in done.stdout]
        if done.returncode != 0 or missing or (stop and "ran 2" in done.stdout):
            failures.append(f"WORKBOOK_NOTEBOOK_STOP_BEFORE={stop!r}: exit status {done.returncode}, "
                            f"output {done.stdout!r} {done.stderr!r}")
    for failure in failures:
        print("self-test: " + failure, file=sys.stderr)
    if failures:
        return 1
    print(f"self-test: the check refused all {len(cases)} broken notebooks; "
          f"{len(translations)} translations as documented; WORKBOOK_NOTEBOOK_STOP_BEFORE stops where it should")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook", nargs="?", default=str(DEFAULT_NOTEBOOK), help="default: colab/workbook.ipynb")
    parser.add_argument("--check", action="store_true", help="only check the notebook (the default)")
    parser.add_argument("--emit-script", metavar="OUT.py", nargs="?", const="-",
                        help="write the notebook as one Python script, to OUT.py or (without it) to standard output")
    parser.add_argument("--edit-file", metavar="FILE.cu",
                        help="with --emit-script: FILE.cu as the edit cell's body, and WRITE_MY_FILE = True")
    parser.add_argument("--self-test", action="store_true", help="check that the check catches broken notebooks")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.edit_file and not args.emit_script:
        parser.error("--edit-file goes with --emit-script")
    if args.edit_file and not Path(args.edit_file).is_file():
        parser.error(f"--edit-file {args.edit_file}: no such file")
    try:
        notebook = load(args.notebook)
        problems = check_notebook(notebook, args.notebook)
        if problems:
            for problem in problems:
                print(f"{args.notebook}: {problem}" if not problem.startswith(args.notebook) else problem,
                      file=sys.stderr)
            print(f"notebook_script: {args.notebook} is not valid ({len(problems)} problem(s))", file=sys.stderr)
            return 1
        code_count = sum(1 for cell in notebook["cells"] if cell["cell_type"] == "code")
        to_stdout = args.emit_script == "-"
        print(f"{args.notebook}: valid nbformat {notebook['nbformat']}.{notebook['nbformat_minor']}, "
              f"{len(notebook['cells'])} cells ({code_count} code), no outputs",
              file=sys.stderr if to_stdout else sys.stdout)
        if args.emit_script:
            name = Path(args.notebook).resolve()
            try:
                name = name.relative_to(ROOT)
            except ValueError:
                pass
            script = emit_script(notebook, str(name), args.edit_file)
            if to_stdout:
                sys.stdout.write(script)
                return 0
            out = Path(args.emit_script)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(script, encoding="utf-8")
            out.chmod(0o755)
            print(f"Wrote {out}" + (f" (the edit cell holds {args.edit_file}, WRITE_MY_FILE = True)"
                                    if args.edit_file else ""))
    except NotebookError as error:
        print(f"notebook_script: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
