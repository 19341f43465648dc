// Tests of the failure analysis (failure_analysis.hpp): the smallest failing
// size of made-up runs, the shapes read from the messages compare.cpp really
// writes, the choice and the verdict of a second run, explain.json, the
// reports' lines, and every lab's explain.json against its handout and tests.
// The second run itself, with the fake lab, is in end_to_end_tests.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "error.hpp"
#include "failure_analysis.hpp"
#include "lab_runner.hpp"
#include "report.hpp"
#include "rubric.hpp"
#include "scoring.hpp"
#include "source_tree.hpp"
#include "workbook/compare.hpp"

namespace workbook::grader {
namespace {

using nlohmann::json;

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

TestResult result(const std::string& name, TestStatus status, const std::string& message = "") {
  TestResult test;
  test.name = name;
  test.status = status;
  test.message = status == TestStatus::failed && message.empty() ? "abc_test.cu:66: Failure" : message;
  return test;
}

// A comparison's failure as workbook::testing::matches() words it.
std::string wrong_result(std::size_t n, const std::string& report) {
  return "abc_test.cu:66: Failure\nValue of: matches(...)\n  Actual: false (wrong result for n=" +
         std::to_string(n) + ", pattern=uniform, seed=20261121: " + report + ")\nExpected: true";
}

// ---- the size in a test's name ----

TEST(FailureAnalysis, SizeInNameReadsTheSizeAndKeepsTheOtherParameters) {
  const auto plain = size_in_name("Sizes/OneThreadPerElement.ComputesAbcForEveryElement/n31");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->size, 31u);
  EXPECT_EQ(plain->family(), "Sizes/OneThreadPerElement.ComputesAbcForEveryElement/n*");
  const auto pattern = size_in_name("Sizes/Filter.PerThreadAtomicsKeepExactlyTheOddValues/n1000_all_odd");
  ASSERT_TRUE(pattern.has_value());
  EXPECT_EQ(pattern->size, 1000u);
  EXPECT_EQ(pattern->family(), "Sizes/Filter.PerThreadAtomicsKeepExactlyTheOddValues/n*_all_odd");
  EXPECT_FALSE(size_in_name("Shapes/Transpose.MovesEveryElement/8192x8192").has_value());
  EXPECT_FALSE(size_in_name("RoundTrip.EmptyVectorsGiveAnEmptyResult").has_value());
  EXPECT_FALSE(size_in_name("Sizes/A.B/n99999999999999999999999").has_value());  // Past 2^64.
}

// ---- the smallest failing size ----

LabRun sized_run() {
  LabRun run;
  run.lab_id = "02-abc";
  const std::string abc = "Sizes/OneThreadPerElement.ComputesAbcForEveryElement/n";
  run.tests = {result(abc + "1", TestStatus::passed), result(abc + "30", TestStatus::passed),
               result(abc + "1000", TestStatus::failed),
               result(abc + "31", TestStatus::failed, wrong_result(31, "1 of 31 elements differ")),
               result(abc + "67108864", TestStatus::failed),
               // Every size fails, one is skipped: no GPU feature.
               result("Sizes/Filter.Keeps/n1_all_odd", TestStatus::failed),
               result("Sizes/Filter.Keeps/n33_all_odd", TestStatus::skipped),
               result("Sizes/Filter.Keeps/n1000_all_odd", TestStatus::failed),
               // Another pattern is another family, and it passes.
               result("Sizes/Filter.Keeps/n1_uniform", TestStatus::passed),
               result("Sizes/Filter.Keeps/n1000_uniform", TestStatus::passed),
               // One size says nothing about sizes; speed tests are not correctness.
               result("Sizes/Lonely.Fails/n64", TestStatus::failed),
               result("AbcSpeed.Fast/n1", TestStatus::passed), result("AbcSpeed.Fast/n2", TestStatus::failed),
               result("RoundTrip.Works", TestStatus::failed)};
  return run;
}

TEST(FailureAnalysis, EachFamilyOfFailingTestsGetsItsSmallestFailingSize) {
  const std::vector<SizeFinding> findings = find_smallest_failing_sizes(sized_run(), 7);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].smallest, "Sizes/OneThreadPerElement.ComputesAbcForEveryElement/n31");
  EXPECT_EQ(findings[0].text,
            "OneThreadPerElement.ComputesAbcForEveryElement fails at n=31 (seed=20261121) and at 2 larger "
            "sizes, up to n=67108864; it passes at every smaller size tested (n=1, 30). Start with "
            "Sizes/OneThreadPerElement.ComputesAbcForEveryElement/n31: the smallest input that shows the "
            "mistake.");
  EXPECT_EQ(findings[1].smallest, "Sizes/Filter.Keeps/n1_all_odd");
  // The message names no seed: the run's.
  EXPECT_EQ(findings[1].text,
            "Filter.Keeps (all_odd) fails at n=1 (seed=7) and at n=1000; n=1 is the smallest size tested. "
            "The mistake shows on the smallest input tested: start with Sizes/Filter.Keeps/n1_all_odd.");
}

TEST(FailureAnalysis, ASizeLineNamesTheSizesThatPassAboveTheSmallestFailure) {
  LabRun run;
  for (const auto& [size, passed] :
       std::vector<std::pair<int, bool>>{{1, true}, {31, false}, {32, true}, {33, false}, {64, true}}) {
    run.tests.push_back(result("Sizes/Scan.Works/n" + std::to_string(size),
                               passed ? TestStatus::passed : TestStatus::failed));
  }
  const std::vector<SizeFinding> findings = find_smallest_failing_sizes(run, std::nullopt);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].text,
            "Scan.Works fails at n=31 and at n=33; it passes at every smaller size tested "
            "(n=1) and at n=32, 64 above it. Start with Sizes/Scan.Works/n31: the smallest input that shows "
            "the mistake.");
}

TEST(FailureAnalysis, ASeedIsReadFromItsMessage) {
  EXPECT_EQ(seed_in_message("wrong result for n=31, pattern=uniform, seed=20261121: 1 of 31"), 20261121u);
  EXPECT_FALSE(seed_in_message("crashed: the test program was killed by signal SIGSEGV").has_value());
  EXPECT_FALSE(seed_in_message("reseed=5").has_value());
}

// ---- shapes of error ----

// The shape keys of a comparison that compare.cpp really reports.
std::vector<std::string> shapes_of(const std::vector<int>& expected, const std::vector<int>& got) {
  return shapes_in_message(wrong_result(expected.size(), compare_exact(expected, got).describe()));
}

std::vector<int> ramp(std::size_t n) {
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(3 * i + 1);
  return values;
}

TEST(FailureAnalysis, ShapesAreReadFromTheSentencesCompareWrites) {
  const std::vector<int> expected = ramp(256);
  std::vector<int> got = expected;
  for (std::size_t i = 1; i < got.size(); ++i) got[i] = expected[i - 1];
  got[0] = 0;
  EXPECT_EQ(shapes_of(expected, got), std::vector<std::string>{"shifted"});

  got = expected;
  for (std::size_t i = 128; i < got.size(); ++i) got[i] += static_cast<int>(i % 5) + 1;
  EXPECT_EQ(shapes_of(expected, got), std::vector<std::string>{"from_element"});

  got = expected;
  for (std::size_t i = 253; i < got.size(); ++i) got[i] += static_cast<int>(i % 5) + 1;
  EXPECT_EQ(shapes_of(expected, got), std::vector<std::string>{"tail"});

  got = expected;
  for (std::size_t i = 100; i < got.size(); ++i) got[i] = -1;
  EXPECT_EQ(shapes_of(expected, got), std::vector<std::string>{"unwritten"});

  got = expected;
  for (int& value : got) value += 7;
  EXPECT_EQ(shapes_of(expected, got), std::vector<std::string>{"constant"});

  got = expected;
  got[10] += 1;
  got[20] += 2;
  EXPECT_TRUE(shapes_of(expected, got).empty()) << compare_exact(expected, got).describe();
}

TEST(FailureAnalysis, GuardsAreReadFromTheLabsWordsAndShapesComeInOrder) {
  // As labs 01, 02, 04 and 10 word a written guard.
  for (const std::string& message :
       {std::string("wrong result for n=31, threads_per_block=32, the records past n (threads with index >= "
                    "n must not write): 1 of 64 elements differ"),
        std::string("for n=31, pattern=uniform, seed=1: the kernel wrote past element n-1; threads with i >= "
                    "n must not write"),
        std::string("wrong result for ..., the 64 guard elements after the last partial (nothing may be "
                    "written there): 2 of 64 elements differ"),
        std::string("pair 40 written past the capacity of 40")}) {
    EXPECT_EQ(shapes_in_message(message), std::vector<std::string>{"guard"}) << message;
  }
  EXPECT_TRUE(shapes_in_message("Expected equality of these values: 3 and 4").empty());
  // Two comparisons in one message: both shapes, in the keys' order.
  const std::string both =
      "wrong result for n=9: 2 of 9 elements differ; Shape of the error: right except the last 2 elements: "
      "the bounds of the last block.\nwrong result for n=9, the guard elements after the output: 1 of 64 "
      "elements differ\nwrong result for n=9: Shape of the values are shifted by one position\n"
      "Shape of the error: the values are shifted by one position (got[i] holds expected[i - 1]): ...";
  EXPECT_EQ(shapes_in_message(both), (std::vector<std::string>{"shifted", "tail", "guard"}));
}

// ---- the second run ----

TEST(FailureAnalysis, TheSmallestFailingCaseOfEachFamilyIsRunAgainFirst) {
  LabRun run;
  run.tests = {result("Sizes/A.X/n1", TestStatus::passed),
               result("Sizes/A.X/n1000", TestStatus::failed),
               result("Sizes/A.X/n33", TestStatus::failed),
               result("Plain.Fails", TestStatus::failed),
               result("Plain.Crashes", TestStatus::failed,
                      "crashed: the test program was killed by signal SIGSEGV during this test"),
               result("Plain.Hangs", TestStatus::failed, "timed out: the test was stopped after 60 s"),
               result("Plain.Faults", TestStatus::failed,
                      "a kernel of this test failed on the GPU: cudaErrorIllegalAddress"),
               result("ASpeed.Slow", TestStatus::failed, "too slow"),
               result("Sizes/B.Y/n5", TestStatus::failed),
               result("Sizes/B.Y/n2", TestStatus::failed)};
  // A test without a size is a family of its own.
  EXPECT_EQ(rerun_candidates(run),
            (std::vector<std::string>{"Sizes/A.X/n33", "Plain.Fails", "Sizes/B.Y/n2"}));
  run.tests.resize(4);
  EXPECT_EQ(rerun_candidates(run),
            (std::vector<std::string>{"Sizes/A.X/n33", "Plain.Fails", "Sizes/A.X/n1000"}));
}

TEST(FailureAnalysis, ASecondRunThatPassesOrAnswersDifferentlyIsARace) {
  const TestResult first =
      result("Sizes/Scan.Works/n31", TestStatus::failed,
             wrong_result(31, "3 of 31 elements differ; first: [28] expected 85, got 86;"));
  const std::string passed =
      describe_rerun(first, result(first.name, TestStatus::passed), "07-prefix-sum", std::nullopt);
  EXPECT_EQ(passed,
            "Two runs, two answers: run again on the same input (seed=20261121), this test passed. Output "
            "that changes between two runs of the same input points to a race: a missing __syncthreads(), a "
            "plain add where an atomic one is needed, or a read of a value another block has not written "
            "yet. The test still counts as failed (a correct kernel gives the same answer every time): find "
            "the race with ./workbook grade 07-prefix-sum --sanitize=racecheck, which names the kernel and "
            "the line.");
  const TestResult more =
      result(first.name, TestStatus::failed,
             wrong_result(31, "7 of 31 elements differ; first: [24] expected 73, got 9;"));
  EXPECT_NE(describe_rerun(first, more, "07-prefix-sum", std::nullopt)
                .find("it failed with another answer (3 of 31 elements differed the first time, 7 of 31 the "
                      "second)."),
            std::string::npos);
  const TestResult elsewhere =
      result(first.name, TestStatus::failed,
             wrong_result(31, "3 of 31 elements differ; first: [2] expected 7, got 8;"));
  EXPECT_NE(describe_rerun(first, elsewhere, "07-prefix-sum", std::nullopt)
                .find("(as many wrong elements, 3 of 31, but other ones or other values)"),
            std::string::npos);
}

TEST(FailureAnalysis, TwoRunsThatAgreeOrASecondRunThatSaysNothingNameNoRace) {
  TestResult first = result("Sizes/Scan.Works/n31", TestStatus::failed, wrong_result(31, "3 of 31 differ"));
  TestResult same = first;
  same.message = "another_file.cu:1: " + first.message;  // Only the comparisons count.
  EXPECT_EQ(describe_rerun(first, same, "07-prefix-sum", 5), "");
  // The first message's added lines are not the test's answer.
  first.message += "\nIn the handout (labs/07-prefix-sum/README.md): see Hints.";
  EXPECT_EQ(describe_rerun(first, same, "07-prefix-sum", 5), "");
  for (const TestResult& silent :
       {result(first.name, TestStatus::skipped, "no GPU"),
        result(first.name, TestStatus::failed, "crashed: the test program was killed by signal SIGSEGV"),
        result(first.name, TestStatus::failed, "timed out: the test was stopped after 60 s")}) {
    EXPECT_EQ(describe_rerun(first, silent, "07-prefix-sum", 5), "") << silent.message;
  }
  // Without comparisons the whole messages are compared.
  const TestResult plain =
      result("Plain.Works", TestStatus::failed, "x.cu:3: Failure\nExpected: 4\n  Actual: 5");
  EXPECT_EQ(describe_rerun(plain, plain, "07-prefix-sum", 5), "");
  const TestResult other =
      result("Plain.Works", TestStatus::failed, "x.cu:3: Failure\nExpected: 4\n  Actual: 6");
  EXPECT_NE(describe_rerun(plain, other, "07-prefix-sum", 5).find("(seed=5), it failed with another answer."),
            std::string::npos);
}

// ---- explain.json and the handout's lines ----

TEST(FailureAnalysis, ExplainJsonIsReadAndCheckedLeavingOtherKeysAlone) {
  const Explanations read = parse_explanations(
      R"({"failures": {"tail": "see Hints: the last block.", "race": "see Hints: a barrier."},
          "speed": {"anything": 1}, "see": []})",
      "explain.json");
  EXPECT_EQ(read.failures.size(), 2u);
  EXPECT_EQ(read.failures.at("tail"), "see Hints: the last block.");
  EXPECT_TRUE(parse_explanations(R"({"speed": {}})", "explain.json").failures.empty());
  for (const std::string& bad :
       {std::string("{ not json"), std::string("[]"), std::string(R"({"failures": []})"),
        std::string(R"({"failures": {"off_by_one": "see Hints."}})"),
        std::string(R"({"failures": {"tail": ""}})"), std::string(R"({"failures": {"tail": 3}})")}) {
    try {
      parse_explanations(bad, "labs/02-abc/explain.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const GraderError& error) {
      EXPECT_EQ(std::string(error.what()).rfind("labs/02-abc/explain.json: ", 0), 0u) << error.what();
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    }
  }
}

TEST(FailureAnalysis, AMalformedExplainJsonIsANoteAndNoLines) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "failure-analysis-explain";
  std::filesystem::create_directories(dir);
  std::string problem;
  EXPECT_TRUE(load_explanations(dir.string(), "02-abc", &problem).failures.empty());
  EXPECT_EQ(problem, "");  // No file: nothing to say.
  write_file(dir / "explain.json", R"({"failures": {"typo": "see Hints."}})");
  EXPECT_TRUE(load_explanations(dir.string(), "02-abc", &problem).failures.empty());
  EXPECT_NE(problem.find("failures.typo: not a shape of error"), std::string::npos) << problem;
  write_file(dir / "explain.json", R"({"failures": {"tail": "see Hints."}})");
  const Explanations good = load_explanations(dir.string(), "02-abc", &problem);
  EXPECT_EQ(good.handout, "labs/02-abc/README.md");
  EXPECT_EQ(good.hints_page, "") << "no hints.md in the folder";
  EXPECT_EQ(good.failures.at("tail"), "see Hints.");
  std::filesystem::remove_all(dir);
}

TEST(FailureAnalysis, EachShapeAFailureShowsAddsItsLineOfTheHandout) {
  Explanations explanations;
  explanations.handout = "labs/07-prefix-sum/README.md";
  explanations.failures = {{"tail", "see Hints by task, TODO(7): a partial tile."},
                           {"race", "see Hints: the last barrier of block_scan."},
                           {"guard", "see What the tests check: the guards."}};
  LabRun run;
  run.tests = {
      result("Sizes/Scan.Tail/n31", TestStatus::failed,
             "wrong result for n=31: 2 of 31 elements differ; Shape of the error: right except the last 2 "
             "elements: the bounds of the last block."),
      result("Sizes/Scan.Race/n31", TestStatus::failed, "wrong result for n=31: 2 of 31 elements differ"),
      result("Sizes/Scan.Shifted/n31", TestStatus::failed,
             "Shape of the error: the values are shifted by one position (...)"),
      result("Sizes/Scan.Passes/n31", TestStatus::passed, "Shape of the error: right except the last 2")};
  add_handout_lines(explanations, {"Sizes/Scan.Race/n31"}, run);
  EXPECT_NE(run.tests[0].message.find("\nIn the handout (labs/07-prefix-sum/README.md): see Hints by task, "
                                      "TODO(7): a partial tile."),
            std::string::npos)
      << run.tests[0].message;
  EXPECT_EQ(run.tests[0].message.find("the last barrier"), std::string::npos);
  EXPECT_NE(run.tests[1].message.find("\nIn the handout (labs/07-prefix-sum/README.md): see Hints: the last "
                                      "barrier of block_scan."),
            std::string::npos);
  EXPECT_EQ(run.tests[2].message.find("In the handout"), std::string::npos);  // No sentence for "shifted".
  EXPECT_EQ(run.tests[3].message.find("In the handout"), std::string::npos);  // It passed.
}

TEST(FailureAnalysis, ASentenceThatSendsToHintsByTaskNamesTheLabsPageOfHints) {
  Explanations explanations;
  explanations.handout = "labs/07-prefix-sum/README.md";
  explanations.hints_page = "labs/07-prefix-sum/hints.md";
  explanations.failures = {{"tail", "see Hints by task, TODO(7): a partial tile."},
                           {"race", "see Hints: the last barrier of block_scan."}};
  LabRun run;
  run.tests = {result("Sizes/Scan.Tail/n31", TestStatus::failed,
                      "Shape of the error: right except the last 2 elements: the bounds of the last block."),
               result("Sizes/Scan.Race/n31", TestStatus::failed, "wrong result for n=31")};
  add_handout_lines(explanations, {"Sizes/Scan.Race/n31"}, run);
  EXPECT_NE(
      run.tests[0].message.find("TODO(7): a partial tile. (Hints by task: labs/07-prefix-sum/hints.md)"),
      std::string::npos)
      << run.tests[0].message;
  EXPECT_EQ(run.tests[1].message.find("hints.md"), std::string::npos) << run.tests[1].message;
}

// ---- the reports ----

TEST(FailureAnalysis, ReportsKeepTheAddedLinesOfALongMessageAndShowTheSmallestSizes) {
  std::string message = "abc_test.cu:66: Failure";
  for (int line = 2; line <= 9; ++line) message += "\nline " + std::to_string(line);
  message +=
      std::string("\n") + kRaceLead + "run again ...\n" + kHandoutLead + "labs/02-abc/README.md): see Hints.";
  const std::string excerpt = message_excerpt(message);
  EXPECT_NE(excerpt.find("line 6\n[...]\nTwo runs, two answers: run again ...\nIn the handout ("),
            std::string::npos)
      << excerpt;
  EXPECT_EQ(excerpt.find("line 7"), std::string::npos) << excerpt;
  EXPECT_EQ(message_excerpt("short\nmessage"), "short\nmessage");

  GradeReport report;
  report.gpu = "Fake GPU";
  report.seed = "default";
  LabRun run = sized_run();
  run.size_findings = find_smallest_failing_sizes(run, 7);
  run.tests[3].message = message;
  LabRubric rubric;
  rubric.title = "abc";
  rubric.groups.push_back({"sizes", {"Sizes/OneThreadPerElement.*"}, 6, std::nullopt});
  rubric.groups.push_back(
      {"the rest", {"Sizes/Filter.*", "Sizes/Lonely.*", "AbcSpeed.*", "RoundTrip.*"}, 4, std::nullopt});
  report.scores.push_back(score_lab(rubric, run));
  report.runs.push_back(run);
  const std::string text = format_terminal_report(report, false);
  EXPECT_NE(text.find(std::string("\n") + kSizeFindingsTitle + "\n  02-abc: " + run.size_findings[0].text +
                      "\n  02-abc: " + run.size_findings[1].text + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("      In the handout (labs/02-abc/README.md): see Hints.\n"), std::string::npos)
      << text;

  const json results = gradescope_json(report);
  const std::string sizes = results["tests"][0]["output"];
  EXPECT_EQ(sizes.rfind(std::string("2 of 5 tests passed.\n") + kSizeFindingsTitle + ":\n- " +
                            run.size_findings[0].text + "\nFailing:\n",
                        0),
            0u)
      << sizes;
  EXPECT_EQ(sizes.find("Filter.Keeps"), std::string::npos) << "another group's family: " << sizes;
  EXPECT_NE(sizes.find("Two runs, two answers"), std::string::npos) << sizes;
  const std::string rest = results["tests"][1]["output"];
  EXPECT_NE(rest.find("- " + run.size_findings[1].text), std::string::npos) << rest;
  EXPECT_NE(junit_xml(report).find("smallest failing size: " + run.size_findings[1].text), std::string::npos);
}

// ---- every lab's explain.json ----

std::set<std::string> todo_numbers(const std::string& text) {
  std::set<std::string> numbers;
  const std::regex todo(R"(TODO\((\d+)\))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), todo); it != std::sregex_iterator(); ++it)
    numbers.insert((*it)[1]);
  return numbers;
}

TEST(FailureAnalysisRealLabs, EveryExplainJsonParsesAndPointsIntoItsHandout) {
  const std::vector<LabEntry> labs = test_tree::real_labs();
  ASSERT_EQ(labs.size(), 10u);
  for (const LabEntry& lab : labs) {
    const std::filesystem::path dir = test_tree::source_tree() / "labs" / lab.id;
    std::string problem;
    const Explanations explanations = load_explanations(dir.string(), lab.id, &problem);
    EXPECT_EQ(problem, "") << lab.id;
    EXPECT_FALSE(explanations.failures.empty()) << lab.id << ": no labs/" << lab.id << "/explain.json";
    const std::string handout = test_tree::read_text(dir / "README.md");
    // The TODOs the hints are given for: "<summary>TODO(5), <code>scan_items</code>: its three hints",
    // in the handout or on its page of hints by task, hints.md, which "### Hints by task" links.
    const std::string hints =
        handout + (std::filesystem::exists(dir / "hints.md") ? test_tree::read_text(dir / "hints.md") : "");
    std::set<std::string> hinted;
    const std::regex summary(R"(<summary>TODO\((\d+)\))");
    for (auto it = std::sregex_iterator(hints.begin(), hints.end(), summary); it != std::sregex_iterator();
         ++it)
      hinted.insert((*it)[1]);
    for (const auto& [key, sentence] : explanations.failures) {
      const std::string where = lab.id + " " + key + ": " + sentence;
      EXPECT_EQ(sentence.rfind("see ", 0), 0u) << where;
      EXPECT_EQ(sentence.back(), '.') << where;
      const bool names_a_section = (sentence.find("Hints") != std::string::npos &&
                                    handout.find("\n## Hints\n") != std::string::npos) ||
                                   (sentence.find("What the tests check") != std::string::npos &&
                                    handout.find("\n## What the tests check\n") != std::string::npos);
      EXPECT_TRUE(names_a_section) << where;
      if (sentence.find("Hints by task") != std::string::npos) {
        EXPECT_NE(handout.find("\n### Hints by task\n"), std::string::npos) << where;
      }
      for (const std::string& todo : todo_numbers(sentence)) {
        EXPECT_EQ(hinted.count(todo), 1u) << where << ": the handout has no hints for TODO(" << todo << ")";
      }
    }
  }
}

TEST(FailureAnalysisRealLabs, AGuardLineIsOnlyWhereTheLabsTestsReportGuardsInWordsTheGraderKnows) {
  for (const LabEntry& lab : test_tree::real_labs()) {
    const std::filesystem::path dir = test_tree::source_tree() / "labs" / lab.id;
    std::string problem;
    if (load_explanations(dir.string(), lab.id, &problem).failures.count("guard") == 0) continue;
    std::string tests;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "tests"))
      tests += test_tree::read_text(entry.path());
    const auto& phrases = guard_phrases();
    EXPECT_TRUE(
        std::any_of(phrases.begin(), phrases.end(),
                    [&](const std::string& phrase) { return tests.find(phrase) != std::string::npos; }))
        << lab.id << ": explain.json has a guard line, but its tests word no guard check as guard_phrases() "
        << "knows them, so the line would never be shown";
  }
}

}  // namespace
}  // namespace workbook::grader
