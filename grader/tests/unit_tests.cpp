// Unit tests of the grader's pure parts: globs, rubric validation, scoring,
// the gtest list and result-stream parsers, reports, the command line and the
// forbidden-names check of a lab's source.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "error.hpp"
#include "glob.hpp"
#include "gtest_protocol.hpp"
#include "lab_runner.hpp"
#include "manifest.hpp"
#include "process.hpp"
#include "report.hpp"
#include "rubric.hpp"
#include "scoring.hpp"
#include "source_checks.hpp"

namespace workbook::grader {
namespace {

using nlohmann::json;

// ---- glob ----

TEST(Glob, MatchesLiteralNames) {
  EXPECT_TRUE(glob_match("Abc.Basic", "Abc.Basic"));
  EXPECT_FALSE(glob_match("Abc.Basic", "Abc.Basics"));
  EXPECT_FALSE(glob_match("Abc.Basics", "Abc.Basic"));
}

TEST(Glob, StarCrossesDotsAndSlashes) {
  EXPECT_TRUE(glob_match("AbcSizes/*", "AbcSizes/AbcTest.MatchesHost/7"));
  EXPECT_TRUE(glob_match("Abc.*", "Abc.Basic"));
  EXPECT_FALSE(glob_match("Abc.*", "AbcSpeed.ReachesCopyBandwidth"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("*Host/*", "Sizes/AbcTest.MatchesHost/12"));
  EXPECT_TRUE(glob_match("*a*b*c", "xxaxxbxxc"));
  EXPECT_FALSE(glob_match("*a*b*c", "xxaxxcxxb"));
}

TEST(Glob, QuestionMarkIsOneCharacter) {
  EXPECT_TRUE(glob_match("Sizes/P.Ok/?", "Sizes/P.Ok/7"));
  EXPECT_FALSE(glob_match("Sizes/P.Ok/?", "Sizes/P.Ok/17"));
  EXPECT_FALSE(glob_match("?", ""));
}

// ---- rubric ----

json valid_rubric() {
  return json::parse(R"({"version": 1, "labs": {"02-abc": {"title": "a*b+c", "timeout_s": 300,
      "groups": [{"name": "correct for any n", "tests": ["AbcSizes/*", "Abc.*"], "points": 6}],
      "speed": [{"name": "bandwidth", "test": "AbcSpeed.ReachesCopyBandwidth",
                 "yardstick": "device-to-device copy bandwidth", "target": 0.75, "floor": 0.4, "points": 4}]}}})");
}

std::string rubric_error(const json& root) {
  try {
    parse_rubric(root, "/src/grader/rubric.json");
  } catch (const GraderError& e) {
    return e.what();
  }
  return "";
}

TEST(Rubric, ParsesTheDocumentedShape) {
  const Rubric rubric = parse_rubric(valid_rubric(), "r.json");
  ASSERT_EQ(rubric.labs.count("02-abc"), 1u);
  const LabRubric& lab = rubric.labs.at("02-abc");
  EXPECT_EQ(lab.title, "a*b+c");
  EXPECT_DOUBLE_EQ(lab.timeout_s, 300);
  ASSERT_EQ(lab.groups.size(), 1u);
  EXPECT_EQ(lab.groups[0].tests.size(), 2u);
  ASSERT_EQ(lab.speed.size(), 1u);
  EXPECT_DOUBLE_EQ(lab.speed[0].target, 0.75);
}

TEST(Rubric, TimeoutDefaultsTo300) {
  json root = valid_rubric();
  root["labs"]["02-abc"].erase("timeout_s");
  EXPECT_DOUBLE_EQ(parse_rubric(root, "r.json").labs.at("02-abc").timeout_s, kDefaultLabTimeoutS);
}

TEST(Rubric, ErrorsAreOneLineNamingFileAndPlace) {
  json root = valid_rubric();
  root["labs"]["02-abc"]["speed"][0]["target"] = 0.3;
  const std::string error = rubric_error(root);
  EXPECT_NE(error.find("/src/grader/rubric.json"), std::string::npos) << error;
  EXPECT_NE(error.find("labs.02-abc.speed[0]"), std::string::npos) << error;
  EXPECT_NE(error.find("target must be greater than floor"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(Rubric, RejectsBadTypesAndValues) {
  json negative = valid_rubric();
  negative["labs"]["02-abc"]["groups"][0]["points"] = -1;
  EXPECT_NE(rubric_error(negative).find("groups[0].points: must be >= 0"), std::string::npos);

  json text_points = valid_rubric();
  text_points["labs"]["02-abc"]["groups"][0]["points"] = "6";
  EXPECT_NE(rubric_error(text_points).find("must be a number"), std::string::npos);

  json no_tests = valid_rubric();
  no_tests["labs"]["02-abc"]["groups"][0]["tests"] = json::array();
  EXPECT_NE(rubric_error(no_tests).find("tests: must be a non-empty list"), std::string::npos);

  json version = valid_rubric();
  version["version"] = 2;
  EXPECT_NE(rubric_error(version).find("version: must be 1"), std::string::npos);

  json typo = valid_rubric();
  typo["labs"]["02-abc"]["speeds"] = json::array();
  EXPECT_NE(rubric_error(typo).find("unknown key \"speeds\""), std::string::npos);

  json missing = valid_rubric();
  missing["labs"]["02-abc"]["speed"][0].erase("floor");
  EXPECT_NE(rubric_error(missing).find("missing \"floor\""), std::string::npos);

  EXPECT_NE(rubric_error(json::array()).find("must be an object"), std::string::npos);

  json comment = valid_rubric();
  comment["_comment"] = "keys starting with _ are comments";
  EXPECT_EQ(rubric_error(comment), "");
}

TEST(Rubric, EveryBuiltLabNeedsAnEntry) {
  const Rubric rubric = parse_rubric(valid_rubric(), "r.json");
  EXPECT_NO_THROW(check_rubric_covers(rubric, {"02-abc"}));
  try {
    check_rubric_covers(rubric, {"02-abc", "03-coalescing"});
    FAIL() << "no error";
  } catch (const GraderError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("03-coalescing"), std::string::npos);
  }
}

TEST(Rubric, UnreadableOrInvalidFileIsOneLine) {
  try {
    load_rubric("/nonexistent/rubric.json");
    FAIL() << "no error";
  } catch (const GraderError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rubric.json"), std::string::npos);
  }
}

TEST(Rubric, ParsesForbiddenNames) {
  json root = valid_rubric();
  root["labs"]["02-abc"]["forbidden"] = json::parse(R"([
      {"name": "cub", "why": "CUB is the yardstick of this lab: write the algorithm yourself"},
      {"name": "CountScan", "why": "writing a scan is this lab"}])");
  const LabRubric lab = parse_rubric(root, "r.json").labs.at("02-abc");
  ASSERT_EQ(lab.forbidden.size(), 2u);
  EXPECT_EQ(lab.forbidden[0].name, "cub");
  EXPECT_EQ(lab.forbidden[0].why, "CUB is the yardstick of this lab: write the algorithm yourself");
  EXPECT_EQ(lab.forbidden[1].name, "CountScan");
  EXPECT_TRUE(parse_rubric(valid_rubric(), "r.json").labs.at("02-abc").forbidden.empty());  // Optional.
}

TEST(Rubric, RejectsMalformedForbiddenNames) {
  const auto error_for = [](const json& forbidden) {
    json root = valid_rubric();
    root["labs"]["02-abc"]["forbidden"] = forbidden;
    return rubric_error(root);
  };
  EXPECT_EQ(error_for(json::array()), "");
  EXPECT_EQ(error_for("cub"),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden: must be a list of {\"name\", \"why\"} "
            "objects");
  EXPECT_EQ(error_for(json::parse(R"(["cub"])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[0]: must be an object");
  EXPECT_EQ(error_for(json::parse(R"([{"name": "cub"}])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[0]: missing \"why\"");
  EXPECT_EQ(error_for(json::parse(R"([{"name": "", "why": "w"}])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[0].name: must be a non-empty string");
  EXPECT_EQ(error_for(json::parse(R"([{"name": "cub", "why": "w"}, {"name": "cub::", "why": "w"}])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[1].name: must be a C++ identifier such as "
            "\"cub\" (it is matched as a whole token)");
  EXPECT_NE(error_for(json::parse(R"([{"name": "1cub", "why": "w"}])")).find("must be a C++ identifier"),
            std::string::npos);
  EXPECT_EQ(error_for(json::parse(R"([{"name": "cub", "why": "w"}, {"name": "cub", "why": "x"}])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[1].name: \"cub\" is listed twice");
  EXPECT_EQ(error_for(json::parse(R"([{"name": "cub", "why": "two\nlines"}])")),
            "rubric /src/grader/rubric.json: labs.02-abc.forbidden[0].why: must be one line");
  EXPECT_NE(error_for(json::parse(R"([{"name": "cub", "why": "w", "reason": "typo"}])"))
                .find("forbidden[0]: unknown key \"reason\" (expected name, why)"),
            std::string::npos);
  EXPECT_NE(
      error_for(json::parse(R"([{"name": "cub", "why": 3}])")).find("forbidden[0].why: must be a non-empty"),
      std::string::npos);
}

TEST(Rubric, ParsesTestTimeLimitsOfGroupsAndSpeedItems) {
  json root = valid_rubric();
  root["labs"]["02-abc"]["groups"][0]["test_timeout_s"] = 0.5;
  root["labs"]["02-abc"]["speed"][0]["test_timeout_s"] = 90;
  const LabRubric lab = parse_rubric(root, "r.json").labs.at("02-abc");
  EXPECT_EQ(lab.groups[0].test_timeout_s, 0.5);
  EXPECT_EQ(lab.speed[0].test_timeout_s, 90.0);
  EXPECT_FALSE(
      parse_rubric(valid_rubric(), "r.json").labs.at("02-abc").groups[0].test_timeout_s);  // Optional.
}

TEST(Rubric, RejectsTestTimeLimitsThatAreNotPositiveNumbers) {
  json zero = valid_rubric();
  zero["labs"]["02-abc"]["groups"][0]["test_timeout_s"] = 0;
  EXPECT_EQ(rubric_error(zero),
            "rubric /src/grader/rubric.json: labs.02-abc.groups[0].test_timeout_s: must be > 0");
  json text = valid_rubric();
  text["labs"]["02-abc"]["speed"][0]["test_timeout_s"] = "5";
  EXPECT_EQ(rubric_error(text),
            "rubric /src/grader/rubric.json: labs.02-abc.speed[0].test_timeout_s: must be a number");
  json lab_level = valid_rubric();
  lab_level["labs"]["02-abc"]["timeout_s"] = -1;
  EXPECT_EQ(rubric_error(lab_level), "rubric /src/grader/rubric.json: labs.02-abc.timeout_s: must be > 0");
}

// ---- time limits ----

TEST(TimeLimits, DefaultsToTheLabBudgetAndThePerTestDefault) {
  const TimeLimits limits = make_time_limits(parse_rubric(valid_rubric(), "r.json").labs.at("02-abc"), 1.0);
  EXPECT_DOUBLE_EQ(limits.lab_s, 300);
  EXPECT_DOUBLE_EQ(limits.test_s, kDefaultTestTimeoutS);
  EXPECT_DOUBLE_EQ(limits.for_test("Abc.Basic"), kDefaultTestTimeoutS);
  EXPECT_DOUBLE_EQ(limits.for_test("AbcSpeed.ReachesCopyBandwidth"), kDefaultTestTimeoutS);
}

TEST(TimeLimits, ItemsSetTheirTestsLimitsTheLargestWinsAndTheScaleMultipliesAll) {
  json root = valid_rubric();
  root["labs"]["02-abc"]["groups"][0]["test_timeout_s"] = 2;
  root["labs"]["02-abc"]["groups"].push_back(
      json::parse(R"({"name": "basic", "tests": ["Abc.Basic"], "points": 1, "test_timeout_s": 5})"));
  root["labs"]["02-abc"]["speed"][0]["test_timeout_s"] = 90;
  const LabRubric lab = parse_rubric(root, "r.json").labs.at("02-abc");
  const TimeLimits limits = make_time_limits(lab, 1.0);
  EXPECT_DOUBLE_EQ(limits.for_test("AbcSizes/AbcTest.MatchesHost/7"), 2);
  EXPECT_DOUBLE_EQ(limits.for_test("Abc.Basic"), 5);  // Named by both groups.
  EXPECT_DOUBLE_EQ(limits.for_test("AbcSpeed.ReachesCopyBandwidth"), 90);
  EXPECT_DOUBLE_EQ(limits.for_test("Unnamed.Test"), kDefaultTestTimeoutS);

  const TimeLimits scaled = make_time_limits(lab, 2.5);
  EXPECT_DOUBLE_EQ(scaled.lab_s, 750);
  EXPECT_DOUBLE_EQ(scaled.test_s, 2.5 * kDefaultTestTimeoutS);
  EXPECT_DOUBLE_EQ(scaled.for_test("AbcSizes/AbcTest.MatchesHost/7"), 5);
  EXPECT_DOUBLE_EQ(scaled.for_test("Abc.Basic"), 12.5);
  EXPECT_DOUBLE_EQ(scaled.for_test("AbcSpeed.ReachesCopyBandwidth"), 225);
}

// ---- capped logs ----

/// What a CappedLog of @p head and @p tail bytes stores of @p chunks.
std::string capped(const std::vector<std::string>& chunks, std::size_t head, std::size_t tail,
                   std::uint64_t* dropped = nullptr) {
  char path[] = "/tmp/grader-capped-XXXXXX";
  const int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  CappedLog log(fd, head, tail);
  for (const std::string& chunk : chunks) log.write(chunk.data(), chunk.size());
  log.finish();
  if (dropped != nullptr) *dropped = log.dropped_bytes();
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  ::unlink(path);
  return text.str();
}

TEST(Shares, WeightComesFromTheSizeOrShapeInATestsName) {
  EXPECT_EQ(test_weight("Sizes/SortKeys.SortsLikeStdStableSort/n67108864"), 1024.0);
  EXPECT_EQ(test_weight("Sizes/Filter.KeepExactlyTheOddValues/n67108864_all_odd"), 1024.0);
  EXPECT_EQ(test_weight("Shapes/Transpose.MovesEveryElement/8192x8192"), 1024.0);
  EXPECT_EQ(test_weight("Sizes/SortKeys.SortsLikeStdStableSort/n33"), 1.0);
  EXPECT_EQ(test_weight("EmptyInput.NoElementsLaunchNothing"), 1.0);
}

TEST(Shares, LargeCasesAreSpreadOverTheSharesInListingOrder) {
  // Round robin would put both 2^26 cases into share 1 of two.
  const std::vector<std::string> tests = {"A/T.x/n67108864", "A/T.x/n1", "B/T.y/n67108864",
                                          "B/T.y/n1",        "C.z",      "D.w"};
  const std::vector<std::vector<std::string>> dealt = deal_into_shares(tests, 2);
  ASSERT_EQ(dealt.size(), 2u);
  EXPECT_EQ(dealt[0], (std::vector<std::string>{"A/T.x/n67108864", "A/T.x/n1", "C.z"}));
  EXPECT_EQ(dealt[1], (std::vector<std::string>{"B/T.y/n67108864", "B/T.y/n1", "D.w"}));
  EXPECT_EQ(deal_into_shares(tests, 1).front(), tests);
  EXPECT_EQ(deal_into_shares({}, 3), std::vector<std::vector<std::string>>(3));
}

TEST(CappedLog, KeepsEverythingWithinTheCap) {
  EXPECT_EQ(capped({}, 8, 8), "");
  EXPECT_EQ(capped({"abc\n"}, 8, 8), "abc\n");
  EXPECT_EQ(capped({"0123", "456789ABCDEF"}, 8, 8), "0123456789ABCDEF");  // Exactly head + tail.
  EXPECT_EQ(capped({"0123456789", "AB"}, 8, 8), "0123456789AB");
}

TEST(CappedLog, KeepsTheHeadAndTheTailWithALineForWhatIsDropped) {
  const std::string marker =
      "[workbook-grader: 4 bytes of output dropped here; the log keeps the first 8 bytes and the last 8 "
      "bytes]\n";
  std::uint64_t dropped = 0;
  // In one write, in small writes that wrap the ring, in a write larger than the tail.
  EXPECT_EQ(capped({"0123456789ABCDEFGHIJ"}, 8, 8, &dropped), "01234567\n" + marker + "CDEFGHIJ");
  EXPECT_EQ(dropped, 4u);
  EXPECT_EQ(capped({"012", "345", "678", "9AB", "CDE", "FGH", "IJ"}, 8, 8),
            "01234567\n" + marker + "CDEFGHIJ");
  EXPECT_EQ(capped({"0123456", "789ABCDEFGH", "IJ"}, 8, 8), "01234567\n" + marker + "CDEFGHIJ");
  // A head that ends its line gets no extra newline.
  EXPECT_EQ(capped({"0123456\n89ABCDEFGHIJ"}, 8, 8), "0123456\n" + marker + "CDEFGHIJ");
  // No tail kept: everything after the head is dropped.
  EXPECT_EQ(capped({"0123456789"}, 8, 0),
            "01234567\n[workbook-grader: 2 bytes of output dropped here; the log keeps the first 8 bytes and "
            "the last 0 bytes]\n");
}

TEST(CappedLog, CapIsAMebibyteAtEachEnd) {
  EXPECT_EQ(kKeptOutputBytes, std::size_t{1} << 20);
  EXPECT_EQ(describe_bytes(kKeptOutputBytes), "1 MiB");
  EXPECT_EQ(describe_bytes(1), "1 byte");
  EXPECT_EQ(describe_bytes(1023), "1023 bytes");
  EXPECT_EQ(describe_bytes(1536), "1.5 KiB");
  EXPECT_EQ(describe_bytes(std::uint64_t{64} << 20), "64 MiB");
}

// ---- scoring ----

TEST(Scoring, SpeedFractionIsLinearBetweenFloorAndTarget) {
  EXPECT_DOUBLE_EQ(speed_fraction(0.40, 0.4, 0.75), 0.0);
  EXPECT_DOUBLE_EQ(speed_fraction(0.10, 0.4, 0.75), 0.0);
  EXPECT_DOUBLE_EQ(speed_fraction(0.75, 0.4, 0.75), 1.0);
  EXPECT_DOUBLE_EQ(speed_fraction(1.20, 0.4, 0.75), 1.0);
  EXPECT_NEAR(speed_fraction(0.575, 0.4, 0.75), 0.5, 1e-12);
  EXPECT_NEAR(speed_fraction(0.61, 0.4, 0.75), 0.6, 1e-12);
}

TestResult make_test(const std::string& name, TestStatus status, std::optional<double> ratio = std::nullopt) {
  TestResult test;
  test.name = name;
  test.status = status;
  if (status == TestStatus::failed) test.message = "abc_test.cu:10: Failure\nExpected equality";
  if (ratio) {
    SpeedMetric metric;
    metric.value = 2990.0 * *ratio;
    metric.unit = "GB/s";
    metric.yardstick = "device-to-device copy";
    metric.yardstick_value = 2990.0;
    metric.ratio = *ratio;
    test.speed = metric;
  }
  return test;
}

LabRubric abc_rubric() {
  return parse_rubric(valid_rubric(), "r.json").labs.at("02-abc");
}

TEST(Scoring, GroupScoresOnlyWhenEveryTestPasses) {
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed),
               make_test("AbcSizes/AbcTest.MatchesHost/0", TestStatus::passed),
               make_test("AbcSizes/AbcTest.MatchesHost/1", TestStatus::failed),
               make_test("AbcSizes/AbcTest.MatchesHost/2", TestStatus::skipped),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::passed, 0.9)};
  const LabScore score = score_lab(abc_rubric(), run);
  ASSERT_EQ(score.groups.size(), 1u);
  EXPECT_EQ(score.groups[0].matched, 4u);
  EXPECT_EQ(score.groups[0].passed, 2u);
  EXPECT_DOUBLE_EQ(score.groups[0].score, 0.0);
  EXPECT_EQ(score.groups[0].failing.size(), 2u);
  EXPECT_FALSE(score.correct);
  // Speed points are only for correct code, however fast.
  ASSERT_EQ(score.speed.size(), 1u);
  EXPECT_DOUBLE_EQ(score.speed[0].score, 0.0);
  EXPECT_EQ(score.speed[0].summary, "not scored: fails correctness");
  EXPECT_DOUBLE_EQ(score.score, 0.0);
  EXPECT_DOUBLE_EQ(score.max_score, 10.0);
  EXPECT_EQ(score.passed, 3u);
  EXPECT_EQ(score.total, 5u);
}

TEST(Scoring, SpeedScoresWhenCorrect) {
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::passed, 0.61),
               make_test("Extra.NotInRubric", TestStatus::failed)};
  const LabScore score = score_lab(abc_rubric(), run);
  EXPECT_TRUE(score.correct);
  EXPECT_NEAR(score.speed[0].score, 4 * 0.6, 1e-9);
  EXPECT_EQ(score.speed[0].summary, "61.0% of copy bw (target 75%)");
  EXPECT_EQ(score.speed[0].detail,
            "1823.9 GB/s = 61.0% of device-to-device copy bandwidth (2990.0 GB/s); target 75%, floor 40%");
  EXPECT_NEAR(score.score, 6 + 2.4, 1e-9);
  // A test no rubric item names is shown, worth nothing.
  ASSERT_EQ(score.unscored.size(), 1u);
  EXPECT_EQ(score.unscored[0], "Extra.NotInRubric");
}

TEST(Scoring, SpeedWithoutReportedRatioScoresZero) {
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::failed)};
  const LabScore score = score_lab(abc_rubric(), run);
  EXPECT_TRUE(score.correct);
  EXPECT_DOUBLE_EQ(score.speed[0].score, 0.0);
  EXPECT_EQ(score.speed[0].summary, "not measured");
}

TEST(Scoring, GroupMatchingNoTestIsARubricProblem) {
  LabRubric rubric = abc_rubric();
  rubric.groups.push_back({"typo", {"Abx.*"}, 2, std::nullopt});
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed)};
  const LabScore score = score_lab(rubric, run);
  ASSERT_EQ(score.groups.size(), 2u);
  EXPECT_DOUBLE_EQ(score.groups[1].score, 0.0);
  EXPECT_NE(score.groups[1].problem.find("matches no test"), std::string::npos);
  EXPECT_DOUBLE_EQ(score.max_score, 12.0);
}

// ---- gtest list and result stream ----

TEST(GtestList, ParsesSuitesParametersAndComments) {
  const std::string output =
      "Running main() from gtest_main.cc\n"
      "Abc.\n"
      "  Basic\n"
      "  Empty\n"
      "Sizes/AbcTest.\n"
      "  MatchesHost/0  # GetParam() = 1\n"
      "  MatchesHost/7  # GetParam() = 33\n"
      "Typed/0.  # TypeParam = float\n"
      "  Works\n"
      "Abc.\n"
      "  DISABLED_Slow\n"
      "DISABLED_Off.\n"
      "  Anything\n";
  const std::vector<std::string> tests = parse_test_list(output);
  const std::vector<std::string> expected = {"Abc.Basic", "Abc.Empty", "Sizes/AbcTest.MatchesHost/0",
                                             "Sizes/AbcTest.MatchesHost/7", "Typed/0.Works"};
  EXPECT_EQ(tests, expected);
}

TEST(ResultStream, ParsesRecordsAndSkipsGarbage) {
  const std::string text =
      R"({"event":"start","test":"Abc.Basic"})"
      "\n"
      R"({"event":"end","test":"Abc.Basic","status":"passed","message":"","time_ms":12,"metrics":{}})"
      "\n"
      "not json at all\n"
      R"({"event":"start","test":"AbcSpeed.Fast"})"
      "\n"
      R"({"event":"end","test":"AbcSpeed.Fast","status":"failed","message":"x.cu:3: slow","time_ms":5,)"
      R"("metrics":{"speed":{"value":2950.1,"unit":"GB/s","yardstick":"device-to-device copy","yardstick_value":2990.0,)"
      R"("ratio":0.987,"target":0.75,"floor":0.4}}})"
      "\n"
      R"({"event":"end","test":"Odd.Status","status":"great"})"
      "\n"
      R"({"event":"abort","reason":"CUDA context lost after AbcSpeed.Fast: cudaErrorIllegalAddress"})"
      "\n"
      R"({"event":"start","test":"Abc.Cut)";  // cut short by a crash
  const std::vector<ResultEvent> events = parse_result_lines(text);
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0].kind, ResultEvent::Kind::start);
  EXPECT_EQ(events[1].status, "passed");
  EXPECT_DOUBLE_EQ(events[1].time_ms, 12);
  EXPECT_FALSE(events[1].speed.has_value());
  ASSERT_TRUE(events[3].speed.has_value());
  EXPECT_DOUBLE_EQ(events[3].speed->ratio, 0.987);
  EXPECT_EQ(events[3].speed->unit, "GB/s");
  EXPECT_EQ(events[3].message, "x.cu:3: slow");
  EXPECT_EQ(events[4].status, "failed");  // An unknown status is never a pass.
  EXPECT_EQ(events[5].kind, ResultEvent::Kind::abort);
  EXPECT_NE(events[5].reason.find("cudaErrorIllegalAddress"), std::string::npos);
}

TEST(GtestFilter, NamesTestsAndShortensWholeSuites) {
  const std::vector<std::string> all = {"A.x", "A.y", "Sizes/P.Ok/0", "Sizes/P.Ok/1", "B.z"};
  EXPECT_EQ(make_gtest_filter({"A.y", "Sizes/P.Ok/0", "Sizes/P.Ok/1"}, all), "A.y:Sizes/P.*");
  EXPECT_EQ(make_gtest_filter({"B.z"}, all), "B.z");
}

// ---- reports ----

TEST(Xml, EscapesMarkupQuotesAndControlCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape("line1\nline2"), "line1\nline2");
  EXPECT_EQ(xml_escape("line1\nline2\t", true), "line1&#10;line2&#9;");
  EXPECT_EQ(xml_escape(std::string("bell\x07") + "x"), "bell?x");
  EXPECT_EQ(xml_escape("µs ✓"), "µs ✓");
}

TEST(Report, HideSeedRemovesEverySeedAReportNames) {
  EXPECT_EQ(hide_seed("GPU: H200 | seed: 123456 | sandboxed"), "GPU: H200 | seed: hidden | sandboxed");
  EXPECT_EQ(hide_seed("mismatch at 5 (n=33, pattern=uniform, seed=987654321)"),
            "mismatch at 5 (n=33, pattern=uniform, seed=hidden)");
  EXPECT_EQ(hide_seed("run WORKBOOK_SEED=42 ./workbook test"), "run WORKBOOK_SEED=hidden ./workbook test");
  EXPECT_EQ(hide_seed("Seed = 17, n=4096"), "Seed = hidden, n=4096");
  // Other numbers stay, and so do words that only contain "seed".
  EXPECT_EQ(hide_seed("n=4096 seeded 12 times, 3 seeds"), "n=4096 seeded 12 times, 3 seeds");
}

TEST(Report, FirstLinesCutsLongMessages) {
  EXPECT_EQ(first_lines("a\nb\nc", 2), "a\nb\n[...]");
  EXPECT_EQ(first_lines("a\nb", 2), "a\nb");
  EXPECT_EQ(first_lines("a\nb\n", 2), "a\nb\n");
  EXPECT_EQ(first_lines("a\nb", 1), "a [...]");
}

TEST(Report, GradescopeVisibilityIsOptionalAndChecked) {
  json root = valid_rubric();
  root["labs"]["02-abc"]["groups"][0]["visibility"] = "after_due_date";
  root["labs"]["02-abc"]["speed"][0]["visibility"] = "hidden";
  const LabRubric lab = parse_rubric(root, "r.json").labs.at("02-abc");
  EXPECT_EQ(lab.groups[0].visibility, "after_due_date");
  EXPECT_EQ(lab.speed[0].visibility, "hidden");
  EXPECT_EQ(parse_rubric(valid_rubric(), "r.json").labs.at("02-abc").groups[0].visibility, "visible");
  json wrong = valid_rubric();
  wrong["labs"]["02-abc"]["groups"][0]["visibility"] = "secret";
  EXPECT_EQ(rubric_error(wrong),
            "rubric /src/grader/rubric.json: labs.02-abc.groups[0].visibility: must be visible, hidden, "
            "after_due_date or after_published, not \"secret\"");

  // results.json carries each item's visibility.
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::passed, 0.9)};
  GradeReport report;
  report.scores.push_back(score_lab(parse_rubric(root, "r.json").labs.at("02-abc"), run));
  report.runs.push_back(run);
  const json results = gradescope_json(report);
  ASSERT_EQ(results["tests"].size(), 2u);
  EXPECT_EQ(results["tests"][0]["visibility"], "after_due_date");
  EXPECT_EQ(results["tests"][1]["visibility"], "hidden");
}

TEST(Rubric, ParsesTheCalibrationAndRejectsABadOne) {
  json root = valid_rubric();
  EXPECT_FALSE(parse_rubric(root, "r.json").calibration.has_value());
  root["calibration"] = {{"gpu", "NVIDIA H200"}, {"driver", "570.1"}, {"cuda", "13.0"},
                         {"date", "2026-11-29"}, {"runs", 3},         {"rule", "0.8 of the lowest ratio"}};
  const Rubric rubric = parse_rubric(root, "r.json");
  ASSERT_TRUE(rubric.calibration.has_value());
  EXPECT_EQ(rubric.calibration->gpu, "NVIDIA H200");
  EXPECT_EQ(rubric.calibration->date, "2026-11-29");
  root["calibration"].erase("gpu");
  EXPECT_NE(rubric_error(root).find("calibration: missing \"gpu\""), std::string::npos) << rubric_error(root);
  root["calibration"] = {{"gpu", "NVIDIA H200"}, {"gpus", "typo"}};
  EXPECT_NE(rubric_error(root).find("unknown key \"gpus\""), std::string::npos) << rubric_error(root);
}

TEST(Report, SaysInOneLineWhenTheTargetsComeFromAnotherGpu) {
  GradeReport report;
  report.gpu = "Tesla T4, compute capability 7.5, 40 SMs";
  EXPECT_EQ(calibration_note(report), "");  // The rubric records no calibration.
  report.calibration = RubricCalibration{"NVIDIA H200", "", "13.0", "2026-11-29"};
  const std::string note = calibration_note(report);
  EXPECT_NE(note.find("calibrated on NVIDIA H200 (2026-11-29); this is Tesla T4"), std::string::npos) << note;
  EXPECT_NE(note.find("./workbook calibrate"), std::string::npos) << note;
  EXPECT_EQ(note.find('\n'), std::string::npos);
  EXPECT_NE(format_terminal_report(report, false).find(note), std::string::npos);
  report.gpu = "NVIDIA H200, compute capability 9.0, 132 SMs";
  EXPECT_EQ(calibration_note(report), "");  // The same GPU: nothing to say.
  report.gpu = "none checked (WORKBOOK_ASSUME_DEVICE=1, for testing the grader only)";
  EXPECT_EQ(calibration_note(report), "");
}

TEST(Report, GradescopeAndJunitCarryEveryItem) {
  GradeReport report;
  report.gpu = "Fake GPU, compute capability 9.0, 132 SMs";
  report.seed = "7";
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed), make_test("Abc.Edge<1>", TestStatus::failed),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::passed, 0.9)};
  report.scores.push_back(score_lab(abc_rubric(), run));
  report.runs.push_back(run);
  const json results = gradescope_json(report);
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 0.0);  // A failing test empties its group.
  ASSERT_EQ(results["tests"].size(), 2u);
  EXPECT_EQ(results["tests"][0]["name"], "02-abc: correct for any n");
  EXPECT_EQ(results["tests"][0]["status"], "failed");
  EXPECT_NE(results["tests"][0]["output"].get<std::string>().find("Abc.Edge<1>"), std::string::npos);
  EXPECT_EQ(results["tests"][1]["name"], "02-abc: bandwidth");
  EXPECT_DOUBLE_EQ(results["tests"][1]["score"].get<double>(), 0.0);
  // What a tool reads back (./workbook calibrate): the item's test, target and floor, and its ratio.
  const json& measured = results["tests"][1]["extra_data"];
  EXPECT_EQ(measured["test"], "AbcSpeed.ReachesCopyBandwidth");
  EXPECT_DOUBLE_EQ(measured["ratio"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(measured["target"].get<double>(), 0.75);
  EXPECT_FALSE(measured["scored"].get<bool>());
  EXPECT_NE(results["extra_data"]["gpu"].get<std::string>().find("Fake GPU"), std::string::npos);
  EXPECT_NE(results["output"].get<std::string>().find("Fake GPU"), std::string::npos);
  EXPECT_NE(results["output"].get<std::string>().find("seed: 7"), std::string::npos);

  const std::string xml = junit_xml(report);
  EXPECT_NE(xml.find("<testsuite name=\"02-abc\" tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"Abc.Edge&lt;1&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"abc_test.cu:10: Failure [...]\">abc_test.cu:10: Failure\nExpected "
                     "equality</failure>"),
            std::string::npos)
      << xml;

  const std::string text = format_terminal_report(report, false);
  EXPECT_NE(text.find("GPU: Fake GPU"), std::string::npos);
  EXPECT_NE(text.find("not scored: fails correctness"), std::string::npos);
  EXPECT_NE(text.find("0.0/10"), std::string::npos);
  EXPECT_EQ(text.find("\x1b["), std::string::npos);  // No colour when asked for none.
  EXPECT_NE(format_terminal_report(report, true).find("\x1b["), std::string::npos);
}

// ---- the terminal table ----

struct SpeedCase {
  std::string name;
  std::string yardstick;
  double target;
  double ratio;
};

// Adds a lab with one correctness test (failing when !correct) and a speed
// test per case, each item worth 2 points with its floor at half the target.
void add_lab(GradeReport& report, const std::string& id, const std::vector<SpeedCase>& cases,
             bool correct = true) {
  LabRubric rubric;
  rubric.title = id;
  rubric.groups.push_back({"correct", {"Lab.*"}, 10, std::nullopt});
  LabRun run;
  run.lab_id = id;
  run.tests.push_back(make_test("Lab.Correct", correct ? TestStatus::passed : TestStatus::failed));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string test = "Speed.Item" + std::to_string(i);
    rubric.speed.push_back(
        {cases[i].name, test, cases[i].yardstick, cases[i].target, cases[i].target / 2, 2, std::nullopt});
    run.tests.push_back(make_test(test, TestStatus::passed, cases[i].ratio));
  }
  report.scores.push_back(score_lab(rubric, run));
  report.runs.push_back(run);
}

// The labs of the H100 grade of the reference solutions, whose Speed column
// was over 170 characters wide, and an untouched skeleton.
GradeReport reference_grade() {
  GradeReport report;
  report.gpu = "Fake GPU, compute capability 9.0, 132 SMs";
  report.seed = "default";
  add_lab(report, "01-hello-world", {});
  add_lab(report, "02-abc",
          {{"one thread per element", "device-to-device copy bandwidth", 0.75, 0.996},
           {"grid-stride loop", "device-to-device copy bandwidth", 0.75, 0.965}});
  add_lab(report, "05-atomics",
          {{"count", "per-thread atomicAdd count", 3.0, 5.753},
           {"filter", "per-thread atomicAdd filter", 3.0, 5.574},
           {"per key", "plain atomicAdd per key", 2.0, 7.059}});
  add_lab(report, "06-compaction", {{"select", "cub::DeviceSelect::If", 0.65, 0.809}});
  add_lab(report, "07-prefix-sum",
          {{"single pass", "cub::DeviceScan::ExclusiveSum", 0.65, 0.786},
           {"decoupled look-back", "cub::DeviceScan::ExclusiveSum", 0.70, 0.805}});
  add_lab(
      report, "08-skeleton",
      {{"a", "cub::DeviceRadixSort::SortKeys", 0.5, 0.1}, {"b", "cub::DeviceRadixSort::SortKeys", 0.5, 0.1}},
      false);
  return report;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string without_colour(std::string text) {
  for (std::size_t at = text.find('\x1b'); at != std::string::npos; at = text.find('\x1b', at)) {
    text.erase(at, text.find('m', at) - at + 1);
  }
  return text;
}

TEST(Table, SpeedFigureIsThePercentageAndTheTarget) {
  const GradeReport report = reference_grade();
  EXPECT_EQ(speed_figure(report.scores[2].speed[0]), "575.3% (>=300%)");
  EXPECT_EQ(speed_figure(report.scores[2].speed[2]), "705.9% (>=200%)");
  EXPECT_EQ(speed_figure(report.scores[1].speed[0]), "99.6% (>=75%)");
  // Not scored: the reason, as before.
  EXPECT_EQ(speed_figure(report.scores[5].speed[0]), "not scored: fails correctness");
}

TEST(Table, StaysWithinTheWidthWithShortFigures) {
  const GradeReport report = reference_grade();
  for (const bool color : {false, true}) {
    const std::string table = format_table(report, color);
    for (const std::string& line : lines_of(without_colour(table))) {
      EXPECT_LE(line.size(), kTableWidth) << line;
      for (const char c : line) EXPECT_LT(static_cast<unsigned char>(c), 0x80) << line;  // ASCII when piped.
    }
  }
  const std::string table = format_table(report, false);
  EXPECT_EQ(table.find("\x1b["), std::string::npos);
  // Each lab on one line: three items fit in full.
  EXPECT_EQ(lines_of(table).size(), 1 + report.runs.size() + 1) << table;
  EXPECT_NE(table.find("05-atomics      4/4    575.3% (>=300%); 557.4% (>=300%); 705.9% (>=200%)  16.0/16\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("02-abc          3/3    99.6% (>=75%); 96.5% (>=75%)"), std::string::npos) << table;
  EXPECT_NE(table.find("01-hello-world  1/1    -  "), std::string::npos) << table;
  // A skeleton's row says why once, uncut.
  EXPECT_NE(table.find("08-skeleton     2/3    not scored: fails correctness  "), std::string::npos) << table;
}

TEST(Table, FullSpeedLinesBelowTheTableAreUnchanged) {
  const std::string text = format_terminal_report(reference_grade(), false);
  const std::size_t speed = text.find("\nSpeed\n");
  ASSERT_NE(speed, std::string::npos) << text;
  const std::string section = text.substr(speed);
  for (const char* line : {
           "  02-abc one thread per element: 2978.0 GB/s = 99.6% of device-to-device copy bandwidth (2990.0 "
           "GB/s); target 75%, floor 38% -> 2.0/2 points\n",
           "  05-atomics count: 17201.5 GB/s = 575.3% of per-thread atomicAdd count (2990.0 GB/s); target "
           "300%, "
           "floor 150% -> 2.0/2 points\n",
           "  05-atomics filter: 16666.3 GB/s = 557.4% of per-thread atomicAdd filter (2990.0 GB/s); target "
           "300%, floor 150% -> 2.0/2 points\n",
           "  05-atomics per key: 21106.4 GB/s = 705.9% of plain atomicAdd per key (2990.0 GB/s); target "
           "200%, "
           "floor 100% -> 2.0/2 points\n",
           "  08-skeleton a: 299.0 GB/s = 10.0% of cub::DeviceRadixSort::SortKeys (2990.0 GB/s); target 50%, "
           "floor 25%; not scored: speed points are only for code that passes every correctness test -> "
           "0.0/2 points\n",
       }) {
    EXPECT_NE(section.find(line), std::string::npos) << line << "\nnot in:\n" << section;
  }
}

TEST(Table, WrapsSpeedFiguresThatDoNotFitBetweenItems) {
  GradeReport report = reference_grade();
  std::vector<SpeedCase> many;
  for (int i = 0; i < 8; ++i)
    many.push_back({"item " + std::to_string(i), "a yardstick", 3.0, 5.0 + i / 10.0});
  add_lab(report, "09-many-speed-items", many);
  const std::string table = format_table(report, false);
  const std::vector<std::string> lines = lines_of(table);
  for (const std::string& line : lines) EXPECT_LE(line.size(), kTableWidth) << line;
  // Every figure is there in full, the points on the lab's first line.
  for (const SpeedScore& item : report.scores.back().speed) {
    EXPECT_NE(table.find(speed_figure(item)), std::string::npos) << table;
  }
  const auto first = std::find_if(lines.begin(), lines.end(),
                                  [](const std::string& line) { return line.rfind("09-many", 0) == 0; });
  ASSERT_NE(first, lines.end()) << table;
  EXPECT_NE(first->find("26.0/26"), std::string::npos) << table;
  // The rest continue in the Speed column, before the Total line.
  ASSERT_NE(first + 1, lines.end());
  EXPECT_EQ((first + 1)->find_first_not_of(' '), first->find("500.0%")) << table;
  EXPECT_EQ(lines.back().rfind("Total", 0), 0u) << table;
}

TEST(Table, WrapItemsBreaksBetweenItemsAndCutsOnlyWhatCannotFit) {
  EXPECT_TRUE(wrap_items({}, 20).empty());
  EXPECT_EQ(wrap_items({"aaaa", "bbbb", "cccc"}, 10), (std::vector<std::string>{"aaaa; bbbb", "cccc"}));
  EXPECT_EQ(wrap_items({"aaaa", "bbbb", "cccc"}, 9), (std::vector<std::string>{"aaaa", "bbbb", "cccc"}));
  EXPECT_EQ(wrap_items({"aaaa", "bbbb", "cccc"}, 16), (std::vector<std::string>{"aaaa; bbbb; cccc"}));
  EXPECT_EQ(wrap_items({"abcdefghijkl", "xy"}, 8), (std::vector<std::string>{"abcde...", "xy"}));
}

// ---- command line and manifest ----

TEST(Cli, ParsesOptionsInBothForms) {
  const Options options =
      parse_command_line({"--manifest", "b/m.json", "--solutions", "--seed=42", "--timeout-scale", "2.5",
                          "--color=never", "--json", "r.json", "02", "hello"});
  EXPECT_EQ(options.manifest, "b/m.json");
  EXPECT_TRUE(options.solutions);
  EXPECT_EQ(options.seed, 42u);
  EXPECT_DOUBLE_EQ(options.timeout_scale, 2.5);
  EXPECT_EQ(options.color, ColorMode::never);
  EXPECT_EQ(options.json_path, "r.json");
  EXPECT_EQ(options.labs, (std::vector<std::string>{"02", "hello"}));
}

TEST(Cli, RejectsBadInput) {
  EXPECT_THROW(parse_command_line({"--frobnicate"}), GraderError);
  EXPECT_THROW(parse_command_line({"--seed", "-3"}), GraderError);
  EXPECT_THROW(parse_command_line({"--timeout-scale", "0"}), GraderError);
  EXPECT_THROW(parse_command_line({"--color", "sometimes"}), GraderError);
  EXPECT_THROW(parse_command_line({"--json"}), GraderError);
}

// "./workbook grade hello --seed": the next word is an option, not the seed.
TEST(Cli, AMissingValueSaysSoAndNamesTheHelpOfTheCommandRun) {
  const auto message = [](const std::vector<std::string>& args) {
    try {
      parse_command_line(args);
    } catch (const GraderError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  ::unsetenv("WORKBOOK_GRADER_HELP");
  EXPECT_EQ(message({"hello", "--seed", "--json", "r.json"}),
            "--seed needs a value (see workbook-grader --help)");
  EXPECT_EQ(message({"--color", "-j", "2"}), "--color needs a value (see workbook-grader --help)");
  ::setenv("WORKBOOK_GRADER_HELP", "./workbook grade --help", 1);
  EXPECT_EQ(message({"--verbose"}), "unknown option '--verbose' (see ./workbook grade --help)");
  EXPECT_EQ(message({"--jobs"}), "--jobs needs a value (see ./workbook grade --help)");
  ::unsetenv("WORKBOOK_GRADER_HELP");
  // A number is a value, even a negative one: its own check says what is wrong.
  EXPECT_EQ(message({"--timeout-scale", "-1"}), "--timeout-scale needs a positive number, got '-1'");
}

TEST(Cli, BuildErrorsNameTheLabAndItsFirstError) {
  const Options options = parse_command_line(
      {"--build-error", "02-abc=labs/02-abc/abc.cu(57): error: identifier \"retur\" is undefined",
       "--build-error=04-x=a=b"});
  ASSERT_EQ(options.build_errors.size(), 2u);
  EXPECT_EQ(options.build_errors[0].first, "02-abc");
  EXPECT_EQ(options.build_errors[0].second,
            "labs/02-abc/abc.cu(57): error: identifier \"retur\" is undefined");
  EXPECT_EQ(options.build_errors[1], (std::pair<std::string, std::string>{"04-x", "a=b"}));
  EXPECT_THROW(parse_command_line({"--build-error", "02-abc"}), GraderError);
  EXPECT_THROW(parse_command_line({"--build-error", "=oops"}), GraderError);
}

TEST(Cli, ShowSeedAndTheEnvironmentsSeed) {
  const char* before = std::getenv("WORKBOOK_SEED");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  ::unsetenv("WORKBOOK_SEED");
  EXPECT_FALSE(parse_command_line({"--seed", "7"}).show_seed);
  EXPECT_TRUE(parse_command_line({"--seed", "7", "--show-seed"}).show_seed);
  ::setenv("WORKBOOK_SEED", "991", 1);
  EXPECT_EQ(parse_command_line({}).seed, 991u);
  EXPECT_EQ(parse_command_line({"--seed", "5"}).seed, 5u);  // the option wins
  ::setenv("WORKBOOK_SEED", "x1", 1);
  EXPECT_THROW(parse_command_line({}), GraderError);
  ::unsetenv("WORKBOOK_SEED");
  EXPECT_FALSE(parse_command_line({}).seed.has_value());
  if (saved) ::setenv("WORKBOOK_SEED", saved->c_str(), 1);
}

TEST(Manifest, SelectsLabsByNumberIdNameOrBase) {
  const Manifest manifest =
      parse_manifest(R"({"source_dir": "/s", "rubric": "/s/grader/rubric.json", "labs": [
      {"id": "01-hello-world", "base": "hello", "student_tests": "/b/lab01_tests_student"},
      {"id": "02-abc", "base": "abc", "student_tests": "/b/lab02_tests_student", "solution_tests": "/b/lab02_tests_solution"}]})",
                     "m.json");
  ASSERT_EQ(manifest.labs.size(), 2u);
  EXPECT_EQ(manifest.labs[1].solution_tests, "/b/lab02_tests_solution");
  EXPECT_TRUE(manifest.labs[0].solution_tests.empty());
  for (const std::string name : {"01", "1", "01-hello-world", "hello-world", "hello"}) {
    const std::vector<LabEntry> labs = select_labs(manifest, {name});
    ASSERT_EQ(labs.size(), 1u) << name;
    EXPECT_EQ(labs[0].id, "01-hello-world") << name;
  }
  EXPECT_EQ(select_labs(manifest, {}).size(), 2u);
  EXPECT_EQ(select_labs(manifest, {"abc", "2", "01"}).size(), 2u);
  try {
    select_labs(manifest, {"foo"});
    FAIL() << "no error";
  } catch (const GraderError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown lab 'foo'; the labs are: 01-hello-world, 02-abc");
  }
}

TEST(Manifest, MissingFileSaysHowToBuild) {
  try {
    load_manifest("/nonexistent/workbook-labs.json");
    FAIL() << "no error";
  } catch (const GraderError& e) {
    EXPECT_NE(std::string(e.what()).find("./workbook grade"), std::string::npos);
  }
}

}  // namespace
}  // namespace workbook::grader

namespace workbook::grader {
namespace {

TEST(Report, GradebookRowsHaveOneColumnPerLabAndQuoteNames) {
  GradeReport report;
  LabRun run;
  run.lab_id = "02-abc";
  run.tests = {make_test("Abc.Basic", TestStatus::passed),
               make_test("AbcSizes/AbcTest.MatchesHost/0", TestStatus::passed),
               make_test("AbcSpeed.ReachesCopyBandwidth", TestStatus::passed, 0.575)};
  report.scores.push_back(score_lab(abc_rubric(), run));
  report.runs.push_back(run);
  EXPECT_EQ(gradebook_csv_header({"02-abc"}), "student,02-abc,total,max");
  EXPECT_EQ(gradebook_csv_row(report, "ada"), "ada,8.00,8.00,10.00");
  EXPECT_EQ(gradebook_csv_row(report, "Lovelace, \"Ada\""), "\"Lovelace, \"\"Ada\"\"\",8.00,8.00,10.00");
}

}  // namespace
}  // namespace workbook::grader

// ---- forbidden names in a lab's source ----

namespace workbook::grader {
namespace {

const std::vector<ForbiddenName> kYardsticks = {{"cub", "CUB is the yardstick"},
                                                {"thrust", "Thrust is a yardstick"},
                                                {"CountScan", "writing a scan is this lab"}};

/// "line name found" for each violation, for compact expectations.
std::vector<std::string> summarize(const std::vector<SourceViolation>& violations) {
  std::vector<std::string> out;
  for (const SourceViolation& v : violations)
    out.push_back(std::to_string(v.line) + " " + v.name + " " + v.found);
  return out;
}

std::vector<std::string> violations_in(const std::string& text) {
  return summarize(find_violations(text, kYardsticks));
}

TEST(SourceCheck, CommentsAndLiteralsAreNotCode) {
  const std::string text = R"src(// cub::DeviceScan would be faster (see thrust::sort)
/* a block comment about cub::DeviceScan,
   over two lines: thrust */
const char* a = "cub::DeviceScan \" thrust";
const char b = '"'; int c = cub_count;  // the quote in '"' opens no string
const char* d = R"(cub::x " thrust)";
const char* e = R"delim(cub )" thrust )delim";
const wchar_t* f = L"cub"; const char* g = u8"thrust"; char16_t h = u'c';
long i = 1'000'000; int j = cub::x;
)src";
  EXPECT_EQ(violations_in(text), std::vector<std::string>{"9 cub cub::x"});
}

TEST(SourceCheck, StripKeepsLinesAndBlanksOnlyCommentsAndLiterals) {
  const StrippedSource source = strip_source("int a; // x\nchar* s = \"y\"; /* z\n */ int b;\n");
  EXPECT_EQ(source.code, "int a;     \nchar* s =    ;     \n    int b;\n");
  ASSERT_EQ(source.lines.size(), source.code.size());
  EXPECT_EQ(source.lines[source.code.find("int b")], 3u);
}

TEST(SourceCheck, MatchesWholeIdentifiersOnly) {
  EXPECT_EQ(violations_in("double cubic = 1; int my_cub_count = 0; int cub_temp, CUB, Cub, cub2, _cub;\n"
                          "auto t = thrusting; void CountScanner();\n"),
            std::vector<std::string>{});
  EXPECT_EQ(violations_in("void f() {\n"
                          "  cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n);\n"
                          "  namespace c = cub;\n"
                          "  workbook::CountScan scan(n);\n"
                          "  thrust :: device_vector<int> v;  using namespace ::cub;\n"
                          "}\n"),
            (std::vector<std::string>{"2 cub cub::DeviceScan::ExclusiveSum", "3 cub cub",
                                      "4 CountScan workbook::CountScan", "5 thrust thrust::device_vector",
                                      "5 cub ::cub"}));
}

TEST(SourceCheck, FlagsIncludesThatNameAForbiddenName) {
  const std::string text =
      "#include <cub/cub.cuh>\n"
      "  #  include \"thrust/sort.h\"\n"
      "#include /* why not */ <cub/device/device_scan.cuh>\n"
      "#include \"workbook/count_scan.cuh\"\n"
      "#include <cublas_v2.h>\n"
      "#include \"cubic_spline.cuh\"\n"
      "#include \"scan.cuh\"\n"
      "#include \"workbook/buffers.hpp\"\n"
      "%:include_next <CUB/x.h>\n"
      "#include \"tests/cub_yardstick.cuh\"\n";
  EXPECT_EQ(
      violations_in(text),
      (std::vector<std::string>{
          "1 cub #include <cub/cub.cuh>", "2 thrust #include \"thrust/sort.h\"",
          "3 cub #include <cub/device/device_scan.cuh>", "4 CountScan #include \"workbook/count_scan.cuh\"",
          "9 cub #include_next <CUB/x.h>", "10 cub #include \"tests/cub_yardstick.cuh\""}));
  const StrippedSource source = strip_source(text);
  ASSERT_EQ(source.includes.size(), 10u);
  EXPECT_EQ(source.includes[1].path, "thrust/sort.h");
  EXPECT_EQ(source.includes[1].form, IncludeForm::quoted);
  EXPECT_EQ(source.includes[2].path, "cub/device/device_scan.cuh");
  EXPECT_EQ(source.includes[2].form, IncludeForm::angled);
}

TEST(SourceCheck, FlagsTokenPastingAndComputedIncludes) {
  EXPECT_EQ(
      violations_in("#define GLUE(a, b) a##b\n"
                    "#define GLUE2(a, b) a %:%: b\n"
                    "const char* s = \"##\";  // ## in a comment\n"
                    "#define HEADER \"thrust/sort.h\"\n"
                    "#include HEADER\n"
                    "#define ANGLED <cub/cub.cuh>\n"),
      (std::vector<std::string>{"1 ## the token-pasting operator ##", "2 ## the token-pasting operator %:%:",
                                "5 computed #include #include HEADER", "6 cub cub", "6 cub cub"}));
}

TEST(SourceCheck, ReportsEveryViolationOnItsOwnLine) {
  const std::string text =
      "#include \"scan.cuh\"\n"
      "\n"
      "// Line 3: cub is only mentioned here.\n"
      "void scan(const int* in, int* out, int n) {\n"
      "  int cubic = 0;\n"
      "  thrust::exclusive_scan(in, in + n, out);\n"
      "  cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n); cub::Foo();\n"
      "  const char* note = R\"(\n"
      "cub::DeviceScan\n"
      ")\";\n"
      "  cu\\\n"
      "b::DeviceScan::InclusiveSum(in, out, n);\n"
      "  workbook::CountScan s(n);\n"
      "}\n";
  EXPECT_EQ(violations_in(text),
            (std::vector<std::string>{
                "6 thrust thrust::exclusive_scan", "7 cub cub::DeviceScan::ExclusiveSum", "7 cub cub::Foo",
                "11 cub cub::DeviceScan::InclusiveSum", "13 CountScan workbook::CountScan"}));
}

TEST(SourceCheck, IncludePathsNameForbiddenNamesInAnySpelling) {
  EXPECT_TRUE(path_names("cub/cub.cuh", "cub"));
  EXPECT_TRUE(path_names("../CUB/device/x.h", "cub"));
  EXPECT_TRUE(path_names("CUBScan.h", "cub"));
  EXPECT_TRUE(path_names("cub2.h", "cub"));
  EXPECT_TRUE(path_names("workbook/count_scan.cuh", "CountScan"));
  EXPECT_TRUE(path_names("CountScan.h", "CountScan"));
  EXPECT_TRUE(path_names("countscan.h", "CountScan"));
  EXPECT_TRUE(path_names("count-scan.h", "count_scan"));
  EXPECT_FALSE(path_names("cublas_v2.h", "cub"));
  EXPECT_FALSE(path_names("cubic.h", "cub"));
  EXPECT_FALSE(path_names("scan.cuh", "CountScan"));
  EXPECT_FALSE(path_names("account_scanner.h", "CountScan"));
  EXPECT_FALSE(path_names("cuda_runtime.h", "cub"));
}

TEST(SourceCheck, DescribesAViolationForTheStudent) {
  SourceViolation violation{"labs/07-prefix-sum/scan.cu", 120, "cub", "cub::DeviceScan::ExclusiveSum",
                            "CUB is the yardstick this lab is timed against: write the scan yourself"};
  EXPECT_EQ(
      describe_violation(violation),
      "labs/07-prefix-sum/scan.cu:120: remove cub::DeviceScan::ExclusiveSum ('cub' is forbidden in this "
      "lab). CUB is the yardstick this lab is timed against: write the scan yourself");
}

class SourceCheckFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-source-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directories(dir_ / "labs/07-scan");
    std::filesystem::create_directories(dir_ / "solutions/07-scan");
    lab_.id = "07-scan";
    lab_.base = "scan";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ / file) << text; }

  std::filesystem::path dir_;
  LabEntry lab_;
};

TEST_F(SourceCheckFiles, CleanFileIsGradedAndNothingForbiddenReadsNothing) {
  write("labs/07-scan/scan.cu", "#include \"scan.cuh\"\n// Not cub: my own scan.\nint cubic;\n");
  write("labs/07-scan/scan.cuh", "#pragma once\n");
  EXPECT_EQ(check_lab_source(dir_.string(), lab_, false, kYardsticks), "");
  EXPECT_EQ(check_lab_source(dir_.string(), lab_, true, {}), "");  // No solution file, but nothing forbidden.
  EXPECT_EQ(lab_source_file(lab_, false), "labs/07-scan/scan.cu");
  EXPECT_EQ(lab_source_file(lab_, true), "solutions/07-scan/scan.cu");
}

TEST_F(SourceCheckFiles, RefusesAndFollowsIncludesInTheLabFolder) {
  write("labs/07-scan/scan.cu", "#include \"scan.cuh\"\n#include \"mine.cuh\"\n#include <cub/cub.cuh>\n");
  write("labs/07-scan/scan.cuh", "#pragma once\n");
  write("labs/07-scan/mine.cuh", "#pragma once\n\ninline void f() { thrust::sort(); }\n");
  const std::string refusal = check_lab_source(dir_.string(), lab_, false, kYardsticks);
  EXPECT_EQ(
      refusal,
      "labs/07-scan/scan.cu uses what this lab forbids, so the lab scores 0 and its tests were not run. "
      "Remove each of these and grade again:\n"
      "- labs/07-scan/scan.cu:3: remove #include <cub/cub.cuh> ('cub' is forbidden in this lab). CUB is "
      "the yardstick\n"
      "- labs/07-scan/mine.cuh:3: remove thrust::sort ('thrust' is forbidden in this lab). Thrust is a "
      "yardstick");
}

TEST_F(SourceCheckFiles, ChecksTheSolutionInSolutionsModeAndRefusesAMissingFile) {
  write("solutions/07-scan/scan.cu", "#include \"scan.cuh\"\n");
  write("labs/07-scan/scan.cuh", "#pragma once\nnamespace scan { using workbook::CountScan; }\n");
  EXPECT_EQ(check_lab_source(dir_.string(), lab_, true, kYardsticks),
            "the reference solution solutions/07-scan/scan.cu uses what this lab forbids (a bug in the "
            "solution), so the lab scores 0 and its tests were not run:\n"
            "- labs/07-scan/scan.cuh:2: remove workbook::CountScan ('CountScan' is forbidden in this lab). "
            "writing a scan is this lab");
  const std::string missing = check_lab_source(dir_.string(), lab_, false, kYardsticks);
  EXPECT_EQ(missing.rfind("the grader could not read labs/07-scan/scan.cu (", 0), 0u) << missing;
  EXPECT_NE(missing.find("so the lab scores 0 and its tests were not run"), std::string::npos) << missing;
}

TEST(SourceCheck, ARefusedLabScoresZeroAndSaysWhy) {
  const LabRun run = refused_run("02-abc", "labs/02-abc/abc.cu uses what this lab forbids, ...:\n- line");
  const LabScore score = score_lab(abc_rubric(), run);
  EXPECT_DOUBLE_EQ(score.score, 0.0);
  EXPECT_DOUBLE_EQ(score.max_score, 10.0);
  EXPECT_FALSE(score.correct);
  EXPECT_EQ(score.groups[0].problem, "");  // The refusal explains it; not a rubric problem.
  EXPECT_EQ(score.speed[0].summary, "not scored: refused");

  GradeReport report;
  report.runs.push_back(run);
  report.scores.push_back(score);
  const std::string text = format_terminal_report(report, false);
  EXPECT_NE(text.find("02-abc  refused"), std::string::npos) << text;
  EXPECT_NE(text.find("Labs refused: their source uses or calls what it may not\n"
                      "  02-abc: labs/02-abc/abc.cu uses what this lab forbids, ...:\n    - line\n"),
            std::string::npos)
      << text;
  const json results = gradescope_json(report);
  EXPECT_EQ(results["tests"][0]["output"], "refused: " + run.error);
  EXPECT_NE(junit_xml(report).find("name=\"(forbidden names)\""), std::string::npos);
}

}  // namespace
}  // namespace workbook::grader
