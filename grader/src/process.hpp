/// @file process.hpp
/// @brief Running one child process in its own process group, with its output
/// in capped log files and a wall-clock deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::grader {

/// @brief Clock of all deadlines.
using Clock = std::chrono::steady_clock;

/// @brief Bytes of a process's output kept at each end of its log: the first
/// and the last kKeptOutputBytes of each stream are stored, the middle of a
/// flood is read and dropped (one line says how much).
constexpr std::size_t kKeptOutputBytes = std::size_t{1} << 20;

/// @brief A log file that keeps only the first and the last bytes written to
/// it: the head goes to the file as it comes, the tail is held in memory and
/// written by finish(), after a line saying how many bytes were dropped
/// between them. The caller keeps reading its pipe however much is dropped,
/// so the writer never blocks on a full pipe.
class CappedLog {
 public:
  /// @param[in] fd The open log file (not owned; appended to).
  /// @param[in] head_bytes Bytes kept from the start.
  /// @param[in] tail_bytes Bytes kept from the end.
  CappedLog(int fd, std::size_t head_bytes, std::size_t tail_bytes);

  /// @brief Takes more output.
  /// @param[in] data The bytes.
  /// @param[in] size How many.
  void write(const char* data, std::size_t size);

  /// @brief Writes the "dropped" line (when bytes were dropped) and the kept
  /// tail. Call once, after the last write().
  void finish();

  /// @brief Bytes taken so far.
  /// @return The count.
  std::uint64_t total_bytes() const { return total_; }

  /// @brief Bytes not kept (known for sure after the last write()).
  /// @return The count.
  std::uint64_t dropped_bytes() const;

 private:
  void append_to_file(const char* data, std::size_t size);

  int fd_;
  std::size_t head_bytes_;
  std::size_t tail_bytes_;
  std::vector<char> tail_;   // A ring of the last bytes after the head.
  std::size_t tail_at_ = 0;  // Where the next byte goes in the ring.
  std::uint64_t total_ = 0;
  char last_head_char_ = '\n';
};

/// @brief The first executable file named @p program in the folders of PATH.
/// @param[in] program A file name, e.g. "bwrap".
/// @return Its path, or empty when there is none.
std::string find_on_path(const std::string& program);

/// @brief A byte count for people: "512 bytes", "1 MiB", "62.5 MiB".
/// @param[in] bytes The count.
/// @return The text.
std::string describe_bytes(std::uint64_t bytes);

/// @brief Resource limits set in the child before it starts (setrlimit); 0
/// leaves a limit as the grader's own.
struct ResourceLimits {
  std::uint64_t data_bytes = 0;   ///< RLIMIT_DATA: host memory it may allocate.
  std::uint64_t file_bytes = 0;   ///< RLIMIT_FSIZE: largest file it may write (then SIGXFSZ).
  std::uint64_t cpu_seconds = 0;  ///< RLIMIT_CPU: CPU time (then SIGXCPU).
  /// RLIMIT_NPROC: processes and threads at once (then fork fails with EAGAIN).
  /// The kernel does not apply it to root; for a root grader the same number
  /// is set as the pids.max of a cgroup of the child's own, where one can be
  /// made (see pids_cgroup_probe()).
  std::uint64_t processes = 0;
};

/// @brief Whether a pids cgroup can cap a child's processes here: makes one
/// with @p max_processes and removes it again.
/// @param[in] max_processes Its pids.max.
/// @return The folder it had, or empty when none can be made (not root, or
/// no writable pids controller).
std::string pids_cgroup_probe(std::uint64_t max_processes);

/// @brief What to run.
struct ProcessSpec {
  std::vector<std::string> argv;                         ///< argv[0] is the program path.
  std::vector<std::pair<std::string, std::string>> env;  ///< Set on top of the grader's environment.
  std::string stdout_path;  ///< File for stdout (appended; at most 2 x kKeptOutputBytes of it kept).
  std::string stderr_path;  ///< File for stderr (likewise); may equal stdout_path (one stream, one cap).
  ResourceLimits limits;    ///< Set in the child before exec.
  /// The program is a launcher (bwrap) that exits with 128 + N when what it
  /// ran was killed by signal N: report that as the signal.
  bool signal_in_exit_code = false;
};

/// @brief How a child process ended.
struct ProcessOutcome {
  enum class End { exited, signaled, timed_out, failed_to_start };
  End end = End::failed_to_start;   ///< Which way it ended.
  int exit_code = 0;                ///< When exited.
  int signal = 0;                   ///< When signaled.
  std::string error;                ///< When failed_to_start: why.
  double seconds = 0;               ///< Wall-clock time it ran.
  std::uint64_t output_bytes = 0;   ///< Bytes it wrote to stdout and stderr.
  std::uint64_t dropped_bytes = 0;  ///< Of those, bytes not kept in the logs (see CappedLog).
};

/// @brief Decides, while a child runs, whether to stop it now (a test over its
/// time limit). Returns true to stop it.
using StopCheck = std::function<bool()>;

/// @brief Runs a process to completion, until @p deadline, or until
/// @p should_stop says so, whichever comes first. The child gets its own
/// process group; when stopped, the whole group is killed with SIGKILL (a hung
/// kernel ignores politer signals), and after a normal end any processes it
/// left behind in its group are killed too. Its output comes through pipes
/// that are drained all the time and kept in capped logs (CappedLog), so a
/// flood neither blocks it nor fills the disk.
/// @param[in] spec What to run.
/// @param[in] deadline When to give up.
/// @param[in] should_stop Asked about every 20 ms while it runs (may be empty).
/// @return How it ended: timed_out when the deadline passed or @p should_stop said so.
ProcessOutcome run_process(const ProcessSpec& spec, Clock::time_point deadline, const StopCheck& should_stop);

/// @brief A signal's name and meaning, e.g. "SIGSEGV (segmentation fault)".
/// @param[in] signal The signal number.
/// @return Its description.
std::string describe_signal(int signal);

/// @brief Describes how a process ended in words, e.g. "was killed by signal
/// SIGSEGV (segmentation fault)" or "exited with code 3".
/// @param[in] outcome The outcome.
/// @return The phrase (no subject).
std::string describe_outcome(const ProcessOutcome& outcome);

/// @brief The last @p count lines of a text file (empty when unreadable).
/// @param[in] path The file.
/// @param[in] count How many lines.
/// @return The lines, joined by '\n'.
std::string tail_lines(const std::string& path, std::size_t count);

/// @brief Reads a whole file.
/// @param[in] path The file.
/// @return Its contents, or an empty string when it cannot be read.
std::string read_text_file(const std::string& path);

/// @brief Kills the process groups of the children running now, if any.
/// Async-signal-safe: for the grader's SIGINT/SIGTERM handler, so a Ctrl-C does
/// not leave a hung lab running on the GPU.
void kill_running_child();

}  // namespace workbook::grader
