#include "lab_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "process.hpp"

namespace workbook::grader {
namespace {

std::string with_output(const std::string& message, const std::string& tail) {
  if (tail.empty()) return message + "\n(it printed nothing)";
  return message + "\nlast lines of its output:\n" + tail;
}

std::string tests_count(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " test" : " tests");
}

TestResult failed(const std::string& name, const std::string& message) {
  TestResult result;
  result.name = name;
  result.status = TestStatus::failed;
  result.message = message;
  return result;
}

std::size_t count_ends(const std::vector<ResultEvent>& events) {
  return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [](const ResultEvent& event) {
    return event.kind == ResultEvent::Kind::end;
  }));
}

}  // namespace

std::string format_seconds(double seconds) {
  char text[32];
  if (std::fabs(seconds - std::round(seconds)) < 1e-9) {
    std::snprintf(text, sizeof text, "%.0f", seconds);
  } else {
    std::snprintf(text, sizeof text, "%.1f", seconds);
  }
  return text;
}

const char* to_string(TestStatus status) {
  switch (status) {
    case TestStatus::passed:
      return "passed";
    case TestStatus::skipped:
      return "skipped";
    case TestStatus::failed:
      break;
  }
  return "failed";
}

LabRun refused_run(const std::string& lab_id, const std::string& reason) {
  LabRun run;
  run.lab_id = lab_id;
  run.error = reason;
  run.refused = true;
  return run;
}

LabRun run_lab(const std::string& lab_id, const RunOptions& options) {
  LabRun run;
  run.lab_id = lab_id;
  run.log_dir = options.work_dir;
  const auto started = Clock::now();
  const auto deadline =
      started + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  const std::string budget = format_seconds(options.timeout_s);
  const auto finish = [&run, started] {
    run.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  };

  std::vector<std::pair<std::string, std::string>> env = {{"WORKBOOK_RUBRIC", options.rubric_path}};
  if (options.seed) env.emplace_back("WORKBOOK_SEED", std::to_string(*options.seed));

  // 1. What tests are there?
  ProcessSpec list;
  list.argv = {options.binary, "--gtest_list_tests"};
  list.env = env;
  list.env.emplace_back("WORKBOOK_RESULTS", "");  // Listing reports nothing.
  list.stdout_path = options.work_dir + "/list.out";
  list.stderr_path = options.work_dir + "/list.err";
  const auto list_deadline =
      std::min(deadline, Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(kListTimeoutS)));
  const ProcessOutcome listed = run_process(list, list_deadline, {});
  if (listed.end == ProcessOutcome::End::timed_out) {
    run.timed_out = true;
    run.error = "could not list the tests: the test program did not answer --gtest_list_tests within " +
                format_seconds(std::min(kListTimeoutS, options.timeout_s)) + " s";
    finish();
    return run;
  }
  if (listed.end != ProcessOutcome::End::exited || listed.exit_code != 0) {
    run.error = with_output("could not list the tests: the test program " + describe_outcome(listed),
                            tail_lines(list.stderr_path, kCrashTailLines));
    finish();
    return run;
  }
  const std::vector<std::string> names = parse_test_list(read_text_file(list.stdout_path));
  if (names.empty()) {
    run.error = "the test program lists no tests";
    finish();
    return run;
  }

  // 2. Run them, resuming after crashes.
  std::vector<std::string> order = names;
  std::set<std::string> known(names.begin(), names.end());
  std::map<std::string, TestResult> results;
  const auto remaining_tests = [&order, &results] {
    std::vector<std::string> left;
    for (const std::string& name : order) {
      if (results.count(name) == 0) left.push_back(name);
    }
    return left;
  };
  const auto add_unlisted = [&order, &known](const std::string& name) {
    if (known.insert(name).second) order.push_back(name);
  };

  for (int attempt = 0;; ++attempt) {
    const std::vector<std::string> remaining = remaining_tests();
    if (remaining.empty()) break;
    if (attempt > kMaxRestarts) {
      for (const std::string& name : remaining) {
        results[name] = failed(name, "not run: the test program crashed " + std::to_string(attempt) +
                                         " times, so the grader gave up on this lab");
      }
      run.notes.push_back("gave up after " + std::to_string(attempt) + " crashes; " +
                          tests_count(remaining.size()) + " not run");
      break;
    }
    const std::string tag = std::to_string(attempt + 1);
    ProcessSpec spec;
    spec.argv = {options.binary};
    // The first run takes the program's own order; resumes name exactly what is left.
    if (attempt > 0) spec.argv.push_back("--gtest_filter=" + make_gtest_filter(remaining, names));
    spec.argv.push_back("--gtest_color=no");
    spec.env = env;
    const std::string results_path = options.work_dir + "/results-" + tag + ".jsonl";
    spec.env.emplace_back("WORKBOOK_RESULTS", results_path);
    spec.stdout_path = options.work_dir + "/run-" + tag + ".log";
    spec.stderr_path = spec.stdout_path;
    std::FILE* fresh = std::fopen(results_path.c_str(), "w");  // WORKBOOK_RESULTS is appended to.
    if (fresh != nullptr) std::fclose(fresh);

    const std::size_t done_before = results.size();
    const std::size_t total = order.size();
    const auto tick = [&] {
      if (!options.progress) return;
      const std::size_t ended = count_ends(parse_result_lines(read_text_file(results_path)));
      options.progress(std::min(done_before + ended, total), total);
    };
    const ProcessOutcome outcome = run_process(spec, deadline, tick);
    ++run.processes;

    std::string current;  // Started and not ended: the test that was running.
    std::string abort_reason;
    bool progressed = false;
    for (const ResultEvent& event : parse_result_lines(read_text_file(results_path))) {
      switch (event.kind) {
        case ResultEvent::Kind::start:
          add_unlisted(event.test);
          current = event.test;
          progressed = true;
          break;
        case ResultEvent::Kind::end: {
          add_unlisted(event.test);
          TestResult result;
          result.name = event.test;
          result.status = event.status == "passed"    ? TestStatus::passed
                          : event.status == "skipped" ? TestStatus::skipped
                                                      : TestStatus::failed;
          result.message = event.message;
          result.time_ms = event.time_ms;
          result.speed = event.speed;
          results[event.test] = result;
          if (current == event.test) current.clear();
          progressed = true;
          break;
        }
        case ResultEvent::Kind::abort:
          abort_reason = event.reason.empty() ? "the test program stopped itself" : event.reason;
          break;
      }
    }
    if (options.progress) options.progress(results.size(), order.size());

    if (outcome.end == ProcessOutcome::End::timed_out) {
      run.timed_out = true;
      if (!current.empty()) {
        results[current] = failed(current, "timed out: the lab was stopped after " + budget +
                                               " s (a hung kernel or an endless loop?)");
      }
      std::size_t not_run = 0;
      for (const std::string& name : remaining_tests()) {
        results[name] = failed(name, "not run: the lab ran out of time");
        ++not_run;
      }
      run.notes.push_back("stopped after " + budget + " s" + (current.empty() ? "" : " in " + current) +
                          (not_run > 0 ? "; " + tests_count(not_run) + " not run" : ""));
      break;
    }
    if (outcome.end == ProcessOutcome::End::failed_to_start) {
      for (const std::string& name : remaining_tests()) {
        results[name] = failed(name, "not run: " + outcome.error);
      }
      if (attempt == 0) run.error = outcome.error;
      break;
    }

    const std::string how = describe_outcome(outcome);
    const bool clean_exit = outcome.end == ProcessOutcome::End::exited &&
                            (outcome.exit_code == 0 || outcome.exit_code == 1);  // 1: some test failed.
    const std::string tail =
        clean_exit && current.empty() ? std::string() : tail_lines(spec.stdout_path, kCrashTailLines);
    const std::size_t left_after = remaining_tests().size() - (current.empty() ? 0 : 1);
    const std::string resume_note =
        left_after > 0 ? "; the " + tests_count(left_after) + " after it ran in a fresh process" : "";
    if (!current.empty()) {
      results[current] =
          failed(current, with_output("crashed: the test program " + how + " during this test", tail));
      run.notes.push_back(current + ": the test program " + how + resume_note);
    } else if (!abort_reason.empty()) {
      run.notes.push_back(abort_reason + resume_note);
    } else if (!clean_exit) {
      run.notes.push_back("the test program " + how + " between tests" + resume_note);
    }
    if (!progressed) {
      // Nothing ran at all: restarting would loop forever.
      for (const std::string& name : remaining_tests()) {
        // A program that ran cleanly but wrote no records does not speak the protocol.
        const std::string why = clean_exit
                                    ? "not run: the test program " + how + " without reporting this test " +
                                          "(it wrote no WORKBOOK_RESULTS records)"
                                    : "not run: the test program " + how + " before running it";
        results[name] = failed(name, with_output(why, tail_lines(spec.stdout_path, kCrashTailLines)));
      }
      break;
    }
  }

  for (const std::string& name : order) {
    const auto it = results.find(name);
    run.tests.push_back(it != results.end() ? it->second : failed(name, "no result was reported"));
  }
  finish();
  return run;
}

}  // namespace workbook::grader
