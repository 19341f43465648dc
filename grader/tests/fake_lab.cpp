// A fake lab test program for the grader's tests. It speaks what the grader
// needs of a real one: --gtest_list_tests, --gtest_filter=a:b:c and the
// WORKBOOK_RESULTS JSON-lines stream, without CUDA or GoogleTest.
//
// Its tests come from the environment: FAKE_LAB_TESTS_<name>, where <name> is
// the file name it was started as (so one binary can play several labs through
// symlinks) with characters other than letters and digits turned into '_',
// or else FAKE_LAB_TESTS. The value is "Suite.Name=behaviour,...", where
// behaviour is one of:
//   pass, fail, skip       report that status
//   crash                  die of SIGSEGV in the middle of the test
//   hang                   never finish
//   stall                  hang before reporting that it started (as in a
//                          suite's set-up)
//   sleep:<ms>             pass after sleeping <ms> milliseconds
//   flood:<MiB>            write <MiB> MiB of numbered lines to stdout as fast
//                          as it can, then pass
//   abort                  fail, write an "abort" record and exit(3), as a
//                          lab does after the CUDA context is lost
//   exit                   exit(0) in the middle of the test
//   speed:<ratio>          pass and report a speed of <ratio> x 1000 GB/s; with
//                          WORKBOOK_PROFILE_RECORD set (the grader's --explain),
//                          write the harness's profile record there instead,
//                          min_bytes 2^31, and skip, as the real harness does
//   throw:<what>           fail as GoogleTest reports an exception <what>
//                          escaping the test body
//   read:<path>            print the file's first line ("read: <line>") and
//                          pass, or fail when it cannot be opened
//   write:<path>           create the file and pass, or fail when it cannot
//   finding:<tool>         pass, and when run under the fake sanitizer as
//                          <tool> (FAKE_SANITIZER_TOOL), print a finding in
//                          compute-sanitizer's format
//   wrong:<shape>          fail as a lab's comparison does: "wrong result for
//                          n=<n>, pattern=uniform, seed=<seed>: " and
//                          compare_exact()'s report of an answer made wrong in
//                          that shape: tail, shifted, unwritten, constant,
//                          from_element, or none (two wrong elements, no
//                          shape); <n> from the name's "/n<digits>" (else 100),
//                          <seed> from WORKBOOK_SEED (else 20261121)
//   flaky:<path>           count its runs in the file <path>: the first fails
//                          as wrong:none does, every later one passes (a race
//                          that shows only sometimes)
//   drift:<path>           count its runs in the file <path>: each fails as
//                          wrong:none does, with one more wrong element than
//                          the run before (a race that shows every time)
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "glob.hpp"
#include "workbook/compare.hpp"

namespace {

struct FakeTest {
  std::string name;
  std::string behaviour;
};

std::vector<FakeTest> tests_from_env(const std::string& program) {
  std::string base = program.substr(program.find_last_of('/') + 1);
  for (char& c : base) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) c = '_';
  }
  const char* spec = std::getenv(("FAKE_LAB_TESTS_" + base).c_str());
  if (spec == nullptr) spec = std::getenv("FAKE_LAB_TESTS");
  std::vector<FakeTest> tests;
  if (spec == nullptr) return tests;
  std::string text = spec;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(at, comma - at);
    const std::size_t equals = item.find('=');
    if (equals != std::string::npos) tests.push_back({item.substr(0, equals), item.substr(equals + 1)});
    at = comma + 1;
  }
  return tests;
}

bool selected(const std::string& filter, const std::string& name) {
  if (filter.empty()) return true;
  std::size_t at = 0;
  while (at <= filter.size()) {
    std::size_t colon = filter.find(':', at);
    if (colon == std::string::npos) colon = filter.size();
    if (workbook::grader::glob_match(filter.substr(at, colon - at), name)) return true;
    at = colon + 1;
  }
  return false;
}

void list(const std::vector<FakeTest>& tests) {
  std::string suite;
  for (const FakeTest& test : tests) {
    const std::size_t dot = test.name.find('.');
    const std::string this_suite = test.name.substr(0, dot);
    const std::string name = test.name.substr(dot + 1);
    if (this_suite != suite) {
      suite = this_suite;
      std::cout << suite << "." << (suite.find('/') != std::string::npos ? "  # TypeParam = int" : "")
                << "\n";
    }
    std::cout << "  " << name << (name.find('/') != std::string::npos ? "  # GetParam() = 33" : "") << "\n";
  }
}

void sleep_ms(long ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void hang_forever() {
  for (;;) sleep_ms(1000);
}

/// Writes @p mebibytes MiB of 64-byte numbered lines to stdout.
void flood(long mebibytes) {
  std::string block;
  const long lines = mebibytes * 1024 * 1024 / 64;
  for (long line = 0; line < lines; ++line) {
    char text[65];
    std::snprintf(text, sizeof text, "flood line %-52ld\n", line);
    block += text;
    if (block.size() >= (1 << 20)) {
      std::fwrite(block.data(), 1, block.size(), stdout);
      block.clear();
    }
  }
  std::fwrite(block.data(), 1, block.size(), stdout);
  std::fflush(stdout);
}

/// The "/n<digits>" of a test's name, else 100.
std::size_t size_of(const std::string& test) {
  const std::size_t at = test.rfind("/n");
  if (at == std::string::npos || at + 2 >= test.size() ||
      std::isdigit(static_cast<unsigned char>(test[at + 2])) == 0)
    return 100;
  return std::stoul(test.substr(at + 2));
}

/// How many times this behaviour ran before, counted in the file @p path.
int count_runs(const std::string& path) {
  int before = 0;
  std::ifstream(path) >> before;
  std::ofstream(path) << before + 1 << "\n";
  return before;
}

/// A lab's failure message for a made-up answer of @p test's size with the
/// error @p shape; "none" makes @p extra more wrong elements than two.
std::string wrong_result(const std::string& test, const std::string& shape, std::size_t extra = 0) {
  const std::size_t n = size_of(test);
  std::vector<long long> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = 3 * static_cast<long long>(i) + 1;
  std::vector<long long> got = expected;
  const std::size_t from = n > 128 ? 64 : n / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const long long step = static_cast<long long>(i % 7) + 1;
    if (shape == "tail" && i + 3 >= n) got[i] += step;
    if (shape == "shifted") got[i] = i == 0 ? 0 : expected[i - 1];
    if (shape == "unwritten" && i >= n / 2) got[i] = -1;
    if (shape == "constant") got[i] += 5;
    if (shape == "from_element" && i >= from) got[i] += step;
    if (shape == "none" && i % 2 == 1 && i <= 2 * extra + 3) got[i] += step;
  }
  const char* seed = std::getenv("WORKBOOK_SEED");
  return "fake_lab.cpp:3: Failure\nValue of: matches(compare_exact(expected, got), context)\n  Actual: false "
         "(wrong result for n=" +
         std::to_string(n) +
         ", pattern=uniform, seed=" + (seed != nullptr && *seed != '\0' ? seed : "20261121") + ": " +
         workbook::compare_exact(expected, got).describe() + ")\nExpected: true";
}

class Results {
 public:
  Results() {
    const char* path = std::getenv("WORKBOOK_RESULTS");
    if (path != nullptr && *path != '\0') out_.open(path, std::ios::app);
  }
  void write(const nlohmann::json& record) {
    if (!out_.is_open()) return;
    out_ << record.dump() << "\n";
    out_.flush();
  }

 private:
  std::ofstream out_;
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<FakeTest> tests = tests_from_env(argv[0]);
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gtest_list_tests") {
      std::cout << "Running main() from fake_lab.cpp\n";
      list(tests);
      return 0;
    }
    if (arg.rfind("--gtest_filter=", 0) == 0) filter = arg.substr(15);
  }

  // No core files from the deliberate crashes.
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);

  Results results;
  bool any_failed = false;
  for (const FakeTest& test : tests) {
    if (!selected(filter, test.name)) continue;
    const std::string& behaviour = test.behaviour;
    if (behaviour == "stall") {
      std::cout << "stuck before " << test.name << std::endl;
      hang_forever();
    }
    std::cout << "[ RUN      ] " << test.name << std::endl;
    results.write({{"event", "start"}, {"test", test.name}});
    nlohmann::json end = {{"event", "end"}, {"test", test.name}, {"status", "passed"},
                          {"message", ""},  {"time_ms", 1},      {"metrics", nlohmann::json::object()}};
    if (behaviour == "crash") {
      std::cout << "about to dereference a bad pointer in " << test.name << std::endl;
      std::raise(SIGSEGV);
    } else if (behaviour == "hang") {
      std::cout << "spinning forever in " << test.name << std::endl;
      hang_forever();
    } else if (behaviour.rfind("sleep:", 0) == 0) {
      sleep_ms(std::stol(behaviour.substr(6)));
    } else if (behaviour.rfind("flood:", 0) == 0) {
      flood(std::stol(behaviour.substr(6)));
    } else if (behaviour == "exit") {
      std::exit(0);
    } else if (behaviour == "fail" || behaviour == "abort") {
      end["status"] = "failed";
      end["message"] = "fake_lab.cpp:1: Failure\nExpected: <1> & \"quotes\"\n  Actual: 2";
    } else if (behaviour.rfind("throw:", 0) == 0) {
      end["status"] = "failed";
      end["message"] = "unknown file: Failure\nC++ exception with description \"" + behaviour.substr(6) +
                       "\" thrown in the test body.";
    } else if (behaviour == "skip") {
      end["status"] = "skipped";
      end["message"] = "fake_lab.cpp:2: Skipped\nneeds a feature this GPU lacks";
    } else if (behaviour.rfind("read:", 0) == 0) {
      std::ifstream file(behaviour.substr(5));
      std::string line;
      if (file && std::getline(file, line)) {
        std::cout << "read: " << line << std::endl;
      } else {
        end["status"] = "failed";
        end["message"] = "could not read " + behaviour.substr(5);
      }
    } else if (behaviour.rfind("write:", 0) == 0) {
      std::ofstream file(behaviour.substr(6));
      file << "planted by a test\n";
      if (!file) {
        end["status"] = "failed";
        end["message"] = "could not write " + behaviour.substr(6);
      }
    } else if (behaviour.rfind("finding:", 0) == 0) {
      const char* tool = std::getenv("FAKE_SANITIZER_TOOL");
      if (tool != nullptr && behaviour.substr(8) == tool) {
        std::cout << "========= Invalid __global__ write of size 4 bytes\n"
                  << "=========     at add_abc(const float *, int)+0x90 in abc.cu:17\n"
                  << "=========     by thread (32,0,0) in block (0,0,0)\n"
                  << "=========     Address 0x7f0000000080 is out of bounds\n"
                  << "=========     and is 0 bytes after the nearest allocation\n"
                  << "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
                  << "=========         Host Frame: main in fake_lab.cpp:1\n"
                  << std::flush;
      }
    } else if (const char* record = std::getenv("WORKBOOK_PROFILE_RECORD");
               behaviour.rfind("speed:", 0) == 0 && record != nullptr && *record != '\0') {
      std::ofstream(record) << nlohmann::json{
          {"test", test.name}, {"what", "the fake call"}, {"yardstick", "the fake yardstick"},
          {"unit", "GB/s"},    {"work", 268435456.0},     {"min_bytes", 2147483648.0},
          {"problem", ""}}.dump();
      end["status"] = "skipped";
      end["message"] = "workbook-profile: profiled for --explain";
    } else if (behaviour.rfind("wrong:", 0) == 0) {
      end["status"] = "failed";
      end["message"] = wrong_result(test.name, behaviour.substr(6));
    } else if (behaviour.rfind("flaky:", 0) == 0) {
      if (count_runs(behaviour.substr(6)) == 0) {
        end["status"] = "failed";
        end["message"] = wrong_result(test.name, "none");
      }
    } else if (behaviour.rfind("drift:", 0) == 0) {
      end["status"] = "failed";
      end["message"] =
          wrong_result(test.name, "none", static_cast<std::size_t>(count_runs(behaviour.substr(6))));
    } else if (behaviour.rfind("speed:", 0) == 0) {
      const double ratio = std::stod(behaviour.substr(6));
      end["metrics"]["speed"] = {{"value", 1000.0 * ratio},
                                 {"unit", "GB/s"},
                                 {"yardstick", "device-to-device copy"},
                                 {"yardstick_value", 1000.0},
                                 {"ratio", ratio},
                                 {"target", 0.75},
                                 {"floor", 0.4}};
    }
    if (end["status"] == "failed") any_failed = true;
    std::cout << "[ " << end["status"].get<std::string>() << " ] " << test.name << std::endl;
    results.write(end);
    if (behaviour == "abort") {
      results.write({{"event", "abort"},
                     {"reason", "CUDA context lost after " + test.name + ": cudaErrorIllegalAddress"}});
      std::_Exit(3);
    }
  }
  return any_failed ? 1 : 0;
}
