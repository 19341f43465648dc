// End-to-end tests: the real workbook-grader binary grades fake labs
// (fake_lab.cpp, started through symlinks) that pass, fail, crash, hang and
// abort, with WORKBOOK_GRADER_ASSUME_DEVICE=1 so no GPU is needed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "host_compiler.hpp"
#include "process.hpp"
#include "sandbox.hpp"
#include "workbook/device.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::size_t count_lines(const std::string& text) {
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

struct GraderRun {
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;
};

class GraderEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-e2e-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    for (const char* lab : {"hang_lab", "crash_lab", "good_lab"}) {
      fs::create_symlink(WORKBOOK_FAKE_LAB_BIN, dir_ / lab);
    }
    write_file(
        dir_ / "workbook-labs.json",
        json({{"source_dir", dir_.string()},
              {"rubric", (dir_ / "rubric.json").string()},
              {"labs",
               {{{"id", "01-hang"}, {"base", "hang"}, {"student_tests", (dir_ / "hang_lab").string()}},
                {{"id", "02-crash"}, {"base", "crash"}, {"student_tests", (dir_ / "crash_lab").string()}},
                {{"id", "03-good"},
                 {"base", "good"},
                 {"student_tests", (dir_ / "good_lab").string()},
                 {"solution_tests", (dir_ / "good_lab").string()}}}}})
            .dump(2));
    write_file(dir_ / "rubric.json", R"({"version": 1, "labs": {
      "01-hang": {"title": "hangs", "timeout_s": 2,
                  "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3}]},
      "02-crash": {"title": "crashes", "timeout_s": 60,
                   "groups": [{"name": "basics", "tests": ["Crash.*"], "points": 6},
                              {"name": "sizes", "tests": ["Sizes/*"], "points": 2}]},
      "03-good": {"title": "good", "timeout_s": 60,
                  "groups": [{"name": "all", "tests": ["Good.*"], "points": 4}],
                  "speed": [{"name": "bandwidth", "test": "GoodSpeed.Fast", "yardstick": "device-to-device copy bandwidth",
                             "target": 0.75, "floor": 0.4, "points": 4}]}}})");
    ::setenv("FAKE_LAB_TESTS_hang_lab", "Hang.First=pass,Hang.Stuck=hang,Hang.Never=pass", 1);
    ::setenv("FAKE_LAB_TESTS_crash_lab",
             "Crash.A=pass,Crash.B=crash,Crash.C=pass,Crash.D=fail,Crash.E=abort,Crash.F=pass,"
             "Sizes/P.Ok/0=pass,Sizes/P.Ok/1=pass",
             1);
    ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=pass,Good.B=pass,GoodSpeed.Fast=speed:0.575", 1);
    // GoodSpeed.Fast is below its target, so --explain's default profiles it:
    // with no ncu, on every machine, unless a test brings a fake one.
    ::setenv("WORKBOOK_NCU", (dir_ / "no-ncu-here").c_str(), 1);
  }

  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// Runs the grader with @p args (a shell fragment) and the fake device.
  GraderRun grade(const std::string& args, bool assume_device = true) {
    const std::string command = std::string(assume_device ? "WORKBOOK_GRADER_ASSUME_DEVICE=1 " : "") +
                                "TMPDIR='" + dir_.string() + "' '" + WORKBOOK_GRADER_BIN + "' " + args +
                                " > '" + (dir_ / "stdout").string() + "' 2> '" + (dir_ / "stderr").string() +
                                "'";
    GraderRun run;
    const auto started = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = read_file(dir_ / "stdout");
    run.err = read_file(dir_ / "stderr");
    return run;
  }

  std::string manifest_arg() const { return "--manifest '" + (dir_ / "workbook-labs.json").string() + "'"; }

  /// Replaces lab @p id's rubric entry with @p entry (JSON text).
  void set_lab_rubric(const std::string& id, const std::string& entry) {
    json rubric = json::parse(read_file(dir_ / "rubric.json"));
    rubric["labs"][id] = json::parse(entry);
    write_file(dir_ / "rubric.json", rubric.dump(2));
  }

  /// The log of run @p run of lab @p id in the (only) grading folder.
  fs::path log_path(const std::string& id, int run) const {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
      if (entry.path().filename().string().rfind("workbook-grade-", 0) == 0)
        return entry.path() / id / ("run-" + std::to_string(run) + ".log");
    }
    return {};
  }

  fs::path dir_;
};

const json* find_item(const json& results, const std::string& name) {
  for (const json& item : results["tests"]) {
    if (item["name"] == name) return &item;
  }
  return nullptr;
}

/// The <testcase> element of @p name in @p xml, up to its end.
std::string testcase(const std::string& xml, const std::string& name) {
  const std::size_t at = xml.find("name=\"" + name + "\"");
  if (at == std::string::npos) return "";
  const std::size_t short_end = xml.find("/>", at);
  const std::size_t long_end = xml.find("</testcase>", at);
  const std::size_t next = xml.find("<testcase", at);
  if (short_end != std::string::npos && short_end < next &&
      (long_end == std::string::npos || short_end < long_end) && xml.find('>', at) == short_end + 1) {
    return xml.substr(at, short_end + 2 - at);
  }
  return xml.substr(at, long_end == std::string::npos ? std::string::npos : long_end - at);
}

TEST_F(GraderEndToEnd, IsolatesCrashesAndHangsAndStillReports) {
  // --jobs 1: one chain of test programs, whose restarts and logs this test follows.
  const GraderRun run = grade(manifest_arg() + " --jobs 1 --seed 42 --color never --json '" +
                              (dir_ / "out/gs/results.json").string() + "' --junit '" +
                              (dir_ / "out/junit/report.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 30.0) << "the hung lab was not stopped";

  const json results = json::parse(read_file(dir_ / "out/gs/results.json"));
  // The hung lab: the test before the hang passed, the hang timed out, the
  // test after it never ran.
  const json* hang = find_item(results, "01-hang: all");
  ASSERT_NE(hang, nullptr) << results.dump(2);
  EXPECT_DOUBLE_EQ((*hang)["score"].get<double>(), 0.0);  // Groups are all or nothing.
  EXPECT_EQ((*hang)["status"], "failed");
  const std::string hang_output = (*hang)["output"];
  EXPECT_NE(hang_output.find("Hang.Stuck"), std::string::npos);
  EXPECT_NE(hang_output.find("timed out: the lab was stopped after 2 s (a hung kernel or an endless loop?)"),
            std::string::npos)
      << hang_output;
  EXPECT_NE(hang_output.find("not run: the lab ran out of time"), std::string::npos) << hang_output;

  // The crashing lab: B crashed, E lost its context, everything else ran.
  const json* basics = find_item(results, "02-crash: basics");
  ASSERT_NE(basics, nullptr);
  EXPECT_DOUBLE_EQ((*basics)["score"].get<double>(), 0.0);  // A, C, F of six passed: not all.
  const std::string basics_output = (*basics)["output"];
  EXPECT_NE(basics_output.find("SIGSEGV"), std::string::npos) << basics_output;
  const json* sizes = find_item(results, "02-crash: sizes");
  ASSERT_NE(sizes, nullptr);
  EXPECT_DOUBLE_EQ((*sizes)["score"].get<double>(), 2.0);
  EXPECT_EQ((*sizes)["status"], "passed");

  // The unrelated lab is intact, speed included: ratio 0.575 is half way
  // from floor 0.4 to target 0.75.
  const json* good = find_item(results, "03-good: all");
  ASSERT_NE(good, nullptr);
  EXPECT_DOUBLE_EQ((*good)["score"].get<double>(), 4.0);
  const json* speed = find_item(results, "03-good: bandwidth");
  ASSERT_NE(speed, nullptr);
  EXPECT_NEAR((*speed)["score"].get<double>(), 2.0, 1e-9);
  EXPECT_NE(
      (*speed)["output"].get<std::string>().find("575.0 GB/s = 57.5% of device-to-device copy bandwidth"),
      std::string::npos);
  EXPECT_NEAR(results["score"].get<double>(), 0 + 0 + 2 + 4 + 2, 1e-9);
  // The instructor's seed is hidden wherever a student reads the report.
  EXPECT_NE(results["output"].get<std::string>().find("seed: hidden"), std::string::npos);
  for (const std::string& text : {results.dump(), read_file(dir_ / "out/junit/report.xml"), run.out}) {
    EXPECT_EQ(text.find("seed: 42"), std::string::npos) << text;
    EXPECT_EQ(text.find("seed=42"), std::string::npos) << text;
  }

  const std::string xml = read_file(dir_ / "out/junit/report.xml");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"3\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"02-crash\" tests=\"8\" failures=\"3\""), std::string::npos) << xml;
  EXPECT_NE(testcase(xml, "Crash.B").find("killed by signal SIGSEGV"), std::string::npos)
      << testcase(xml, "Crash.B");
  EXPECT_NE(testcase(xml, "Crash.B").find("about to dereference a bad pointer"), std::string::npos);
  EXPECT_EQ(testcase(xml, "Crash.C").find("<failure"), std::string::npos) << testcase(xml, "Crash.C");
  EXPECT_NE(testcase(xml, "Crash.D").find("&quot;quotes&quot;"), std::string::npos);
  EXPECT_EQ(testcase(xml, "Crash.F").find("<failure"), std::string::npos) << testcase(xml, "Crash.F");
  EXPECT_EQ(testcase(xml, "Sizes/P.Ok/1").find("<failure"), std::string::npos);
  EXPECT_NE(testcase(xml, "Hang.Stuck").find("timed out"), std::string::npos);
  EXPECT_NE(testcase(xml, "Hang.Never").find("not run: the lab ran out of time"), std::string::npos);

  // The terminal report.
  EXPECT_NE(run.out.find("seed: hidden"), std::string::npos);
  EXPECT_NE(run.out.find("Total"), std::string::npos);
  EXPECT_NE(run.out.find("8.0/19"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("cudaErrorIllegalAddress"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("\x1b["), std::string::npos);
  EXPECT_NE(run.err.find("[3/3] 03-good"), std::string::npos) << run.err;
}

TEST_F(GraderEndToEnd, AHungTestCostsOnlyThatTest) {
  // --jobs 1: one chain of test programs, whose restarts and logs this test follows.
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 30,
      "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3, "test_timeout_s": 0.3}]})");
  const GraderRun run =
      grade(manifest_arg() + " --jobs 1 01 --color never --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 10.0) << "the hung test was not stopped at its own limit";
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_EQ(testcase(xml, "Hang.First").find("<failure"), std::string::npos) << testcase(xml, "Hang.First");
  EXPECT_NE(testcase(xml, "Hang.Stuck")
                .find("timed out: the test was stopped after 0.3 s (a hung kernel or an endless loop?)"),
            std::string::npos)
      << testcase(xml, "Hang.Stuck");
  EXPECT_EQ(testcase(xml, "Hang.Never").find("<failure"), std::string::npos) << testcase(xml, "Hang.Never");
  EXPECT_NE(
      run.out.find("01-hang: Hang.Stuck: timed out after 0.3 s; the 1 test after it ran in a fresh process"),
      std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("(timed out)"), std::string::npos) << "the lab's budget was not spent: " << run.out;
}

TEST_F(GraderEndToEnd, JobsRunCorrectnessTestsAtOnceAndSpeedTestsAlone) {
  // Eight correctness tests of 0.4 s: 3.2 s one after another, 0.8 s in four
  // programs at once. The speed test runs afterwards, in a program of its own.
  ::setenv("FAKE_LAB_TESTS_good_lab",
           "Good.A=sleep:400,Good.B=sleep:400,Good.C=sleep:400,Good.D=sleep:400,Good.E=sleep:400,"
           "Good.F=sleep:400,Good.G=sleep:400,Good.H=sleep:400,GoodSpeed.Fast=speed:0.575",
           1);
  const GraderRun together = grade(manifest_arg() + " --jobs 4 --no-sandbox 03 --color never --json '" +
                                   (dir_ / "r.json").string() + "'");
  ASSERT_EQ(together.exit_code, 0) << together.out << together.err;
  EXPECT_LT(together.seconds, 2.5) << "four programs at once should take about 0.8 s of sleeping";
  EXPECT_NE(together.out.find("9/9"), std::string::npos) << together.out;
  const json results = json::parse(read_file(dir_ / "r.json"));
  const json* group = find_item(results, "03-good: all");
  ASSERT_NE(group, nullptr) << results.dump(2);
  EXPECT_DOUBLE_EQ((*group)["score"].get<double>(), 4.0) << results.dump(2);
  const fs::path alone_log = log_path("03-good", 1).parent_path() / "alone" / "run-1.log";
  const std::string alone = read_file(alone_log);
  EXPECT_NE(alone.find("GoodSpeed.Fast"), std::string::npos) << alone_log;
  EXPECT_EQ(alone.find("Good.A"), std::string::npos) << "a correctness test ran beside the speed test:\n"
                                                     << alone;

  fs::remove_all(log_path("03-good", 1).parent_path().parent_path());
  const GraderRun serial = grade(manifest_arg() + " --jobs 1 --no-sandbox 03 --color never");
  ASSERT_EQ(serial.exit_code, 0) << serial.out << serial.err;
  EXPECT_GT(serial.seconds, 3.2) << "with --jobs 1 the eight tests run one after another";
}

TEST_F(GraderEndToEnd, AHangOrCrashInOneShareCostsOnlyThatTest) {
  ::setenv("FAKE_LAB_TESTS_hang_lab",
           "Hang.A=pass,Hang.Stuck=hang,Hang.C=pass,Hang.Crash=crash,Hang.E=pass,Hang.F=pass", 1);
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 30,
      "groups": [{"name": "all", "tests": ["Hang.*"], "points": 6, "test_timeout_s": 0.3}]})");
  const GraderRun run =
      grade(manifest_arg() + " --jobs 3 01 --color never --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 10.0) << "the hung test was not stopped at its own limit";
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"6\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(testcase(xml, "Hang.Stuck").find("timed out: the test was stopped after 0.3 s"),
            std::string::npos)
      << testcase(xml, "Hang.Stuck");
  EXPECT_NE(testcase(xml, "Hang.Crash").find("crashed"), std::string::npos) << testcase(xml, "Hang.Crash");
  for (const char* name : {"Hang.A", "Hang.C", "Hang.E", "Hang.F"})
    EXPECT_EQ(testcase(xml, name).find("<failure"), std::string::npos) << testcase(xml, name);
  EXPECT_NE(run.out.find("01-hang: Hang.Stuck: timed out after 0.3 s"), std::string::npos) << run.out;
}

TEST_F(GraderEndToEnd, EveryTestHangingStopsAtTheLabBudget) {
  // --jobs 1: one chain of programs. The first hang is stopped at its own 1 s limit; the second
  // starts in a fresh process (well under 0.5 s later, even in a sandbox) and is stopped by the
  // lab's 1.5 s budget; the rest never start.
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 1.5,
      "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3, "test_timeout_s": 1.0}]})");
  std::string spec;
  for (int i = 0; i < 10; ++i)
    spec += (spec.empty() ? "" : ",") + std::string("Hang.T") + std::to_string(i) + "=hang";
  ::setenv("FAKE_LAB_TESTS_hang_lab", spec.c_str(), 1);
  const GraderRun run =
      grade(manifest_arg() + " --jobs 1 01 --color never --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 10.0);
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"10\" failures=\"10\""), std::string::npos) << xml;
  EXPECT_NE(testcase(xml, "Hang.T0").find("timed out: the test was stopped after 1 s"), std::string::npos)
      << testcase(xml, "Hang.T0");
  EXPECT_NE(xml.find("timed out: the lab was stopped after 1.5 s (a hung kernel or an endless loop?)"),
            std::string::npos)
      << xml;
  EXPECT_NE(testcase(xml, "Hang.T9").find("not run: the lab ran out of time"), std::string::npos)
      << testcase(xml, "Hang.T9");
  EXPECT_NE(run.out.find("01-hang  0/10 (timed out)"), std::string::npos) << run.out;
}

TEST_F(GraderEndToEnd, EachGroupsTestTimeLimitIsHonoured) {
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 30,
      "groups": [{"name": "quick", "tests": ["Hang.Stuck"], "points": 1, "test_timeout_s": 0.3},
                 {"name": "slow", "tests": ["Hang.Slow"], "points": 1, "test_timeout_s": 5},
                 {"name": "rest", "tests": ["Hang.First"], "points": 1}]})");
  ::setenv("FAKE_LAB_TESTS_hang_lab", "Hang.First=pass,Hang.Slow=sleep:800,Hang.Stuck=hang", 1);
  const GraderRun run = grade(manifest_arg() + " 01 --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 10.0);
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_EQ(testcase(xml, "Hang.Slow").find("<failure"), std::string::npos) << testcase(xml, "Hang.Slow");
  EXPECT_NE(testcase(xml, "Hang.Stuck").find("timed out: the test was stopped after 0.3 s"),
            std::string::npos)
      << testcase(xml, "Hang.Stuck");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"3\" failures=\"1\""), std::string::npos) << xml;
}

TEST_F(GraderEndToEnd, TimeoutScaleStretchesEachTestsLimit) {
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 30,
      "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3, "test_timeout_s": 0.3}]})");
  ::setenv("FAKE_LAB_TESTS_hang_lab", "Hang.Slow=sleep:600,Hang.Stuck=hang", 1);
  const GraderRun plain = grade(manifest_arg() + " 01 --junit '" + (dir_ / "plain.xml").string() + "'");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  const std::string plain_xml = read_file(dir_ / "plain.xml");
  EXPECT_NE(testcase(plain_xml, "Hang.Slow").find("timed out: the test was stopped after 0.3 s"),
            std::string::npos)
      << testcase(plain_xml, "Hang.Slow");

  const GraderRun scaled =
      grade(manifest_arg() + " 01 --timeout-scale 3 --junit '" + (dir_ / "scaled.xml").string() + "'");
  ASSERT_EQ(scaled.exit_code, 0) << scaled.out << scaled.err;
  const std::string xml = read_file(dir_ / "scaled.xml");
  EXPECT_EQ(testcase(xml, "Hang.Slow").find("<failure"), std::string::npos) << testcase(xml, "Hang.Slow");
  EXPECT_NE(testcase(xml, "Hang.Stuck").find("timed out: the test was stopped after 0.9 s"),
            std::string::npos)
      << testcase(xml, "Hang.Stuck");
}

TEST_F(GraderEndToEnd, AHangBeforeATestStartsIsRetriedOnce) {
  set_lab_rubric("01-hang", R"({"title": "hangs", "timeout_s": 30,
      "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3, "test_timeout_s": 0.3}]})");
  ::setenv("FAKE_LAB_TESTS_hang_lab", "Hang.First=pass,Hang.Stalls=stall,Hang.After=pass", 1);
  const GraderRun run =
      grade(manifest_arg() + " 01 --color never --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 10.0);
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"01-hang\" tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(
      testcase(xml, "Hang.Stalls").find("timed out: the test program hung twice before this test started"),
      std::string::npos)
      << testcase(xml, "Hang.Stalls");
  EXPECT_EQ(testcase(xml, "Hang.After").find("<failure"), std::string::npos) << testcase(xml, "Hang.After");
  EXPECT_NE(run.out.find("hung for 0.3 s before Hang.Stalls started"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("hung twice before Hang.Stalls started, so it was not retried"), std::string::npos)
      << run.out;
}

TEST_F(GraderEndToEnd, AnOutputFloodIsCappedInTheLogAndDoesNotBlockTheProgram) {
  // --jobs 1: one chain of test programs, whose restarts and logs this test follows.
  // 64 MiB, far over the cap, within a 10 s test limit: a grader that let the
  // pipe fill (or stored every byte) would time out (or keep 64 MiB).
  set_lab_rubric("03-good", R"({"title": "good", "timeout_s": 60,
      "groups": [{"name": "all", "tests": ["Good.*"], "points": 4, "test_timeout_s": 10}],
      "speed": [{"name": "bandwidth", "test": "GoodSpeed.Fast", "yardstick": "device-to-device copy bandwidth",
                 "target": 0.75, "floor": 0.4, "points": 4}]})");
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=flood:64,Good.B=pass,GoodSpeed.Fast=speed:0.575", 1);
  ::setenv("FAKE_LAB_TESTS_crash_lab", "Crash.A=flood:8,Crash.B=crash,Sizes/P.Ok/0=pass", 1);
  const GraderRun run = grade(manifest_arg() + " --jobs 1 02 03 --color never --json '" +
                              (dir_ / "r.json").string() + "' --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_LT(run.seconds, 20.0);

  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ((*find_item(results, "03-good: all"))["score"].get<double>(), 4.0);
  EXPECT_NEAR((*find_item(results, "03-good: bandwidth"))["score"].get<double>(), 2.0, 1e-9);

  const fs::path log = log_path("03-good", 1);
  ASSERT_TRUE(fs::exists(log)) << log;
  const std::uintmax_t cap = 2 * (std::uintmax_t{1} << 20);
  EXPECT_LE(fs::file_size(log), cap + 1024);
  EXPECT_GE(fs::file_size(log), cap);
  const std::string text = read_file(log);
  EXPECT_NE(text.find("flood line 0 "), std::string::npos);
  EXPECT_NE(text.find("bytes of output dropped here; the log keeps the first 1 MiB and the last 1 MiB]\n"),
            std::string::npos);
  EXPECT_NE(text.find("flood line 1048575 "), std::string::npos) << "the last lines are kept";
  EXPECT_NE(text.find("[ passed ] GoodSpeed.Fast"), std::string::npos);
  EXPECT_NE(
      run.out.find("03-good: run-1.log: the test program wrote 64 MiB of output; the log keeps the first "
                   "and the last 1 MiB"),
      std::string::npos)
      << run.out;

  // A crash after a flood still quotes the last lines of the output.
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(testcase(xml, "Crash.B").find("about to dereference a bad pointer in Crash.B"), std::string::npos)
      << testcase(xml, "Crash.B");
  EXPECT_EQ(testcase(xml, "Crash.A").find("<failure"), std::string::npos);
  EXPECT_LE(fs::file_size(log_path("02-crash", 1)), cap + 1024);
}

TEST_F(GraderEndToEnd, ForbiddenCallRefusesTheLabAndOtherLabsAreGraded) {
  write_file(dir_ / "rubric.json", R"({"version": 1, "labs": {
      "01-hang": {"title": "hangs", "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3}]},
      "02-crash": {"title": "crashes", "timeout_s": 60,
                   "groups": [{"name": "basics", "tests": ["Crash.*"], "points": 6},
                              {"name": "sizes", "tests": ["Sizes/*"], "points": 2}],
                   "forbidden": [{"name": "cub", "why": "CUB is the yardstick this lab is timed against: write the scan yourself"},
                                 {"name": "thrust", "why": "Thrust is a yardstick of this lab"}]},
      "03-good": {"title": "good", "timeout_s": 60,
                  "groups": [{"name": "all", "tests": ["Good.*"], "points": 4}],
                  "speed": [{"name": "bandwidth", "test": "GoodSpeed.Fast", "yardstick": "device-to-device copy bandwidth",
                             "target": 0.75, "floor": 0.4, "points": 4}],
                  "forbidden": [{"name": "cub", "why": "CUB is the yardstick"}]}}})");
  fs::create_directories(dir_ / "labs/02-crash");
  fs::create_directories(dir_ / "labs/03-good");
  write_file(dir_ / "labs/02-crash/crash.cu",
             "#include <cub/cub.cuh>\n"
             "// A comment may name cub::DeviceScan, and a string \"thrust::sort\".\n"
             "void scan(const int* in, int* out, int n) {\n"
             "  int cubic = n;\n"
             "  cub::DeviceScan::ExclusiveSum(nullptr, cubic, in, out, n);\n"
             "}\n");
  write_file(dir_ / "labs/03-good/good.cu", "// Faster than cub? Not yet.\nint cubic() { return 3; }\n");

  const GraderRun run = grade(manifest_arg() + " crash good --color never --json '" +
                              (dir_ / "r.json").string() + "' --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string why =
      "labs/02-crash/crash.cu uses what this lab forbids, so the lab scores 0 and its tests were not run. "
      "Remove "
      "each of these and grade again:\n"
      "- labs/02-crash/crash.cu:1: remove #include <cub/cub.cuh> ('cub' is forbidden in this lab). CUB is "
      "the "
      "yardstick this lab is timed against: write the scan yourself\n"
      "- labs/02-crash/crash.cu:5: remove cub::DeviceScan::ExclusiveSum ('cub' is forbidden in this lab). "
      "CUB "
      "is the yardstick this lab is timed against: write the scan yourself";

  const json results = json::parse(read_file(dir_ / "r.json"));
  for (const char* item : {"02-crash: basics", "02-crash: sizes"}) {
    const json* group = find_item(results, item);
    ASSERT_NE(group, nullptr) << results.dump(2);
    EXPECT_DOUBLE_EQ((*group)["score"].get<double>(), 0.0);
    EXPECT_EQ((*group)["status"], "failed");
    EXPECT_EQ((*group)["output"], "refused: " + why);
  }
  // The clean lab (cub only in a comment, cubic is another name) is graded as usual.
  EXPECT_DOUBLE_EQ((*find_item(results, "03-good: all"))["score"].get<double>(), 4.0);
  EXPECT_NEAR((*find_item(results, "03-good: bandwidth"))["score"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(results["score"].get<double>(), 6.0, 1e-9);
  EXPECT_NE(results["output"].get<std::string>().find("02-crash: refused: labs/02-crash/crash.cu uses"),
            std::string::npos)
      << results["output"];

  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"02-crash\" tests=\"1\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(testcase(xml, "(forbidden names)").find("crash.cu:5: remove cub::DeviceScan::ExclusiveSum"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("Crash.A"), std::string::npos) << "a refused lab's tests are not run";

  EXPECT_NE(run.out.find("02-crash  refused"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Labs refused: their source uses or calls what it may not\n  02-crash: "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("    - labs/02-crash/crash.cu:5: remove cub::DeviceScan::ExclusiveSum"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find("02-crash: refused"), std::string::npos) << run.err;

  // A reference solution that breaks the rule is refused too: it is a bug.
  fs::create_directories(dir_ / "solutions/03-good");
  write_file(dir_ / "solutions/03-good/good.cu", "\n\nnamespace c = cub;\n");
  const GraderRun solutions =
      grade(manifest_arg() + " --solutions good --json '" + (dir_ / "s.json").string() + "'");
  ASSERT_EQ(solutions.exit_code, 0) << solutions.out << solutions.err;
  const json solution_results = json::parse(read_file(dir_ / "s.json"));
  EXPECT_DOUBLE_EQ(solution_results["score"].get<double>(), 0.0);
  EXPECT_EQ(
      (*find_item(solution_results, "03-good: all"))["output"],
      "refused: the reference solution solutions/03-good/good.cu uses what this lab forbids (a bug in the "
      "solution), so the lab scores 0 and its tests were not run:\n"
      "- solutions/03-good/good.cu:3: remove cub ('cub' is forbidden in this lab). CUB is the yardstick");
  EXPECT_EQ((*find_item(solution_results, "03-good: bandwidth"))["output"],
            "not scored: the lab was refused (its source uses what this lab forbids)");
}

TEST_F(GraderEndToEnd, ACompiledFileThatStartsAThreadIsRefusedAndTheSolutionsLibraryIsItsOwn) {
  if (workbook::grader::find_on_path("nm").empty()) GTEST_SKIP() << "no nm on PATH (binutils)";
  std::string threads;
  std::string honest;
  ASSERT_EQ(
      workbook::grader::test_tree::compile_object(
          dir_, "threads", "#include <thread>\nvoid good() { std::thread([] {}).detach(); }\n", threads),
      "");
  ASSERT_EQ(workbook::grader::test_tree::compile_object(dir_, "honest", "int good(int n) { return n + 1; }\n",
                                                        honest),
            "");
  json manifest = json::parse(read_file(dir_ / "workbook-labs.json"));
  manifest["labs"][2]["student_library"] = threads;
  manifest["labs"][2]["solution_library"] = honest;
  write_file(dir_ / "workbook-labs.json", manifest.dump(2));

  const GraderRun run =
      grade(manifest_arg() + " good --color never --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 0.0);
  const std::string output = (*find_item(results, "03-good: all"))["output"];
  EXPECT_EQ(
      output.rfind("refused: labs/03-good/good.cu calls what no student file may call, so the lab scores 0 "
                   "and its tests were not run. Remove what calls each of these and grade again:\n"
                   "- labs/03-good/good.cu calls std::thread::_M_start_thread (it starts a thread",
                   0),
      0u)
      << output;
  EXPECT_NE(run.out.find("03-good  refused"), std::string::npos) << run.out;

  // --solutions checks the solution's library, which calls nothing forbidden.
  const GraderRun solutions = grade(manifest_arg() + " --solutions good --color never");
  ASSERT_EQ(solutions.exit_code, 0) << solutions.out << solutions.err;
  EXPECT_NE(solutions.out.find("03-good  3/3"), std::string::npos) << solutions.out;
}

TEST_F(GraderEndToEnd, ABarrierInDivergentCodeWarnsAndCostsPointsOnlyWhenTheRubricSaysFail) {
  fs::create_directories(dir_ / "labs/03-good");
  write_file(dir_ / "labs/03-good/good.cu",
             "__global__ void tree(int* shared) {\n"
             "  const int t = threadIdx.x;\n"
             "  for (int s = 1; s < blockDim.x; s *= 2) {\n"
             "    if (t % (2 * s) == 0) {\n"
             "      shared[t] += shared[t + s];\n"
             "      __syncthreads();\n"
             "    }\n"
             "  }\n"
             "}\n");
  const std::string warning =
      "labs/03-good/good.cu:6: __syncthreads() inside 'if (t % (2 * s) == 0)' (line 4), whose condition "
      "depends on the thread index: a barrier inside a branch that only some threads of the block take is "
      "undefined behaviour (CUDA C++ Programming Guide, __syncthreads)";

  // By default: graded as usual, every point kept, the warning shown.
  const GraderRun run =
      grade(manifest_arg() + " good --color never --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Warnings (they cost no points)\n  03-good: " + warning), std::string::npos)
      << run.out;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_NEAR(results["score"].get<double>(), 6.0, 1e-9);
  EXPECT_NE(results["output"].get<std::string>().find("Warnings (they cost no points):\n03-good: " + warning),
            std::string::npos)
      << results["output"];

  // "fail": the lab is refused like a forbidden name, with the finding as the reason.
  set_lab_rubric("03-good", R"({"title": "good", "timeout_s": 60, "barrier_in_divergent_code": "fail",
                  "groups": [{"name": "all", "tests": ["Good.*"], "points": 4}],
                  "speed": [{"name": "bandwidth", "test": "GoodSpeed.Fast", "yardstick": "device-to-device copy bandwidth",
                             "target": 0.75, "floor": 0.4, "points": 4}]})");
  const GraderRun refused =
      grade(manifest_arg() + " good --color never --json '" + (dir_ / "f.json").string() + "'");
  ASSERT_EQ(refused.exit_code, 0) << refused.out << refused.err;
  const json failed = json::parse(read_file(dir_ / "f.json"));
  EXPECT_DOUBLE_EQ(failed["score"].get<double>(), 0.0);
  EXPECT_EQ(
      (*find_item(failed, "03-good: all"))["output"].get<std::string>().rfind(
          "refused: labs/03-good/good.cu has a barrier that not every thread reaches, which this lab's "
          "rubric "
          "does not accept (\"barrier_in_divergent_code\": \"fail\"), so the lab scores 0 and its tests were "
          "not run. Move each barrier to where every thread reaches it and grade again:\n- " +
              warning,
          0),
      0u)
      << failed.dump(2);
  EXPECT_NE(refused.out.find("03-good  refused"), std::string::npos) << refused.out;
}

TEST_F(GraderEndToEnd, GradesOneLabChosenByName) {
  const GraderRun run = grade(manifest_arg() + " good --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_EQ(results["tests"].size(), 2u);
  EXPECT_NEAR(results["score"].get<double>(), 6.0, 1e-9);
}

TEST_F(GraderEndToEnd, ExitMidTestFailsItAndSpeedNeedsCorrectness) {
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=exit,Good.B=skip,GoodSpeed.Fast=speed:0.9", 1);
  const GraderRun run = grade(manifest_arg() + " 03 --json '" + (dir_ / "r.json").string() + "' --junit '" +
                              (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 0.0);
  const json* speed = find_item(results, "03-good: bandwidth");
  ASSERT_NE(speed, nullptr);
  EXPECT_NE((*speed)["output"].get<std::string>().find("not scored"), std::string::npos);
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(testcase(xml, "Good.A").find("exited with code 0 during this test"), std::string::npos) << xml;
  EXPECT_NE(testcase(xml, "Good.B").find("<skipped message="), std::string::npos) << xml;
  EXPECT_NE(run.out.find("not scored: fails correctness"), std::string::npos) << run.out;
}

// The failure analysis: a failing test that gives another answer on the same
// input is named a race, one that gives the same answer is not, and neither
// changes a status or a score. --no-sandbox: the fake lab counts its runs in a
// file beside the lab, which the sandbox's private /tmp would hide.
TEST_F(GraderEndToEnd, AFailingTestThatAnswersDifferentlyWhenRunAgainIsNamedARace) {
  const std::string flaky = (dir_ / "flaky.count").string();
  const std::string drift = (dir_ / "drift.count").string();
  const std::string spec = "Good.Flaky=flaky:" + flaky + ",Good.Drifts=drift:" + drift +
                           ",Good.Steady=wrong:tail,Good.Fourth=fail,GoodSpeed.Fast=speed:0.9";
  ::setenv("FAKE_LAB_TESTS_good_lab", spec.c_str(), 1);
  const GraderRun run =
      grade(manifest_arg() + " good --no-sandbox --seed 42 --show-seed --color never --json '" +
            (dir_ / "r.json").string() + "' --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  // Three of the four failures ran a second time; the speed test did not.
  EXPECT_EQ(read_file(flaky), "2\n");
  EXPECT_EQ(read_file(drift), "2\n");
  EXPECT_NE(run.out.find("03-good: ran 3 failing tests again on the same input to look for a race ("),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("s): 2 gave another answer, which points to a race (see their messages)"),
            std::string::npos)
      << run.out;

  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(xml.find("<testsuite name=\"03-good\" tests=\"5\" failures=\"4\""), std::string::npos) << xml;
  const std::string flaky_case = testcase(xml, "Good.Flaky");
  EXPECT_NE(flaky_case.find("<failure"), std::string::npos) << "its second run passed, yet it failed";
  EXPECT_NE(
      flaky_case.find("Two runs, two answers: run again on the same input (seed=42), this test passed."),
      std::string::npos)
      << flaky_case;
  EXPECT_NE(flaky_case.find("./workbook grade 03-good --sanitize=racecheck"), std::string::npos)
      << flaky_case;
  EXPECT_NE(testcase(xml, "Good.Drifts")
                .find("it failed with another answer (2 of 100 elements differed the first time, 3 of 100 "
                      "the second)"),
            std::string::npos)
      << testcase(xml, "Good.Drifts");
  for (const char* steady : {"Good.Steady", "Good.Fourth"})
    EXPECT_EQ(testcase(xml, steady).find("Two runs"), std::string::npos) << testcase(xml, steady);

  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 0.0);  // Still failing: no correctness, no speed.
  const json* group = find_item(results, "03-good: all");
  ASSERT_NE(group, nullptr);
  EXPECT_NE((*group)["output"].get<std::string>().find("Two runs, two answers"), std::string::npos);
  // The terminal shows the line below the failure's own first lines.
  EXPECT_NE(run.out.find("      Two runs, two answers: run again on the same input (seed=42), it failed"),
            std::string::npos)
      << run.out;

  // When every failure gives the same answer twice, no race is named.
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.Steady=wrong:tail,Good.Fourth=fail,GoodSpeed.Fast=speed:0.9", 1);
  const GraderRun same = grade(manifest_arg() + " good --no-sandbox --color never");
  ASSERT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("03-good: ran 2 failing tests again on the same input to look for a race ("),
            std::string::npos)
      << same.out;
  EXPECT_NE(same.out.find("s): each gave the same answer"), std::string::npos) << same.out;
  EXPECT_EQ(same.out.find("Two runs"), std::string::npos) << same.out;
}

// The smallest failing size of each family, and the handout's line for the
// shape of the error from the lab's explain.json (found through the
// manifest's source_dir).
TEST_F(GraderEndToEnd, AFailureNamesItsSmallestSizeAndTheHandoutsLine) {
  ::setenv("FAKE_LAB_TESTS_crash_lab",
           "Crash.A=pass,Sizes/Abc.Computes/n1=pass,Sizes/Abc.Computes/n30=pass,Sizes/Abc.Computes/n31=wrong:"
           "tail,Sizes/Abc.Computes/n1000=wrong:tail,Sizes/Abc.Shifts/n40=wrong:shifted,Sizes/Abc.Shifts/"
           "n400=wrong:shifted",
           1);
  fs::create_directories(dir_ / "labs/02-crash");
  write_file(dir_ / "labs/02-crash/explain.json",
             R"({"failures": {"tail": "see Hints by task, TODO(2): the bounds check of the last block.",
                              "race": "see Hints: the barrier."}, "speed": {}})");
  const GraderRun run = grade(manifest_arg() + " crash --seed 42 --show-seed --color never --json '" +
                              (dir_ / "r.json").string() + "' --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string computes =
      "Abc.Computes fails at n=31 (seed=42) and at n=1000; it passes at every smaller size tested (n=1, 30). "
      "Start with Sizes/Abc.Computes/n31: the smallest input that shows the mistake.";
  const std::string shifts =
      "Abc.Shifts fails at n=40 (seed=42) and at n=400; n=40 is the smallest size tested. The mistake shows "
      "on the smallest input tested: start with Sizes/Abc.Shifts/n40.";
  EXPECT_NE(run.out.find("Where the failures start (debug the smallest failing size first)\n  02-crash: " +
                         computes + "\n  02-crash: " + shifts + "\n"),
            std::string::npos)
      << run.out;
  const json results = json::parse(read_file(dir_ / "r.json"));
  const json* sizes = find_item(results, "02-crash: sizes");
  ASSERT_NE(sizes, nullptr) << results.dump(2);
  EXPECT_NE((*sizes)["output"].get<std::string>().find("- " + computes + "\n- " + shifts), std::string::npos)
      << (*sizes)["output"];

  const std::string handout =
      "In the handout (labs/02-crash/README.md): see Hints by task, TODO(2): the bounds check of the last "
      "block.";
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(
      testcase(xml, "Sizes/Abc.Computes/n31").find("Shape of the error: right except the last 3 elements"),
      std::string::npos)
      << testcase(xml, "Sizes/Abc.Computes/n31");
  EXPECT_NE(testcase(xml, "Sizes/Abc.Computes/n31").find(handout), std::string::npos)
      << testcase(xml, "Sizes/Abc.Computes/n31");
  // A shape the lab has no sentence for, and no race: no line.
  EXPECT_EQ(testcase(xml, "Sizes/Abc.Shifts/n40").find("In the handout"), std::string::npos)
      << testcase(xml, "Sizes/Abc.Shifts/n40");
  EXPECT_EQ(xml.find("see Hints: the barrier."), std::string::npos) << xml;
  EXPECT_NE(run.out.find("      " + handout), std::string::npos) << run.out;

  // A malformed file is a note, and grading goes on.
  write_file(dir_ / "labs/02-crash/explain.json", R"({"failures": {"off_by_one": "see Hints."}})");
  const GraderRun broken = grade(manifest_arg() + " crash --color never");
  ASSERT_EQ(broken.exit_code, 0) << broken.out << broken.err;
  EXPECT_NE(
      broken.out.find("explain.json: failures.off_by_one: not a shape of error; the shapes are shifted, "
                      "from_element, tail, unwritten, constant, race, guard (so no failure names its line "
                      "of the handout)"),
      std::string::npos)
      << broken.out;
  EXPECT_EQ(broken.out.find("In the handout"), std::string::npos) << broken.out;
}

// Sanitizer mode with a stand-in for compute-sanitizer: it runs the program
// with FAKE_SANITIZER_TOOL set, and the fake lab prints a finding in the
// test that asks for one under that tool. Like the real one (H100,
// 2026-11-23), it fails a listing of the tests, which makes no CUDA call.
TEST_F(GraderEndToEnd, SanitizeModeFailsTheTestWithAFindingAndSkipsSpeed) {
  const fs::path sanitizer = dir_ / "fake-compute-sanitizer";
  write_file(
      sanitizer,
      "#!/bin/sh\n# fake-compute-sanitizer --tool TOOL --print-limit N PROGRAM ARGS...\n"
      "tool=$2\nshift 4\necho '========= COMPUTE-SANITIZER'\n"
      "case \"$*\" in *--gtest_list_tests*) \"$@\"; echo '========= Error: Target application terminated "
      "before first instrumented API call'; exit 255;; esac\n"
      "FAKE_SANITIZER_TOOL=$tool exec \"$@\"\n");
  fs::permissions(sanitizer, fs::perms::owner_all);
  ::setenv("WORKBOOK_COMPUTE_SANITIZER", sanitizer.c_str(), 1);
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=pass,Good.B=finding:racecheck,GoodSpeed.Fast=speed:0.9", 1);

  GraderRun run =
      grade(manifest_arg() + " good --sanitize --color never --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 0.0) << run.out;
  EXPECT_NE(run.out.find("racecheck found an error in this test"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("abc.cu:17"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("racecheck: 1 finding(s) in 1 test(s), which fail"), std::string::npos) << run.out;
  // Sanitizer mode runs no failing test a second time.
  EXPECT_EQ(run.out.find("to look for a race"), std::string::npos) << run.out;
  for (const char* tool : {"memcheck", "racecheck", "synccheck", "initcheck"})
    EXPECT_NE(run.out.find(std::string(tool) + ": checked 2 tests"), std::string::npos) << tool << run.out;

  // Without racecheck the same file is clean; the speed test was not run.
  run = grade(manifest_arg() + " good --sanitize=memcheck,initcheck --color never --json '" +
              (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), 4.0) << run.out;
  EXPECT_EQ(run.out.find("racecheck"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("skipped: speed is not measured in sanitizer mode"), std::string::npos) << run.out;
  ::unsetenv("WORKBOOK_COMPUTE_SANITIZER");
}

// --sandbox: a test that reads a file beside the lab (another student's, the
// instructor's) cannot see it, and one that writes there writes into the
// sandbox's private /tmp, which vanishes; the results still come back. Without --sandbox the same tests
// succeed, so the test can fail.
TEST_F(GraderEndToEnd, SandboxHidesAndProtectsFilesOutsideTheRun) {
  // --jobs 1: one chain of test programs, whose restarts and logs this test follows.
  const std::string unavailable = workbook::grader::sandbox_unavailable_reason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  write_file(dir_ / "secret.txt", "the instructor's secret seed\n");
  const std::string spec = "Good.A=read:" + (dir_ / "secret.txt").string() +
                           ",Good.B=write:" + (dir_ / "planted.txt").string() + ",GoodSpeed.Fast=speed:0.9";
  ::setenv("FAKE_LAB_TESTS_good_lab", spec.c_str(), 1);

  GraderRun run = grade(manifest_arg() + " --jobs 1 good --no-sandbox --color never");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("| no sandbox"), std::string::npos) << run.out;
  EXPECT_NE(read_file(log_path("03-good", 1)).find("the instructor's secret seed"), std::string::npos);
  EXPECT_TRUE(fs::exists(dir_ / "planted.txt")) << "without the sandbox the test should have written it";
  fs::remove(dir_ / "planted.txt");
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename().string().rfind("workbook-grade-", 0) == 0) fs::remove_all(entry.path());
  }

  // The default, like --sandbox, where a sandbox can be made (it can here).
  for (const char* mode : {"--sandbox", ""}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_)) {
      if (entry.path().filename().string().rfind("workbook-grade-", 0) == 0) fs::remove_all(entry.path());
    }
    run = grade(manifest_arg() + " --jobs 1 good " + mode + " --color never");
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_EQ(read_file(log_path("03-good", 1)).find("the instructor's secret seed"), std::string::npos);
    EXPECT_EQ(run.out.find("the instructor's secret seed"), std::string::npos) << run.out;
    EXPECT_FALSE(fs::exists(dir_ / "planted.txt")) << "the sandbox let a test write beside the lab";
    EXPECT_NE(run.out.find("could not read " + (dir_ / "secret.txt").string()), std::string::npos) << run.out;
    // The write went to the sandbox's private /tmp, gone with it; the speed
    // test's result still came back through the one writable folder.
    EXPECT_NE(run.out.find("03-good  2/3"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("| sandboxed"), std::string::npos) << "the report's first line says so:\n"
                                                              << run.out;
  }
}

TEST_F(GraderEndToEnd, InTheSandboxARefusedAllocationNamesTheMemoryLimit) {
  const std::string unavailable = workbook::grader::sandbox_unavailable_reason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=throw:std::bad_alloc,Good.B=pass,GoodSpeed.Fast=speed:0.9", 1);
  const GraderRun run = grade(manifest_arg() + " good --sandbox --color never");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("(the sandbox lets a test program allocate at most 64 GiB of host memory"),
            std::string::npos)
      << run.out;
  const GraderRun outside = grade(manifest_arg() + " good --no-sandbox --color never");
  EXPECT_EQ(outside.out.find("the sandbox lets"), std::string::npos) << "no sandbox, no note:\n"
                                                                     << outside.out;
}

TEST_F(GraderEndToEnd, WithoutASandboxTheDefaultWarnsAndGrades) {
  ::setenv("WORKBOOK_SANDBOX_TOOL", "/nonexistent/bwrap", 1);
  const GraderRun run = grade(manifest_arg() + " good --color never");
  const GraderRun quiet = grade(manifest_arg() + " good --no-sandbox --color never");
  ::unsetenv("WORKBOOK_SANDBOX_TOOL");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("warning: no sandbox here, so the test programs run with your rights"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("03-good  3/3"), std::string::npos) << run.out;
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
  EXPECT_EQ(quiet.err.find("warning"), std::string::npos) << quiet.err;
}

TEST_F(GraderEndToEnd, SandboxRefusesToGradeWhenItCannotRun) {
  ::setenv("WORKBOOK_SANDBOX_TOOL", "/nonexistent/bwrap", 1);
  const GraderRun run = grade(manifest_arg() + " good --sandbox --color never");
  ::unsetenv("WORKBOOK_SANDBOX_TOOL");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("--sandbox: the sandbox needs bubblewrap (bwrap), which is not installed"),
            std::string::npos)
      << run.err;
}

TEST_F(GraderEndToEnd, GivesUpAfterTooManyCrashes) {
  // --jobs 1: one chain of test programs, whose restarts and logs this test follows.
  std::string spec;
  for (int i = 0; i < 25; ++i)
    spec += (spec.empty() ? "" : ",") + std::string("Crash.T") + std::to_string(i) + "=crash";
  ::setenv("FAKE_LAB_TESTS_crash_lab", spec.c_str(), 1);
  const GraderRun run = grade(manifest_arg() + " --jobs 1 02 --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string xml = read_file(dir_ / "j.xml");
  EXPECT_NE(testcase(xml, "Crash.T20").find("SIGSEGV"), std::string::npos) << testcase(xml, "Crash.T20");
  EXPECT_NE(testcase(xml, "Crash.T21").find("gave up"), std::string::npos) << testcase(xml, "Crash.T21");
  EXPECT_NE(xml.find("<testsuite name=\"02-crash\" tests=\"25\" failures=\"25\""), std::string::npos);
}

// ./workbook grade builds each lab on its own and names the one that did not
// build: it scores 0 with its first error, and the others are graded.
TEST_F(GraderEndToEnd, ALabThatDidNotBuildScoresZeroWithItsFirstErrorAndTheOthersAreGraded) {
  fs::remove(dir_ / "crash_lab");  // What is left of it is never run.
  const std::string error = "labs/02-crash/crash.cu(7): error: identifier \"retur\" is undefined";
  const GraderRun run = grade(manifest_arg() + " crash good --build-error '02-crash=" + error + "' --json '" +
                              (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("02-crash  not built"), std::string::npos) << run.out;
  EXPECT_NE(
      run.out.find("02-crash: it does not compile, so it scores 0; fix the first error and grade it again: " +
                   error),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.err.find("02-crash: does not compile (0 points)"), std::string::npos) << run.err;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_NEAR(results["score"].get<double>(), 6.0, 1e-9);  // 03-good's correctness points
  EXPECT_NE(results["output"].get<std::string>().find(error), std::string::npos) << results.dump(2);

  const GraderRun unknown = grade(manifest_arg() + " --build-error 'nope=x'");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("--build-error names lab 'nope'"), std::string::npos) << unknown.err;
}

TEST_F(GraderEndToEnd, UnknownLabIsOneLineAndExitCode1) {
  const GraderRun run = grade(manifest_arg() + " foo");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "unknown lab 'foo'; the labs are: 01-hang, 02-crash, 03-good\n");
  EXPECT_EQ(run.out, "");
}

TEST_F(GraderEndToEnd, CsvGradebookGetsAHeaderOnceAndARowPerStudent) {
  const std::string book = (dir_ / "out/gradebook.csv").string();
  ASSERT_EQ(grade(manifest_arg() + " good --csv '" + book + "' --student ada").exit_code, 0);
  ASSERT_EQ(grade(manifest_arg() + " good --csv '" + book + "' --student grace").exit_code, 0);
  EXPECT_EQ(read_file(book), "student,03-good,total,max\nada,6.00,6.00,8.00\ngrace,6.00,6.00,8.00\n");

  const GraderRun other = grade(manifest_arg() + " crash --csv '" + book + "' --student alan");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(count_lines(other.err), 1u) << other.err;
  EXPECT_NE(other.err.find("is a gradebook of other labs"), std::string::npos) << other.err;
}

TEST_F(GraderEndToEnd, CheckRubricAcceptsARubricThatNamesEveryTest) {
  const GraderRun run = grade(manifest_arg() + " --check-rubric");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("every item names existing tests and every test is named (3 labs, 14 tests)"),
            std::string::npos)
      << run.out;
}

TEST_F(GraderEndToEnd, CheckRubricNamesGroupsWithoutTestsAndTestsWithoutPoints) {
  write_file(dir_ / "typo.json", R"({"version": 1, "labs": {
      "01-hang": {"title": "hangs", "groups": [{"name": "all", "tests": ["Hang.*"], "points": 3}]},
      "02-crash": {"title": "crashes", "groups": [{"name": "basics", "tests": ["Crush.*"], "points": 6},
                                                  {"name": "sizes", "tests": ["Sizes/*"], "points": 2}]},
      "03-good": {"title": "good", "groups": [{"name": "all", "tests": ["Good.*"], "points": 4}],
                  "speed": [{"name": "bandwidth", "test": "GoodSpeed.Slow", "yardstick": "copy",
                             "target": 0.75, "floor": 0.4, "points": 4}]}}})");
  const GraderRun run =
      grade(manifest_arg() + " --check-rubric --rubric '" + (dir_ / "typo.json").string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("02-crash: group 'basics' matches no test"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("02-crash: test Crash.A is worth no points"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("03-good: speed item 'bandwidth' names GoodSpeed.Slow, which does not exist"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("03-good: test GoodSpeed.Fast is worth no points"), std::string::npos) << run.err;
}

TEST_F(GraderEndToEnd, MalformedRubricIsOneLineNamingTheFile) {
  write_file(
      dir_ / "bad.json",
      R"({"version": 1, "labs": {"01-hang": {"title": "x", "groups": [{"name": "g", "tests": ["*"], "points": -2}]}}})");
  const GraderRun run = grade(manifest_arg() + " --rubric '" + (dir_ / "bad.json").string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find((dir_ / "bad.json").string()), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("points"), std::string::npos) << run.err;

  write_file(dir_ / "rubric.json", "{ not json");
  const GraderRun broken = grade(manifest_arg());
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_EQ(count_lines(broken.err), 1u) << broken.err;
  EXPECT_NE(broken.err.find((dir_ / "rubric.json").string()), std::string::npos) << broken.err;
}

TEST_F(GraderEndToEnd, MissingBuildSaysHowToBuild) {
  const GraderRun run = grade("--manifest '" + (dir_ / "nope/workbook-labs.json").string() + "'");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("./workbook grade"), std::string::npos);

  fs::remove(dir_ / "crash_lab");
  const GraderRun missing_binary = grade(manifest_arg() + " 02");
  EXPECT_EQ(missing_binary.exit_code, 1);
  EXPECT_EQ(count_lines(missing_binary.err), 1u) << missing_binary.err;
  EXPECT_NE(missing_binary.err.find("crash_lab"), std::string::npos);
}

TEST_F(GraderEndToEnd, SolutionsNeedASolutionBuild) {
  const GraderRun run = grade(manifest_arg() + " --solutions crash");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("02-crash"), std::string::npos);

  const GraderRun good = grade(manifest_arg() + " --solutions 3");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("reference solutions"), std::string::npos);
}

TEST_F(GraderEndToEnd, BadOptionIsExitCode1) {
  const GraderRun run = grade(manifest_arg() + " --timeout-scale nope");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(count_lines(run.err), 1u) << run.err;
  const GraderRun help = grade("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: workbook-grader"), std::string::npos);
}

TEST_F(GraderEndToEnd, WithoutAGpuExitsWith2AndWritesNoScores) {
  std::string reason;
  if (workbook::cuda_device_available(&reason)) GTEST_SKIP() << "this machine has a GPU";
  const GraderRun run =
      grade(manifest_arg() + " --json '" + (dir_ / "r.json").string() + "'", /*assume_device=*/false);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("grading needs a CUDA-capable GPU and none was found"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("run ./workbook grade on a machine with an NVIDIA GPU"), std::string::npos)
      << run.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
}

// --explain with a stand-in for Nsight Compute: it writes the output ncu
// printed on the H200 for lab 07's reduce-then-scan (three kernels) to its
// --log-file and runs the program, whose profile mode writes the record.
class GraderExplain : public GraderEndToEnd {
 protected:
  void SetUp() override {
    GraderEndToEnd::SetUp();
    // The recorded output goes inside the script: in the sandbox the program
    // sees only its own files, the wrapper and the system's folders.
    const fs::path csv =
        fs::path(__FILE__).parent_path() / "data" / "ncu" / "h200_lab07_reduce_then_scan.csv";
    const fs::path ncu = dir_ / "fake-ncu";
    write_file(
        ncu,
        "#!/bin/sh\n# fake-ncu [options] --log-file PATH --metrics LIST PROGRAM ARGS...\n"
        "while [ $# -gt 0 ]; do case \"$1\" in\n"
        "  --log-file) log=$2; shift 2;;\n"
        "  --csv) shift;;\n"
        "  --*) shift 2;;\n"
        "  *) break;;\n"
        "esac; done\n"
        "if [ -n \"$FAKE_NCU_REFUSE\" ]; then echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have "
        "permission to access NVIDIA GPU Performance Counters' > \"$log\"; exit 1; fi\n"
        "cat > \"$log\" <<'RECORDED'\n" +
            read_file(csv) + "RECORDED\nexec \"$@\"\n");
    fs::permissions(ncu, fs::perms::owner_all);
    ::setenv("WORKBOOK_NCU", ncu.c_str(), 1);
    ::unsetenv("FAKE_NCU_REFUSE");
    fs::create_directories(dir_ / "labs" / "03-good");
    write_file(dir_ / "labs" / "03-good" / "explain.json",
               R"({"speed": {"GoodSpeed.Fast": {"bytes_factor": 1, "bytes_are": "8 bytes per element"}},
                   "see": {"bytes": "the good lab's Speed of light"}})");
  }

  double score_of(const std::string& options) {
    const GraderRun run = grade(manifest_arg() + " good --color never " + options + " --json '" +
                                (dir_ / "r.json").string() + "'");
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    return json::parse(read_file(dir_ / "r.json"))["score"].get<double>();
  }
};

TEST_F(GraderExplain, ASlowItemIsProfiledAndExplainedInEveryReportWithTheSameScore) {
  const double unexplained = score_of("--no-explain");
  const GraderRun run = grade(manifest_arg() + " good --color never --json '" + (dir_ / "r.json").string() +
                              "' --junit '" + (dir_ / "j.xml").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(
      run.out.find("Why it is as fast as it is (Nsight Compute, one untimed call; no points depend on it)\n"
                   "  03-good bandwidth\n  your call, the fake call: 3 kernels, DRAM moved 3.20 GB, 1.49x "
                   "the 2.15 GB it needs (8 bytes per element)"),
      std::string::npos)
      << run.out;
  EXPECT_NE(
      run.out.find("Likely cause: it moves 1.49x the bytes it needs (8 bytes per element): some data is "
                   "read or written more often than the task requires. See the good lab's Speed of light."),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("explain: profiled 1 of 1 speed item(s) under Nsight Compute"), std::string::npos)
      << run.out;
  const json results = json::parse(read_file(dir_ / "r.json"));
  EXPECT_DOUBLE_EQ(results["score"].get<double>(), unexplained);
  const json* speed = find_item(results, "03-good: bandwidth");
  ASSERT_NE(speed, nullptr);
  EXPECT_NE((*speed)["output"].get<std::string>().find("Why it is as fast as it is"), std::string::npos);
  EXPECT_NE((*speed)["output"].get<std::string>().find("kernel 3 of 3, scan_ranges"), std::string::npos);
  EXPECT_NE(
      testcase(read_file(dir_ / "j.xml"), "GoodSpeed.Fast").find("<system-out>  your call, the fake call"),
      std::string::npos);
}

TEST_F(GraderExplain, ByDefaultOnlyItemsBelowTargetAreProfiledAndExplainProfilesEvery) {
  ::setenv("FAKE_LAB_TESTS_good_lab", "Good.A=pass,Good.B=pass,GoodSpeed.Fast=speed:0.9", 1);
  GraderRun run = grade(manifest_arg() + " good --color never");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.find("explain:"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("Why it is as fast"), std::string::npos) << run.out;
  run = grade(manifest_arg() + " good --color never --explain");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Why it is as fast"), std::string::npos) << run.out;
}

TEST_F(GraderExplain, AMalformedExplainJsonIsANoteAndTheGradeIsWritten) {
  const double unexplained = score_of("--no-explain");
  write_file(dir_ / "labs" / "03-good" / "explain.json",
             R"({"speed": {"GoodSpeed.Fast": {"bytes_factor": -1, "bytes_are": "x"}}})");
  const GraderRun run =
      grade(manifest_arg() + " good --color never --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("03-good: explain: nothing explained: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("speed.GoodSpeed.Fast needs \"bytes_factor\""), std::string::npos) << run.out;
  EXPECT_DOUBLE_EQ(json::parse(read_file(dir_ / "r.json"))["score"].get<double>(), unexplained);
}

TEST_F(GraderExplain, NoExplainProfilesNothing) {
  const GraderRun run = grade(manifest_arg() + " good --color never --no-explain");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.find("explain"), std::string::npos) << run.out;
}

TEST_F(GraderExplain, CountersThatMayNotBeReadAreOneLineOnWhatToDoAndTheSameScore) {
  const double unexplained = score_of("--no-explain");
  ::setenv("FAKE_NCU_REFUSE", "1", 1);
  const GraderRun run =
      grade(manifest_arg() + " good --color never --json '" + (dir_ / "r.json").string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("03-good: explain: Nsight Compute may not read this GPU's performance counters "
                         "(ERR_NVGPUCTRPERM)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("Why it is as fast"), std::string::npos) << run.out;
  EXPECT_DOUBLE_EQ(json::parse(read_file(dir_ / "r.json"))["score"].get<double>(), unexplained);
  ::unsetenv("FAKE_NCU_REFUSE");
}

TEST_F(GraderEndToEnd, WithoutNcuASlowItemGetsANoteAndTheSameScore) {
  const GraderRun run = grade(manifest_arg() + " good --color never");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("03-good: explain: no Nsight Compute (ncu) here"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("set WORKBOOK_NCU to its path"), std::string::npos) << run.out;
}

}  // namespace
