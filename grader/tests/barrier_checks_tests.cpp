// Tests of the divergent-barrier stage (barrier_checks.hpp): made-up kernels
// whose barrier only some threads reach are flagged with file:line and the
// condition, innocent ones are not, the rubric's "barrier_in_divergent_code"
// is validated, the reports show the warnings, and the real skeletons and
// reference solutions get none. No GPU needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "barrier_checks.hpp"
#include "error.hpp"
#include "manifest.hpp"
#include "report.hpp"
#include "rubric.hpp"
#include "scoring.hpp"
#include "source_checks.hpp"
#include "source_tree.hpp"

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test_tree::read_text;
using test_tree::real_labs;
using test_tree::source_tree;
using Lines = std::vector<std::string>;

/// "line barrier | condition (line) exit" for each finding.
Lines findings_in(const std::string& text) {
  Lines out;
  for (const BarrierFinding& f : find_divergent_barriers(text)) {
    out.push_back(std::to_string(f.line) + " " + f.barrier + " | " + f.condition + " (" +
                  std::to_string(f.condition_line) + ")" + (f.exit.empty() ? "" : " " + f.exit));
  }
  return out;
}

const char* const kWhy =
    "a barrier inside a branch that only some threads of the block take is undefined behaviour (CUDA C++ "
    "Programming Guide, __syncthreads): the block can hang, or pass with wrong results; on sm_70 and later "
    "it "
    "often still gives the right answer, so tests do not show it";

// ---- flagged ----

TEST(DivergentBarriers, FlagsTheIssuesReductionWithItsBarrierInTheBranch) {
  const std::string text =
      "__global__ void block_sum(const int* in, int* partials, std::size_t n) {\n"
      "  extern __shared__ int shared[];\n"
      "  const int t = static_cast<int>(threadIdx.x);\n"
      "  int sum = in[blockIdx.x * blockDim.x + t];\n"
      "  shared[t] = sum;\n"
      "  __syncthreads();\n"
      "  for (int s = 1; s < blockDim.x; s *= 2) {\n"
      "    if (t % (2 * s) == 0) {\n"
      "      sum += shared[t + s];\n"
      "      shared[t] = sum;\n"
      "      __syncthreads();\n"
      "    }\n"
      "  }\n"
      "  if (t == 0) partials[blockIdx.x] = sum;\n"
      "}\n";
  EXPECT_EQ(findings_in(text), (Lines{"11 __syncthreads() | if (t % (2 * s) == 0) (8)"}));
  std::vector<BarrierFinding> found = find_divergent_barriers(text);
  ASSERT_EQ(found.size(), 1u);
  found[0].file = "labs/04-reductions/reductions.cu";
  EXPECT_EQ(describe_barrier_finding(found[0]),
            std::string("labs/04-reductions/reductions.cu:11: __syncthreads() inside 'if (t % (2 * s) == 0)' "
                        "(line 8), whose condition depends on the thread index: ") +
                kWhy);
}

TEST(DivergentBarriers, FlagsABarrierAfterAnEarlyReturn) {
  const std::string text =
      "__global__ void reverse(const int* in, int* out, int n) {\n"
      "  __shared__ int tile[256];\n"
      "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  tile[threadIdx.x] = in[i];\n"
      "  __syncthreads();\n"
      "  out[i] = tile[255 - threadIdx.x];\n"
      "}\n";
  EXPECT_EQ(findings_in(text), (Lines{"6 __syncthreads() | if (i >= n) (4) return"}));
  BarrierFinding finding = find_divergent_barriers(text).at(0);
  finding.file = "labs/05-atomics/atomics.cu";
  EXPECT_EQ(describe_barrier_finding(finding),
            std::string("labs/05-atomics/atomics.cu:6: __syncthreads() after 'if (i >= n) return' (line 4), "
                        "which only some threads take: ") +
                kWhy);
}

TEST(DivergentBarriers, FlagsEveryKindOfBranchAndLoop) {
  EXPECT_EQ(
      findings_in("__global__ void k(int* p) {\n"
                  "  const int t = threadIdx.x;\n"
                  "  if (t < 32) __syncthreads();\n"
                  "  if (p[0] > 0) {\n"
                  "  } else if (t > 3) {\n"
                  "    p[1] = 0;\n"
                  "  } else {\n"
                  "    __syncthreads_count(p[2]);\n"
                  "  }\n"
                  "  switch (t) {\n"
                  "    case 0: __syncthreads_and(1); break;\n"
                  "    default: break;\n"
                  "  }\n"
                  "  int x = t == 0 ? 1 : __syncthreads_or(1);\n"
                  "  while (x < t) { __syncthreads(); ++x; }\n"
                  "  do {\n"
                  "    __syncthreads();\n"
                  "  } while (p[x + t] != 0);\n"
                  "  for (int i = threadIdx.x; i < 100; i += blockDim.x) __syncthreads();\n"
                  "}\n"),
      (Lines{"3 __syncthreads() | if (t < 32) (3)", "8 __syncthreads_count(p[2]) | if (t > 3) ... else (5)",
             "11 __syncthreads_and(1) | switch (t) (10)", "14 __syncthreads_or(1) | t == 0 ? ... : ... (14)",
             "15 __syncthreads() | while (x < t) (15)",
             "17 __syncthreads() | do ... while (p[x + t] != 0) (18)",
             "19 __syncthreads() | for (int i = threadIdx.x; i < 100; i += blockDim.x) (19)"}));
}

TEST(DivergentBarriers, FollowsVariablesThroughOneMoreAssignment) {
  EXPECT_EQ(findings_in("__global__ void k(int* p) {\n"
                        "  int t;\n"
                        "  t = threadIdx.x;\n"
                        "  const int pair = t / 2;\n"
                        "  if (pair == 0) {\n"
                        "    __syncthreads();\n"
                        "  }\n"
                        "  const int size = blockDim.x;\n"
                        "  const int half = size / 2;\n"
                        "  if (half > 4) __syncthreads();\n"
                        "}\n"),
            (Lines{"6 __syncthreads() | if (pair == 0) (5)"}));
}

TEST(DivergentBarriers, FlagsBreaksAndContinuesThatOnlySomeThreadsTake) {
  EXPECT_EQ(findings_in("__global__ void k(int* p) {\n"
                        "  const int t = threadIdx.x;\n"
                        "  for (int s = blockDim.x / 2; s > 0; s /= 2) {\n"
                        "    if (t >= s) break;\n"
                        "    p[t] += p[t + s];\n"
                        "    __syncthreads();\n"
                        "  }\n"
                        "  for (int k = 0; k < 4; ++k) {\n"
                        "    if (p[t] == 0) continue;\n"
                        "    __syncthreads();\n"
                        "  }\n"
                        "  for (int k = 0; k < 4; ++k) {\n"
                        "    __syncthreads();\n"
                        "    if (p[t] == 0) continue;\n"  // After the barrier: every thread comes back to it.
                        "    p[t] = k;\n"
                        "  }\n"
                        "}\n"),
            (Lines{"6 __syncthreads() | if (t >= s) (4) break",
                   "10 __syncthreads() | if (p[t] == 0) (9) continue"}));
}

TEST(DivergentBarriers, FlagsFullMaskSyncwarpInALaneBranchButNotInAWarpBranch) {
  EXPECT_EQ(findings_in("__device__ int lane_index() { return static_cast<int>(threadIdx.x) % 32; }\n"
                        "__device__ int warp_index() { return static_cast<int>(threadIdx.x) / kWarpSize; }\n"
                        "__global__ void k(int* p) {\n"
                        "  const int lane = lane_index();\n"
                        "  const int warp = warp_index();\n"
                        "  if (lane < 16) __syncwarp();\n"
                        "  if (lane == 0) { __syncwarp(0xFFFFFFFFu); }\n"
                        "  if (lane == 1) __syncwarp(kFullMask);\n"
                        "  if (warp == 0) {\n"
                        "    __syncwarp();\n"     // The whole warp is here: fine.
                        "    __syncthreads();\n"  // Only warp 0 of the block: not fine.
                        "  }\n"
                        "  unsigned l;\n"
                        "  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n"
                        "  if (l == 3) __syncwarp(~0u);\n"
                        "}\n"),
            (Lines{"6 __syncwarp() | if (lane < 16) (6)", "7 __syncwarp(0xFFFFFFFFu) | if (lane == 0) (7)",
                   "8 __syncwarp(kFullMask) | if (lane == 1) (8)", "11 __syncthreads() | if (warp == 0) (9)",
                   "15 __syncwarp(~0u) | if (l == 3) (15)"}));
  const std::vector<BarrierFinding> found =
      find_divergent_barriers("__global__ void k() { if (threadIdx.x % 32 == 0) __syncwarp(); }\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].warp);
  EXPECT_NE(
      describe_barrier_finding(found[0]).find("__syncwarp() whose mask names lanes that do not reach it"),
      std::string::npos);
}

// ---- not flagged ----

TEST(DivergentBarriers, LeavesABarrierInAUniformLoopAlone) {
  EXPECT_EQ(findings_in("__global__ void block_sum(const int* in, int* partials, std::size_t n) {\n"
                        "  extern __shared__ int shared[];\n"
                        "  const int t = static_cast<int>(threadIdx.x);\n"
                        "  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + t;\n"
                        "  shared[t] = i < n ? in[i] : 0;\n"
                        "  __syncthreads();\n"
                        "  for (int s = 1; s < blockDim.x; s *= 2) {\n"
                        "    if (t % (2 * s) == 0 && t + s < blockDim.x) shared[t] += shared[t + s];\n"
                        "    __syncthreads();\n"
                        "  }\n"
                        "  for (int i = 0; i < 4; ++i) __syncthreads();\n"  // Another i, which starts at 0.
                        "  while (n > 0) { __syncthreads(); n /= 2; }\n"
                        "  if (t == 0) partials[blockIdx.x] = shared[0];\n"
                        "}\n"),
            Lines{});
}

TEST(DivergentBarriers, LeavesABarrierAfterAnIfBlockAlone) {
  EXPECT_EQ(findings_in("__global__ void count(const int* in, int n, unsigned* total) {\n"
                        "  __shared__ unsigned block_count;\n"
                        "  if (threadIdx.x == 0) {\n"
                        "    block_count = 0;\n"
                        "  }\n"
                        "  __syncthreads();\n"
                        "  if (threadIdx.x < n && in[threadIdx.x] > 0) atomicAdd(&block_count, 1u);\n"
                        "  __syncthreads();\n"
                        "  if (threadIdx.x == 0) atomicAdd(total, block_count); else { total[1] = 0; }\n"
                        "  __syncthreads();\n"
                        "  if (n == 0) return;\n"  // The same for every thread.
                        "  __syncthreads();\n"
                        "}\n"
                        "__device__ void other(int* p) {\n"
                        "  if (threadIdx.x > 3) return;\n"  // Another function's return.
                        "}\n"
                        "__global__ void after(int* p) {\n"
                        "  auto load = [&](int k) { if (k + threadIdx.x > 3) return 0; return p[k]; };\n"
                        "  const int v = load(1);\n"
                        "  __syncthreads();\n"
                        "  p[0] = v;\n"
                        "}\n"),
            Lines{});
}

TEST(DivergentBarriers, IgnoresBarriersInCommentsAndStrings) {
  EXPECT_EQ(findings_in("__global__ void k(const char** out) {\n"
                        "  const int t = threadIdx.x;\n"
                        "  // if (t < 16) __syncthreads();\n"
                        "  /* if (t < 16) { __syncthreads(); } */\n"
                        "  if (t < 16) out[0] = \"__syncthreads();\";\n"
                        "  if (t < 16) out[1] = R\"(__syncwarp())\";\n"
                        "#if 0\n"
                        "  if (t < 16) {\n"
                        "#endif\n"
                        "  __syncthreads();\n"
                        "}\n"),
            Lines{});
}

TEST(DivergentBarriers, LeavesSyncwarpWithAComputedMaskAlone) {
  EXPECT_EQ(findings_in("__global__ void k(int* p) {\n"
                        "  const int lane = threadIdx.x % 32;\n"
                        "  const unsigned active = __ballot_sync(0xffffffffu, lane < 3);\n"
                        "  if (lane < 3) {\n"
                        "    __syncwarp(active);\n"
                        "    __syncwarp(__activemask());\n"
                        "    __syncwarp(0x0000ffffu);\n"
                        "  }\n"
                        "}\n"),
            Lines{});
}

// ---- the rubric ----

json rubric_with(const json& policy) {
  json root = json::parse(R"({"version": 1, "labs": {"04-reductions": {"title": "reductions",
      "groups": [{"name": "all", "tests": ["*"], "points": 1}]}}})");
  if (!policy.is_null()) root["labs"]["04-reductions"]["barrier_in_divergent_code"] = policy;
  return root;
}

TEST(DivergentBarrierRubric, DefaultsToWarnAndAcceptsFail) {
  EXPECT_EQ(parse_rubric(rubric_with(nullptr), "r.json").labs.at("04-reductions").barrier_in_divergent_code,
            BarrierPolicy::warn);
  EXPECT_EQ(parse_rubric(rubric_with("warn"), "r.json").labs.at("04-reductions").barrier_in_divergent_code,
            BarrierPolicy::warn);
  EXPECT_EQ(parse_rubric(rubric_with("fail"), "r.json").labs.at("04-reductions").barrier_in_divergent_code,
            BarrierPolicy::fail);
}

TEST(DivergentBarrierRubric, RejectsAnyOtherValueInOneLine) {
  for (const json& bad : {json("error"), json(true), json(1)}) {
    try {
      parse_rubric(rubric_with(bad), "/src/grader/rubric.json");
      ADD_FAILURE() << bad.dump() << " was accepted";
    } catch (const GraderError& e) {
      EXPECT_EQ(
          std::string(e.what()),
          "rubric /src/grader/rubric.json: labs.04-reductions.barrier_in_divergent_code: must be \"warn\" "
          "(a warning that costs no points) or \"fail\" (the lab scores 0), not " +
              bad.dump());
    }
  }
}

TEST(DivergentBarrierRubric, TheShippedRubricOnlyWarns) {
  const Rubric rubric = load_rubric((source_tree() / "grader/rubric.json").string());
  for (const auto& [id, lab] : rubric.labs)
    EXPECT_EQ(lab.barrier_in_divergent_code, BarrierPolicy::warn) << id;
}

// ---- a lab's files, the refusal and the reports ----

class DivergentBarrierFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-barriers-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "labs/04-reductions");
    lab_.id = "04-reductions";
    lab_.base = "reductions";
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ / file) << text; }

  fs::path dir_;
  LabEntry lab_;
};

TEST_F(DivergentBarrierFiles, ChecksTheGradedFileAndTheLabHeadersItIncludes) {
  write("labs/04-reductions/reductions.cu",
        "#include \"reductions.cuh\"\n"
        "#include \"tree.cuh\"\n"
        "__global__ void k() {\n"
        "  if (threadIdx.x < 32) __syncthreads();\n"
        "}\n");
  write("labs/04-reductions/reductions.cuh", "#pragma once\n");
  write("labs/04-reductions/tree.cuh",
        "#pragma once\n"
        "__device__ void tree(int* p) {\n"
        "  const int t = threadIdx.x;\n"
        "  if (t >= 4) return;\n"
        "  __syncthreads();\n"
        "}\n");
  const std::vector<BarrierFinding> found = check_lab_barriers(dir_.string(), lab_, false);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].file, "labs/04-reductions/reductions.cu");
  EXPECT_EQ(found[0].line, 4u);
  EXPECT_EQ(found[1].file, "labs/04-reductions/tree.cuh");
  EXPECT_EQ(found[1].line, 5u);
  EXPECT_EQ(found[1].exit, "return");
  EXPECT_EQ(
      barrier_refusal(lab_, false, found),
      "labs/04-reductions/reductions.cu has a barrier that not every thread reaches, which this lab's "
      "rubric does not accept (\"barrier_in_divergent_code\": \"fail\"), so the lab scores 0 and its tests "
      "were not run. Move each barrier to where every thread reaches it and grade again:\n- " +
          describe_barrier_finding(found[0]) + "\n- " + describe_barrier_finding(found[1]));
  EXPECT_EQ(barrier_refusal(lab_, true, found)
                .rfind("the reference solution solutions/04-reductions/"
                       "reductions.cu has a barrier that not every thread "
                       "reaches (a bug in the solution), ",
                       0),
            0u);
  // Nothing to check: no source tree, or no such file.
  EXPECT_TRUE(check_lab_barriers("", lab_, false).empty());
  EXPECT_TRUE(check_lab_barriers(dir_.string(), lab_, true).empty());
}

TEST(DivergentBarrierReport, WarningsAreShownAndCostNoPoints) {
  const LabRubric rubric =
      parse_rubric(json::parse(R"({"version": 1, "labs": {"04-reductions": {"title": "reductions",
          "groups": [{"name": "all", "tests": ["Tree.*"], "points": 5}]}}})"),
                   "r.json")
          .labs.at("04-reductions");
  LabRun run;
  run.lab_id = "04-reductions";
  TestResult test;
  test.name = "Tree.Sums";
  test.status = TestStatus::passed;
  run.tests.push_back(test);
  const LabScore clean = score_lab(rubric, run);
  const std::string warning =
      "labs/04-reductions/reductions.cu:11: __syncthreads() inside 'if (t % (2 * s) == 0)' (line 8), whose "
      "condition depends on the thread index: a barrier inside ...";
  run.warnings.push_back(warning);
  GradeReport report;
  report.runs.push_back(run);
  report.scores.push_back(score_lab(rubric, run));
  EXPECT_DOUBLE_EQ(report.scores[0].score, clean.score);
  EXPECT_DOUBLE_EQ(report.scores[0].score, 5.0);

  const std::string text = format_terminal_report(report, false);
  EXPECT_NE(text.find("\nWarnings (they cost no points)\n  04-reductions: " + warning + "\n"),
            std::string::npos)
      << text;
  const json results = gradescope_json(report);
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 5.0);
  EXPECT_NE(results["output"].get<std::string>().find(
                "\nWarnings (they cost no points):\n04-reductions: " + warning + "\n"),
            std::string::npos)
      << results["output"];
  EXPECT_NE(junit_xml(report).find("<system-out>warning: labs/04-reductions/reductions.cu:11: "),
            std::string::npos);

  run.warnings.clear();
  report.runs[0] = run;
  EXPECT_EQ(format_terminal_report(report, false).find("Warnings"), std::string::npos);
}

// ---- the real labs ----

TEST(DivergentBarrierRealLabs, SkeletonsAndSolutionsHaveNone) {
  const fs::path root = source_tree();
  const std::vector<LabEntry> labs = real_labs();
  ASSERT_GE(labs.size(), 10u);
  for (const LabEntry& lab : labs) {
    for (const bool solutions : {false, true}) {
      if (solutions && !fs::is_regular_file(root / lab_source_file(lab, true))) continue;  // A student tree.
      for (const BarrierFinding& finding : check_lab_barriers(root.string(), lab, solutions))
        ADD_FAILURE() << describe_barrier_finding(finding);
    }
  }
  // Every .cu and .cuh of labs/NN-name/ but the instructor's experiment.cu,
  // and every reference solution, on its own.
  std::size_t files = 0;
  for (const char* top : {"labs", "solutions"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const fs::directory_entry& lab : fs::directory_iterator(root / top)) {
      if (!lab.is_directory()) continue;
      for (const fs::directory_entry& file : fs::directory_iterator(lab.path())) {
        const std::string ext = file.path().extension().string();
        if (!file.is_regular_file() || (ext != ".cu" && ext != ".cuh") ||
            file.path().filename() == "experiment.cu")
          continue;
        ++files;
        for (BarrierFinding& finding : find_divergent_barriers(read_text(file.path()))) {
          finding.file = file.path().string();
          ADD_FAILURE() << describe_barrier_finding(finding);
        }
      }
    }
  }
  EXPECT_GE(files, 21u);
}

TEST(DivergentBarrierRealLabs, TheReferenceReductionWithItsBarrierInTheBranchIsFlagged) {
  // Lab 04's interleaved tree, with the barrier moved into the branch: the
  // mistake the issue describes, on the real file.
  const fs::path path = source_tree() / "solutions/04-reductions/reductions.cu";
  if (!fs::is_regular_file(path)) GTEST_SKIP() << "no solutions/ here (the students' release)";
  const std::string reference = read_text(path);
  const std::string step = "    if (t % (2 * s) == 0 && t + s < size) shared[t] += shared[t + s];\n";
  const std::size_t at = reference.find(step + "    __syncthreads();\n");
  if (at == std::string::npos) GTEST_SKIP() << "the reference's tree step has changed";
  const std::string wrong = reference.substr(0, at) +
                            "    if (t % (2 * s) == 0 && t + s < size) {\n"
                            "      shared[t] += shared[t + s];\n"
                            "      __syncthreads();\n"
                            "    }\n" +
                            reference.substr(at + step.size() + std::string("    __syncthreads();\n").size());
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(reference.begin(), reference.begin() + at, '\n'));
  EXPECT_EQ(findings_in(wrong), (Lines{std::to_string(line + 2) +
                                       " __syncthreads() | if (t % (2 * s) == 0 && t + "
                                       "s < size) (" +
                                       std::to_string(line) + ")"}));
}

}  // namespace
}  // namespace workbook::grader
