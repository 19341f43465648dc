#!/usr/bin/env python3
"""Tests of tools/calibrate.py's rule on made-up results (no GPU): ctest calibrate_rule.

Each speed item of grader/rubric.json gets made-up ratios of two runs of the references;
the rubric written must follow the documented rule (never above the base's target, 0.8 of
the lowest ratio rounded down, the floor in the base's proportion), name the items the
references miss, keep an item not scored in every run, and record the GPU and the rule.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import calibrate  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def results(base, factor, gpu="Tesla T4, compute capability 7.5, 40 SMs", skip=None):
    tests = []
    for lab, entry in base["labs"].items():
        for item in entry.get("speed", []):
            scored = (lab, item["test"]) != skip
            tests.append({"name": f"{lab}: {item['name']}",
                          "extra_data": {"lab": lab, "test": item["test"], "scored": scored,
                                         "ratio": item["target"] * factor(lab), "target": item["target"],
                                         "floor": item["floor"]}})
    return {"tests": tests, "extra_data": {"gpu": gpu}}


base = json.loads((ROOT / "grader" / "rubric.json").read_text())
first_lab = next(lab for lab, e in base["labs"].items() if e.get("speed"))
skipped = (first_lab, base["labs"][first_lab]["speed"][0]["test"])
slow_lab = "03-coalescing"
with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    runs = [results(base, lambda lab: 0.9 if lab == slow_lab else 1.5, skip=skipped),
            results(base, lambda lab: 0.95 if lab == slow_lab else 1.6)]
    paths = []
    for index, run in enumerate(runs):
        paths.append(tmp / f"run{index}.json")
        paths[-1].write_text(json.dumps(run))
    out = tmp / "rubric-t4.json"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "calibrate.py"), "--from", *map(str, paths),
                           "--out", str(out)], capture_output=True, text=True)
    print(done.stdout + done.stderr)
    check(done.returncode == 0, f"calibrate exited {done.returncode}")
    written = json.loads(out.read_text())
    check(written["calibration"]["gpu"] == "Tesla T4", f"calibration.gpu: {written['calibration']}")
    check("0.8 x" in written["calibration"]["rule"] and written["calibration"]["runs"] == 2, "the rule and runs")
    for lab, entry in written["labs"].items():
        for old, new in zip(base["labs"][lab].get("speed", []), entry.get("speed", [])):
            if (lab, old["test"]) == skipped:
                check((new["target"], new["floor"]) == (old["target"], old["floor"]),
                      f"{lab} {old['name']}: an item not scored in every run keeps the base's values")
                continue
            lowest = old["target"] * (0.9 if lab == slow_lab else 1.5)
            expected = min(old["target"], calibrate.round_down(0.8 * lowest))
            check(abs(new["target"] - expected) < 1e-9, f"{lab} {old['name']}: target {new['target']}, expected {expected}")
            check(new["target"] <= old["target"], f"{lab}: a target above the base's")
            check(0 <= new["floor"] < new["target"], f"{lab}: floor {new['floor']} not below target {new['target']}")
            if lab == slow_lab:
                check(abs(new["floor"] / new["target"] - old["floor"] / old["target"]) < 0.05,
                      f"{lab}: the floor left the base's proportion")
    check(f"{slow_lab}:" in done.stdout.split("miss")[-1] if "miss" in done.stdout else False,
          "the items the references miss are named")
    check("Not scored in every run" in done.stdout, "the item not scored in every run is named")
    mixed = tmp / "mixed.json"
    mixed.write_text(json.dumps(results(base, lambda lab: 1.5, gpu="NVIDIA H200, compute capability 9.0, 132 SMs")))
    refused = subprocess.run([sys.executable, str(ROOT / "tools" / "calibrate.py"), "--from", str(paths[0]),
                              str(mixed), "--out", str(tmp / "x.json")], capture_output=True, text=True)
    check(refused.returncode == 1 and "2 GPUs" in refused.stderr, f"two GPUs refused: {refused.stderr}")
    unknown = subprocess.run([sys.executable, str(ROOT / "tools" / "calibrate.py"), "nosuchlab", "--from",
                              str(paths[0])], capture_output=True, text=True)
    check(unknown.returncode == 1 and "unknown lab" in unknown.stderr, f"unknown lab: {unknown.stderr}")

for failure in failures:
    print(f"FAILED: {failure}", file=sys.stderr)
if failures:
    sys.exit(1)
print("calibrate_test: the rule, the missed items, the kept item, the calibration record and the refusals hold")
