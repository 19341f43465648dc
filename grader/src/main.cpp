// workbook-grader: runs the labs' test programs in isolation and scores them.
// See grader/README.md.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "barrier_checks.hpp"
#include "call_checks.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "explain.hpp"
#include "failure_analysis.hpp"
#include "glob.hpp"
#include "gtest_protocol.hpp"
#include "lab_runner.hpp"
#include "manifest.hpp"
#include "process.hpp"
#include "report.hpp"
#include "rubric.hpp"
#include "sandbox.hpp"
#include "sanitizer.hpp"
#include "scoring.hpp"
#include "source_checks.hpp"
#include "workbook/device.hpp"

namespace workbook::grader {
namespace {

constexpr int kExitNoGpu = 2;
const char* const kAssumeDeviceEnv = "WORKBOOK_GRADER_ASSUME_DEVICE";
const char* const kNoGpuAdvice =
    "The build finished; run ./workbook grade on a machine with an NVIDIA GPU\n"
    "(README.md, \"No GPU?\": Colab, a rented cloud GPU, a cluster).";

void on_terminate_signal(int signal) {
  // A hung lab must not outlive the grader: it would keep the GPU busy.
  kill_running_child();
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

bool use_color(ColorMode mode) {
  if (mode == ColorMode::always) return true;
  if (mode == ColorMode::never) return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0') &&
         !(term != nullptr && std::strcmp(term, "dumb") == 0);
}

std::string absolute(const std::string& path) {
  std::error_code error;
  const std::filesystem::path full = std::filesystem::absolute(path, error);
  return error ? path : full.lexically_normal().string();
}

/// Describes the GPU, or exits with code 2 when there is none.
std::string describe_gpu() {
  const char* assume = std::getenv(kAssumeDeviceEnv);
  if (assume != nullptr && std::strcmp(assume, "1") == 0) {
    return std::string("none checked (") + kAssumeDeviceEnv + "=1, for testing the grader only)";
  }
  std::string reason;
  if (!workbook::cuda_device_available(&reason)) {
    throw GraderError("grading needs a CUDA-capable GPU and none was found:\n" +
                          (reason.empty() ? "no CUDA device" : reason) + ".\n" + kNoGpuAdvice,
                      kExitNoGpu);
  }
  try {
    const workbook::DeviceInfo info = workbook::current_device_info();
    return info.name + ", compute capability " + std::to_string(info.compute_major) + "." +
           std::to_string(info.compute_minor) + ", " + std::to_string(info.sm_count) + " SMs";
  } catch (const std::exception& e) {
    throw GraderError(std::string("grading needs a CUDA-capable GPU and the device could not be queried (") +
                          e.what() + ").\n" + kNoGpuAdvice,
                      kExitNoGpu);
  }
}

std::string make_work_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/workbook-grade-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw GraderError("cannot create a temporary directory " + pattern + ": " + std::strerror(errno));
  }
  return pattern;
}

/// Writes the progress line on stderr: redrawn in place on a terminal,
/// one line per lab start and end otherwise.
class Progress {
 public:
  Progress() : terminal_(::isatty(STDERR_FILENO) != 0) {}

  void start(std::size_t index, std::size_t count, const std::string& lab) {
    prefix_ = "[" + std::to_string(index + 1) + "/" + std::to_string(count) + "] " + lab + ": ";
    if (terminal_) {
      draw(prefix_ + "listing tests");
    } else {
      std::fprintf(stderr, "%srunning\n", prefix_.c_str());
    }
  }

  void update(std::size_t done, std::size_t total) {
    if (terminal_) draw(prefix_ + std::to_string(done) + "/" + std::to_string(total) + " tests");
  }

  void finish(const LabRun& run, const LabScore& score) {
    std::string text = prefix_;
    if (run.refused) {
      text += "refused (its source uses or calls what it may not)";
    } else if (run.not_built) {
      text += "does not compile (0 points)";
    } else if (!run.error.empty()) {
      text += "could not be graded";
    } else {
      text += std::to_string(score.passed) + "/" + std::to_string(score.total) + " tests passed";
    }
    text +=
        " in " + format_seconds(static_cast<double>(static_cast<long long>(run.seconds * 10)) / 10) + " s";
    if (run.timed_out) text += " (timed out)";
    if (terminal_) {
      draw(text);
      std::fputc('\n', stderr);
      width_ = 0;
    } else {
      std::fprintf(stderr, "%s\n", text.c_str());
    }
    std::fflush(stderr);
  }

 private:
  void draw(const std::string& text) {
    std::string line = "\r" + text;
    if (text.size() < width_) line += std::string(width_ - text.size(), ' ');
    width_ = text.size();
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }

  bool terminal_;
  std::string prefix_;
  std::size_t width_ = 0;
};

/// Lists each lab's tests (no GPU needed) and checks the rubric against them:
/// every group and speed item names at least one existing test, and every test
/// is named by some item. Prints one line per problem; returns the exit code.
int check_rubric_against_tests(const std::vector<LabEntry>& labs, const std::vector<std::string>& binaries,
                               const Rubric& rubric) {
  const std::string work_dir = make_work_dir();
  std::vector<std::string> problems;
  std::size_t test_count = 0;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const std::string& id = labs[i].id;
    ProcessSpec list;
    list.argv = {binaries[i], "--gtest_list_tests"};
    list.stdout_path = work_dir + "/" + id + ".list";
    list.stderr_path = list.stdout_path + ".err";
    const ProcessOutcome outcome = run_process(list, Clock::now() + std::chrono::seconds(60), {});
    if (outcome.end != ProcessOutcome::End::exited || outcome.exit_code != 0) {
      problems.push_back(id + ": could not list the tests: the test program " + describe_outcome(outcome));
      continue;
    }
    const std::vector<std::string> tests = parse_test_list(read_text_file(list.stdout_path));
    test_count += tests.size();
    const LabRubric& lab = rubric.labs.at(id);
    std::set<std::string> named;
    for (const RubricGroup& group : lab.groups) {
      std::size_t matched = 0;
      for (const std::string& test : tests) {
        if (matches_any(group.tests, test)) {
          ++matched;
          named.insert(test);
        }
      }
      if (matched == 0) problems.push_back(id + ": group '" + group.name + "' matches no test");
    }
    for (const RubricSpeed& item : lab.speed) {
      if (std::find(tests.begin(), tests.end(), item.test) == tests.end()) {
        problems.push_back(id + ": speed item '" + item.name + "' names " + item.test +
                           ", which does not exist");
      }
      if (!in_speed_suite(item.test)) {
        problems.push_back(id + ": speed item '" + item.name + "' names " + item.test +
                           ", whose suite does not end in Speed: ./workbook test would time it beside other "
                           "tests (name its suite <Something>Speed)");
      }
      named.insert(item.test);
    }
    for (const std::string& test : tests) {
      if (named.count(test) == 0)
        problems.push_back(id + ": test " + test + " is worth no points (no item names it)");
    }
  }
  std::filesystem::remove_all(work_dir);
  for (const std::string& problem : problems) std::cerr << rubric.path << ": " << problem << "\n";
  if (!problems.empty()) return 1;
  std::cout << rubric.path << ": every item names existing tests and every test is named (" << labs.size()
            << " labs, " << test_count << " tests)\n";
  return 0;
}

/// Whether the test programs run in the sandbox: by default when one can be
/// made here (a warning otherwise); --sandbox insists, --no-sandbox declines.
bool use_sandbox(SandboxMode mode) {
  if (mode == SandboxMode::off) return false;
  const std::string why_not = sandbox_unavailable_reason();
  if (why_not.empty()) return true;
  if (mode == SandboxMode::required) throw GraderError("--sandbox: " + why_not);
  std::cerr << "workbook-grader: warning: no sandbox here, so the test programs run with your rights: "
            << why_not << " (--no-sandbox: run without one and without this warning)\n";
  return false;
}

/// A lab's tests, and in sanitizer mode the same small tests again under
/// each tool (speed tests skipped).
LabRun run_lab_tests(const LabEntry& lab, const LabRubric& lab_rubric, const Options& options,
                     RunOptions run_options) {
  if (options.sanitize.empty()) return run_lab(lab.id, run_options);
  // A sanitizer slows kernels down; this mode judges memory safety, not speed.
  run_options.select = [](const std::string& test) { return !in_speed_suite(test); };
  run_options.unselected_message = "skipped: speed is not measured in sanitizer mode";
  LabRun run = run_lab(lab.id, run_options);
  if (run.error.empty()) run_sanitizers(options.sanitize, lab_rubric, run_options, run);
  return run;
}

/// The lab's folder in the source tree (its handout and explain.json); "" for
/// a build without sources.
std::string lab_source_dir(const Manifest& manifest, const LabEntry& lab) {
  return manifest.source_dir.empty() ? "" : manifest.source_dir + "/labs/" + lab.id;
}

/// The first error of a lab whose test program did not build (--build-error), or nullptr.
const std::string* build_error_of(const Options& options, const std::string& lab_id) {
  for (const auto& [lab, error] : options.build_errors) {
    if (lab == lab_id) return &error;
  }
  return nullptr;
}

/// Each --build-error names a lab of the manifest.
void check_build_errors(const std::vector<std::pair<std::string, std::string>>& build_errors,
                        const std::vector<std::string>& ids) {
  for (const auto& entry : build_errors) {
    if (std::find(ids.begin(), ids.end(), entry.first) == ids.end())
      throw GraderError("--build-error names lab '" + entry.first + "', which is not in the manifest");
  }
}

/// One lab: the source checks, the calls of the compiled file, its tests, in
/// sanitizer mode the same small tests again under each tool (speed tests
/// skipped), and what the failures mean.
LabRun grade_lab(const Manifest& manifest, const LabEntry& lab, const LabRubric& lab_rubric,
                 const Options& options, const RunOptions& run_options) {
  const std::string& source_root = options.solutions ? manifest.source_dir : manifest.student_root;
  // A lab whose source uses what its rubric forbids (the yardstick, say) is
  // refused without running: its tests would measure the forbidden code.
  const std::string refusal = check_lab_source(source_root, lab, options.solutions, lab_rubric.forbidden);
  if (!refusal.empty()) return refused_run(lab.id, refusal);
  // What the compiled file calls, whatever macro, alias or template spelled
  // it: a thread of its own could keep the GPU busy while the yardstick is timed.
  const CallCheck calls =
      check_compiled_calls(lab_library(lab, options.solutions), lab_source_file(lab, options.solutions),
                           options.solutions, run_options.work_dir);
  if (!calls.refusal.empty()) return refused_run(lab.id, calls.refusal);
  // A barrier that only some threads reach often passes every test (sm_70
  // and later), so the source is read for it: a warning, or a refusal where
  // the rubric says so.
  const std::vector<BarrierFinding> barriers = check_lab_barriers(source_root, lab, options.solutions);
  if (!barriers.empty() && lab_rubric.barrier_in_divergent_code == BarrierPolicy::fail)
    return refused_run(lab.id, barrier_refusal(lab, options.solutions, barriers));
  LabRun run = run_lab_tests(lab, lab_rubric, options, run_options);
  if (!calls.note.empty()) run.notes.push_back(calls.note);
  // Failing tests are not run again in sanitizer mode: it judges memory
  // safety, and its runs take long enough.
  analyze_failures(lab_source_dir(manifest, lab), run_options, options.sanitize.empty(), run);
  for (const BarrierFinding& finding : barriers) run.warnings.push_back(describe_barrier_finding(finding));
  // Why a speed item is slow: its call once more under Nsight Compute, after
  // the timed runs and outside them (speed is not measured under sanitizers).
  if (options.sanitize.empty())
    explain_speed_items(options.explain, lab_source_dir(manifest, lab), lab_rubric, run_options, run);
  return run;
}

int grade(const std::vector<std::string>& args) {
  const auto started = std::chrono::steady_clock::now();
  const Options options = parse_command_line(args);
  if (options.help) {
    std::cout << usage_text();
    return 0;
  }

  const Manifest manifest = load_manifest(options.manifest);
  const std::string rubric_path = absolute(options.rubric.empty() ? manifest.rubric : options.rubric);
  if (rubric_path.empty()) throw GraderError("no rubric: the manifest names none and --rubric was not given");
  const Rubric rubric = load_rubric(rubric_path);
  std::vector<std::string> all_ids;
  for (const LabEntry& lab : manifest.labs) all_ids.push_back(lab.id);
  check_rubric_covers(rubric, all_ids);
  const std::vector<LabEntry> labs = select_labs(manifest, options.labs);
  check_build_errors(options.build_errors, all_ids);

  std::vector<std::string> binaries;
  for (const LabEntry& lab : labs) {
    const std::string& binary = options.solutions ? lab.solution_tests : lab.student_tests;
    if (const std::string* error = build_error_of(options, lab.id)) {
      if (options.check_rubric) throw GraderError("lab " + lab.id + " did not build: " + *error);
      binaries.emplace_back();  // Not run: scored 0 with its error.
      continue;
    }
    if (binary.empty()) {
      throw GraderError("lab " + lab.id +
                        " has no solution tests in the build, so --solutions cannot grade it " +
                        "(configure with -DWORKBOOK_BUILD_SOLUTIONS=ON, or leave out --solutions)");
    }
    if (::access(binary.c_str(), X_OK) != 0) {
      throw GraderError("the build is missing " + binary + " (lab " + lab.id +
                        "); run ./workbook grade, which builds the workbook first");
    }
    binaries.push_back(binary);
  }
  if (options.check_rubric) return check_rubric_against_tests(labs, binaries, rubric);
  if (!options.csv_path.empty()) {
    std::vector<std::string> ids;
    for (const LabEntry& lab : labs) ids.push_back(lab.id);
    check_gradebook(options.csv_path, ids);  // Before any GPU time is spent.
  }

  const bool sandboxed = use_sandbox(options.sandbox);

  GradeReport report;
  report.gpu = describe_gpu();
  report.calibration = rubric.calibration;
  const bool hide = options.seed && !options.show_seed;
  report.seed = !options.seed ? "default" : hide ? "hidden" : std::to_string(*options.seed);
  report.solutions = options.solutions;
  report.sandboxed = sandboxed;

  ::signal(SIGINT, on_terminate_signal);
  ::signal(SIGTERM, on_terminate_signal);
  ::signal(SIGHUP, on_terminate_signal);

  report.log_dir = make_work_dir();
  Progress progress;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const LabRubric& lab_rubric = rubric.labs.at(labs[i].id);
    RunOptions run_options;
    run_options.binary = binaries[i];
    run_options.rubric_path = rubric_path;
    run_options.seed = options.seed;
    run_options.limits = make_time_limits(lab_rubric, options.timeout_scale);
    run_options.sandbox = sandboxed;
    // Correctness tests share the GPU; speed tests get it to themselves.
    run_options.shards = options.jobs > 0 ? options.jobs : default_jobs();
    run_options.runs_alone = in_speed_suite;
    run_options.work_dir = report.log_dir + "/" + labs[i].id;
    std::filesystem::create_directories(run_options.work_dir);
    run_options.progress = [&progress](std::size_t done, std::size_t total) { progress.update(done, total); };
    progress.start(i, labs.size(), labs[i].id);
    const std::string* build_error = build_error_of(options, labs[i].id);
    LabRun run = build_error != nullptr ? not_built_run(labs[i].id, *build_error)
                                        : grade_lab(manifest, labs[i], lab_rubric, options, run_options);
    LabScore score = score_lab(lab_rubric, run);
    progress.finish(run, score);
    report.runs.push_back(std::move(run));
    report.scores.push_back(std::move(score));
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Students read these (Gradescope shows results.json): the instructor's seed stays out.
  const auto shown = [hide](const std::string& text) { return hide ? hide_seed(text) : text; };
  std::cout << "\n" << shown(format_terminal_report(report, use_color(options.color))) << std::flush;
  if (!options.json_path.empty())
    write_output_file(options.json_path, shown(gradescope_json(report).dump(2) + "\n"));
  if (!options.junit_path.empty()) write_output_file(options.junit_path, shown(junit_xml(report)));
  if (!options.csv_path.empty()) append_to_gradebook(options.csv_path, report, options.student);
  return 0;
}

}  // namespace
}  // namespace workbook::grader

int main(int argc, char** argv) {
  // Every failure is one line for the user, never a stack trace.
  try {
    return workbook::grader::grade(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const workbook::grader::GraderError& e) {
    std::cerr << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "workbook-grader: internal error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "workbook-grader: internal error\n";
    return 1;
  }
}
