#!/usr/bin/env bash
# A compiler launcher for the project's end-to-end tests (lib.sh's
# reuse_main_build sets it as CMAKE_CXX_COMPILER_LAUNCHER and
# CMAKE_CUDA_COMPILER_LAUNCHER): the fresh build that such a test makes (a
# Gradescope package's, a grade-batch worker's) takes an object file from the
# project's own build, WORKBOOK_TEST_MAIN_BUILD (built before ctest runs),
# instead of compiling it again, when that object is what this compile would
# produce:
#   - the main build compiled the same object path with the same command, the
#     build and source folders aside, and no define (-D) names a folder that
#     differs (this build's, or this copy's of the tree);
#   - every file the compile reads (the compiler lists them: -M) is, in the
#     main tree, no newer than the main build's object and, when the test
#     builds a copy of the tree, byte for byte the file of this copy.
# Anything else is compiled as usual, here. The student files never come
# here: their targets have a launcher of their own (the sandbox). This saves
# those tests compiling the grader and the test harness again, minutes on two
# cores. WORKBOOK_TEST_REUSE_LOG, if set, gets one line per compile.
#
#   reuse_main_build.sh COMPILER ARGS...   (as CMake calls a launcher)
[[ -n "${WORKBOOK_TEST_MAIN_BUILD:-}" ]] || exec "$@"
exec python3 - "$@" <<'PY'
import filecmp
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

argv = sys.argv[1:]


def cache_value(build, name):
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace") as cache:
            for line in cache:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].rstrip("\n")
    except OSError:
        pass
    return None


def option(args, flag):
    index = args.index(flag)
    return args[index + 1]


def without_depfile_options(args):
    """The command less -MD, -MT X and -MF X (not in compile_commands.json)."""
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("-MT", "-MF"):
            skip = True
        elif arg != "-MD":
            out.append(arg)
    return out


def depfile_inputs(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        text = handle.read().replace("\\\n", " ")
    _, _, inputs = text.partition(": ")
    return [name.replace("\\ ", " ") for name in re.split(r"(?<!\\)\s+", inputs.strip()) if name]


def reuse():
    """Copies the main build's object and writes the depfile; returns why not, or None."""
    main = os.environ["WORKBOOK_TEST_MAIN_BUILD"]
    try:
        out, depfile = option(argv, "-o"), option(argv, "-MF")
    except (ValueError, IndexError):
        return "not a compile with -o and -MF"
    if os.path.isabs(out):
        return "an absolute object path"
    here_build, main_build = cache_value(".", "CMAKE_CACHEFILE_DIR"), cache_value(main, "CMAKE_CACHEFILE_DIR")
    here_source, main_source = cache_value(".", "CMAKE_HOME_DIRECTORY"), cache_value(main, "CMAKE_HOME_DIRECTORY")
    if not (here_build and main_build and here_source and main_source) or here_build == main_build:
        return "no main build to take it from"
    moves = {here_build: main_build, here_source: main_source}
    pattern = re.compile("|".join(re.escape(p) for p in sorted(moves, key=len, reverse=True)))
    ours = without_depfile_options(argv)
    moved = [pattern.sub(lambda m: moves[m.group(0)], arg) for arg in ours]
    if any(arg.startswith("-D") and arg != theirs_arg for arg, theirs_arg in zip(ours, moved)):
        return "a define names this build's or this tree's folder"
    theirs = None
    with open(os.path.join(main_build, "compile_commands.json"), encoding="utf-8") as handle:
        for entry in json.load(handle):
            command = shlex.split(entry["command"])
            if "-o" in command and command[command.index("-o") + 1] == out:
                theirs = command
                break
    if theirs is None:
        return "the main build has no such object"
    if moved != theirs:
        return "another command"
    main_object = os.path.join(main_build, out)
    if not os.path.isfile(main_object):
        return "the main build's object is missing"
    built = os.stat(main_object).st_mtime_ns
    # The files the compile reads, as the compiler lists them: the same
    # command, preprocessing only, writes the depfile ninja expects.
    listing = [arg for arg in ours if arg != "-c"]
    del listing[listing.index("-o"):listing.index("-o") + 2]
    if subprocess.run(listing + ["-M", "-MT", out, "-MF", depfile], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        return "the compiler could not list its inputs"
    for name in depfile_inputs(depfile):
        path = os.path.normpath(os.path.join(here_build, name))
        if path.startswith(here_build + os.sep):
            return f"it reads a file of the build folder ({name})"
        theirs_path = main_source + path[len(here_source):] if path.startswith(here_source + os.sep) else path
        try:
            if os.stat(theirs_path).st_mtime_ns > built:
                return f"{theirs_path} changed since the main build compiled it"
        except OSError:
            return f"{theirs_path} is missing"
        if theirs_path != path and not filecmp.cmp(path, theirs_path, shallow=False):
            return f"{name} differs from {theirs_path}"
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    shutil.copyfile(main_object, out)
    return None


def note(line):
    log = os.environ.get("WORKBOOK_TEST_REUSE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


try:
    why = reuse()
except Exception as error:  # a compile is never lost to this shortcut
    why = f"error: {error!r}"
if why is None:
    note(f"reused {option(argv, '-o')}")
    sys.exit(0)
out = argv[argv.index("-o") + 1] if "-o" in argv[:-1] else "?"
note(f"compiled {out}: {why}")
os.execvp(argv[0], argv)
PY
