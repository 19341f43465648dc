#include "call_checks.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "process.hpp"
#include "source_checks.hpp"

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;

// nm lists a lab's library in well under a second; a minute means something is wrong.
constexpr auto kNmTimeout = std::chrono::seconds(60);

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// The reason of the forbidden_everywhere() group that lists @p name, so that
/// a call and its spelling in the source are refused with one explanation.
std::string group_why(const std::string& name) {
  for (const ForbiddenGroup& group : forbidden_everywhere()) {
    if (std::find(group.names.begin(), group.names.end(), name) != group.names.end()) return group.why;
  }
  throw std::logic_error("no group of forbidden_everywhere() lists '" + name + "'");
}

// The list an instructor reads and extends (grader/README.md shows it too):
// {callee, what it does, the name whose group's reason applies}.
std::vector<ForbiddenCallee> make_forbidden_callees() {
  struct Entry {
    const char* name;
    const char* what;
    const char* reason_of;
  };
  const char* const kThread = "it starts a thread";
  const char* const kCallback = "it runs a host function from a stream";
  const char* const kHostNode = "it puts a host function into a graph";
  const char* const kDriver = "it reaches any driver function by name, host callbacks included";
  const char* const kByName = "it reaches a function by name";
  const char* const kProcess = "it starts a process";
  const char* const kProgram = "it starts another program";
  const Entry entries[] = {
      {"pthread_create", kThread, "pthread_create"},
      {"thrd_create", kThread, "thrd_create"},
      {"std::thread::_M_start_thread", "it starts a thread: std::thread, std::jthread and std::async call it",
       "jthread"},
      {"timer_create", "its timer can run a function in a thread of its own", "timer_create"},
      {"cudaLaunchHostFunc", kCallback, "cudaLaunchHostFunc"},
      {"cudaStreamAddCallback", kCallback, "cudaStreamAddCallback"},
      {"cuLaunchHostFunc", kCallback, "cuLaunchHostFunc"},
      {"cudaGraphAddHostNode", kHostNode, "cudaGraphAddHostNode"},
      {"cudaGraphHostNodeSetParams", kHostNode, "cudaGraphHostNodeSetParams"},
      {"cudaGraphExecHostNodeSetParams", kHostNode, "cudaGraphExecHostNodeSetParams"},
      {"cudaUserObjectCreate", "it registers a host function that CUDA calls later", "cudaUserObjectCreate"},
      {"cudaGetDriverEntryPoint", kDriver, "cudaGetDriverEntryPoint"},
      {"cudaGetDriverEntryPointByVersion", kDriver, "cudaGetDriverEntryPointByVersion"},
      {"cuGetProcAddress", kDriver, "cuGetProcAddress"},
      {"dlopen", "it loads a library", "dlopen"},
      {"dlmopen", "it loads a library", "dlmopen"},
      {"dlsym", kByName, "dlsym"},
      {"dlvsym", kByName, "dlvsym"},
      {"fork", kProcess, "fork"},
      {"_Fork", kProcess, "fork"},
      {"vfork", kProcess, "vfork"},
      {"clone", kProcess, "clone"},
      {"clone3", kProcess, "clone"},
      {"system", kProgram, "system"},
      {"popen", kProgram, "popen"},
      {"posix_spawn", kProgram, "posix_spawn"},
      {"posix_spawnp", kProgram, "posix_spawnp"},
      {"execl", kProgram, "execl"},
      {"execle", kProgram, "execle"},
      {"execlp", kProgram, "execlp"},
      {"execv", kProgram, "execv"},
      {"execve", kProgram, "execve"},
      {"execvp", kProgram, "execvp"},
      {"execvpe", kProgram, "execvpe"},
      {"execveat", kProgram, "execveat"},
      {"fexecve", kProgram, "fexecve"},
      {"cudaDeviceSetLimit",
       "it changes a limit of the whole device, such as the L2 cache's persisting carve-out",
       "cudaDeviceSetLimit"},
      {"cudaCtxResetPersistingL2Cache", "it resets the L2 cache's persisting lines",
       "cudaCtxResetPersistingL2Cache"},
      {"cudaStreamSetAttribute", "it sets a stream attribute, such as an L2 access policy window",
       "cudaStreamSetAttribute"},
      {"cudaGraphKernelNodeSetAttribute",
       "it sets a kernel node attribute, such as an L2 access policy window",
       "cudaGraphKernelNodeSetAttribute"},
      {"cudaDeviceSetCacheConfig", "it changes the device's cache configuration", "cudaDeviceSetCacheConfig"},
      {"cudaDeviceSetSharedMemConfig", "it changes the device's shared memory configuration",
       "cudaDeviceSetSharedMemConfig"},
  };
  std::vector<ForbiddenCallee> callees;
  for (const Entry& entry : entries) callees.push_back({entry.name, entry.what, group_why(entry.reason_of)});
  return callees;
}

/// Removes one suffix that the CUDA headers add to a function's name
/// (cudaLaunchHostFunc_ptsz, cuGetProcAddress_v2); false when there is none.
bool remove_cuda_suffix(std::string& name) {
  for (const char* suffix : {"_ptsz", "_ptds"}) {
    if (ends_with(name, suffix)) {
      name.resize(name.size() - std::string_view(suffix).size());
      return true;
    }
  }
  std::size_t digits = name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1])) != 0) --digits;
  if (digits < name.size() && digits >= 2 && name.compare(digits - 2, 2, "_v") == 0) {
    name.resize(digits - 2);
    return true;
  }
  return false;
}

/// What nm printed, or why it could not list the calls.
struct NmListing {
  std::vector<std::string> symbols;
  std::string problem;  ///< Empty when nm listed them.
};

/// Runs nm on the library, its output in files of @p work_dir.
NmListing run_nm(const std::string& nm, const std::string& library, const std::string& work_dir) {
  ProcessSpec spec;
  spec.argv = {nm, "--undefined-only", "--demangle", "--format=bsd", library};
  spec.env = {{"LC_ALL", "C"}};
  spec.stdout_path = work_dir + "/calls.nm";
  spec.stderr_path = spec.stdout_path + ".err";
  std::error_code error;
  fs::remove(spec.stdout_path, error);  // The logs are appended to.
  fs::remove(spec.stderr_path, error);
  const ProcessOutcome outcome = run_process(spec, Clock::now() + kNmTimeout, {});
  NmListing listing;
  if (outcome.end != ProcessOutcome::End::exited || outcome.exit_code != 0) {
    const std::string said = tail_lines(spec.stderr_path, 3);
    listing.problem = "nm " + describe_outcome(outcome) + (said.empty() ? "" : ": " + said);
  } else if (outcome.dropped_bytes > 0) {
    // What the log dropped could hide a call.
    listing.problem = "nm printed " + describe_bytes(outcome.output_bytes) + ", more than the grader keeps";
  } else {
    listing.symbols = parse_undefined_symbols(read_text_file(spec.stdout_path));
  }
  return listing;
}

}  // namespace

const std::vector<ForbiddenCallee>& forbidden_callees() {
  static const std::vector<ForbiddenCallee> callees = make_forbidden_callees();
  return callees;
}

std::vector<std::string> parse_undefined_symbols(std::string_view output) {
  std::vector<std::string> symbols;
  std::istringstream lines{std::string(output)};
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || at + 2 >= line.size() || line[at + 1] != ' ') continue;
    if (line[at] != 'U' && line[at] != 'w' && line[at] != 'v') continue;
    at = line.find_first_not_of(' ', at + 2);
    if (at != std::string::npos) symbols.push_back(line.substr(at));
  }
  return symbols;
}

std::string callee_name(std::string_view symbol) {
  std::string name(symbol.substr(0, symbol.find('@')));
  name = name.substr(0, name.find('('));
  if (starts_with(name, "cu")) {
    while (remove_cuda_suffix(name)) {
    }
  }
  return name;
}

const ForbiddenCallee* find_forbidden_callee(std::string_view symbol) {
  const std::string name = callee_name(symbol);
  for (const ForbiddenCallee& callee : forbidden_callees()) {
    if (callee.name == name) return &callee;
  }
  return nullptr;
}

std::vector<CallViolation> find_forbidden_calls(const std::vector<std::string>& symbols) {
  std::vector<CallViolation> calls;
  std::set<const ForbiddenCallee*> seen;
  for (const std::string& symbol : symbols) {
    const ForbiddenCallee* callee = find_forbidden_callee(symbol);
    if (callee != nullptr && seen.insert(callee).second) calls.push_back({symbol, callee});
  }
  return calls;
}

std::string call_refusal(const std::string& file, bool solutions, const std::vector<CallViolation>& calls) {
  std::string text = solutions
                         ? "the reference solution " + file +
                               " calls what no student file may call (a bug in the solution), so the "
                               "lab scores 0 and its tests were not run:"
                         : file +
                               " calls what no student file may call, so the lab scores 0 and its tests "
                               "were not run. Remove what calls each of these and grade again:";
  for (const CallViolation& call : calls) {
    text +=
        "\n- " + file + " calls " + call.callee->name + " (" + call.callee->what + "). " + call.callee->why;
  }
  return text;
}

std::string lab_library(const LabEntry& lab, bool solutions) {
  return solutions ? lab.solution_library : lab.student_library;
}

CallCheck check_compiled_calls(const std::string& library, const std::string& file, bool solutions,
                               const std::string& work_dir) {
  if (library.empty()) return {};
  const std::string nm = find_on_path("nm");
  if (nm.empty()) {
    return {"", "the calls of the compiled " + file +
                    " were not checked: there is no nm on PATH (install binutils); the name check and the "
                    "speed harness's checks still ran"};
  }
  std::error_code error;
  if (!fs::is_regular_file(library, error)) {
    return {"the grader cannot find " + library + ", the compiled " + file +
                ", to check its calls, so the lab scores 0 and its tests were not run; run ./workbook grade, "
                "which builds it",
            ""};
  }
  const NmListing listing = run_nm(nm, library, work_dir);
  if (!listing.problem.empty()) {
    return {"the grader could not list the calls of " + library + ", the compiled " + file + " (" +
                listing.problem + "), so the lab scores 0 and its tests were not run",
            ""};
  }
  const std::vector<CallViolation> calls = find_forbidden_calls(listing.symbols);
  return {calls.empty() ? "" : call_refusal(file, solutions, calls), ""};
}

}  // namespace workbook::grader
