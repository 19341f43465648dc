#!/usr/bin/env python3
"""Draw one chart of a handout from the measured CSV beside it, as SVG on stdout.

    python3 tools/charts.py labs/02-abc/figures/blocks-per-sm.csv > blocks-per-sm.svg

tools/make_figures.py calls this for every labs/NN-name/figures/*.csv (it
renders the Graphviz diagrams the same way), so the SVGs are committed beside
their data and checked against it. The CSV holds what a run of the project
printed, with the run named in its header:

    # title: a*b+c, grid-stride loop: bandwidth against blocks per SM
    # source: ./workbook bench abc --solution, NVIDIA H100 80GB HBM3
    # x: blocks of 256 threads per SM
    # y: GB/s
    # xscale: log2            (optional: the x values are powers of two)
    # roof: 2982 copy bandwidth  (optional: a horizontal line, its value and label)
    # kind: bars              (optional: a bar per point instead of lines)
    # yscale: log             (optional: a logarithmic y axis, for ratios)
    # xticks: 1=Fermi; 2=Kepler  (optional: names for the x values, for bars)
    # legend: below           (optional: the legend under the axes, off the data)
    series,x,y
    grid-stride loop,1,1014
    ...

One line per series, markers at the measured points. Two more columns,
series,x,y,ylo,yhi, draw each point's spread as an error bar (the rates of
the slowest and the fastest sample, say). The output is
reproducible (no date, fixed ids, text kept as text), so the same matplotlib
gives the same bytes.
"""
from __future__ import annotations

import csv
import io
import math
import sys
from pathlib import Path

HEADER_KEYS = ("title", "source", "x", "y", "xscale", "roof", "kind", "yscale", "xticks", "legend")


class ChartError(Exception):
    """The CSV cannot be drawn (a missing key, a bad number)."""


def read_chart(
    path: Path,
) -> tuple[dict[str, str], dict[str, list[tuple[float, ...]]], dict[str, list[str]]]:
    """The header's keys, each series' (x, y) or (x, y, ylo, yhi) points, and each series' y as the
    file writes it ("1.00", for bar labels that keep the handout's digits), in file order."""
    header: dict[str, str] = {}
    rows: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            key = key.strip()
            if key not in HEADER_KEYS:
                raise ChartError(f"{path.name}:{number}: unknown key '{key}' (known: {', '.join(HEADER_KEYS)})")
            header[key] = value.strip()
        elif line.strip():
            rows.append(line)
    for key in ("title", "source", "x", "y"):
        if key not in header:
            raise ChartError(f"{path.name}: the header has no '# {key}:' line")
    series: dict[str, list[tuple[float, ...]]] = {}
    written_ys: dict[str, list[str]] = {}
    reader = csv.DictReader(io.StringIO("\n".join(rows)))
    columns = ["series", "x", "y"] if reader.fieldnames == ["series", "x", "y"] else ["series", "x", "y", "ylo", "yhi"]
    if reader.fieldnames != columns:
        raise ChartError(f"{path.name}: the columns must be series,x,y or series,x,y,ylo,yhi, got {reader.fieldnames}")
    for row in reader:
        try:
            point = tuple(float(row[column]) for column in columns[1:])
        except (TypeError, ValueError) as error:
            raise ChartError(f"{path.name}: a row that is not series,x,y numbers: {row}") from error
        series.setdefault(row["series"], []).append(point)
        written_ys.setdefault(row["series"], []).append(row["y"].strip())
    if not series:
        raise ChartError(f"{path.name}: no data rows")
    return header, series, written_ys


def _parse_tick(path: Path, item: str) -> tuple[float, str]:
    """One "X=name" of '# xticks:'."""
    value, _, name = item.partition("=")
    try:
        return float(value), name.strip()
    except ValueError as error:
        raise ChartError(f"{path.name}: '# xticks:' wants X=name; X=name; ..., got '{item.strip()}'") from error


def draw(path: Path) -> str:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    matplotlib.rcParams.update({"svg.hashsalt": "workbook", "svg.fonttype": "none", "font.size": 10})
    header, series, written_ys = read_chart(path)
    figure, axes = plt.subplots(figsize=(7.0, 4.0))
    bars = header.get("kind") == "bars"
    for name, points in series.items():
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        if bars:
            drawn = axes.bar(xs, ys, width=0.6, label=name)
            # Each bar carries its y as the CSV writes it, so "1.00" keeps the digits the handout quotes.
            axes.bar_label(drawn, labels=written_ys[name], fontsize=9, padding=2)
        elif len(points[0]) == 4:
            below = [p[1] - p[2] for p in points]
            above = [p[3] - p[1] for p in points]
            axes.errorbar(xs, ys, yerr=[below, above], marker="o", capsize=3, label=name)
        else:
            axes.plot(xs, ys, marker="o", label=name)
    roof = 0.0
    if "roof" in header:
        value, _, label = header["roof"].partition(" ")
        try:
            roof = float(value)
        except ValueError as error:
            raise ChartError(f"{path.name}: '# roof:' must start with a number, got '{header['roof']}'") from error
        axes.axhline(roof, color="black", linestyle="--", linewidth=1)
        axes.annotate(f"{label or 'roof'} ({value})", xy=(0.01, roof), xycoords=("axes fraction", "data"),
                      xytext=(0, 3), textcoords="offset points", fontsize=9)
    if header.get("xscale") == "log2":
        axes.set_xscale("log", base=2)
        # Ticks at the measured x only: 2^k for sizes, the number itself below 1024.
        ticks = sorted({p[0] for points in series.values() for p in points})
        axes.set_xticks(ticks, [f"2^{round(math.log2(x))}" if x >= 1024 else f"{x:g}" for x in ticks])
        axes.minorticks_off()
    if "xticks" in header:
        ticks = dict(_parse_tick(path, item) for item in header["xticks"].split(";") if item.strip())
        axes.set_xticks(list(ticks), list(ticks.values()))
    highest = max([p[-1] for points in series.values() for p in points] + [roof])
    if header.get("yscale") == "log":
        # The low end of each point's bar (ylo), so that no sample's range runs off the axis.
        lowest = min([p[2] if len(p) == 4 else p[1] for points in series.values() for p in points] +
                     ([roof] if roof else []))
        axes.set_yscale("log")
        axes.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
        axes.set_ylim(lowest / 2, highest * 2)
    else:
        axes.set_ylim(0, highest * 1.15)
    axes.set_xlabel(header["x"])
    axes.set_ylabel(header["y"])
    axes.set_title(header["title"])
    axes.grid(True, linewidth=0.3)
    if header.get("legend") == "below":
        axes.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=len(series))
    else:
        axes.legend(fontsize=9)
    figure.text(0.01, 0.01, f"Source: {header['source']}", fontsize=7, color="dimgray")
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    plt.close(figure)
    text = "\n".join(line.rstrip() for line in out.getvalue().replace("\r\n", "\n").split("\n"))
    note = (f"<!-- Drawn from {path.name} by tools/charts.py (tools/make_figures.py): "
            "edit the .csv, not this file. -->")
    lines = text.rstrip("\n").split("\n")
    at = 1 if lines and lines[0].startswith("<?xml") else 0
    lines.insert(at, note)
    return "\n".join(lines) + "\n"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        sys.stdout.write(draw(Path(sys.argv[1])))
    except ChartError as error:
        print(f"charts: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
