#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace workbook::grader {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr auto kTickInterval = std::chrono::milliseconds(100);

volatile sig_atomic_t g_running_group = 0;

int open_output(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/// The child's environment: ours, with the spec's variables replaced or added.
std::vector<std::string> make_environment(const ProcessSpec& spec) {
  std::map<std::string, std::string> overrides(spec.env.begin(), spec.env.end());
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string key = text.substr(0, text.find('='));
    if (overrides.count(key) == 0) env.push_back(text);
  }
  for (const auto& [key, value] : overrides) env.push_back(key + "=" + value);
  return env;
}

void kill_group(pid_t group) {
  if (group > 0) ::kill(-group, SIGKILL);
}

}  // namespace

ProcessOutcome run_process(const ProcessSpec& spec, Clock::time_point deadline,
                           const std::function<void()>& on_tick) {
  ProcessOutcome outcome;
  if (spec.argv.empty()) {
    outcome.error = "nothing to run";
    return outcome;
  }
  // Everything the child needs is prepared before fork(): after fork() the
  // child may only make async-signal-safe calls (the grader may hold a CUDA
  // context and other threads' locks).
  std::vector<std::string> env_strings = make_environment(spec);
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);

  const int out_fd = open_output(spec.stdout_path);
  const int err_fd = spec.stderr_path == spec.stdout_path ? out_fd : open_output(spec.stderr_path);
  if (out_fd < 0 || err_fd < 0) {
    outcome.error = std::string("cannot create the log file: ") + std::strerror(errno);
    if (out_fd >= 0) ::close(out_fd);
    if (err_fd >= 0 && err_fd != out_fd) ::close(err_fd);
    return outcome;
  }
  // exec failure is reported through a close-on-exec pipe: EOF means exec worked.
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    outcome.error = std::string("pipe failed: ") + std::strerror(errno);
    ::close(out_fd);
    if (err_fd != out_fd) ::close(err_fd);
    return outcome;
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  const auto started = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    const int error = errno;
    ssize_t ignored = ::write(status_pipe[1], &error, sizeof error);
    (void)ignored;
    ::_exit(127);
  }
  ::close(status_pipe[1]);
  ::close(out_fd);
  if (err_fd != out_fd) ::close(err_fd);
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    outcome.error = std::string("fork failed: ") + std::strerror(errno);
    ::close(status_pipe[0]);
    return outcome;
  }
  ::setpgid(pid, pid);  // Also here: whichever of parent and child runs first.
  g_running_group = pid;

  int exec_error = 0;
  const ssize_t got = ::read(status_pipe[0], &exec_error, sizeof exec_error);
  ::close(status_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    ::waitpid(pid, nullptr, 0);
    g_running_group = 0;
    outcome.error = "cannot run " + spec.argv[0] + ": " + std::strerror(exec_error);
    return outcome;
  }

  auto next_tick = Clock::now() + kTickInterval;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      outcome.error = std::string("waitpid failed: ") + std::strerror(errno);
      kill_group(pid);
      g_running_group = 0;
      return outcome;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      g_running_group = 0;
      outcome.end = ProcessOutcome::End::timed_out;
      outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
      return outcome;
    }
    if (on_tick && now >= next_tick) {
      on_tick();
      next_tick = now + kTickInterval;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  kill_group(pid);  // Whatever the lab left running in its group.
  g_running_group = 0;
  outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (WIFSIGNALED(status)) {
    outcome.end = ProcessOutcome::End::signaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.end = ProcessOutcome::End::exited;
    outcome.exit_code = WEXITSTATUS(status);
  }
  return outcome;
}

std::string describe_signal(int signal) {
  switch (signal) {
    case SIGSEGV:
      return "SIGSEGV (segmentation fault)";
    case SIGABRT:
      return "SIGABRT (abort)";
    case SIGBUS:
      return "SIGBUS (bus error)";
    case SIGFPE:
      return "SIGFPE (arithmetic error)";
    case SIGILL:
      return "SIGILL (illegal instruction)";
    case SIGKILL:
      return "SIGKILL (killed)";
    case SIGTERM:
      return "SIGTERM (terminated)";
    case SIGINT:
      return "SIGINT (interrupted)";
    case SIGPIPE:
      return "SIGPIPE (broken pipe)";
    case SIGTRAP:
      return "SIGTRAP (trap)";
    default:
      break;
  }
  const char* text = ::strsignal(signal);
  return "signal " + std::to_string(signal) + (text != nullptr ? std::string(" (") + text + ")" : "");
}

std::string describe_outcome(const ProcessOutcome& outcome) {
  switch (outcome.end) {
    case ProcessOutcome::End::exited:
      return "exited with code " + std::to_string(outcome.exit_code);
    case ProcessOutcome::End::signaled:
      return "was killed by signal " + describe_signal(outcome.signal);
    case ProcessOutcome::End::timed_out:
      return "ran out of time";
    case ProcessOutcome::End::failed_to_start:
      return "could not start (" + outcome.error + ")";
  }
  return "ended";
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string tail_lines(const std::string& path, std::size_t count) {
  // Only the end matters; a runaway test may have written gigabytes.
  constexpr std::streamoff kMaxTail = 64 * 1024;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return {};
  const std::streamoff size = file.tellg();
  file.seekg(size > kMaxTail ? size - kMaxTail : 0);
  std::ostringstream buffer;
  buffer << file.rdbuf();
  std::istringstream in(buffer.str());
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (lines.size() > count) lines.pop_front();
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::string out;
  for (const std::string& kept : lines) out += (out.empty() ? "" : "\n") + kept;
  return out;
}

void kill_running_child() {
  const pid_t group = g_running_group;
  if (group > 0) ::kill(-group, SIGKILL);
}

}  // namespace workbook::grader
