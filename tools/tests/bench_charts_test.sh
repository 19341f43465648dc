#!/usr/bin/env bash
# Test of tools/bench_charts.py, run by ctest: from the rows an experiment
# recorded (two sizes in one table, one size in another), one chart's data
# with the spread of the samples, and its SVG where matplotlib is installed;
# the copy bandwidth recorded as table "roof" is the roof of the lab's GB/s
# charts only, and the student's rows ("yours: ...") are lines of the same chart.
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
printf 'GPU: NVIDIA Test GPU, compute capability 9.0, 132 SMs\n' >"$work/08-radix-sort.txt"
printf 'the student run\n' >"$work/08-radix-sort-student.txt"
cat >"$work/08-radix-sort.csv" <<'CSV'
lab,table,implementation,n,median_ms,min_ms,max_ms,samples,rate,unit
,roof,device-to-device copy,536870912,0.36,0.35,0.37,9,2982.46,GB/s
08-radix-sort,pass,one pass,65536,0.1,0.1,0.1,9,100,GB/s
08-radix-sort,pass,one pass,1048576,0.2,0.2,0.2,9,1500,GB/s
08-radix-sort,sort,radix_sort,65536,0.1,0.1,0.1,9,1,Gkeys/s
08-radix-sort,sort,radix_sort,1048576,0.2,0.2,0.2,9,5,Gkeys/s
,roof,device-to-device copy,536870912,0.4,0.4,0.4,9,2000,GB/s
08-radix-sort,pass,yours: one pass,65536,0.1,0.1,0.1,9,90,GB/s
08-radix-sort,pass,yours: one pass,1048576,0.2,0.2,0.2,9,1400,GB/s
CSV
python3 "$ROOT/tools/bench_charts.py" "$work" >"$work/out.log" 2>&1 || fail "bench_charts failed: $(cat "$work/out.log")"
chart="$work/10-lbvh-query.csv"
[[ -f "$chart" ]] || fail "no chart data for the query table: $(ls "$work")"
[[ -e "$work/10-lbvh-once.csv" ]] && fail "a table with one size got a chart"
expect_in "$chart" "# source: ./workbook bench --all, NVIDIA Test GPU" "the GPU of the run"
# The rate at the slowest sample is rate x median / max: 1000 x 0.2 / 0.4 = 500; at the fastest, 2000.
expect_in "$chart" '"query_overlapping_pairs",65536,1000,500,2000' "the spread of a row"
expect_in "$chart" '"uniform grid, 27 cells",1048576,3000,3000,3000' "a row with a comma in its name"
# The roof: the first copy bandwidth recorded, on the GB/s chart and no other.
expect_in "$work/08-radix-sort-pass.csv" "# roof: 2982.5 copy bandwidth" "the copy bandwidth as the roof"
expect_in "$work/08-radix-sort-pass.csv" '"yours: one pass",1048576,1400' "the student's line beside the reference's"
expect_in "$work/08-radix-sort-pass.csv" '"one pass",1048576,1500' "the reference's line"
[[ -f "$work/08-radix-sort-sort.csv" ]] || fail "no chart data for the sort table: $(ls "$work")"
grep -q "roof" "$work/08-radix-sort-sort.csv" 2>/dev/null && fail "a roof on a chart in Gkeys/s"
grep -q "roof" "$chart" && fail "a roof on a chart of a lab that recorded none"
compgen -G "$work/*roof*" >/dev/null && fail "the roof got a chart of its own: $(ls "$work")"
if grep -q "Skipped the charts: matplotlib missing" "$work/out.log"; then
  expect_in "$work/out.log" "sudo apt-get install python3-matplotlib" "the missing package"
else
  grep -q "<svg" "$work/10-lbvh-query.svg" 2>/dev/null || fail "no SVG drawn: $(cat "$work/out.log")"
fi
finish "bench_charts: one chart per table with two sizes or more, the spread of the samples, the GPU named,
the copy bandwidth as the roof of GB/s charts, the student's lines beside the reference's"
