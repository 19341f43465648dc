#!/usr/bin/env bash
# Test of tools/bench_charts.py, run by ctest: from the rows an experiment
# recorded (two sizes in one table, one size in another), one chart's data
# with the spread of the samples, and its SVG where matplotlib is installed.
source "$(dirname "$0")/lib.sh"
printf 'GPU: NVIDIA Test GPU, compute capability 9.0, 132 SMs\nthe tables...\n' >"$work/10-lbvh.txt"
cat >"$work/10-lbvh.csv" <<'CSV'
lab,table,implementation,n,median_ms,min_ms,max_ms,samples,rate,unit
10-lbvh,query,query_overlapping_pairs,65536,0.2,0.1,0.4,9,1000,Mpairs/s
10-lbvh,query,query_overlapping_pairs,1048576,1,1,2,9,3000,Mpairs/s
10-lbvh,query,"uniform grid, 27 cells",65536,0.1,0.1,0.1,9,2000,Mpairs/s
10-lbvh,query,"uniform grid, 27 cells",1048576,1,1,1,9,3000,Mpairs/s
10-lbvh,once,only one size,65536,1,1,1,9,5,Gobjects/s
CSV
python3 "$ROOT/tools/bench_charts.py" "$work" >"$work/out.log" 2>&1 || fail "bench_charts failed: $(cat "$work/out.log")"
chart="$work/10-lbvh-query.csv"
[[ -f "$chart" ]] || fail "no chart data for the query table: $(ls "$work")"
[[ -e "$work/10-lbvh-once.csv" ]] && fail "a table with one size got a chart"
expect_in "$chart" "# source: ./workbook bench --all, NVIDIA Test GPU" "the GPU of the run"
# The rate at the slowest sample is rate x median / max: 1000 x 0.2 / 0.4 = 500; at the fastest, 2000.
expect_in "$chart" '"query_overlapping_pairs",65536,1000,500,2000' "the spread of a row"
expect_in "$chart" '"uniform grid, 27 cells",1048576,3000,3000,3000' "a row with a comma in its name"
if grep -q "Skipped the charts: matplotlib missing" "$work/out.log"; then
  expect_in "$work/out.log" "sudo apt-get install python3-matplotlib" "the missing package"
else
  grep -q "<svg" "$work/10-lbvh-query.svg" 2>/dev/null || fail "no SVG drawn: $(cat "$work/out.log")"
fi
finish "bench_charts: one chart per table with two sizes or more, the spread of the samples, the GPU named"
