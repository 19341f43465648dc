/// @file sandbox.hpp
/// @brief The sandbox a test program runs in with `--sandbox`: bubblewrap
/// (bwrap) with a read-only view of the system, nothing of the grader's or
/// other students' files but what the run needs, a private /tmp, no network,
/// its own PID namespace, and resource limits set before it starts.
#pragma once

#include <string>
#include <vector>

#include "process.hpp"

namespace workbook::grader {

/// @brief What a sandboxed program may see besides the system folders.
struct SandboxPaths {
  std::vector<std::string> read_only;  ///< Files or folders visible read-only, at the same paths.
  std::vector<std::string> writable;   ///< Folders it may write (its results and logs folder).
};

/// @brief The sandbox tool: WORKBOOK_SANDBOX_TOOL when set, else bwrap on the
/// PATH; empty when there is none.
/// @return Its path.
std::string find_sandbox_tool();

/// @brief Why sandboxed runs cannot work here, or empty when they can: no
/// bwrap, or a bwrap that cannot make its namespaces (tried once, then
/// remembered).
/// @return One line for the user, naming what to install or enable.
std::string sandbox_unavailable_reason();

/// @brief The command that runs a program in the sandbox: bwrap and its
/// options, ending with "--"; append the program's argv.
/// @param[in] paths What the program may read and write.
/// @return argv to put before the program's.
std::vector<std::string> sandbox_command(const SandboxPaths& paths);

/// @brief The limits a sandboxed test program runs under (kSandbox* below).
/// @return The limits.
ResourceLimits sandbox_limits();

/// @brief Host memory a test program may allocate (RLIMIT_DATA; the address
/// space itself is left alone, because CUDA reserves terabytes of it).
constexpr std::uint64_t kSandboxDataBytes = std::uint64_t{64} << 30;
/// @brief Largest file a test program may write (RLIMIT_FSIZE).
constexpr std::uint64_t kSandboxFileBytes = std::uint64_t{1} << 30;
/// @brief CPU seconds a test program may use (RLIMIT_CPU), per process.
constexpr std::uint64_t kSandboxCpuSeconds = 3600;
/// @brief Processes and threads at once (RLIMIT_NPROC): stops a fork bomb long
/// before the machine's pid_max. Since Linux 5.14 they are counted in the
/// sandbox's own user namespace (bwrap makes one when it runs unprivileged);
/// before that, across all the grading user's processes, hence the room. Not
/// applied to root, which the kernel exempts.
constexpr std::uint64_t kSandboxProcesses = 4096;

/// @brief What a resource limit's signal means, for a crashed test's message,
/// e.g. "the sandbox's limit on file size (1 GiB)"; empty for other signals.
/// @param[in] signal The signal that ended the program.
/// @return The phrase, or empty.
std::string describe_limit_signal(int signal);

/// @brief Which sandbox limit a failed test's message points at: a
/// std::bad_alloc (the memory limit) or "Resource temporarily unavailable"
/// (a thread or process refused by the process limit), as a note for the
/// student; empty when it points at none.
/// @param[in] message The failed test's message.
/// @return The note, or empty.
std::string explain_sandbox_failure(const std::string& message);

}  // namespace workbook::grader
