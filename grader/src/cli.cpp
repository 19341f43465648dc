#include "cli.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "error.hpp"
#include "sanitizer.hpp"

namespace workbook::grader {
namespace {

// ./workbook grade names itself here: its users never ran workbook-grader.
std::string try_help() {
  const char* command = std::getenv("WORKBOOK_GRADER_HELP");
  return std::string(" (see ") +
         (command != nullptr && *command != '\0' ? command : "workbook-grader --help") + ")";
}

// "--seed --json": the next word is an option, not --seed's value.
bool looks_like_option(const std::string& word) {
  return word.size() > 1 && word[0] == '-' &&
         (word[1] == '-' || std::isalpha(static_cast<unsigned char>(word[1])));
}

// LAB=MESSAGE of --build-error.
std::pair<std::string, std::string> parse_build_error(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw GraderError("--build-error needs LAB=MESSAGE, got '" + text + "'" + try_help());
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::uint64_t parse_seed(const std::string& text, const std::string& source = "--seed") {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw GraderError(source + " needs a non-negative integer, got '" + text + "'");
  }
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) throw GraderError(source + " is too large: '" + text + "'");
  return static_cast<std::uint64_t>(value);
}

double parse_scale(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0) {
    throw GraderError("--timeout-scale needs a positive number, got '" + text + "'");
  }
  return value;
}

int parse_jobs(const std::string& text) {
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(text) < 1) {
    throw GraderError("--jobs needs a whole number of test programs from 1 to 999, got '" + text + "'");
  }
  return std::stoi(text);
}

ColorMode parse_color(const std::string& text) {
  if (text == "auto") return ColorMode::automatic;
  if (text == "always") return ColorMode::always;
  if (text == "never") return ColorMode::never;
  throw GraderError("--color must be auto, always or never, got '" + text + "'");
}

}  // namespace

int default_jobs() {
  // Four programs keep an H100 busy with a lab's small correctness tests
  // (grade --solutions: see grader/README.md); more mostly add CUDA contexts.
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(std::min(4U, cores));
}

Options parse_command_line(const std::vector<std::string>& args) {
  Options options;
  bool only_positional = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg.empty() || arg[0] != '-' || arg == "-") {
      options.labs.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    const std::size_t equals = arg.find('=');
    if (equals != std::string::npos) {
      name = arg.substr(0, equals);
      inline_value = arg.substr(equals + 1);
    }
    const auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size() || looks_like_option(args[i + 1]))
        throw GraderError(name + " needs a value" + try_help());
      return args[++i];
    };
    const auto no_value = [&] {
      if (inline_value) throw GraderError(name + " takes no value" + try_help());
    };
    if (name == "--help" || name == "-h") {
      no_value();
      options.help = true;
    } else if (name == "--solutions") {
      no_value();
      options.solutions = true;
    } else if (name == "--sandbox") {
      no_value();
      options.sandbox = SandboxMode::required;
    } else if (name == "--no-sandbox") {
      no_value();
      options.sandbox = SandboxMode::off;
    } else if (name == "--explain") {
      no_value();
      options.explain = ExplainMode::all;
    } else if (name == "--no-explain") {
      no_value();
      options.explain = ExplainMode::off;
    } else if (name == "--show-seed") {
      no_value();
      options.show_seed = true;
    } else if (name == "--check-rubric") {
      no_value();
      options.check_rubric = true;
    } else if (name == "--sanitize") {
      // The tools only as --sanitize=a,b: a bare --sanitize must not take the lab's name.
      options.sanitize = parse_sanitizer_tools(inline_value.value_or("all"));
    } else if (name == "--manifest") {
      options.manifest = value();
    } else if (name == "--rubric") {
      options.rubric = value();
    } else if (name == "--json") {
      options.json_path = value();
    } else if (name == "--junit") {
      options.junit_path = value();
    } else if (name == "--csv") {
      options.csv_path = value();
    } else if (name == "--student") {
      options.student = value();
    } else if (name == "--seed") {
      options.seed = parse_seed(value());
    } else if (name == "--timeout-scale") {
      options.timeout_scale = parse_scale(value());
    } else if (name == "--jobs" || name == "-j") {
      options.jobs = parse_jobs(value());
    } else if (name == "--color" || name == "--colour") {
      options.color = parse_color(value());
    } else if (name == "--build-error") {
      options.build_errors.push_back(parse_build_error(value()));
    } else {
      throw GraderError("unknown option '" + arg + "'" + try_help());
    }
  }
  // The test programs inherit WORKBOOK_SEED: a seed set that way is the grade's seed too
  // (reported, and hidden like --seed's).
  const char* environment_seed = std::getenv("WORKBOOK_SEED");
  if (!options.seed && environment_seed != nullptr && *environment_seed != '\0') {
    options.seed = parse_seed(environment_seed, "WORKBOOK_SEED");
  }
  return options;
}

std::string usage_text() {
  return R"(usage: workbook-grader --manifest <build>/workbook-labs.json [options] [LAB...]

Runs each lab's tests in an isolated child process and scores them with the
rubric. Normally started by `./workbook grade`, which builds first.

LAB                   "01", "1", "01-hello-world", "hello-world" or "hello";
                      default: every lab in the manifest
--manifest FILE       the build's lab manifest (default build/workbook-labs.json)
--solutions           grade the reference solutions instead of the student code
--rubric FILE         rubric to use (default: the one the manifest names)
--json FILE           also write Gradescope results.json to FILE
--junit FILE          also write JUnit XML to FILE
--csv FILE            add a row (student, each lab's points, total, max) to the
                      gradebook FILE, writing its header when the file is new
--student NAME        the name of that row (default "submission")
--seed N              input seed for the tests (WORKBOOK_SEED); default: the labs' own.
                      A given seed is the instructor's secret: the reports say
                      "seed: hidden" and print no seed=N of the tests' messages
--show-seed           print a given seed in the reports (for the instructor's own runs)
--timeout-scale X     multiply every time limit (each lab's and each test's) by X
                      (slow GPUs, sanitizers)
--jobs N, -j N        run a lab's correctness tests in N test programs at once
                      (default 4, or the number of cores when fewer); speed
                      tests always run afterwards, alone on the GPU
--sanitize[=TOOLS]    also run each lab's small correctness tests under
                      compute-sanitizer (memcheck, racecheck, synccheck,
                      initcheck; default all, or e.g. --sanitize=memcheck,racecheck):
                      a finding fails the test it happened in; speed tests are
                      skipped; time limits stretch with each tool's slowdown
--explain             run each measured speed item once more under Nsight Compute
                      (ncu) and say why it is as fast as it is: the bytes it
                      moved against what the task needs, how it reads memory,
                      occupancy, where warps wait, and the likely cause with the
                      handout section about it. By default only the items below
                      their target are explained; no score changes either way
--no-explain          explain nothing (an exam; saves the profiling time)
--sandbox             run each test program in a bubblewrap sandbox or not at all
                      (the default runs them in one when it can be made here,
                      and otherwise without, after a warning): the system
                      read-only, only its own results folder writable, a private
                      /tmp, no network, its own PID namespace, limits on memory,
                      processes, file size and CPU time (see grader/README.md)
--no-sandbox          run the test programs without the sandbox
--color WHEN          auto (default), always or never; NO_COLOR disables auto
--check-rubric        only check that every rubric item names tests that exist
                      and every test is named by an item (needs no GPU)
--build-error LAB=MESSAGE
                      LAB's test program did not build: score it 0 with MESSAGE
                      (its first compiler error) as the reason, and grade the
                      other labs (./workbook grade builds each lab on its own)
--help                this text

exit codes: 0 graded (whatever the score), 1 bad input or missing build,
            2 no CUDA-capable GPU
)";
}

}  // namespace workbook::grader
