// Tests of the sandbox's pieces that need no GPU: the bwrap command line and
// the resource limits a child process starts with.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "process.hpp"
#include "sandbox.hpp"

namespace workbook::grader {
namespace {

bool has_sequence(const std::vector<std::string>& argv, const std::vector<std::string>& sequence) {
  return std::search(argv.begin(), argv.end(), sequence.begin(), sequence.end()) != argv.end();
}

TEST(Sandbox, CommandShowsOnlyWhatTheRunNeeds) {
  ::setenv("WORKBOOK_SANDBOX_TOOL", "/bin/true", 1);  // Any executable: the command is only built.
  const std::vector<std::string> argv =
      sandbox_command({{"/tmp/build/lab02_tests", "/tmp/rubric.json"}, {"/tmp/logs/02"}});
  ::unsetenv("WORKBOOK_SANDBOX_TOOL");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/bin/true");
  EXPECT_EQ(argv.back(), "--");
  for (const char* option : {"--unshare-pid", "--unshare-net", "--die-with-parent"})
    EXPECT_NE(std::find(argv.begin(), argv.end(), option), argv.end()) << option;
  EXPECT_TRUE(has_sequence(argv, {"--ro-bind-try", "/usr", "/usr"}));
  EXPECT_TRUE(has_sequence(argv, {"--tmpfs", "/tmp"}));
  EXPECT_TRUE(has_sequence(argv, {"--ro-bind", "/tmp/rubric.json", "/tmp/rubric.json"}));
  EXPECT_TRUE(has_sequence(argv, {"--bind", "/tmp/logs/02", "/tmp/logs/02"}));
  // The private /tmp comes before the binds that lie inside it.
  const auto tmpfs = std::find(argv.begin(), argv.end(), "--tmpfs");
  const auto bind = std::find(argv.begin(), argv.end(), "--bind");
  EXPECT_LT(tmpfs, bind);
  // Nothing else of the machine: no home folders, no whole root.
  EXPECT_FALSE(has_sequence(argv, {"--ro-bind", "/", "/"}));
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "/home"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "/root"), argv.end());
}

TEST(Sandbox, PathsTheSystemFoldersShowGetNoBindOfTheirOwn) {
  // On the H100 machine compute-sanitizer lies under /usr/local/cuda, an
  // absolute symlink: a bind of it broke every sanitizer run in the sandbox.
  ::setenv("WORKBOOK_SANDBOX_TOOL", "/bin/true", 1);
  const std::string outside = ::testing::TempDir() + "/sandbox-bind-me";
  std::ofstream(outside) << "x";
  const std::vector<std::string> argv = sandbox_command({{"/bin/sh", outside}, {}});
  ::unsetenv("WORKBOOK_SANDBOX_TOOL");
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "/bin/sh"), argv.end());
  const std::string real_outside = std::filesystem::canonical(outside).string();
  EXPECT_TRUE(has_sequence(argv, {"--ro-bind", real_outside, outside}));
  std::filesystem::remove(outside);
}

TEST(Sandbox, FileSizeLimitStopsTheChildWithSigxfsz) {
  const std::string dir = ::testing::TempDir() + "/sandbox-limits";
  std::filesystem::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {"/bin/dd", "if=/dev/zero", "of=" + dir + "/big", "bs=4096", "count=16"};
  spec.stdout_path = dir + "/out.log";
  spec.stderr_path = spec.stdout_path;
  spec.limits.file_bytes = 4096;
  const ProcessOutcome outcome = run_process(spec, Clock::now() + std::chrono::seconds(20), {});
  EXPECT_EQ(outcome.end, ProcessOutcome::End::signaled) << describe_outcome(outcome);
  EXPECT_EQ(outcome.signal, SIGXFSZ);
  EXPECT_LE(std::filesystem::file_size(dir + "/big"), 4096u);
  EXPECT_EQ(describe_limit_signal(SIGXFSZ), "the sandbox's limit on the size of a file (1024 MiB)");
  EXPECT_EQ(describe_limit_signal(SIGSEGV), "");
  std::filesystem::remove_all(dir);
}

TEST(Sandbox, ProcessLimitReachesTheChild) {
  const std::string dir = ::testing::TempDir() + "/sandbox-nproc";
  std::filesystem::create_directories(dir);
  ProcessSpec spec;
  spec.argv = {"/bin/grep", "Max processes", "/proc/self/limits"};
  spec.stdout_path = dir + "/out.log";
  spec.stderr_path = spec.stdout_path;
  spec.limits.processes = 777;
  const ProcessOutcome outcome = run_process(spec, Clock::now() + std::chrono::seconds(20), {});
  ASSERT_EQ(outcome.end, ProcessOutcome::End::exited) << describe_outcome(outcome);
  std::ifstream out(spec.stdout_path);
  std::string text;
  std::getline(out, text);
  // "Max processes   777   777   processes": the soft and the hard limit.
  EXPECT_NE(text.find(" 777 "), std::string::npos) << "the child's RLIMIT_NPROC: " << text;
  EXPECT_EQ(sandbox_limits().processes, kSandboxProcesses);
  std::filesystem::remove_all(dir);
}

TEST(Sandbox, ProcessLimitBindsRootThroughAPidsCgroup) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: RLIMIT_NPROC is the limit, and the test above shows it";
  if (pids_cgroup_probe(4).empty())
    GTEST_SKIP() << "no writable pids cgroup here: root's processes are not capped";
  const std::string dir = ::testing::TempDir() + "/sandbox-pids";
  std::filesystem::create_directories(dir);
  ProcessSpec spec;
  // Ten background sleeps under a cap of 8 processes: the shell's forks fail.
  spec.argv = {"/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1 & done; wait"};
  spec.stdout_path = dir + "/out.log";
  spec.stderr_path = spec.stdout_path;
  spec.limits.processes = 8;
  const ProcessOutcome outcome = run_process(spec, Clock::now() + std::chrono::seconds(20), {});
  std::ifstream out(spec.stdout_path);
  const std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("fork"), std::string::npos)
      << "root's shell forked ten times under a cap of 8: " << text << describe_outcome(outcome);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace workbook::grader

TEST(Sandbox, RefusalsOfItsLimitsAreExplained) {
  EXPECT_NE(workbook::grader::explain_sandbox_failure(
                "C++ exception with description \"std::bad_alloc\" thrown in the test body.")
                .find("at most 64 GiB of host memory"),
            std::string::npos);
  EXPECT_NE(workbook::grader::explain_sandbox_failure("thread: Resource temporarily unavailable")
                .find("at most 4096 processes and threads"),
            std::string::npos);
  EXPECT_EQ(workbook::grader::explain_sandbox_failure("Expected equality of these values"), "");
}
