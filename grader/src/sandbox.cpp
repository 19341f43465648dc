#include "sandbox.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iterator>

namespace workbook::grader {
namespace {

// Folders of the system a test program needs (libraries, the CUDA driver and
// toolkit, the compiler's runtime under /opt, device information in /sys),
// all read-only. Home folders, /root, /srv, /mnt and /tmp are not among them.
const char* const kSystemFolders[] = {"/usr",  "/lib", "/lib64", "/lib32", "/bin",
                                      "/sbin", "/etc", "/opt",   "/sys"};

/// The GPU's device nodes (/dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm, ...):
/// the sandbox's own /dev has none of them.
std::vector<std::string> gpu_device_nodes() {
  std::vector<std::string> nodes;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0 || name == "dri") nodes.push_back(entry.path().string());
  }
  return nodes;
}

/// Whether @p path lies under one of the system folders (which the sandbox
/// shows read-only at the same paths).
bool under_a_system_folder(const std::string& path) {
  return std::any_of(std::begin(kSystemFolders), std::end(kSystemFolders),
                     [&](const char* folder) { return path.rfind(std::string(folder) + "/", 0) == 0; });
}

}  // namespace

std::string find_sandbox_tool() {
  if (const char* chosen = std::getenv("WORKBOOK_SANDBOX_TOOL"); chosen != nullptr && *chosen != '\0')
    return ::access(chosen, X_OK) == 0 ? chosen : "";
  return find_on_path("bwrap");
}

std::vector<std::string> sandbox_command(const SandboxPaths& paths) {
  std::vector<std::string> argv = {find_sandbox_tool(), "--die-with-parent", "--unshare-pid",
                                   "--unshare-net",     "--unshare-ipc",     "--unshare-uts"};
  for (const char* folder : kSystemFolders) argv.insert(argv.end(), {"--ro-bind-try", folder, folder});
  argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev"});
  for (const std::string& node : gpu_device_nodes()) argv.insert(argv.end(), {"--dev-bind", node, node});
  // A private /tmp first: the binds below may lie inside it.
  argv.insert(argv.end(), {"--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"});
  for (const std::string& path : paths.read_only) {
    std::error_code error;
    const std::filesystem::path real = std::filesystem::canonical(path, error);
    // Shown by a system folder both as given and with its symlinks followed
    // (compute-sanitizer under /usr/local/cuda, say): no bind of its own, and
    // none may be made, since bwrap resolves a destination's parents inside
    // the half-built sandbox, where an absolute symlink among them
    // (/usr/local/cuda -> /usr/local/cuda-13.0) points nowhere ("Can't mkdir
    // parents").
    if (!error && under_a_system_folder(path) && under_a_system_folder(real.string())) continue;
    // The real file at the path the program was given (a symlink's name is kept).
    argv.insert(argv.end(), {"--ro-bind", error ? path : real.string(), path});
  }
  for (const std::string& path : paths.writable) argv.insert(argv.end(), {"--bind", path, path});
  if (!paths.writable.empty()) argv.insert(argv.end(), {"--chdir", paths.writable.front()});
  argv.push_back("--");
  return argv;
}

std::string sandbox_unavailable_reason() {
  static const std::string reason = [] {
    const std::string tool = find_sandbox_tool();
    if (tool.empty()) {
      return std::string(
          "the sandbox needs bubblewrap (bwrap), which is not installed: run ./workbook setup, or "
          "sudo apt-get install bubblewrap");
    }
    ProcessSpec probe;
    probe.argv = sandbox_command({});
    probe.argv.push_back("/bin/true");
    probe.stdout_path = "/dev/null";
    probe.stderr_path = "/dev/null";
    const ProcessOutcome outcome = run_process(probe, Clock::now() + std::chrono::seconds(20), {});
    if (outcome.end == ProcessOutcome::End::exited && outcome.exit_code == 0) return std::string();
    return "bwrap (" + tool + ") could not make its sandbox here (it " + describe_outcome(outcome) +
           "); user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1)";
  }();
  return reason;
}

ResourceLimits sandbox_limits() {
  ResourceLimits limits;
  limits.data_bytes = kSandboxDataBytes;
  limits.file_bytes = kSandboxFileBytes;
  limits.cpu_seconds = kSandboxCpuSeconds;
  limits.processes = kSandboxProcesses;
  return limits;
}

std::string describe_limit_signal(int signal) {
  if (signal == SIGXFSZ)
    return "the sandbox's limit on the size of a file (" + describe_bytes(kSandboxFileBytes) + ")";
  if (signal == SIGXCPU)
    return "the sandbox's limit on CPU time (" + std::to_string(kSandboxCpuSeconds) + " s per test program)";
  return "";
}

std::string explain_sandbox_failure(const std::string& message) {
  if (message.find("std::bad_alloc") != std::string::npos) {
    return "the sandbox lets a test program allocate at most " + std::to_string(kSandboxDataBytes >> 30) +
           " GiB of host memory, and this test was refused more: allocate only what the lab needs";
  }
  if (message.find("Resource temporarily unavailable") != std::string::npos) {
    return "the sandbox lets a test program run at most " + std::to_string(kSandboxProcesses) +
           " processes and threads at once: start none of your own";
  }
  return "";
}

}  // namespace workbook::grader
