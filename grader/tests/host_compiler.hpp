/// @file host_compiler.hpp
/// @brief Compiling a tiny C++ file into an object with the host compiler,
/// for the tests of the calls of the compiled file (call_checks.hpp), which
/// need real objects but no GPU.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "process.hpp"

namespace workbook::grader::test_tree {

/// @brief The host compiler: the build's (WORKBOOK_HOST_CXX), else c++ on PATH.
/// @return Its path, or empty when there is none.
inline std::string host_compiler() {
#ifdef WORKBOOK_HOST_CXX
  if (std::filesystem::exists(WORKBOOK_HOST_CXX)) return WORKBOOK_HOST_CXX;
#endif
  return find_on_path("c++");
}

/// @brief Compiles @p source (C++17, -O2) into @p dir / (@p name + ".o").
/// @param[in] dir An existing folder.
/// @param[in] name The file's name without extension.
/// @param[in] source Its text.
/// @param[out] object The object's path.
/// @return Empty on success, else what went wrong (the compiler's last lines).
inline std::string compile_object(const std::filesystem::path& dir, const std::string& name,
                                  const std::string& source, std::string& object) {
  const std::string compiler = host_compiler();
  if (compiler.empty()) return "no host compiler (WORKBOOK_HOST_CXX, c++ on PATH)";
  const std::filesystem::path cpp = dir / (name + ".cpp");
  std::ofstream(cpp) << source;
  object = (dir / (name + ".o")).string();
  ProcessSpec spec;
  spec.argv = {compiler, "-std=c++17", "-O2", "-c", cpp.string(), "-o", object};
  spec.stdout_path = (dir / (name + ".log")).string();
  spec.stderr_path = spec.stdout_path;
  const ProcessOutcome outcome = run_process(spec, Clock::now() + std::chrono::seconds(120), {});
  if (outcome.end == ProcessOutcome::End::exited && outcome.exit_code == 0) return "";
  return compiler + " " + describe_outcome(outcome) + ":\n" + tail_lines(spec.stdout_path, 20);
}

}  // namespace workbook::grader::test_tree
