#include "lab_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "glob.hpp"
#include "process.hpp"
#include "sandbox.hpp"

namespace workbook::grader {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

Clock::duration to_duration(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

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

TestResult from_end_record(const ResultEvent& event) {
  TestResult result;
  result.name = event.test;
  result.status = event.status == "passed"    ? TestStatus::passed
                  : event.status == "skipped" ? TestStatus::skipped
                                              : TestStatus::failed;
  result.message = event.message;
  result.time_ms = event.time_ms;
  result.speed = event.speed;
  return result;
}

/// What the grader knows of a lab's tests while it runs them.
struct LabTests {
  std::vector<std::string> all_listed;  // As --gtest_list_tests gave them.
  std::vector<std::string> listed;      // Those of them to run (RunOptions::select).
  std::vector<std::string> order;       // Listed, then any unlisted ones that reported.
  std::set<std::string> known;          // Everything in order.
  std::map<std::string, TestResult> results;
  std::set<std::string> hung_before;  // Blamed once for a hang before they started.

  std::vector<std::string> remaining() const {
    std::vector<std::string> left;
    for (const std::string& name : order) {
      if (results.count(name) == 0) left.push_back(name);
    }
    return left;
  }

  void add_unlisted(const std::string& name) {
    if (known.insert(name).second) order.push_back(name);
  }

  /// Fails every test without a result; returns how many.
  std::size_t fail_remaining(const std::string& message) {
    const std::vector<std::string> left = remaining();
    for (const std::string& name : left) results[name] = failed(name, message);
    return left.size();
  }
};

/// Follows a results file while the test program writes it, so that the
/// grader knows which test is running and since when. The clock restarts at
/// every record: a test has its own limit from its "start" record, and the
/// wait for the next test (start-up, a suite's set-up) has the next test's.
class TestClock {
 public:
  TestClock(std::string results_path, std::vector<std::string> to_run, const TimeLimits& limits,
            Clock::time_point lab_deadline)
      : path_(std::move(results_path)),
        to_run_(std::move(to_run)),
        limits_(limits),
        lab_deadline_(lab_deadline),
        since_(Clock::now()) {}

  /// Reads new records; true when the running test, or the wait for the next
  /// one, is over its limit before the lab's budget ends (then the budget rules).
  bool overran() {
    read_new_records();
    const double limit = limit_now();
    const auto test_deadline = since_ + to_duration(limit);
    if (test_deadline >= lab_deadline_ || Clock::now() < test_deadline) return false;
    fired_limit_s_ = limit;
    return true;
  }

  /// How many tests have ended in this process so far.
  std::size_t ended() const { return ended_; }

  /// The limit that overran (valid after overran() returned true).
  double fired_limit_s() const { return fired_limit_s_; }

 private:
  void read_new_records() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) return;
    in.seekg(static_cast<std::streamoff>(offset_));
    std::ostringstream fresh;
    fresh << in.rdbuf();
    const std::string text = fresh.str();
    offset_ += text.size();
    partial_ += text;
    const std::size_t complete = partial_.rfind('\n');
    if (complete == std::string::npos) return;
    for (const ResultEvent& event : parse_result_lines(partial_.substr(0, complete + 1))) take(event);
    partial_.erase(0, complete + 1);
  }

  void take(const ResultEvent& event) {
    if (event.kind == ResultEvent::Kind::abort) return;
    seen_.insert(event.test);
    since_ = Clock::now();
    if (event.kind == ResultEvent::Kind::start) {
      running_ = event.test;
    } else {
      ++ended_;
      if (running_ == event.test) running_.clear();
    }
  }

  double limit_now() {
    if (!running_.empty()) return limits_.for_test(running_);
    while (next_ < to_run_.size() && seen_.count(to_run_[next_]) != 0) ++next_;
    return next_ < to_run_.size() ? limits_.for_test(to_run_[next_]) : limits_.test_s;
  }

  std::string path_;
  std::vector<std::string> to_run_;  // What this process should run, in order.
  const TimeLimits& limits_;
  Clock::time_point lab_deadline_;
  Clock::time_point since_;  // The last record (or the start).
  std::size_t offset_ = 0;   // Bytes of the file read so far.
  std::string partial_;      // A line not yet complete.
  std::string running_;      // Started, not ended.
  std::set<std::string> seen_;
  std::size_t next_ = 0;
  std::size_t ended_ = 0;
  double fired_limit_s_ = 0;
};

/// One run of the test program.
struct Attempt {
  ProcessOutcome outcome;
  std::string log_path;
  bool test_overran = false;  // Stopped by a test's limit, not the lab's budget.
  double limit_s = 0;         // The limit that overran.
  std::string current;        // Started and not ended: the test that was running.
  std::string abort_reason;   // From an "abort" record.
  bool progressed = false;    // It wrote some start or end record.
};

/// The command for the lab's test program with @p args: under the wrapper (a
/// sanitizer) when there is one and @p wrapped, and in the sandbox when asked,
/// which then sees the program, the rubric and the wrapper read-only and
/// writes only the lab's work folder.
void set_command(const RunOptions& options, const std::vector<std::string>& args, ProcessSpec& spec,
                 bool wrapped = true) {
  spec.argv.clear();
  if (options.sandbox) {
    SandboxPaths paths;
    paths.read_only = {options.binary};
    if (!options.rubric_path.empty()) paths.read_only.push_back(options.rubric_path);
    if (!options.wrapper.empty() && options.wrapper.front().rfind('/', 0) == 0)
      paths.read_only.push_back(options.wrapper.front());
    paths.writable = {options.work_dir};
    spec.argv = sandbox_command(paths);
    spec.limits = sandbox_limits();
    spec.signal_in_exit_code = true;
  }
  if (wrapped) spec.argv.insert(spec.argv.end(), options.wrapper.begin(), options.wrapper.end());
  spec.argv.push_back(options.binary);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
}

/// Stage 1: what tests are there? Empty, with run->error set, when the
/// program cannot say.
std::vector<std::string> list_tests(const RunOptions& options, const Env& env, Clock::time_point deadline,
                                    LabRun* run) {
  ProcessSpec list;
  // Not under the sanitizer: listing makes no CUDA call, and compute-sanitizer
  // fails a program that ends before its first one (exit code 255, "Target
  // application terminated before first instrumented API call").
  set_command(options, {"--gtest_list_tests"}, list, /*wrapped=*/false);
  list.env = env;
  list.env.emplace_back("WORKBOOK_RESULTS", "");  // Listing reports nothing.
  list.stdout_path = options.work_dir + "/list.out";
  list.stderr_path = options.work_dir + "/list.err";
  const auto list_deadline = std::min(deadline, Clock::now() + to_duration(kListTimeoutS));
  const ProcessOutcome listed = run_process(list, list_deadline, {});
  if (listed.end == ProcessOutcome::End::timed_out) {
    run->timed_out = true;
    run->error = "could not list the tests: the test program did not answer --gtest_list_tests within " +
                 format_seconds(std::min(kListTimeoutS, options.limits.lab_s)) + " s";
    return {};
  }
  if (listed.end != ProcessOutcome::End::exited || listed.exit_code != 0) {
    run->error = with_output("could not list the tests: the test program " + describe_outcome(listed),
                             tail_lines(list.stderr_path, kCrashTailLines));
    return {};
  }
  std::vector<std::string> names = parse_test_list(read_text_file(list.stdout_path));
  if (names.empty()) run->error = "the test program lists no tests";
  return names;
}

/// The listed tests that @p options selects; the others are reported skipped
/// when the options give a message for them.
std::vector<std::string> chosen_tests(const std::vector<std::string>& listed, const RunOptions& options,
                                      LabRun& run) {
  if (!options.select) return listed;
  std::vector<std::string> chosen;
  for (const std::string& name : listed) {
    if (options.select(name)) {
      chosen.push_back(name);
    } else if (!options.unselected_message.empty()) {
      TestResult skipped;
      skipped.name = name;
      skipped.status = TestStatus::skipped;
      skipped.message = options.unselected_message;
      run.tests.push_back(skipped);
    }
  }
  return chosen;
}

/// Applies one process's records to @p tests.
void apply_records(const std::vector<ResultEvent>& events, LabTests& tests, Attempt& attempt) {
  for (const ResultEvent& event : events) {
    switch (event.kind) {
      case ResultEvent::Kind::start:
        tests.add_unlisted(event.test);
        attempt.current = event.test;
        attempt.progressed = true;
        break;
      case ResultEvent::Kind::end:
        tests.add_unlisted(event.test);
        tests.results[event.test] = from_end_record(event);
        if (attempt.current == event.test) attempt.current.clear();
        attempt.progressed = true;
        break;
      case ResultEvent::Kind::abort:
        attempt.abort_reason = event.reason.empty() ? "the test program stopped itself" : event.reason;
        break;
    }
  }
}

/// Stage 2, once: runs the program on the tests not yet run, watching each
/// test's time, and applies its records.
Attempt run_attempt(const RunOptions& options, const Env& env, int attempt_index, Clock::time_point deadline,
                    LabTests& tests) {
  const std::vector<std::string> remaining = tests.remaining();
  const std::string tag = std::to_string(attempt_index + 1);
  ProcessSpec spec;
  std::vector<std::string> args;
  // The first run takes the program's own order; resumes, and runs of chosen
  // tests, name exactly what is left.
  if (attempt_index > 0 || options.select)
    args.push_back("--gtest_filter=" + make_gtest_filter(remaining, tests.all_listed));
  args.push_back("--gtest_color=no");
  set_command(options, args, spec);
  spec.env = env;
  const std::string results_path = options.work_dir + "/results-" + tag + ".jsonl";
  spec.env.emplace_back("WORKBOOK_RESULTS", results_path);
  spec.stdout_path = options.work_dir + "/run-" + tag + ".log";
  spec.stderr_path = spec.stdout_path;
  std::FILE* fresh = std::fopen(results_path.c_str(), "w");  // WORKBOOK_RESULTS is appended to.
  if (fresh != nullptr) std::fclose(fresh);

  const std::size_t done_before = tests.results.size();
  const std::size_t total = tests.order.size();
  TestClock clock(results_path, remaining, options.limits, deadline);
  std::size_t shown = 0;
  Attempt attempt;
  attempt.log_path = spec.stdout_path;
  attempt.outcome = run_process(spec, deadline, [&] {
    attempt.test_overran = clock.overran();
    if (options.progress && clock.ended() != shown) {
      shown = clock.ended();
      options.progress(std::min(done_before + shown, total), total);
    }
    return attempt.test_overran;
  });
  attempt.test_overran = attempt.test_overran && attempt.outcome.end == ProcessOutcome::End::timed_out;
  attempt.limit_s = clock.fired_limit_s();
  apply_records(parse_result_lines(read_text_file(results_path)), tests, attempt);
  if (options.progress) options.progress(tests.results.size(), tests.order.size());
  return attempt;
}

std::string resume_note(std::size_t left_after) {
  return left_after > 0 ? "; the " + tests_count(left_after) + " after it ran in a fresh process" : "";
}

/// The lab's budget is spent: the running test timed out, the rest never run.
void on_budget_spent(const Attempt& attempt, const TimeLimits& limits, LabTests& tests, LabRun* run) {
  const std::string budget = format_seconds(limits.lab_s);
  run->timed_out = true;
  if (!attempt.current.empty()) {
    tests.results[attempt.current] =
        failed(attempt.current,
               "timed out: the lab was stopped after " + budget + " s (a hung kernel or an endless loop?)");
  }
  const std::size_t not_run = tests.fail_remaining("not run: the lab ran out of time");
  run->notes.push_back("stopped after " + budget + " s" +
                       (attempt.current.empty() ? "" : " in " + attempt.current) +
                       (not_run > 0 ? "; " + tests_count(not_run) + " not run" : ""));
}

/// A test overran its limit: it times out and the rest resume. A hang while no
/// test ran (start-up, a suite's set-up) is blamed on the next test, which is
/// retried once: when it hangs again, it times out too.
void on_test_overran(const Attempt& attempt, LabTests& tests, LabRun* run) {
  const std::string limit = format_seconds(attempt.limit_s) + " s";
  if (!attempt.current.empty()) {
    tests.results[attempt.current] =
        failed(attempt.current,
               "timed out: the test was stopped after " + limit + " (a hung kernel or an endless loop?)");
    run->notes.push_back(attempt.current + ": timed out after " + limit +
                         resume_note(tests.remaining().size()));
    return;
  }
  const std::vector<std::string> remaining = tests.remaining();
  if (remaining.empty()) {
    run->notes.push_back("the test program did not exit within " + limit +
                         " of its last test, so it was stopped");
    return;
  }
  const std::string& next = remaining.front();
  if (tests.hung_before.insert(next).second) {
    run->notes.push_back("the test program hung for " + limit + " before " + next +
                         " started; the tests from it on ran in a fresh process");
    return;
  }
  tests.results[next] =
      failed(next, "timed out: the test program hung twice before this test started (" + limit +
                       " each time: in a suite's set-up, or in the clean-up of the test before it?)");
  run->notes.push_back("the test program hung twice before " + next + " started, so it was not retried" +
                       resume_note(remaining.size() - 1));
}

/// The program ended by itself (passed, failed, crashed, aborted). Returns
/// false when resuming would loop forever (it ran nothing at all).
bool on_program_end(const Attempt& attempt, LabTests& tests, LabRun* run) {
  const ProcessOutcome& outcome = attempt.outcome;
  std::string how = describe_outcome(outcome);
  if (outcome.end == ProcessOutcome::End::signaled && !describe_limit_signal(outcome.signal).empty())
    how += ": it went over " + describe_limit_signal(outcome.signal);
  const bool clean_exit = outcome.end == ProcessOutcome::End::exited &&
                          (outcome.exit_code == 0 || outcome.exit_code == 1);  // 1: some test failed.
  const std::string tail =
      clean_exit && attempt.current.empty() ? std::string() : tail_lines(attempt.log_path, kCrashTailLines);
  const std::size_t left_after = tests.remaining().size() - (attempt.current.empty() ? 0 : 1);
  if (!attempt.current.empty()) {
    tests.results[attempt.current] =
        failed(attempt.current, with_output("crashed: the test program " + how + " during this test", tail));
    run->notes.push_back(attempt.current + ": the test program " + how + resume_note(left_after));
  } else if (!attempt.abort_reason.empty()) {
    run->notes.push_back(attempt.abort_reason + resume_note(left_after));
  } else if (!clean_exit) {
    run->notes.push_back("the test program " + how + " between tests" + resume_note(left_after));
  }
  if (attempt.progressed) return true;
  // Nothing ran at all: restarting would loop forever.
  for (const std::string& name : tests.remaining()) {
    // A program that ran cleanly but wrote no records does not speak the protocol.
    const std::string why = clean_exit
                                ? "not run: the test program " + how + " without reporting this test " +
                                      "(it wrote no WORKBOOK_RESULTS records)"
                                : "not run: the test program " + how + " before running it";
    tests.results[name] = failed(name, with_output(why, tail_lines(attempt.log_path, kCrashTailLines)));
  }
  return false;
}

/// Says in the notes when a run's log kept only the ends of its output.
void note_dropped_output(const Attempt& attempt, LabRun* run) {
  if (attempt.outcome.dropped_bytes == 0) return;
  const std::string log = attempt.log_path.substr(attempt.log_path.find_last_of('/') + 1);
  run->notes.push_back(log + ": the test program wrote " + describe_bytes(attempt.outcome.output_bytes) +
                       " of output; the log keeps the first and the last " +
                       describe_bytes(kKeptOutputBytes));
}

/// Stage 2: runs the tests, resuming in a fresh process after crashes and
/// overruns, until every test has a result or the budget is spent.
void run_tests(const RunOptions& options, const Env& env, Clock::time_point deadline, LabTests& tests,
               LabRun* run) {
  for (int attempt_index = 0;; ++attempt_index) {
    const std::size_t left = tests.remaining().size();
    if (left == 0) return;
    if (attempt_index > kMaxRestarts) {
      const std::string times = std::to_string(attempt_index);
      tests.fail_remaining("not run: the test program crashed or hung " + times +
                           " times, so the grader gave up on this lab");
      run->notes.push_back("gave up after " + times + " crashes or hangs; " + tests_count(left) + " not run");
      return;
    }
    const Attempt attempt = run_attempt(options, env, attempt_index, deadline, tests);
    ++run->processes;
    run->logs.push_back(attempt.log_path);
    note_dropped_output(attempt, run);
    switch (attempt.outcome.end) {
      case ProcessOutcome::End::timed_out:
        if (!attempt.test_overran) {
          on_budget_spent(attempt, options.limits, tests, run);
          return;
        }
        on_test_overran(attempt, tests, run);
        break;
      case ProcessOutcome::End::failed_to_start:
        tests.fail_remaining("not run: " + attempt.outcome.error);
        if (attempt_index == 0) run->error = attempt.outcome.error;
        return;
      case ProcessOutcome::End::exited:
      case ProcessOutcome::End::signaled:
        if (!on_program_end(attempt, tests, run)) return;
        break;
    }
  }
}

/// Stage 3, in the sandbox: a failure that a sandbox limit caused (memory, or
/// processes) says so, since the student's code only sees a refusal.
void explain_sandbox_limits(LabRun& run) {
  for (TestResult& test : run.tests) {
    if (test.status != TestStatus::failed) continue;
    const std::string note = explain_sandbox_failure(test.message);
    if (!note.empty()) test.message += "\n(" + note + ")";
  }
}

/// One share of a lab's tests, run by its own chain of processes in its own
/// folder (share-1, share-2, ...; "alone" for the tests that need the GPU to
/// themselves).
struct Share {
  RunOptions options;
  LabTests tests;
  LabRun run;
};

Share make_share(const RunOptions& options, const LabTests& lab, std::vector<std::string> names,
                 const std::string& folder) {
  Share share;
  share.options = options;
  share.options.work_dir = options.work_dir + "/" + folder;
  std::error_code ignored;
  std::filesystem::create_directories(share.options.work_dir, ignored);
  const std::set<std::string> mine(names.begin(), names.end());
  // A select() makes every run of the share name its tests in a --gtest_filter.
  share.options.select = [mine](const std::string& test) { return mine.count(test) != 0; };
  share.tests.all_listed = lab.all_listed;
  share.tests.listed = names;
  share.tests.order = names;
  share.tests.known = mine;
  return share;
}

/// Adds a share's results, notes (each once) and logs to the lab's.
void merge_share(Share& share, LabTests& tests, LabRun* run) {
  for (auto& [name, result] : share.tests.results) {
    tests.add_unlisted(name);
    tests.results[name] = std::move(result);
  }
  for (const std::string& note : share.run.notes) {
    if (std::find(run->notes.begin(), run->notes.end(), note) == run->notes.end()) run->notes.push_back(note);
  }
  run->logs.insert(run->logs.end(), share.run.logs.begin(), share.run.logs.end());
  run->processes += share.run.processes;
  run->timed_out = run->timed_out || share.run.timed_out;
  if (run->error.empty()) run->error = share.run.error;
}

/// Stage 2 with RunOptions::shards > 1: the tests that may share the GPU are
/// dealt by weight (deal_into_shares()) into that many shares, which run at once (each resumes
/// after its own crashes and hangs); then the tests that run alone (speed
/// tests: their timings must not share the GPU) run by themselves. The lab's
/// budget covers all of it.
void run_in_shares(const RunOptions& options, const Env& env, Clock::time_point deadline, LabTests& tests,
                   LabRun* run) {
  std::vector<std::string> sharing, alone;
  for (const std::string& name : tests.listed)
    (options.runs_alone && options.runs_alone(name) ? alone : sharing).push_back(name);
  const std::vector<std::vector<std::string>> dealt = deal_into_shares(sharing, options.shards);
  std::vector<Share> shares;
  for (std::size_t k = 0; k < dealt.size(); ++k) {
    if (!dealt[k].empty())
      shares.push_back(make_share(options, tests, dealt[k], "share-" + std::to_string(k + 1)));
  }
  if (!alone.empty()) shares.push_back(make_share(options, tests, alone, "alone"));

  // Progress is the sum over the shares, reported under one lock.
  std::mutex progress_lock;
  std::vector<std::size_t> finished(shares.size(), 0);
  for (std::size_t k = 0; k < shares.size(); ++k) {
    shares[k].options.progress = [&, k](std::size_t done, std::size_t) {
      if (!options.progress) return;
      const std::lock_guard<std::mutex> hold(progress_lock);
      finished[k] = done;
      std::size_t sum = 0;
      for (std::size_t count : finished) sum += count;
      options.progress(sum, tests.listed.size());
    };
  }
  const auto run_share = [&](Share& share) {
    try {
      run_tests(share.options, env, deadline, share.tests, &share.run);
    } catch (const std::exception& error) {  // The lab's fault never throws; the machine's might.
      share.run.error = std::string("the grader could not run these tests: ") + error.what();
    }
  };
  const std::size_t together = alone.empty() ? shares.size() : shares.size() - 1;
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < together; ++k) threads.emplace_back(run_share, std::ref(shares[k]));
  for (std::thread& thread : threads) thread.join();
  if (!alone.empty()) run_share(shares.back());
  for (Share& share : shares) merge_share(share, tests, run);
}

}  // namespace

double TimeLimits::for_test(const std::string& test) const {
  double limit = 0;
  for (const Item& item : items) {
    if (matches_any(item.tests, test)) limit = std::max(limit, item.seconds);
  }
  return limit > 0 ? limit : test_s;
}

TimeLimits make_time_limits(const LabRubric& lab, double scale) {
  TimeLimits limits;
  limits.lab_s = lab.timeout_s * scale;
  limits.test_s = kDefaultTestTimeoutS * scale;
  for (const RubricGroup& group : lab.groups) {
    if (group.test_timeout_s) limits.items.push_back({group.tests, *group.test_timeout_s * scale});
  }
  for (const RubricSpeed& speed : lab.speed) {
    if (speed.test_timeout_s) limits.items.push_back({{speed.test}, *speed.test_timeout_s * scale});
  }
  return limits;
}

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

LabRun not_built_run(const std::string& lab_id, const std::string& first_error) {
  LabRun run;
  run.lab_id = lab_id;
  run.error = "it does not compile, so it scores 0; fix the first error and grade it again: " + first_error;
  run.not_built = true;
  return run;
}

LabRun run_lab(const std::string& lab_id, const RunOptions& options) {
  LabRun run;
  run.lab_id = lab_id;
  run.log_dir = options.work_dir;
  const auto started = Clock::now();
  const auto deadline = started + to_duration(options.limits.lab_s);

  Env env = {{"WORKBOOK_RUBRIC", options.rubric_path}};
  if (options.seed) env.emplace_back("WORKBOOK_SEED", std::to_string(*options.seed));
  env.insert(env.end(), options.env.begin(), options.env.end());

  LabTests tests;
  tests.all_listed = list_tests(options, env, deadline, &run);
  tests.listed = chosen_tests(tests.all_listed, options, run);
  if (!tests.listed.empty()) {
    tests.order = tests.listed;
    tests.known.insert(tests.listed.begin(), tests.listed.end());
    if (options.shards > 1) {
      run_in_shares(options, env, deadline, tests, &run);
    } else {
      run_tests(options, env, deadline, tests, &run);
    }
  }
  for (const std::string& name : tests.order) {
    const auto it = tests.results.find(name);
    run.tests.push_back(it != tests.results.end() ? it->second : failed(name, "no result was reported"));
  }
  if (options.sandbox) explain_sandbox_limits(run);
  run.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return run;
}

std::optional<SizeInName> size_in_name(const std::string& test) {
  static const std::regex size(R"(/n(\d{1,19})(_\w*)?$)");
  std::smatch match;
  if (!std::regex_search(test, match, size)) return std::nullopt;
  SizeInName found;
  try {
    found.size = std::stoull(match[1].str());
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
  found.prefix = test.substr(0, static_cast<std::size_t>(match.position(0)));
  found.suffix = match[2].str();
  return found;
}

double test_weight(const std::string& test) {
  // The last parameter of a parameterised test: "/n<digits>" or "/<rows>x<cols>".
  static const std::regex shape(R"(/(\d+)x(\d+)$)");
  std::smatch match;
  double elements = 0;
  if (const std::optional<SizeInName> sized = size_in_name(test)) {
    elements = static_cast<double>(sized->size);
  } else if (std::regex_search(test, match, shape)) {
    elements = std::stod(match[1].str()) * std::stod(match[2].str());
  }
  return std::max(1.0, elements / 65536.0);
}

std::vector<std::vector<std::string>> deal_into_shares(const std::vector<std::string>& tests, int shares) {
  const std::size_t count = static_cast<std::size_t>(std::max(shares, 1));
  std::vector<std::size_t> heaviest_first(tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i) heaviest_first[i] = i;
  std::vector<double> weights(tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i) weights[i] = test_weight(tests[i]);
  std::stable_sort(heaviest_first.begin(), heaviest_first.end(),
                   [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  std::vector<double> load(count, 0.0);
  std::vector<std::vector<std::size_t>> picked(count);
  for (const std::size_t i : heaviest_first) {
    const std::size_t lightest =
        static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[lightest] += weights[i];
    picked[lightest].push_back(i);
  }
  std::vector<std::vector<std::string>> dealt(count);
  for (std::size_t k = 0; k < count; ++k) {
    std::sort(picked[k].begin(), picked[k].end());  // listing order within a share
    for (const std::size_t i : picked[k]) dealt[k].push_back(tests[i]);
  }
  return dealt;
}

}  // namespace workbook::grader
