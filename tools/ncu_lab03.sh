#!/usr/bin/env bash
# Nsight Compute's count of what lab 03's strided and offset copies load:
# requests, 32-byte sectors and DRAM bytes per launch, one row per stride and
# offset of the experiment's tables 1 and 2 (the handout's question of why
# stride 16 takes twice as long as stride 8). Needs a GPU, ncu and access to
# the performance counters (see the student guide's Profiling section).
#   tools/ncu_lab03.sh [EXPERIMENT] [OUT_DIR]
# EXPERIMENT defaults to build/default/lab03_experiment_solution (run
# ./workbook build first); ncu's raw CSV is kept in OUT_DIR (default
# ncu-lab03/), the table is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
exe="${1:-build/default/lab03_experiment_solution}"
out="${2:-ncu-lab03}"
[[ -x "$exe" ]] || { echo "ncu_lab03: no $exe: run ./workbook build first" >&2; exit 1; }
ncu=$(command -v ncu || true)
[[ -n "$ncu" || ! -x /usr/local/cuda/bin/ncu ]] || ncu=/usr/local/cuda/bin/ncu
[[ -n "$ncu" ]] || { echo "ncu_lab03: ncu (Nsight Compute) is neither on PATH nor in /usr/local/cuda/bin; it comes with the CUDA Toolkit" >&2; exit 1; }
mkdir -p "$out"
metrics=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
"$ncu" --csv --page raw --print-units base --log-file "$out/ncu.csv" -k 'regex:^(strided_copy|offset_copy)$' \
  --metrics "$metrics" "$exe" --once
python3 - "$out/ncu.csv" <<'PY'
import csv, sys
rows = [line for line in open(sys.argv[1]) if line.startswith('"')]
table = list(csv.DictReader(rows))
if not table or "Kernel Name" not in table[0]:
    sys.exit("ncu_lab03: no launches in %s, or not the columns expected (%s)" % (
        sys.argv[1], ", ".join(list(table[0])[:8]) if table else "empty"))
launches = [r for r in table if r.get("ID", "").strip().isdigit()]
params = {"strided_copy": ["stride %d" % s for s in (1, 2, 4, 8, 16, 32)],
          "offset_copy": ["offset %d" % o for o in (0, 1, 2, 4, 8, 16, 32)]}
seen = {name: 0 for name in params}
def number(row, metric):
    return float(row[metric].replace(",", ""))
print("%-14s %-10s %12s %12s %9s %12s %12s %9s" % ("kernel", "row", "requests", "sectors", "sect/req",
                                                   "DRAM MB rd", "DRAM MB wr", "ncu ms"))
for row in launches:
    name = row["Kernel Name"].split("(")[0].strip()
    if name not in params or seen[name] >= len(params[name]):
        sys.exit("ncu_lab03: an unexpected launch: " + row["Kernel Name"])
    label = params[name][seen[name]]
    seen[name] += 1
    requests = number(row, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    sectors = number(row, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    print("%-14s %-10s %12.0f %12.0f %9.2f %12.1f %12.1f %9.3f" % (
        name, label, requests, sectors, sectors / requests, number(row, "dram__bytes_read.sum") / 1e6,
        number(row, "dram__bytes_write.sum") / 1e6, number(row, "gpu__time_duration.sum") / 1e6))
missing = [n for n in params if seen[n] != len(params[n])]
if missing:
    sys.exit("ncu_lab03: ncu listed fewer launches than expected for " + ", ".join(missing))
PY
