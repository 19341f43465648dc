// --explain on the CPU: Nsight Compute's output recorded on the H200
// (data/ncu/README.md) and made-up kernels, read by the rules of explain.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "error.hpp"
#include "explain.hpp"
#include "ncu_profile.hpp"
#include "rubric.hpp"
#include "source_tree.hpp"

namespace {

using workbook::grader::test_tree::read_text;
using workbook::grader::test_tree::source_tree;

using workbook::grader::explain_speed_item;
using workbook::grader::KernelProfile;
using workbook::grader::ProfiledCall;
using workbook::grader::ProfileRecord;
using workbook::grader::SpeedItemNeeds;

std::filesystem::path data(const std::string& name) {
  return source_tree() / "grader" / "tests" / "data" / "ncu" / name;
}

struct Recorded {
  ProfileRecord record;
  ProfiledCall call;
};

Recorded recorded(const std::string& name) {
  Recorded r;
  r.record = workbook::grader::parse_profile_record(nlohmann::json::parse(read_text(data(name + ".json"))));
  r.call = workbook::grader::split_at_marks(workbook::grader::parse_ncu_csv(read_text(data(name + ".csv"))));
  return r;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::size_t likely_causes(const std::vector<std::string>& lines) {
  return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("Likely cause: ") != std::string::npos &&
           line.find("none of the rules fires") == std::string::npos;
  }));
}

// A made-up kernel: a coalesced, conflict-free, full one; each test spoils one thing.
KernelProfile healthy_kernel(const std::string& name) {
  KernelProfile kernel;
  kernel.name = name;
  kernel.metrics = {{"gpu__time_duration.sum", 100000},
                    {"dram__bytes_read.sum", 134217728},
                    {"dram__bytes_write.sum", 134217728},
                    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 85},
                    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1048576},
                    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4194304},
                    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", 100},
                    {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1048576},
                    {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 4194304},
                    {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", 100},
                    {"sm__warps_active.avg.pct_of_peak_sustained_active", 90},
                    {"sm__maximum_warps_per_active_cycle_pct", 100},
                    {"launch__occupancy_limit_registers", 8},
                    {"launch__occupancy_limit_shared_mem", 32},
                    {"launch__occupancy_limit_warps", 8},
                    {"launch__occupancy_limit_blocks", 32},
                    {"launch__grid_size", 4096},
                    {"launch__block_size", 256},
                    {"launch__registers_per_thread", 24},
                    {"device__attribute_multiprocessor_count", 132},
                    {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 20},
                    {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 2},
                    {"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio", 30}};
  return kernel;
}

ProfileRecord made_up_record() {
  ProfileRecord record;
  record.test = "FakeSpeed.Item";
  record.what = "the call of 2^26 floats";
  record.yardstick = "the yardstick";
  record.min_bytes = 268435456;
  return record;
}

std::vector<std::string> explain_one(const KernelProfile& kernel) {
  ProfiledCall call;
  call.yours = {kernel};
  call.yardstick = {healthy_kernel("yardstick_kernel")};
  return explain_speed_item(made_up_record(), call, SpeedItemNeeds{}, {});
}

TEST(NcuCsv, FieldsAreSplitAtCommasOutsideQuotes) {
  const std::vector<std::string> fields = workbook::grader::split_csv_line(R"("ID","a,b","say ""hi""",7)");
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[1], "a,b");
  EXPECT_EQ(fields[2], "say \"hi\"");
  EXPECT_EQ(fields[3], "7");
}

TEST(NcuCsv, TheH200RecordReadsAsOneRowPerLaunchWithNumbersWithoutSeparators) {
  const std::vector<KernelProfile> launches =
      workbook::grader::parse_ncu_csv(read_text(data("h200_lab03_transpose_tiled.csv")));
  ASSERT_EQ(launches.size(), 3u);  // mark, transpose_tiled, mark (the copy is no kernel)
  EXPECT_EQ(launches[0].name, workbook::grader::kYoursMark);
  EXPECT_EQ(launches[1].name, "transpose_tiled");
  EXPECT_DOUBLE_EQ(launches[1].value_or("launch__grid_size", 0), 65536.0);  // printed "65,536"
  EXPECT_GT(launches[1].value_or("dram__bytes_read.sum", 0), 2.5e8);
  for (const std::string& metric : workbook::grader::explain_metrics())
    EXPECT_TRUE(launches[1].get(metric).has_value()) << metric << " is missing from ncu's output";
}

TEST(NcuCsv, LaunchesSplitAtTheMarksIntoYoursAndTheYardsticks) {
  const Recorded scan = recorded("h200_lab07_reduce_then_scan");
  ASSERT_EQ(scan.call.yours.size(), 3u);
  EXPECT_EQ(scan.call.yours[0].name, "reduce_ranges");
  EXPECT_EQ(scan.call.yours[2].name, "scan_ranges");
  ASSERT_EQ(scan.call.yardstick.size(), 2u);
  EXPECT_EQ(scan.call.yardstick[1].name, "DeviceScanKernel");
}

TEST(NcuCsv, APermissionRefusalIsNamedWithWhatToDo) {
  const std::string refusal = workbook::grader::ncu_refusal(
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
      "Counters on the target device 0.");
  EXPECT_NE(refusal.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
  EXPECT_NE(refusal.find("as root"), std::string::npos);
  EXPECT_EQ(workbook::grader::ncu_refusal("==PROF== Disconnected from process 1"), "");
}

TEST(Explain, ReferencesOnTheH200GetNoCause) {
  const std::vector<std::pair<std::string, SpeedItemNeeds>> references = {
      {"h200_lab03_transpose_tiled", {}},
      {"h200_lab05_count_block_aggregated", {}},
      {"h200_lab07_reduce_then_scan", {1.5, "12 bytes per element", {}}},
      {"h200_lab07_single_pass", {}},  // its warps wait most at a barrier, at 63 % of the DRAM's peak
      {"h200_lab08_sort_keys_2to24", {6.625, "53 bytes per key", {}}},
      {"h200_lab08_sort_keys_2to28", {6.625, "53 bytes per key", {}}}};
  for (const auto& [name, needs] : references) {
    const Recorded r = recorded(name);
    const std::vector<std::string> lines = explain_speed_item(r.record, r.call, needs, {});
    EXPECT_EQ(likely_causes(lines), 0u) << name << ":\n" << joined(lines);
    EXPECT_NE(joined(lines).find("none of the rules fires"), std::string::npos) << joined(lines);
  }
}

TEST(Explain, ACopyYardstickIsSaidToLaunchNoKernel) {
  const Recorded r = recorded("h200_lab03_transpose_tiled");
  const std::string text = joined(explain_speed_item(r.record, r.call, {}, {}));
  EXPECT_NE(text.find("no kernel (a copy engine's transfer"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel 1 of 1, transpose_tiled, 0.153 ms (100% of the call's GPU time): 65536 blocks"),
            std::string::npos)
      << text;
}

TEST(Explain, ThreeKernelsWhereOnePassIsNeededMoveTooManyBytes) {
  // The reduce-then-scan record judged as a single pass (8 bytes per element):
  // what a student who wrote three kernels for the single-pass item gets.
  const Recorded r = recorded("h200_lab07_reduce_then_scan");
  const std::vector<std::string> lines = explain_speed_item(
      r.record, r.call, {1.0, "8 bytes per element", {}}, {{"bytes", "Speed of light (lab 07)"}});
  const std::string text = joined(lines);
  EXPECT_EQ(likely_causes(lines), 1u) << text;
  EXPECT_NE(text.find("Likely cause: it moves 1.49x the bytes it needs (8 bytes per element)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("See Speed of light (lab 07)"), std::string::npos) << text;
  EXPECT_NE(
      text.find("your call, reduce_then_scan(int), exclusive of 2^28 uniform ints in [-7, 7]: 3 kernels"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("the yardstick, cub::DeviceScan::ExclusiveSum on the same input: 2 kernels"),
            std::string::npos)
      << text;
}

TEST(Explain, ARuleTheHandoutExpectsIsReportedButNotACause) {
  const Recorded r = recorded("h200_lab10_build");
  SpeedItemNeeds needs{
      2.7917,
      "268 bytes per object",
      {{"coalescing", "the climb reads scattered nodes"}, {"grid", "the provided sort's own kernel"}}};
  const std::vector<std::string> lines = explain_speed_item(r.record, r.call, needs, {});
  const std::string text = joined(lines);
  EXPECT_EQ(likely_causes(lines), 0u) << text;
  EXPECT_NE(text.find("your call, Lbvh::build of 2^20 uniform cubes: 11 launches of 7 kernels"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel 5 of 7, DeviceRadixSortOnesweepKernel (4 launches)"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find("Expected here, not a cause (the climb reads scattered nodes): uncoalesced global loads in "
                "kernel 7 (compute_node_boxes)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("Expected here, not a cause (the provided sort's own kernel): too few blocks in kernel 5"),
      std::string::npos)
      << text;
  // Without the exceptions the same counters name the causes: the sort's
  // grid, the hierarchy's loads, the boxes' loads and stores.
  needs.expected.clear();
  const std::vector<std::string> plain = explain_speed_item(r.record, r.call, needs, {});
  EXPECT_EQ(likely_causes(plain), 4u) << joined(plain);
}

TEST(Explain, UncoalescedStoresAreNamedWithTheirSectors) {
  KernelProfile naive = healthy_kernel("transpose_naive");
  naive.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = 32.0 * 1048576;
  naive.metrics["smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"] = 12.5;
  const std::string text = joined(explain_one(naive));
  EXPECT_NE(
      text.find("Likely cause: uncoalesced global stores in kernel 1 (transpose_naive): each 32-byte sector "
                "brought in is 12% used (32.0 sectors per request"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("lab 03 (coalescing)"), std::string::npos) << text;
}

TEST(Explain, FewUncoalescedBytesAreNoCause) {
  // Lab 08's tile counts: digit-major stores, 12.5 % used, but 5 % of the bytes.
  KernelProfile counts = healthy_kernel("count_digits");
  counts.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] = 1024;
  counts.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = 32.0 * 1024;
  counts.metrics["smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"] = 12.5;
  EXPECT_EQ(likely_causes(explain_one(counts)), 0u) << joined(explain_one(counts));
}

TEST(Explain, BankConflictsAreNamedAboveFourPerInstruction) {
  KernelProfile tiled = healthy_kernel("transpose_unpadded");
  tiled.metrics["smsp__inst_executed_op_shared_ld.sum"] = 1048576;
  tiled.metrics["smsp__inst_executed_op_shared_st.sum"] = 1048576;
  tiled.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = 31.0 * 1048576;
  const std::string text = joined(explain_one(tiled));
  EXPECT_NE(
      text.find("Likely cause: shared-memory bank conflicts in kernel 1 (transpose_unpadded): 15.5 extra "
                "passes per shared-memory instruction"),
      std::string::npos)
      << text;
  // Lab 08's scatter, 1.15 per instruction, is no cause.
  tiled.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = 2.3 * 1048576;
  EXPECT_EQ(likely_causes(explain_one(tiled)), 0u) << joined(explain_one(tiled));
}

TEST(Explain, OneGlobalAtomicPerWarpIsNamedAndOnePerBlockIsNot) {
  KernelProfile per_warp = healthy_kernel("count_odd");
  per_warp.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] = 268435456.0 / 4 / 32;
  const std::string text = joined(explain_one(per_warp));
  EXPECT_NE(text.find("Likely cause: 2097152 global atomic instructions, 8.0 per KiB the call needs to move"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("lab 05 (atomics), block aggregation"), std::string::npos) << text;
  KernelProfile per_block = per_warp;
  per_block.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] = 268435456.0 / 4 / 256;
  EXPECT_EQ(likely_causes(explain_one(per_block)), 0u) << joined(explain_one(per_block));
}

TEST(Explain, AGridSmallerThanTheSmsIsNamed) {
  KernelProfile single = healthy_kernel("reduce_one_block");
  single.metrics["launch__grid_size"] = 1;
  single.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 12;
  const std::string text = joined(explain_one(single));
  EXPECT_NE(text.find("Likely cause: too few blocks in kernel 1 (reduce_one_block): 1 blocks for 132 SMs"),
            std::string::npos)
      << text;
}

TEST(Explain, LowOccupancyNamesWhatLimitsIt) {
  KernelProfile heavy = healthy_kernel("scan_heavy");
  heavy.metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] = 12;
  heavy.metrics["sm__maximum_warps_per_active_cycle_pct"] = 12.5;
  heavy.metrics["launch__occupancy_limit_registers"] = 1;
  const std::string text = joined(explain_one(heavy));
  EXPECT_NE(
      text.find("too few warps in flight in kernel 1 (scan_heavy): 12% of the SM's warps active, limited by "
                "registers per thread"),
      std::string::npos)
      << text;
}

TEST(Explain, AKernelThatWaitsOnOneAccessAtATimeIsNamed) {
  // A look-back whose tiles wait for one another: little DRAM traffic, warps
  // waiting on memory.
  KernelProfile chain = healthy_kernel("scan_serialized");
  chain.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 2.5;
  chain.metrics["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] = 400;
  const std::string text = joined(explain_one(chain));
  EXPECT_NE(
      text.find("Likely cause: kernel 1 (scan_serialized) moves data at 2.5% of the DRAM's peak while its "
                "warps wait most on long_scoreboard (waiting for global memory): its threads wait for one "
                "access at a time"),
      std::string::npos)
      << text;
  // Lab 07's look-back without aggregates: the block waits at the barrier
  // while one warp looks back one tile at a time (H200: barrier 144.9 cycles
  // per instruction, long_scoreboard 13.2).
  KernelProfile look_back = healthy_kernel("scan_single_pass");
  look_back.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 2.7;
  look_back.metrics["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"] = 144.9;
  look_back.metrics["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] = 13.2;
  const std::string waited = joined(explain_one(look_back));
  EXPECT_NE(
      waited.find("Likely cause: kernel 1 (scan_single_pass) moves data at 2.7% of the DRAM's peak while its "
                  "warps wait most on barrier (waiting at __syncthreads())"),
      std::string::npos)
      << waited;
  // With too many atomics the atomics are the cause, and the wait their symptom.
  KernelProfile atomic_wait = chain;
  atomic_wait.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] = 268435456.0 / 4 / 32;
  const std::vector<std::string> atomic_lines = explain_one(atomic_wait);
  EXPECT_EQ(likely_causes(atomic_lines), 1u) << joined(atomic_lines);
  EXPECT_NE(joined(atomic_lines).find("global atomic instructions"), std::string::npos)
      << joined(atomic_lines);
  // Lab 05's and lab 08's references stream at 22 % of the peak: no cause.
  chain.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = 22;
  EXPECT_EQ(likely_causes(explain_one(chain)), 0u) << joined(explain_one(chain));
}

TEST(Explain, TheStallsShownAreWaitsNotIssues) {
  const std::string text = joined(explain_one(healthy_kernel("k")));
  EXPECT_NE(text.find("warps wait most on: long_scoreboard 20.0 (waiting for global memory), barrier 2.0"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("not_selected"), std::string::npos) << text;
}

TEST(Explain, ACallWithoutKernelsIsSaidSo) {
  ProfiledCall call;
  const std::string text = joined(explain_speed_item(made_up_record(), call, {}, {}));
  EXPECT_NE(text.find("launched no kernel that Nsight Compute saw"), std::string::npos) << text;
}

TEST(ExplainData, MalformedEntriesAreRefusedWithThePathAndKey) {
  using workbook::grader::GraderError;
  using workbook::grader::parse_lab_explain_data;
  EXPECT_THROW(
      parse_lab_explain_data(nlohmann::json::parse(R"({"speed": {"A.B": {"bytes_factor": 0}}})"), "x"),
      GraderError);
  EXPECT_THROW(parse_lab_explain_data(nlohmann::json::parse(R"({"see": {"speeed": "typo"}})"), "x"),
               GraderError);
  try {
    parse_lab_explain_data(
        nlohmann::json::parse(
            R"({"speed": {"A.B": {"bytes_factor": 1, "bytes_are": "b", "expected": {"no": "x"}}}})"),
        "labs/x/explain.json");
    FAIL() << "an unknown rule was accepted";
  } catch (const GraderError& error) {
    EXPECT_NE(std::string(error.what()).find("labs/x/explain.json: speed.A.B.expected.no"), std::string::npos)
        << error.what();
  }
}

TEST(ExplainData, EveryLabsFileParsesAndCoversItsRubricSpeedItems) {
  const workbook::grader::Rubric rubric =
      workbook::grader::load_rubric((source_tree() / "grader" / "rubric.json").string());
  for (const auto& [lab_id, lab] : rubric.labs) {
    const std::string path = (source_tree() / "labs" / lab_id / "explain.json").string();
    const workbook::grader::LabExplainData data = workbook::grader::load_lab_explain_data(path);
    for (const workbook::grader::RubricSpeed& item : lab.speed)
      EXPECT_EQ(data.speed.count(item.test), 1u) << path << " says nothing of " << item.test;
    for (const auto& [test, needs] : data.speed) {
      EXPECT_TRUE(
          std::any_of(lab.speed.begin(), lab.speed.end(),
                      [&test](const workbook::grader::RubricSpeed& item) { return item.test == test; }))
          << path << " names " << test << ", which is no speed item of the rubric";
    }
  }
}

}  // namespace
