#!/usr/bin/env python3
"""Build the documentation site: Doxygen (API) -> Breathe -> Sphinx (HTML).

    python3 tools/build_docs.py [--out DIR] [--student] [--install] [--setup-only] [--skip-if-missing]

Writes DIR/html (default build/default/docs/html) with warnings as errors
(Sphinx -W; every Doxygen warning is a Sphinx warning, see
docs/_ext/workbook_docs.py). Used by ./workbook docs, by the CMake target
`docs`, and by the ctest `docs_site_builds` (./workbook test).

--student builds the site for a class: no walkthroughs of the reference
solutions and no solution code (Sphinx's tag "student"; a tree without
solutions/, as tools/release_student_tree.sh makes, gets it by itself).

Missing tools: one line says which Debian/Ubuntu packages to install.
--install installs them with apt-get on Debian/Ubuntu, as root or through sudo
(after saying what it installs); --setup-only does only that.
--skip-if-missing exits 77 (ctest's "skipped") instead of 1, after printing
"Skipped the docs site: ...", unless WORKBOOK_REQUIRE_DOCS=1 (CI).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["doxygen", "graphviz", "python3-sphinx", "python3-breathe", "furo",
            "python3-myst-parser", "python3-sphinx-copybutton", "python3-matplotlib"]
# Python module -> Debian package.
MODULES = {"sphinx": "python3-sphinx", "breathe": "python3-breathe", "myst_parser": "python3-myst-parser",
           "furo": "furo", "sphinx_copybutton": "python3-sphinx-copybutton",
           # The handouts' charts (tools/charts.py, checked by tools/make_figures.py).
           "matplotlib": "python3-matplotlib"}
SKIP = 77


def sphinx_python():
    """The interpreter of Debian's /usr/bin/sphinx-build (it sees the Debian
    packages; a python3 earlier on PATH, e.g. pyenv's, may not)."""
    for candidate in ("/usr/bin/sphinx-build", shutil.which("sphinx-build")):
        if candidate and os.path.exists(candidate):
            with open(candidate, "rb") as script:
                first = script.readline().decode(errors="replace").strip()
            if first.startswith("#!"):
                interpreter = first[2:].split()
                if interpreter and os.path.basename(interpreter[0]) == "env":
                    interpreter = [shutil.which(interpreter[1]) or interpreter[1]]
                return interpreter[0]
    return None


def missing_packages():
    missing = []
    if not shutil.which("doxygen"):
        missing.append("doxygen")
    if not shutil.which("dot"):
        missing.append("graphviz")
    python = sphinx_python()
    if python is None:
        return missing + list(MODULES.values()), None
    for module, package in MODULES.items():
        probe = subprocess.run([python, "-c", f"import {module}"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            missing.append(package)
    return missing, python


def apt_runner():
    """How to run apt-get here: [] as root, ["sudo"] where sudo works (on a
    terminal it may ask for a password), None where packages cannot be installed."""
    if os.environ.get("WORKBOOK_NO_INSTALL") == "1" or shutil.which("apt-get") is None:
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") is None:
        return None
    if sys.stdin.isatty() or subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo"]
    return None


def install(runner, packages):
    prefix = " ".join(runner + [""]) if runner else ""
    print(f"workbook: the docs site needs {' '.join(packages)}; installing with: "
          f"{prefix}apt-get install {' '.join(packages)}", file=sys.stderr, flush=True)
    try:
        subprocess.run(runner + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(runner + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq",
                                 "--no-install-recommends", *packages], check=True)
    except subprocess.CalledProcessError as error:
        print(f"workbook: installing failed ({error}); see apt-get's message above", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "build" / "default" / "docs"),
                        help="output folder; the site goes to OUT/html (default: build/default/docs)")
    parser.add_argument("--student", action="store_true",
                        help="a site for students: no walkthroughs, no solution code")
    parser.add_argument("--install", action="store_true",
                        help="install missing Debian/Ubuntu packages with apt-get (as root)")
    parser.add_argument("--setup-only", action="store_true",
                        help="install what is missing (as --install), build nothing; exit 1 if still missing")
    parser.add_argument("--skip-if-missing", action="store_true",
                        help="exit 77 (skipped) when the tools are missing")
    parser.add_argument("--source-url", default=os.environ.get("WORKBOOK_SOURCE_URL", ""),
                        help="prefix that turns repository paths into links, e.g. "
                             "https://github.com/ORG/REPO/blob/main/ (default: $WORKBOOK_SOURCE_URL)")
    args = parser.parse_args()

    missing, python = missing_packages()
    runner = apt_runner() if missing and (args.install or args.setup_only) else None
    if runner is not None:
        install(runner, missing)
        missing, python = missing_packages()
    if args.setup_only:
        if missing:
            print(f"workbook: the docs site needs these packages, missing here: {' '.join(missing)}. "
                  f"Install them with:\n  sudo apt-get install {' '.join(missing)}", file=sys.stderr)
            return 1
        return 0
    if missing:
        line = (f"Skipped the docs site: {', '.join(missing)} missing; install with: "
                f"sudo apt-get install {' '.join(missing)}")
        if args.skip_if_missing and os.environ.get("WORKBOOK_REQUIRE_DOCS") != "1":
            print(line)
            return SKIP
        print(f"workbook docs: {', '.join(missing)} missing; install with: sudo apt-get install {' '.join(missing)}",
              file=sys.stderr)
        return 1

    out = Path(args.out).resolve()
    html = out / "html"
    env = dict(os.environ, WORKBOOK_DOXYGEN_DIR=str(out / "doxygen"), WORKBOOK_SOURCE_URL=args.source_url)
    # -n (nitpicky): a reference that resolves nowhere is a warning too, so an
    # API name that renders as plain text fails the build (conf.py lists the
    # few that cannot resolve, and why).
    command = [python, "-m", "sphinx", "-b", "html", "-W", "-n", "--keep-going", "-q", "-E",
               "-d", str(out / "doctrees"), str(ROOT / "docs"), str(html)]
    if args.student:
        command[3:3] = ["-t", "student"]
    if args.student and html.exists():
        # Nothing of an earlier full build (a walkthrough's page, its images) may stay in a student site.
        shutil.rmtree(html)
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env)
    seconds = time.monotonic() - started
    if result.returncode != 0:
        print(f"workbook docs: the site has warnings or errors (above); fix them, warnings are errors.",
              file=sys.stderr)
        return 1
    print(f"Built the docs site in {seconds:.1f} s: open {html / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
