#!/usr/bin/env bash
# Test of tools/ctest_summary.py, the filter that makes ./workbook test's
# output readable, run by ctest (no GPU, no build needed). The fixture is a
# recorded ctest run (ctest --output-on-failure --parallel 2) of stand-ins with
# the project's test names: ctest_summary_fixture.txt is its output and
# ctest_summary_fixture.log its LastTest.log. In it: GPU tests of two labs and
# of common skipped with "workbook-skip:", a lab test skipped for another
# reason, the docs site skipped, a lab test and a tool test that fail, passes.
source "$(dirname "$0")/lib.sh"
filter="$ROOT/tools/ctest_summary.py"
fixture="$ROOT/tools/tests/ctest_summary_fixture"

python3 "$filter" --log "$fixture.log" <"$fixture.txt" >"$work/out.txt" 2>&1 || fail "the filter exited with $?"

# The GPU tests' "***Skipped" lines and ctest's list of them are gone...
grep -E '^\s*[0-9]+/[0-9]+ Test +#[0-9]+: ([0-9][0-9]-[a-z-]+|common)\..*\*\*\*Skipped' "$work/out.txt" &&
  fail "a GPU test's ***Skipped line was shown"
grep -q "The following tests did not run:" "$work/out.txt" && fail "ctest's list of the tests that did not run was shown"
grep -E '^\s+Start +[0-9]+: ([0-9][0-9]-|common\.)' "$work/out.txt" && fail "a lab's Start line was shown"
# ...replaced by one line per lab (or common) with the count, under the reason.
expect_in "$work/out.txt" "Skipped, not passed: 8 GPU tests, by lab:" "the GPU tests' header"
expect_in "$work/out.txt" "Why: no CUDA device (cudaGetDeviceCount failed" "the GPU tests' reason"
expect_in "$work/out.txt" "  01-hello-world  3 of its 4 tests skipped" "lab 01's line"
expect_in "$work/out.txt" "  04-reductions   3 of its 5 tests skipped" "lab 04's line"
expect_in "$work/out.txt" "  common          2 of its 3 tests skipped" "common's line"
# Tests skipped for another reason are listed one by one, with their reason.
expect_in "$work/out.txt" "8 - 04-reductions.Sm80.UsesTheNewInstruction (Skipped): needs compute capability 8.0" \
  "a lab test skipped for another reason"
expect_in "$work/out.txt" "14 - docs_site_builds (Skipped): Skipped the docs site: doxygen missing" "the docs site"
# Passes, failures with their output, and the long tests' Start lines come as they came.
expect_in "$work/out.txt" "Start 16: grade_batch_end_to_end" "a tool test's Start line"
expect_in "$work/out.txt" "Test #12: common.Generators.SameSeedGivesSameData ....." "a pass"
grep -A3 "Test  #9: 04-reductions.Block.SumsOneBlock .*\*\*\*Failed" "$work/out.txt" | grep -q "Expected equality" ||
  fail "the failed lab test's output does not follow it"
grep -A1 "Test #16: grade_batch_end_to_end .*\*\*\*Failed" "$work/out.txt" | grep -q "FAIL: alice not graded" ||
  fail "the failed tool test's output does not follow it"
expect_in "$work/out.txt" "The full log, with every test's output: " "where the log is"
# Every line fits a terminal of 120 columns (the fixture's result lines are 151 wide).
[[ $(awk 'length > 120' "$fixture.txt" | wc -l) -gt 0 ]] || fail "the fixture has no line over 120 columns to fit"
wide=$(awk 'length > 120' "$work/out.txt")
[[ -z "$wide" ]] || fail "lines over 120 columns: $wide"
# ctest's summary comes last, after the skipped tests, and says how many of its "passed" were skipped.
expect_in "$work/out.txt" "(10 of the 16 were skipped, not passed: see above)" "the skipped count in the summary"
summary_at=$(grep -n "tests passed, " "$work/out.txt" | cut -d: -f1)
common_at=$(grep -n "^  common " "$work/out.txt" | cut -d: -f1)
[[ -n "$summary_at" && -n "$common_at" && "$summary_at" -gt "$common_at" ]] ||
  fail "the summary does not come after the skipped tests"
tail -4 "$work/out.txt" >"$work/last.txt"
[[ "$(head -1 "$work/last.txt")" == "The following tests FAILED:" && "$(tail -1 "$work/last.txt")" == "Errors while running CTest" ]] ||
  fail "the last lines are not ctest's list of failures: $(cat "$work/last.txt")"
[[ $(wc -l <"$work/out.txt") -lt $(wc -l <"$fixture.txt") ]] || fail "the output is not shorter than ctest's"

# A newer ctest (the GPU machine's) words an all-passed summary without the failures:
# it is found all the same, and the tests that did not run are still folded.
sed -e 's/^88% tests passed, 2 tests failed out of 16$/100% tests passed out of 16/' "$fixture.txt" |
  python3 "$filter" --log "$fixture.log" >"$work/newer.txt" 2>&1 || fail "the filter exited with $? (newer ctest)"
grep -q "The following tests did not run:" "$work/newer.txt" && fail "newer ctest: the list of tests that did not run was shown"
expect_in "$work/newer.txt" "(10 of the 16 were skipped, not passed: see above)" "newer ctest's summary"
expect_in "$work/newer.txt" "Skipped, not passed: 8 GPU tests, by lab:" "newer ctest's GPU tests"

# Without the log: a lab's or common's skipped tests count as GPU tests by their names.
python3 "$filter" <"$fixture.txt" >"$work/no-log.txt" 2>&1 || fail "the filter without a log exited with $?"
expect_in "$work/no-log.txt" "  04-reductions   4 of its 5 tests skipped" "lab 04 without a log"
expect_in "$work/no-log.txt" "14 - docs_site_builds (Skipped)" "the docs site without a log"

# While tests run and nothing is printed, a line says which are still running.
{ head -4 "$fixture.txt"; sleep 2.5; tail -n +5 "$fixture.txt"; } | python3 "$filter" --heartbeat 1 >"$work/slow.txt" 2>&1
expect_in "$work/slow.txt" "... still running: gradescope_package_end_to_end (" "the heartbeat"

finish "ctest_summary.py: GPU tests folded by lab with the reason, failures with their output, the summary last"
