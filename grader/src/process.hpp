/// @file process.hpp
/// @brief Running one child process in its own process group, with its output
/// in files and a wall-clock deadline.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace workbook::grader {

/// @brief Clock of all deadlines.
using Clock = std::chrono::steady_clock;

/// @brief What to run.
struct ProcessSpec {
  std::vector<std::string> argv;                         ///< argv[0] is the program path.
  std::vector<std::pair<std::string, std::string>> env;  ///< Set on top of the grader's environment.
  std::string stdout_path;                               ///< File for stdout (appended).
  std::string stderr_path;  ///< File for stderr (appended); may equal stdout_path.
};

/// @brief How a child process ended.
struct ProcessOutcome {
  enum class End { exited, signaled, timed_out, failed_to_start };
  End end = End::failed_to_start;  ///< Which way it ended.
  int exit_code = 0;               ///< When exited.
  int signal = 0;                  ///< When signaled.
  std::string error;               ///< When failed_to_start: why.
  double seconds = 0;              ///< Wall-clock time it ran.
};

/// @brief Runs a process to completion or until @p deadline, whichever comes
/// first. The child gets its own process group; on timeout the whole group is
/// killed with SIGKILL (a hung kernel ignores politer signals), and after a
/// normal end any processes it left behind in its group are killed too.
/// @param[in] spec What to run.
/// @param[in] deadline When to give up.
/// @param[in] on_tick Called about every 100 ms while it runs (may be empty).
/// @return How it ended.
ProcessOutcome run_process(const ProcessSpec& spec, Clock::time_point deadline,
                           const std::function<void()>& on_tick);

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

/// @brief Kills the process group of the child that is running now, if any.
/// Async-signal-safe: for the grader's SIGINT/SIGTERM handler, so a Ctrl-C does
/// not leave a hung lab running on the GPU.
void kill_running_child();

}  // namespace workbook::grader
