// Tests of sanitizer mode's pieces that need no GPU: choosing tools and
// tests, reading compute-sanitizer's log, failing the tests with findings,
// and the rubric's "sanitize" section.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "rubric.hpp"
#include "sanitizer.hpp"

namespace workbook::grader {
namespace {

using nlohmann::json;

// What compute-sanitizer and a GoogleTest program print into one stream (the
// lines are real memcheck and racecheck output, shortened).
const char* const kLog = R"(========= COMPUTE-SANITIZER
[ RUN      ] Sizes/Abc.Computes/n33
========= Invalid __global__ write of size 4 bytes
=========     at add_abc(const float *, float *, int)+0x90 in /src/labs/02-abc/abc.cu:17
=========     by thread (32,0,0) in block (0,0,0)
=========     Address 0x7f3a00000080 is out of bounds
=========     and is 0 bytes after the nearest allocation at 0x7f3a00000000 of size 128 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cuLaunchKernel [0x2c3f1] in libcuda.so.1
=========
[       OK ] Sizes/Abc.Computes/n33 (12 ms)
[ RUN      ] Sizes/Abc.Computes/n1024
[       OK ] Sizes/Abc.Computes/n1024 (3 ms)
[ RUN      ] Block.Reduces
========= Error: Race reported between Write access at reduce(const int *, int *)+0x1a0 in reduce.cu:40
=========     and Read access at reduce(const int *, int *)+0x1c0 in reduce.cu:42 [512 hazards]
=========
[       OK ] Block.Reduces (40 ms)
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= ERROR SUMMARY: 2 errors
)";

TEST(Sanitizer, ToolsAreAllOrAChosenListInTheirOrder) {
  EXPECT_EQ(parse_sanitizer_tools("all"), sanitizer_tools());
  EXPECT_EQ(parse_sanitizer_tools(""), sanitizer_tools());
  EXPECT_EQ(parse_sanitizer_tools("initcheck,memcheck"), (std::vector<std::string>{"memcheck", "initcheck"}));
  try {
    parse_sanitizer_tools("memcheck,leakcheck");
    FAIL() << "leakcheck was accepted";
  } catch (const GraderError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--sanitize: unknown tool 'leakcheck'; use all, or some of memcheck, racecheck, synccheck, "
              "initcheck separated by commas");
  }
}

TEST(Sanitizer, SmallCorrectnessTestsAreCheckedByDefault) {
  EXPECT_TRUE(small_enough_to_sanitize("Block.Reduces"));
  EXPECT_TRUE(small_enough_to_sanitize("Sizes/Abc.Computes/n33"));
  EXPECT_TRUE(small_enough_to_sanitize("Sizes/Abc.Computes/n131072"));
  EXPECT_TRUE(small_enough_to_sanitize("BlockSizes/Scan.Slices/n1000_threads1024"));
  EXPECT_FALSE(small_enough_to_sanitize("Sizes/Abc.Computes/n131073"));
  EXPECT_FALSE(small_enough_to_sanitize("BlockSizes/Scan.Slices/n100003_threads1/n67108864"));
  EXPECT_FALSE(small_enough_to_sanitize("AbcSpeed.ReachesCopyBandwidth"));
  EXPECT_FALSE(small_enough_to_sanitize("Sizes/Abc.Computes/n99999999999999999999999"));
}

TEST(Sanitizer, FindingsAreAttributedToTheTestThatWasRunning) {
  const std::vector<SanitizerFinding> findings = parse_sanitizer_log(kLog);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].test, "Sizes/Abc.Computes/n33");
  EXPECT_EQ(findings[0].excerpt,
            "Invalid __global__ write of size 4 bytes\n"
            "    at add_abc(const float *, float *, int)+0x90 in /src/labs/02-abc/abc.cu:17\n"
            "    by thread (32,0,0) in block (0,0,0)\n"
            "    Address 0x7f3a00000080 is out of bounds\n"
            "    and is 0 bytes after the nearest allocation at 0x7f3a00000000 of size 128 bytes");
  EXPECT_EQ(findings[1].test, "Block.Reduces");
  EXPECT_EQ(findings[1].excerpt.substr(0, 36), "Error: Race reported between Write a");
  EXPECT_TRUE(
      parse_sanitizer_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n").empty());
}

TEST(Sanitizer, AFindingFailsAPassedTestAndAddsToAFailedOne) {
  LabRun run;
  run.lab_id = "02-abc";
  for (const char* name : {"Sizes/Abc.Computes/n33", "Sizes/Abc.Computes/n1024", "Block.Reduces"}) {
    TestResult test;
    test.name = name;
    test.status = TestStatus::passed;
    run.tests.push_back(test);
  }
  run.tests[2].status = TestStatus::failed;
  run.tests[2].message = "expected 3, got 4";
  std::vector<SanitizerFinding> findings = parse_sanitizer_log(kLog);
  findings.push_back({"", "Invalid __global__ read of size 4 bytes"});  // Printed between tests.
  apply_sanitizer_findings("memcheck", findings, "/tmp/logs/02-abc/memcheck", run);
  EXPECT_EQ(run.tests[0].status, TestStatus::failed);
  EXPECT_EQ(run.tests[0].message.substr(0, 80),
            "memcheck found an error in this test (run it under compute-sanitizer --tool memc");
  EXPECT_NE(run.tests[0].message.find("abc.cu:17"), std::string::npos);
  EXPECT_EQ(run.tests[1].status, TestStatus::passed);
  EXPECT_EQ(run.tests[2].message.substr(0, 18), "expected 3, got 4\n");
  ASSERT_EQ(run.notes.size(), 2u);
  EXPECT_EQ(run.notes[0],
            "memcheck: 2 finding(s) in 2 test(s), which fail; logs in /tmp/logs/02-abc/memcheck");
  EXPECT_EQ(run.notes[1],
            "memcheck: 1 finding(s) outside any test (a suite's set-up or clean-up); logs in "
            "/tmp/logs/02-abc/memcheck");
}

TEST(Sanitizer, RubricSectionChoosesTestsAndGatingTools) {
  json root = json::parse(R"({"version": 1, "labs": {"07-scan": {"title": "scan",
      "groups": [{"name": "all", "tests": ["*"], "points": 1}]}}})");
  LabRubric lab = parse_rubric(root, "r.json").labs.at("07-scan");
  EXPECT_TRUE(lab.sanitize_tests.empty());
  EXPECT_EQ(lab.sanitize_gate, sanitizer_tools());  // Every tool gates by default.
  root["labs"]["07-scan"]["sanitize"] = json::parse(R"({"tests": ["Block*"], "gate": ["memcheck"]})");
  lab = parse_rubric(root, "r.json").labs.at("07-scan");
  EXPECT_EQ(lab.sanitize_tests, std::vector<std::string>{"Block*"});
  EXPECT_EQ(lab.sanitize_gate, std::vector<std::string>{"memcheck"});
  root["labs"]["07-scan"]["sanitize"] = json::parse(R"({"gate": ["leakcheck"]})");
  try {
    parse_rubric(root, "r.json");
    FAIL() << "leakcheck was accepted";
  } catch (const GraderError& e) {
    EXPECT_EQ(std::string(e.what()),
              "rubric r.json: labs.07-scan.sanitize.gate: unknown tool \"leakcheck\" (expected memcheck, "
              "racecheck, synccheck or initcheck)");
  }
}

}  // namespace
}  // namespace workbook::grader
