/// @file call_checks.hpp
/// @brief The calls of the compiled file: refusing a lab whose compiled
/// student file calls a library function that starts a thread, a host
/// callback or a process, reaches functions by name, or changes a setting of
/// the whole GPU. The name check (source_checks.hpp) reads text; the object
/// file lists exactly which functions it calls, whatever macro, alias or
/// template spelled them. It asks `nm --undefined-only --demangle`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "manifest.hpp"

namespace workbook::grader {

/// @brief A library function that no compiled student file may call.
struct ForbiddenCallee {
  std::string name;  ///< Its C name or qualified C++ name: "pthread_create", "std::thread::_M_start_thread".
  std::string what;  ///< What it does, for the message: "it starts a thread".
  std::string why;   ///< The reason for the student (a group's of forbidden_everywhere()).
};

/// @brief One call of a forbidden function.
struct CallViolation {
  std::string symbol;                       ///< The undefined symbol as nm demangles it.
  const ForbiddenCallee* callee = nullptr;  ///< What it is.
};

/// @brief What the stage found.
struct CallCheck {
  std::string refusal;  ///< Empty when the lab may be graded; else why not, for refused_run().
  std::string note;     ///< Why the calls were not checked (no nm here), for the report; else empty.
};

/// @brief The functions no compiled student file may call: thread starters
/// (std::thread, std::jthread and std::async(std::launch::async) all call
/// std::thread::_M_start_thread in libstdc++), host callbacks, driver entry
/// points, dlopen/dlsym, process starters, and device-wide settings. Each
/// reason is the one of the forbidden_everywhere() group that lists the name
/// (or its source-level spelling), so the student reads one explanation.
/// @return The list, in the order grader/README.md shows it.
const std::vector<ForbiddenCallee>& forbidden_callees();

/// @brief The undefined symbols of nm's output: every line " U name" (and
/// " w name", " v name": weak references, which a file calls as well), the
/// name taken whole (a demangled name has spaces). Other lines (archive
/// member headers "x.o:", blank lines, defined symbols) are skipped.
/// @param[in] output What `nm --undefined-only --demangle` printed.
/// @return The names, in order.
std::vector<std::string> parse_undefined_symbols(std::string_view output);

/// @brief The function a symbol names, for matching: without a glibc version
/// ("pthread_create@GLIBC_2.34", "@@..."), without the parameter list of a
/// demangled C++ name ("std::thread::_M_start_thread(...)"), and for a CUDA
/// name (cu...) without the suffixes its headers add (_ptsz, _ptds, _v2).
/// @param[in] symbol A symbol as nm prints it.
/// @return The bare name.
std::string callee_name(std::string_view symbol);

/// @brief The forbidden function that @p symbol calls, or nullptr.
/// @param[in] symbol A symbol as nm prints it.
/// @return Its entry of forbidden_callees(), or nullptr.
const ForbiddenCallee* find_forbidden_callee(std::string_view symbol);

/// @brief Every symbol of @p symbols that calls a forbidden function, once
/// each, in order.
/// @param[in] symbols Undefined symbols (parse_undefined_symbols()).
/// @return The calls.
std::vector<CallViolation> find_forbidden_calls(const std::vector<std::string>& symbols);

/// @brief The refusal: a first line saying that the lab scores 0 and its tests
/// were not run, then one line per call: "- <file> calls <name> (<what>). <why>".
/// @param[in] file The graded file, relative to the source tree.
/// @param[in] solutions Whether it is the reference solution (a bug in it).
/// @param[in] calls The calls, not empty.
/// @return The text, no final newline.
std::string call_refusal(const std::string& file, bool solutions, const std::vector<CallViolation>& calls);

/// @brief The compiled library of the graded file: the manifest's
/// solution_library with @p solutions, else its student_library.
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded.
/// @return Its path; empty when the manifest names none.
std::string lab_library(const LabEntry& lab, bool solutions);

/// @brief Checks the calls of a compiled file: runs `nm --undefined-only
/// --demangle` (nm found on PATH) on @p library, with its output in
/// @p work_dir, and refuses the lab when it calls a forbidden function.
/// @param[in] library A static library or object file; empty skips the stage
/// (old manifests and fake labs name none).
/// @param[in] file The graded file, relative to the source tree, for messages.
/// @param[in] solutions Whether it is the reference solution.
/// @param[in] work_dir An existing folder for nm's output.
/// @return A refusal when it calls a forbidden function, or when nm cannot
/// list its calls (the library is missing, nm fails, its list is too long to
/// keep); a note and no refusal when there is no nm here.
CallCheck check_compiled_calls(const std::string& library, const std::string& file, bool solutions,
                               const std::string& work_dir);

}  // namespace workbook::grader
