#!/usr/bin/env bash
# The probes for the measured misses that labs 05, 06 and 09 left open:
#   lab 05: README, fold "Ours": "1.45 SM clocks ... the L2's clock is not measured"
#           and the counts' time beyond their atomics, once "the rests, 0.248 ms and 0.148 ms"
#           (solutions/05-atomics/probes/counts_without_atomics.cu: it copies a kernel a student writes,
#           so it stays out of the student release too);
#   lab 06: README question 3, phase (c) scatter_kept at 0 % kept, "why is not measured"
#           (tools/probes/compaction_phases_by_kept.cu);
#   lab 09: measurements.md, "Open misses" (lane copies 14 % over, four bins 1.72x,
#           uniform 90x, phase 2's +0.006 ms, RGB 3.05x) (solutions/09-histograms/probes/
#           histogram_open_misses.cu: it copies the reference's kernels, so it stays out of the
#           student release, where this script skips it).
# Their output on an NVIDIA H200, 2026-11-29, is in labs/{05-atomics,06-compaction,09-histograms}/
# figures/ncu-probe.txt, one block per probe; that run used the same programs, built from
# /tmp/p37/probe37_labNN.cu, and /tmp/p37/ncu_probe_kill.sh for probe 1.
#   tools/probes/open_misses.sh [OUT_FILE]      (default build/probes/open_misses.txt; also printed)
# Needs a GPU, nvcc, ncu and access to the performance counters (the student guide's
# Profiling section). Builds the labs' reference libraries and lab 05's experiment with
#   WORKBOOK_BUILD_TARGET="lab05_experiment_solution lab06_solution lab09_solution" ./workbook build
# then compiles the three probes into build/probes/ (nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo,
# as measured; the H200 is sm_90) and links them with build/default/liblabNN_solution.a and
# libworkbook_common.a. Each probe prints a '#' title, its command on a '##' line, a note, then
# its output; a failure or a timeout prints "probe ... failed" and the script goes on.
# The metric lists are the ones the H200's ncu 2025.3.1 listed (the measured run checked each
# optional one against ncu --query-metrics; all were listed there).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
B=build/probes
mkdir -p "$B"
P=${1:-$B/open_misses.txt}
: > "$P"
{
  echo "# open-miss probes; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "# $(ncu --version 2>&1 | tail -1); $(nvcc --version 2>&1 | tail -1)"
  echo "# $(date -u); main $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "# Times in ns, bytes in bytes, stalls in cycles per issued instruction, clocks in Hz."
} >> "$P"

# ---- build: lab 05's experiment (probe 1 profiles it) and the labs' reference libraries.
t0=$SECONDS
WORKBOOK_BUILD_TARGET="lab05_experiment_solution lab06_solution lab09_solution" ./workbook build > "$B/build.txt" 2>&1 ||
  echo "# ./workbook build failed ($B/build.txt)" >> "$P"
common=$(find build/default -name libworkbook_common.a | head -1)
for probe in 05:05-atomics:counts_without_atomics 06:06-compaction:compaction_phases_by_kept \
  09:09-histograms:histogram_open_misses; do
  IFS=: read -r nn dir name <<< "$probe"
  src=tools/probes/$name.cu
  [[ -f "$src" ]] || src=solutions/$dir/probes/$name.cu
  if [[ ! -f "$src" ]]; then
    echo "# $name: not in this tree (it copies the reference's kernels: the maintainers' tree has it); skipped" >> "$P"
    continue
  fi
  lib=$(find build/default -name "liblab${nn}_solution.a" | head -1)
  { nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/"$dir" -Icommon/include -c "$src" -o "$B/$name.o" &&
    nvcc -arch=sm_90 -o "$B/$name" "$B/$name.o" "$lib" "$common"; } > "$B/cc_$name.txt" 2>&1 ||
    { echo "# $name did not build:"; tail -8 "$B/cc_$name.txt"; } >> "$P"
done
echo "# build and probe programs: $((SECONDS - t0)) s" >> "$P"

# tools/ncu_probe.sh with ncu's exit status ignored: with --kill yes (end the program once -c
# launches are profiled) ncu may exit non-zero, and the unchanged script would stop before its table.
sed 's|^  >/dev/null$|  >/dev/null \|\| echo "ncu_probe: ncu exit status $? (with --kill yes: the program was ended early)" >\&2|' \
  tools/ncu_probe.sh > "$B/ncu_probe_kill.sh"
grep -q 'ended early' "$B/ncu_probe_kill.sh" || cp tools/ncu_probe.sh "$B/ncu_probe_kill.sh"
chmod +x "$B/ncu_probe_kill.sh"

s=smsp__average_warps_issue_stalled; r=per_issue_active.ratio
STALLS7=${s}_long_scoreboard_$r,${s}_barrier_$r,${s}_short_scoreboard_$r,${s}_mio_throttle_$r,${s}_lg_throttle_$r,${s}_membar_$r,${s}_sleeping_$r
MORE_STALLS=${s}_wait_$r,${s}_math_pipe_throttle_$r,${s}_not_selected_$r,${s}_no_instruction_$r,${s}_drain_$r,${s}_dispatch_stall_$r,${s}_branch_resolving_$r,${s}_selected_$r
SLICES=lts__t_requests_srcunit_tex_op_red.max,lts__t_requests_srcunit_tex_op_red.avg,lts__cycles_active.max,lts__cycles_active.avg
ISSUE=smsp__issue_active.avg.pct_of_peak_sustained_active
WARPS=sm__warps_active.avg.pct_of_peak_sustained_active
T=gpu__time_duration.sum
DRAM=dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
CLOCKS=sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second
RED=lts__t_requests_srcunit_tex_op_red.sum
NONE='--clock-control none'

# run_probe TITLE SECONDS COMMAND [NOTE]: the title, the command on a '##' line, a note, then its output.
run_probe() {
  local title=$1 limit=$2 cmd=$3 note=${4:-} t=$SECONDS
  { echo; echo "# $title"; echo "## $cmd"; [[ -z $note ]] || echo "# $note"; } >> "$P"
  timeout -k 4 "$limit" bash -c "$cmd" >> "$P" 2>&1 || echo "probe '$title' failed: exit status $? (124 or 137: stopped at its limit of $limit s)" >> "$P"
  echo "# ($((SECONDS - t)) s)" >> "$P"
}
X5=$B/counts_without_atomics X6=$B/compaction_phases_by_kept X9=$B/histogram_open_misses

run_probe "1. lab 05: the L2's clock against the SM clock during row 1 (add_one_result_unused), command 1 plus the L2's clock and, where listed, the L2 slices' requests" 60 \
  "NCU_ARGS=\"-c 1 --kill yes $NONE\" $B/ncu_probe_kill.sh build/default/lab05_experiment_solution '^add_one_result_unused\$' $CLOCKS,sm__cycles_elapsed.avg,lts__cycles_elapsed.avg,$T,$RED,$SLICES" \
  "ncu_probe_kill.sh is tools/ncu_probe.sh with ncu's exit status ignored (--kill yes ends the experiment after the first launch)"

run_probe "2. lab 06: phase (a) and phase (c) at 0 % and 50 % kept: time, DRAM, warps, issue" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X6 '^(count_kept_per_tile|scatter_kept)\$' launch__grid_size,$T,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,$WARPS,$ISSUE,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second -- once 0 50" \
  "rows: at 0 % kept, count_kept_per_tile and scatter_kept inside compact(), then scatter_kept alone (the offsets compact() left); then the same three at 50 %"

run_probe "3. lab 06: the stalls of the same six launches" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X6 '^(count_kept_per_tile|scatter_kept)\$' $STALLS7,$ISSUE,$T -- once 0 50" \
  "rows as in probe 2"

run_probe "4. lab 06: compact(), phase (a) and phase (c) timed alone at 0 % and 50 % kept (workbook::time_gpu, cold L2, as the experiment)" 40 \
  "$X6 0 50"

run_probe "5. lab 09: global atomics, one per byte, into k counters each on its own 128-byte line (stride 32 words) or side by side (stride 1): L2 requests and, where listed, the busiest slice" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X9 '^global_atomics_spread\$' $T,$RED,$SLICES,lts__cycles_elapsed.avg.per_second -- once spread" \
  "rows: 2^26 uniform bytes; stride 32 with k = 1, 2, 4, 8, 16, 32, 64, 128, 256, then stride 1 with k = 4 and k = 256 (k = 256 at stride 1 is table 1's uniform bytes; k = 4 at stride 32 its four bins' addresses)"

run_probe "6. lab 09: timings (workbook::time_gpu, cold L2): lane copies against their loads alone; phase 2 against an empty launch; count_rgb against a uint4 variant; the spread of global atomics over k counters" 60 \
  "$X9 time"

run_probe "7. lab 09: time, DRAM, warps and issue of the lane copies, their loads alone, phase 2, an empty launch and the RGB kernels" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X9 '^(count_bytes_lane_copies|lane_loads_only|sum_block_histograms|empty_kernel|count_rgb|count_rgb_copy|count_rgb_uint4)\$' launch__grid_size,$T,$DRAM,$WARPS,$ISSUE,sm__cycles_elapsed.avg.per_second -- once lanes phase2 rgb" \
  "rows: count_bytes_lane_copies, lane_loads_only (2^30 uniform bytes); sum_block_histograms inside histogram_two_phase(), then alone; empty_kernel; count_rgb (rgb_histogram()), count_rgb_copy, count_rgb_uint4 (2^28 uniform pixels)"

run_probe "8. lab 09: the experiment's global-atomics kernel at 2^30 on uniform bytes, four bins, one bin: L2 requests, the busiest slice where listed, the clocks" 60 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X9 '^count_bytes_with_global_atomics\$' $T,$RED,$SLICES,$CLOCKS -- once atomics" \
  "rows: uniform bytes, four bins (0, 32, 64, 96), one bin (255), one launch each, as table 1's columns"

run_probe "9. lab 05: the counts with and without their atomics timed (workbook::time_gpu, cold L2), 2^28 values all odd" 30 \
  "$X5"

run_probe "10. lab 05: the same kernels under Nsight Compute: time, DRAM, L2 atomics, warps, issue, stalls, clocks" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X5 '^(add_one_result_unused|count_odd_per_thread|count_odd_per_thread_no_atomic|count_odd_block_aggregated|count_odd_block_no_global_atomic|block_atomics_only)\$' $T,$DRAM,$RED,lts__t_requests_srcunit_tex_op_atom.sum,$WARPS,$ISSUE,${s}_long_scoreboard_$r,${s}_lg_throttle_$r,${s}_barrier_$r,$CLOCKS -- once" \
  "rows in launch order: add_one_result_unused, count_odd_per_thread, count_odd_per_thread_no_atomic, count_odd_block_aggregated (the solution's), count_odd_block_no_global_atomic, block_atomics_only"

run_probe "11. lab 09: the stalls of the lane copies, their loads alone, count_rgb and count_rgb_uint4" 50 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X9 '^(count_bytes_lane_copies|lane_loads_only|count_rgb|count_rgb_uint4)\$' $STALLS7,$MORE_STALLS,$ISSUE,$T -- once lanes rgb" \
  "rows: count_bytes_lane_copies, lane_loads_only, count_rgb, count_rgb_uint4"

run_probe "12. lab 06: the other stall reasons of the six launches of probe 2" 40 \
  "NCU_ARGS=\"$NONE\" tools/ncu_probe.sh $X6 '^(count_kept_per_tile|scatter_kept)\$' $MORE_STALLS,$T -- once 0 50" \
  "rows as in probe 2"

echo >> "$P"
echo "# whole script: $SECONDS s" >> "$P"
cat "$P"
