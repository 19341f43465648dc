#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

extern char** environ;

namespace workbook::grader {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);
constexpr int kPollIntervalMs = static_cast<int>(kPollInterval.count());
/// Pipe capacity asked for (best effort): fewer wake-ups while a program floods.
constexpr int kPipeBytes = 1 << 20;
/// Bytes read per read() call.
constexpr std::size_t kReadChunk = 64 * 1024;
/// Reads per stream per drain (4 MiB, more than a pipe holds), so that an
/// endless flood still lets the loop look at the clock and the child.
constexpr int kMaxReadsPerDrain = 64;

/// The process groups of the running test programs (0: a free slot). A lab's
/// correctness tests run in several programs at once; a signal handler kills
/// them all, so the slots are lock-free atomics, safe to read there.
constexpr std::size_t kMaxRunningGroups = 64;
std::atomic<pid_t> g_running_groups[kMaxRunningGroups];
static_assert(std::atomic<pid_t>::is_always_lock_free, "the signal handler reads these");

void remember_group(pid_t group) {
  for (std::atomic<pid_t>& slot : g_running_groups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }  // More than 64 at once: that one is not killed by Ctrl-C, only by its deadline.
}

void forget_group(pid_t group) {
  for (std::atomic<pid_t>& slot : g_running_groups) {
    pid_t mine = group;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

int open_output(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
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

/// The child's stdout and stderr: a pipe per log file (one when both go to the
/// same file, so that their lines stay in order), read all the time into a
/// CappedLog each.
class OutputStreams {
 public:
  OutputStreams() = default;
  OutputStreams(const OutputStreams&) = delete;
  OutputStreams& operator=(const OutputStreams&) = delete;
  ~OutputStreams() {
    for (Stream& stream : streams_) {
      close_fd(stream.read_fd);
      close_fd(stream.write_fd);
      close_fd(stream.file_fd);
    }
  }

  /// Creates the log files and the pipes; false with @p error set on failure.
  bool open(const ProcessSpec& spec, std::string* error) {
    streams_.resize(spec.stderr_path == spec.stdout_path ? 1 : 2);
    const std::string* paths[] = {&spec.stdout_path, &spec.stderr_path};
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      Stream& stream = streams_[i];
      stream.file_fd = open_output(*paths[i]);
      if (stream.file_fd < 0) {
        *error = std::string("cannot create the log file: ") + std::strerror(errno);
        return false;
      }
      int ends[2];
      if (::pipe2(ends, O_CLOEXEC) != 0) {
        *error = std::string("pipe failed: ") + std::strerror(errno);
        return false;
      }
      stream.read_fd = ends[0];
      stream.write_fd = ends[1];
      ::fcntl(stream.read_fd, F_SETFL, O_NONBLOCK);
      ::fcntl(stream.read_fd, F_SETPIPE_SZ, kPipeBytes);  // Best effort: the default 64 KiB works too.
      stream.log = std::make_unique<CappedLog>(stream.file_fd, kKeptOutputBytes, kKeptOutputBytes);
    }
    return true;
  }

  int stdout_fd() const { return streams_.front().write_fd; }
  int stderr_fd() const { return streams_.back().write_fd; }

  /// In the parent after fork(): only the child writes.
  void close_write_ends() {
    for (Stream& stream : streams_) close_fd(stream.write_fd);
  }

  /// Waits up to @p timeout_ms for output, then reads what is there (a bounded
  /// amount, so the caller gets back to its clock even during a flood).
  void drain(int timeout_ms) {
    pollfd fds[2];
    for (std::size_t i = 0; i < streams_.size(); ++i) fds[i] = {streams_[i].read_fd, POLLIN, 0};
    // Closed streams have fd -1, which poll() ignores: then it only sleeps.
    if (::poll(fds, static_cast<nfds_t>(streams_.size()), timeout_ms) <= 0) return;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      if (fds[i].revents != 0) read_some(streams_[i], kMaxReadsPerDrain);
    }
  }

  /// After the child's group is gone: reads what is left in the pipes (a
  /// pipe holds at most kPipeBytes, and a process that left the group must
  /// not keep the grader reading).
  void drain_rest() {
    for (Stream& stream : streams_) read_some(stream, kMaxReadsPerDrain);
  }

  /// Writes the logs' tails and adds the byte counts to @p outcome.
  void finish(ProcessOutcome* outcome) {
    for (Stream& stream : streams_) {
      close_fd(stream.read_fd);
      if (!stream.log) continue;
      stream.log->finish();
      outcome->output_bytes += stream.log->total_bytes();
      outcome->dropped_bytes += stream.log->dropped_bytes();
      stream.log.reset();
    }
  }

 private:
  struct Stream {
    int file_fd = -1;
    int read_fd = -1;
    int write_fd = -1;
    std::unique_ptr<CappedLog> log;
  };

  /// Reads until the pipe is empty, at its end, or after @p max_reads reads.
  static void read_some(Stream& stream, int max_reads) {
    static thread_local std::vector<char> buffer(kReadChunk);
    for (int reads = 0; stream.read_fd >= 0 && reads < max_reads; ++reads) {
      const ssize_t got = ::read(stream.read_fd, buffer.data(), buffer.size());
      if (got > 0) {
        stream.log->write(buffer.data(), static_cast<std::size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
        close_fd(stream.read_fd);  // End of output (or an error: stop reading).
      } else if (errno != EINTR) {
        return;  // Empty for now.
      }
    }
  }

  std::vector<Stream> streams_;
};

/// Watches a started child until it ends, @p deadline passes or @p should_stop
/// says so, draining its output all the while. Returns its wait status, or
/// sets @p outcome (timed_out, or an error) and returns -1.
int supervise(pid_t pid, Clock::time_point deadline, const StopCheck& should_stop, OutputStreams& output,
              ProcessOutcome* outcome) {
  auto next_check = Clock::now() + kPollInterval;
  for (;;) {
    output.drain(kPollIntervalMs);
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) {
      outcome->error = std::string("waitpid failed: ") + std::strerror(errno);
      kill_group(pid);
      return -1;
    }
    const auto now = Clock::now();
    bool stop = now >= deadline;
    if (!stop && now >= next_check) {
      next_check = now + kPollInterval;
      stop = should_stop && should_stop();
    }
    if (stop) {
      kill_group(pid);
      ::waitpid(pid, &status, 0);
      outcome->end = ProcessOutcome::End::timed_out;
      return -1;
    }
  }
}

}  // namespace

CappedLog::CappedLog(int fd, std::size_t head_bytes, std::size_t tail_bytes)
    : fd_(fd), head_bytes_(head_bytes), tail_bytes_(tail_bytes) {}

void CappedLog::append_to_file(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd_, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // A full disk loses log lines, never the grading.
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

void CappedLog::write(const char* data, std::size_t size) {
  if (total_ < head_bytes_) {
    const std::size_t head = std::min<std::uint64_t>(size, head_bytes_ - total_);
    append_to_file(data, head);
    if (head > 0) last_head_char_ = data[head - 1];
    data += head;
    size -= head;
    total_ += head;
  }
  total_ += size;
  if (size == 0 || tail_bytes_ == 0) return;
  if (tail_.empty()) tail_.resize(tail_bytes_);  // Only a program that writes more than the head pays for it.
  if (size >= tail_bytes_) {
    std::memcpy(tail_.data(), data + size - tail_bytes_, tail_bytes_);
    tail_at_ = 0;
    return;
  }
  const std::size_t first = std::min(size, tail_bytes_ - tail_at_);
  std::memcpy(tail_.data() + tail_at_, data, first);
  std::memcpy(tail_.data(), data + first, size - first);
  tail_at_ = (tail_at_ + size) % tail_bytes_;
}

std::uint64_t CappedLog::dropped_bytes() const {
  const std::uint64_t after_head = total_ > head_bytes_ ? total_ - head_bytes_ : 0;
  return after_head > tail_bytes_ ? after_head - tail_bytes_ : 0;
}

void CappedLog::finish() {
  const std::uint64_t after_head = total_ > head_bytes_ ? total_ - head_bytes_ : 0;
  if (after_head == 0) return;
  if (after_head <= tail_bytes_) {  // Nothing dropped, and the ring never wrapped.
    append_to_file(tail_.data(), static_cast<std::size_t>(after_head));
    return;
  }
  const std::string line = std::string(last_head_char_ == '\n' ? "" : "\n") +
                           "[workbook-grader: " + std::to_string(dropped_bytes()) +
                           " bytes of output dropped here; the log keeps the first " +
                           describe_bytes(head_bytes_) + " and the last " + describe_bytes(tail_bytes_) +
                           "]\n";
  append_to_file(line.data(), line.size());
  append_to_file(tail_.data() + tail_at_, tail_bytes_ - tail_at_);
  append_to_file(tail_.data(), tail_at_);
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path != nullptr ? path : "");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    const std::string candidate = folder + "/" + program;
    if (!folder.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string describe_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  const bool mebi = bytes >= (std::uint64_t{1} << 20);
  const double value = static_cast<double>(bytes) / (mebi ? 1024.0 * 1024.0 : 1024.0);
  char text[32];
  std::snprintf(text, sizeof text, std::fabs(value - std::round(value)) < 0.05 ? "%.0f %s" : "%.1f %s", value,
                mebi ? "MiB" : "KiB");
  return text;
}

namespace {

// In the child after fork(): setrlimit is a plain system call, safe there.
void apply_limit(int resource, std::uint64_t value) {
  if (value == 0) return;
  const rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

void apply_limits(const ResourceLimits& limits) {
  apply_limit(RLIMIT_DATA, limits.data_bytes);
  apply_limit(RLIMIT_FSIZE, limits.file_bytes);
  apply_limit(RLIMIT_CPU, limits.cpu_seconds);
  apply_limit(RLIMIT_NPROC, limits.processes);
}

/// A pids cgroup that caps a child's processes and threads where RLIMIT_NPROC
/// cannot: the kernel does not apply that limit to root. Made only when the
/// grader runs as root and the pids controller can be written to (cgroup v1's
/// pids hierarchy, or a cgroup v2 root that delegates pids); otherwise it is
/// not there, and the rlimit is the only cap. The child joins it between
/// fork() and exec() by writing "0" to its cgroup.procs (open before the fork:
/// the child may only make async-signal-safe calls), so everything it starts
/// is counted; it is removed when the child's group is gone.
class PidsCgroup {
 public:
  explicit PidsCgroup(std::uint64_t max_processes) {
    if (max_processes == 0 || ::geteuid() != 0) return;
    static std::atomic<int> made{0};
    const std::string name = "/workbook-" + std::to_string(::getpid()) + "-" + std::to_string(made++);
    for (const char* base : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
      const std::string dir = base + name;
      if (!delegates_pids(base) || ::mkdir(dir.c_str(), 0755) != 0) continue;
      if (write_file(dir + "/pids.max", std::to_string(max_processes))) {
        procs_fd_ = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
        if (procs_fd_ >= 0) {
          dir_ = dir;
          return;
        }
      }
      ::rmdir(dir.c_str());
    }
  }
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;
  ~PidsCgroup() {
    if (procs_fd_ >= 0) ::close(procs_fd_);
    // The group was killed; its last processes may take a moment to be reaped.
    for (int attempt = 0; !dir_.empty() && attempt < 50 && ::rmdir(dir_.c_str()) != 0 && errno == EBUSY;
         ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  /// In the child after fork(): moves it into the cgroup (async-signal-safe).
  void join() const {
    if (procs_fd_ < 0) return;
    ssize_t ignored = ::write(procs_fd_, "0", 1);
    (void)ignored;
  }

  /// The cgroup's folder, or empty when there is none.
  const std::string& dir() const { return dir_; }

 private:
  static bool delegates_pids(const std::string& base) {
    if (base == "/sys/fs/cgroup/pids") return ::access((base + "/cgroup.procs").c_str(), W_OK) == 0;  // v1
    std::ifstream control(base + "/cgroup.subtree_control");  // v2: the root must hand pids down
    std::string word;
    while (control >> word) {
      if (word == "pids") return true;
    }
    return false;
  }

  static bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text << std::flush;
    return static_cast<bool>(out);
  }

  std::string dir_;
  int procs_fd_ = -1;
};

}  // namespace

std::string pids_cgroup_probe(std::uint64_t max_processes) {
  const PidsCgroup probe(max_processes);
  return probe.dir();
}

ProcessOutcome run_process(const ProcessSpec& spec, Clock::time_point deadline,
                           const StopCheck& should_stop) {
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

  OutputStreams output;
  if (!output.open(spec, &outcome.error)) return outcome;
  // exec failure is reported through a close-on-exec pipe: EOF means exec worked.
  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0) {
    outcome.error = std::string("pipe failed: ") + std::strerror(errno);
    return outcome;
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

  const PidsCgroup pids(spec.limits.processes);
  const auto started = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    pids.join();
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGCHLD}) ::signal(sig, SIG_DFL);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(output.stdout_fd(), STDOUT_FILENO);
    ::dup2(output.stderr_fd(), STDERR_FILENO);
    apply_limits(spec.limits);
    ::execve(argv[0], argv.data(), envp.data());
    const int error = errno;
    ssize_t ignored = ::write(status_pipe[1], &error, sizeof error);
    (void)ignored;
    ::_exit(127);
  }
  ::close(status_pipe[1]);
  output.close_write_ends();
  if (null_fd >= 0) ::close(null_fd);
  if (pid < 0) {
    outcome.error = std::string("fork failed: ") + std::strerror(errno);
    ::close(status_pipe[0]);
    output.finish(&outcome);
    return outcome;
  }
  ::setpgid(pid, pid);  // Also here: whichever of parent and child runs first.
  remember_group(pid);

  int exec_error = 0;
  const ssize_t got = ::read(status_pipe[0], &exec_error, sizeof exec_error);
  ::close(status_pipe[0]);
  if (got == static_cast<ssize_t>(sizeof exec_error)) {
    ::waitpid(pid, nullptr, 0);
    forget_group(pid);
    output.finish(&outcome);
    outcome.error = "cannot run " + spec.argv[0] + ": " + std::strerror(exec_error);
    return outcome;
  }

  const int status = supervise(pid, deadline, should_stop, output, &outcome);
  kill_group(pid);  // Whatever the lab left running in its group.
  forget_group(pid);
  output.drain_rest();
  output.finish(&outcome);
  outcome.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (status < 0) return outcome;  // Timed out, or waitpid failed (outcome says which).
  if (WIFSIGNALED(status)) {
    outcome.end = ProcessOutcome::End::signaled;
    outcome.signal = WTERMSIG(status);
  } else if (spec.signal_in_exit_code && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG) {
    outcome.end = ProcessOutcome::End::signaled;  // bwrap's init passes on a death by signal N as 128 + N.
    outcome.signal = WEXITSTATUS(status) - 128;
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
  for (const std::atomic<pid_t>& slot : g_running_groups) {
    const pid_t group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
}

}  // namespace workbook::grader
