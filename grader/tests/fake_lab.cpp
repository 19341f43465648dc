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
