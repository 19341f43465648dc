#!/usr/bin/env python3
"""Speed targets for the GPU at hand: grade the reference solutions several times and
write a rubric whose targets and floors come from what they reach here.

    ./workbook calibrate [LAB...] [--runs N] [--fraction F] [--out FILE] [--rubric BASE]
    python3 tools/calibrate.py --from RESULTS.json... [LAB...] [options]   (no GPU: rule only)

The rule, per speed item of BASE (default grader/rubric.json):
    lowest = the lowest ratio to the yardstick the reference reached over the N runs
    target = min(BASE's target, round down(F × lowest, 2 decimals))       F = 0.8 by default
    floor  = round down(target × BASE's floor / BASE's target, 2 decimals)
so a target is never raised above BASE's (a faster GPU keeps the course's targets), the
reference keeps a margin of 1/F (1.25 times the target) over its worst run here, and the
floor keeps BASE's proportion to the target (the naive approach stays below it). An item
that no run scored (the reference failed, or the yardstick was disturbed) keeps BASE's
values and is named. The rubric written records the GPU, driver, CUDA version, date, runs
and this rule in its "calibration" object, and each item's "_calibration" says what the
runs measured; the grader prints one line when it grades on another GPU.

It prints each item: BASE's target, the reference's ratios, the new target and floor,
and "MISSED" where the reference's lowest ratio is below BASE's target on this GPU
(those items would cost a correct reference points with BASE's rubric here).

Use the rubric with ./workbook grade --rubric FILE and ./workbook grade-batch --rubric FILE.
The default FILE is grader/rubric-<gpu>.json (the GPU's name in lower case, dashes).
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import grade_batch  # noqa: E402  (resolve_labs: the grader's lab names)
FRACTION = 0.8  # the reference keeps 1 / 0.8 = 1.25 times the target over its worst run
RUNS = 3


class CalibrationError(Exception):
    """Something the instructor must fix: one line."""


def round_down(value: float, decimals: int = 2) -> float:
    scale = 10 ** decimals
    return math.floor(value * scale + 1e-9) / scale


def speed_results(results: dict) -> dict[tuple[str, str], dict]:
    """{(lab, test): extra_data} of the speed items of one results.json."""
    found = {}
    for test in results.get("tests", []):
        extra = test.get("extra_data") or {}
        if "test" in extra and "lab" in extra:
            found[(extra["lab"], extra["test"])] = extra
    return found


def gpu_name(results: dict) -> str:
    """The grading GPU's name from a results.json ("NVIDIA H200, compute capability ..." -> "NVIDIA H200")."""
    described = (results.get("extra_data") or {}).get("gpu", "")
    return described.split(", compute capability")[0].strip()


def new_values(item: dict, ratios: list[float], fraction: float) -> tuple[float, float]:
    target, floor = float(item["target"]), float(item["floor"])
    lowest = min(ratios)
    new_target = min(target, round_down(fraction * lowest))
    new_floor = round_down(new_target * floor / target) if target > 0 else 0.0
    if new_floor >= new_target:
        new_floor = round_down(new_target / 2)
    return new_target, new_floor


def calibrate(base: dict, runs: list[dict], labs: list[str] | None, fraction: float, machine: dict):
    """(the new rubric, lines to print, items missed with BASE's target, items not measured)."""
    rubric = json.loads(json.dumps(base))
    measured = [speed_results(r) for r in runs]
    lines, missed, unmeasured = [], [], []
    header = f"{'lab':<16} {'speed item':<44} {'target':>6}  {'reference (ratios of the runs)':<30} {'new':>5} {'floor':>5}"
    lines += [header, "-" * len(header)]
    for lab, entry in rubric["labs"].items():
        if labs and lab not in labs:
            continue
        for item in entry.get("speed", []):
            ratios = [m[(lab, item["test"])]["ratio"] for m in measured
                      if (lab, item["test"]) in m and m[(lab, item["test"])].get("scored")
                      and m[(lab, item["test"])].get("ratio") is not None]
            old_target, old_floor = item["target"], item["floor"]
            if len(ratios) < len(runs):
                unmeasured.append(f"{lab}: {item['name']}")
                lines.append(f"{lab:<16} {item['name'][:44]:<44} {old_target:>6.2f}  "
                             f"{'not scored in every run: kept':<30} {old_target:>5.2f} {old_floor:>5.2f}")
                continue
            target, floor = new_values(item, ratios, fraction)
            flag = "  MISSED" if min(ratios) < old_target else ""
            if flag:
                missed.append(f"{lab}: {item['name']} (target {old_target:.2f}, the reference's lowest "
                              f"{min(ratios):.3f})")
            shown = ", ".join(f"{r:.3f}" for r in ratios)
            lines.append(f"{lab:<16} {item['name'][:44]:<44} {old_target:>6.2f}  {shown:<30} {target:>5.2f} "
                         f"{floor:>5.2f}{flag}")
            item["target"], item["floor"] = target, floor
            item["_calibration"] = (f"./workbook calibrate on {machine['gpu']}, {machine['date']}: the reference's "
                                    f"ratios over {len(ratios)} runs {shown}; target = min({old_target}, "
                                    f"{fraction} x {min(ratios):.3f} rounded down), floor in {old_target}:"
                                    f"{old_floor}'s proportion. Before: {item.get('_calibration', 'by hand')}")[:2000]
    rubric["calibration"] = {**machine, "runs": len(runs),
                             "rule": f"target = min(the base's target, {fraction} x the reference's lowest ratio over "
                                     "the runs, rounded down to 2 decimals); floor keeps the base's floor:target "
                                     "proportion (tools/calibrate.py)"}
    return rubric, lines, missed, unmeasured


def machine_facts(gpu: str) -> dict:
    facts = {"gpu": gpu, "date": datetime.date.today().isoformat()}
    smi = shutil.which("nvidia-smi")
    if smi:
        out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                             text=True)
        if out.returncode == 0 and out.stdout.strip():
            facts["driver"] = out.stdout.strip().splitlines()[0]
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    if nvcc:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True)
        match = re.search(r"release (\d+\.\d+)", out.stdout)
        if match:
            facts["cuda"] = match.group(1)
    return facts


def grade_runs(count: int, labs: list[str], base: Path, folder: Path) -> list[dict]:
    runs = []
    for index in range(count):
        path = folder / f"run-{index + 1}.json"
        print(f"calibrate: grading the reference solutions, run {index + 1} of {count} ...", flush=True)
        command = [str(ROOT / "workbook"), "grade", "--solutions", "--no-explain", "--color", "never",
                   "--rubric", str(base), "--json", str(path), *labs]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if not path.is_file():
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-8:])
            raise CalibrationError(f"./workbook grade --solutions wrote no results (exit {result.returncode}):\n{tail}")
        runs.append(json.loads(path.read_text(encoding="utf-8")))
    return runs


def slug(gpu: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-") or "gpu"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="./workbook calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("labs", nargs="*", metavar="LAB", help="labs to calibrate (default: every lab with speed items)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"grades of the references (default {RUNS})")
    parser.add_argument("--fraction", type=float, default=FRACTION,
                        help=f"target = this x the reference's lowest ratio (default {FRACTION})")
    parser.add_argument("--rubric", default=str(ROOT / "grader" / "rubric.json"), help="the base rubric")
    parser.add_argument("--out", help="the rubric to write (default: grader/rubric-<gpu>.json)")
    parser.add_argument("--from", dest="from_results", nargs="+", metavar="RESULTS",
                        help="use these results.json of ./workbook grade --solutions instead of grading")
    args = parser.parse_args(argv)
    try:
        if not 0 < args.fraction <= 1:
            raise CalibrationError(f"--fraction must be in (0, 1], got {args.fraction}")
        if args.runs < 1:
            raise CalibrationError(f"--runs must be at least 1, got {args.runs}")
        base_path = Path(args.rubric)
        try:
            base = json.loads(base_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            raise CalibrationError(f"{base_path}: cannot read the base rubric: {error}")
        try:
            labs = [lab for lab in grade_batch.resolve_labs(args.labs) if lab in base["labs"]]
        except grade_batch.BatchError as error:  # the grader's lab names: 4, 04, 04-reductions, reductions
            raise CalibrationError(str(error))
        if args.from_results:
            runs = [json.loads(Path(p).read_text(encoding="utf-8")) for p in args.from_results]
        else:
            with tempfile.TemporaryDirectory(prefix="workbook-calibrate-") as tmp:
                runs = grade_runs(args.runs, args.labs, base_path, Path(tmp))
        gpus = {gpu_name(r) for r in runs}
        if len(gpus) != 1 or not next(iter(gpus)):
            raise CalibrationError(f"the runs name {len(gpus)} GPUs ({', '.join(sorted(gpus)) or 'none'}): "
                                   "calibrate on one GPU, with results of ./workbook grade --solutions")
        gpu = gpus.pop()
        rubric, lines, missed, unmeasured = calibrate(base, runs, labs, args.fraction, machine_facts(gpu))
    except CalibrationError as error:
        print(f"calibrate: {error}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else ROOT / "grader" / f"rubric-{slug(gpu)}.json"
    out.write_text(json.dumps(rubric, indent=2) + "\n", encoding="utf-8")
    facts = rubric["calibration"]
    print(f"calibrate: {gpu}, driver {facts.get('driver', '?')}, CUDA {facts.get('cuda', '?')}, {facts['date']}, "
          f"{len(runs)} run(s) of the reference solutions; target = min(the base's, {args.fraction} x the lowest ratio)")
    for line in lines:
        print(line)
    if missed:
        print(f"On this GPU the references miss {len(missed)} target(s) of {base_path.name}:")
        for item in missed:
            print(f"  {item}")
    else:
        print(f"On this GPU the references reach every target of {base_path.name}.")
    if unmeasured:
        print("Not scored in every run (kept as they were; grade the references to see why):")
        for item in unmeasured:
            print(f"  {item}")
    shown = os.path.relpath(out, ROOT) if out.resolve().is_relative_to(ROOT) else str(out)
    print(f"calibrate: wrote {out}; grade with ./workbook grade --rubric {shown} (and grade-batch --rubric)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
