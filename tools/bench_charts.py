#!/usr/bin/env python3
"""Charts of `./workbook bench --all`: one per table of each lab's experiment.

    python3 tools/bench_charts.py DIR        (DIR = build/bench/solution, say)

DIR holds what `./workbook bench --all` left there: for each lab, LAB.txt (the
experiment's output, whose first line names the GPU) and LAB.csv (the rows the
experiment recorded through workbook/bench_csv.hpp: lab, table,
implementation, n, median_ms, min_ms, max_ms, samples, rate, unit). For every
(lab, table) with at least two sizes, this writes LAB-TABLE.csv in the format
of tools/charts.py (rate against n, one line per implementation, the rates of
the slowest and the fastest sample as the spread) and draws LAB-TABLE.svg
from it. The row workbook::copy_bandwidth_gbps() records (table "roof") is no
chart of its own: it is the roof, a horizontal line, of every chart of that
lab in GB/s. `./workbook bench --all --student` leaves the reference's rows
and the student's (their implementations named "yours: ...") in one LAB.csv,
so both draw as lines of one chart. Copy a chart and its CSV into labs/LAB/figures/ to show it in the
handout (make_figures.py then keeps the SVG in step with the CSV).

matplotlib is needed for the SVGs (Debian: python3-matplotlib); without it
the chart CSVs are still written and the missing package is named.
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_figures  # noqa: E402  (find_chart_python, CHARTS)

ROOF_TABLE = "roof"  # the row workbook::copy_bandwidth_gbps() records
BENCH_COLUMNS = ["lab", "table", "implementation", "n", "median_ms", "min_ms", "max_ms", "samples", "rate", "unit"]


def gpu_of(folder: Path, lab: str) -> str:
    """The GPU the experiment named on its first line ("GPU: NVIDIA H100 ..., compute capability ...")."""
    output = folder / f"{lab}.txt"
    if output.exists():
        for line in output.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("GPU: "):
                return line[len("GPU: "):].split(",")[0].split(" (")[0].strip()
    return "unknown GPU"


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != BENCH_COLUMNS:
            raise ValueError(f"{path.name}: not a bench CSV (columns {reader.fieldnames})")
        return list(reader)


def chart_text(lab: str, table: str, rows: list[dict[str, str]], gpu: str, roof: float | None = None) -> str | None:
    """The charts.py CSV of one table, or None when it has fewer than two sizes.

    roof: the measured copy bandwidth in GB/s, drawn on the chart when its unit is GB/s.
    """
    if len({row["n"] for row in rows}) < 2:
        return None
    unit = rows[0]["unit"]
    lines = [f"# title: {lab}, {table}: {unit} against n",
             f"# source: ./workbook bench --all, {gpu}",
             "# x: n", f"# y: {unit} (bars: slowest and fastest sample)", "# xscale: log2"]
    if roof is not None and unit == "GB/s":
        lines.append(f"# roof: {roof:.1f} copy bandwidth")
    lines.append("series,x,y,ylo,yhi")
    for row in rows:
        rate, median = float(row["rate"]), float(row["median_ms"])
        low = rate * median / float(row["max_ms"]) if float(row["max_ms"]) > 0 else rate
        high = rate * median / float(row["min_ms"]) if float(row["min_ms"]) > 0 else rate
        name = row["implementation"].replace('"', "'")
        lines.append(f'"{name}",{row["n"]},{rate:.6g},{low:.6g},{high:.6g}')
    return "\n".join(lines) + "\n"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    chart_python = make_figures.find_chart_python()
    written = drawn = 0
    for path in sorted(folder.glob("*.csv")):
        if "-" in path.stem and not (folder / f"{path.stem}.txt").exists():
            continue  # a chart CSV this script wrote earlier, not a lab's rows
        rows = read_rows(path)
        tables: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in rows:
            tables[row["table"]].append(row)
        # The first measurement of the copy bandwidth (the reference's, where
        # the student's run measured it too).
        roofs = tables.pop(ROOF_TABLE, [])
        roof = float(roofs[0]["rate"]) if roofs else None
        for table, table_rows in tables.items():
            text = chart_text(path.stem, table, table_rows, gpu_of(folder, path.stem), roof)
            if text is None:
                continue
            chart = folder / f"{path.stem}-{slug(table)}.csv"
            chart.write_text(text, encoding="utf-8")
            written += 1
            if chart_python is None:
                continue
            result = subprocess.run([chart_python, str(make_figures.CHARTS), str(chart)], capture_output=True,
                                    text=True)
            if result.returncode != 0:
                print(f"bench_charts: {chart.name}: {result.stderr.strip()}", file=sys.stderr)
                return 1
            chart.with_suffix(".svg").write_text(result.stdout, encoding="utf-8")
            drawn += 1
            print(f"wrote {chart.with_suffix('.svg')}")
    if chart_python is None:
        print(f"bench_charts: {make_figures.MATPLOTLIB_MISSING}")
    print(f"bench_charts: {written} charts' data in {folder}, {drawn} drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
