#!/usr/bin/env bash
# One Nsight Compute table for a handout's "you can check it with" line: the
# named metrics of every launch whose kernel matches REGEX, in launch order.
#   tools/ncu_probe.sh EXPERIMENT REGEX METRIC[,METRIC...] [-- EXPERIMENT ARGS]
# e.g. tools/ncu_probe.sh build/default/lab03_experiment_solution \
#        '^(transpose_naive|transpose_tiled)$' dram__bytes_write.sum,gpu__time_duration.sum -- --once
# Needs a GPU, ncu and access to the performance counters (the student
# guide's Profiling section). Prints one row per launch: its kernel and the
# metrics in base units. NCU_ARGS adds ncu options (e.g. NCU_ARGS="-c 1": the
# first matching launch only).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
exe="$1" regex="$2" metrics="$3"
shift 3
[[ "${1:-}" == "--" ]] && shift
[[ -x "$exe" ]] || { echo "ncu_probe: no $exe: run ./workbook build first" >&2; exit 1; }
ncu=$(command -v ncu || true)
[[ -n "$ncu" || ! -x /usr/local/cuda/bin/ncu ]] || ncu=/usr/local/cuda/bin/ncu
[[ -n "$ncu" ]] || { echo "ncu_probe: ncu (Nsight Compute) not found; it comes with the CUDA Toolkit" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086 # NCU_ARGS is a list of options
"$ncu" --csv --page raw --print-units base --log-file "$log" ${NCU_ARGS:-} -k "regex:$regex" --metrics "$metrics" "$exe" "$@" \
  >/dev/null
python3 - "$log" "$metrics" <<'PY'
import csv, sys
rows = [line for line in open(sys.argv[1]) if line.startswith('"')]
table = [r for r in csv.DictReader(rows) if r.get("ID", "").strip().isdigit()]
if not table:
    sys.exit("ncu_probe: no launch matched (or ncu could not read the counters)")
metrics = sys.argv[2].split(",")
print("\t".join(["launch", "kernel"] + metrics))
for row in table:
    print("\t".join([row["ID"], row["Kernel Name"].split("(")[0].strip()] + [row.get(m, "?") for m in metrics]))
PY
