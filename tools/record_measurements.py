#!/usr/bin/env python3
"""Record a run of `./workbook bench --all --solution` as the labs' figures:
the one source every measured number of a handout is quoted from.

    python3 tools/record_measurements.py DIR --date YYYY-MM-DD [LAB ...]
    python3 tools/record_measurements.py --self-test

DIR is what the bench left (build/<preset>/bench/solution/): LAB.txt, the
experiment's printed output (its first line names the GPU), LAB.csv, the
rows it recorded, and LAB-TABLE.csv, the charts' data (tools/bench_charts.py).
For each lab (every lab with a LAB.txt in DIR, or only the LABs named) this
writes, in labs/LAB/figures/:
  - measured.txt: the experiment's output as printed, after one line that
    names the command, the GPU and the date;
  - measured.csv: the recorded rows (columns of workbook/bench_csv.hpp),
    after a `# source:` line with the same;
  - every chart CSV of the lab whose `# title:` matches one of DIR's, replaced
    by DIR's with that source line (make_figures.py then redraws its SVG).
A chart of DIR with no figure of that title is listed, not copied: a handout
shows only the charts its author chose.

tools/check_handouts.py then checks every measured figure a handout, its
walkthrough, its measurements page and its answers quote against these files.
The date is a required argument because the bench output carries none; take
it from the run (the device log's `date -u`). --self-test records a made-up
run into a scratch tree and checks every file it writes (ctest:
recording_measurements_keeps_the_run).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "./workbook bench --all --solution"


def gpu_name(text: str) -> str:
    """ "NVIDIA H200" from the experiment's first line, "GPU: NVIDIA H200, compute ..." or "(132 SMs ...)"."""
    for line in text.splitlines():
        if line.startswith("GPU: "):
            return re.split(r"[,(]", line[len("GPU: "):])[0].strip()
    raise ValueError("no line 'GPU: ...' in the experiment's output")


def title_of(path: Path) -> str | None:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# title:"):
            return line[len("# title:"):].strip()
    return None


# Header lines a handout's author adds to a chart (tools/charts.py) that a run does not write: kept.
KEPT_HEADER_KEYS = ("yscale", "xticks", "kind")


def with_source(chart: str, source: str, existing: str = "") -> str:
    """The run's chart with its source line, and the existing figure's own presentation lines."""
    lines = [f"# source: {source}" if line.startswith("# source:") else line for line in chart.splitlines()]
    keys = {line[2:].split(":")[0] for line in lines if line.startswith("# ")}
    kept = [line for line in existing.splitlines()
            if line.startswith("# ") and line[2:].split(":")[0] in KEPT_HEADER_KEYS and line[2:].split(":")[0] not in keys]
    header_end = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "\n".join(lines[:header_end] + kept + lines[header_end:]) + "\n"


def record_lab(folder: Path, lab: str, date: str, root: Path) -> list[str]:
    figures = root / "labs" / lab / "figures"
    if not figures.parent.is_dir():
        return [f"{lab}: no folder labs/{lab}"]
    output = (folder / f"{lab}.txt").read_text(encoding="utf-8")
    gpu = gpu_name(output)
    source = f"{COMMAND}, {gpu}, {date}"
    figures.mkdir(exist_ok=True)
    (figures / "measured.txt").write_text(f"# recorded: {source}\n{output}", encoding="utf-8")
    notes = [f"{lab}: measured.txt ({gpu}, {date})"]
    rows = folder / f"{lab}.csv"
    if rows.exists():
        (figures / "measured.csv").write_text(f"# source: {source}\n{rows.read_text(encoding='utf-8')}",
                                              encoding="utf-8")
        notes.append(f"{lab}: measured.csv")
    existing = {title_of(path): path for path in figures.glob("*.csv") if path.name != "measured.csv"}
    for chart in sorted(folder.glob(f"{lab}-*.csv")):
        title = title_of(chart)
        target = existing.get(title)
        if target is None:
            notes.append(f"{lab}: chart '{title}' ({chart.name}) is in no figure of the handout; not copied")
            continue
        target.write_text(with_source(chart.read_text(encoding="utf-8"), source, target.read_text(encoding="utf-8")),
                          encoding="utf-8")
        notes.append(f"{lab}: {target.name} <- {chart.name}")
    return notes


def self_test() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        run, root = Path(tmp) / "run", Path(tmp) / "root"
        run.mkdir()
        figures = root / "labs" / "90-lab" / "figures"
        figures.mkdir(parents=True)
        (run / "90-lab.txt").write_text("GPU: NVIDIA H200, compute capability 9.0\n| kernel | 0.2789 |\n", encoding="utf-8")
        (run / "90-lab.csv").write_text("lab,table,implementation,n,median_ms,min_ms,max_ms,samples,rate,unit\n",
                                        encoding="utf-8")
        (run / "90-lab-sweep.csv").write_text("# title: 90-lab, sweep: GB/s against n\n# source: ./workbook bench "
                                              "--all, NVIDIA H200\nseries,x,y\na,1,2\n", encoding="utf-8")
        (run / "90-lab-other.csv").write_text("# title: 90-lab, other: GB/s against n\nseries,x,y\n", encoding="utf-8")
        (figures / "sweep.csv").write_text("# title: 90-lab, sweep: GB/s against n\n# source: old run\n# yscale: log\n"
                                           "series,x,y\n", encoding="utf-8")
        notes = record_lab(run, "90-lab", "2026-11-26", root)
        source = f"{COMMAND}, NVIDIA H200, 2026-11-26"
        measured = (figures / "measured.txt").read_text(encoding="utf-8")
        if measured != f"# recorded: {source}\nGPU: NVIDIA H200, compute capability 9.0\n| kernel | 0.2789 |\n":
            failures.append(f"measured.txt is {measured!r}")
        if not (figures / "measured.csv").read_text(encoding="utf-8").startswith(f"# source: {source}\nlab,table"):
            failures.append("measured.csv does not start with its source line and the columns")
        chart = (figures / "sweep.csv").read_text(encoding="utf-8")
        if f"# source: {source}\n" not in chart or "a,1,2" not in chart or "# yscale: log\n" not in chart:
            failures.append(f"the chart of the same title was not replaced with the run's source (keeping its yscale): {chart!r}")
        if (figures / "other.csv").exists() or not any("not copied" in note for note in notes):
            failures.append("a chart no figure shows was copied, or not reported")
        try:
            gpu_name("no GPU line")
            failures.append("an output without a GPU line was accepted")
        except ValueError:
            pass
    for failure in failures:
        print(f"self-test FAILED: {failure}", file=sys.stderr)
    if not failures:
        print("self-test: a made-up run was recorded with its GPU and date, its chart replaced, the other listed")
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("labs", nargs="*")
    parser.add_argument("--date", required=True, help="the day of the run, YYYY-MM-DD")
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", args.date):
        parser.error(f"--date {args.date}: write the day of the run as YYYY-MM-DD")
    labs = args.labs or sorted(path.stem for path in args.folder.glob("*.txt"))
    if not labs:
        print(f"record_measurements: no LAB.txt in {args.folder}: run {COMMAND} first", file=sys.stderr)
        return 1
    for lab in labs:
        if not (args.folder / f"{lab}.txt").exists():
            print(f"record_measurements: {args.folder}/{lab}.txt not found", file=sys.stderr)
            return 1
        for note in record_lab(args.folder, lab, args.date, args.root):
            print(note)
    print("Now run python3 tools/make_figures.py to redraw the charts.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
