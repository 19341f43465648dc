/// @file source_checks.hpp
/// @brief The forbidden-names stage: refusing a lab whose source uses a name
/// its rubric forbids (e.g. cub:: in a lab timed against CUB), or what no
/// student file may use in any lab (exit, fopen, getenv, system, the test
/// harness: what could end the tests early or write their results). Comments
/// and string and character literals are stripped first, so that only code
/// counts, and names are matched as whole identifier tokens.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "manifest.hpp"
#include "rubric.hpp"

namespace workbook::grader {

/// @brief How an #include names its header.
enum class IncludeForm {
  angled,   ///< #include <path>
  quoted,   ///< #include "path"
  computed  ///< #include MACRO: the path is not written out
};

/// @brief One #include (or #include_next, #import) directive.
struct IncludeDirective {
  std::size_t line = 0;                    ///< 1-based line of the original text.
  std::string directive;                   ///< "include", "include_next" or "import".
  std::string path;                        ///< What is between <> or "", or the macro text.
  IncludeForm form = IncludeForm::angled;  ///< How the path is given.
};

/// @brief One string literal of a source ("...", u8"...", R"d(...)d").
struct StringLiteral {
  std::size_t at = 0;    ///< Where it starts in StrippedSource::code (its prefix, if any).
  std::size_t end = 0;   ///< Just past its end in StrippedSource::code.
  std::size_t line = 0;  ///< 1-based line of the original text where it starts.
  std::string body;      ///< What is between the quotes (raw: between the parentheses), escapes as written.
};

/// @brief A source file reduced to its code.
struct StrippedSource {
  /// The text after line splicing (a backslash before a newline joins the
  /// lines), with comments, string and character literals and the paths of
  /// #include directives replaced by spaces; newlines are kept.
  std::string code;
  std::vector<std::size_t> lines;          ///< lines[i]: the 1-based original line of code[i].
  std::vector<IncludeDirective> includes;  ///< Every #include, in order, with its path.
  std::vector<StringLiteral> literals;     ///< Every string literal (blanked in code), in order.
};

/// @brief Who forbids what a violation uses.
enum class ForbiddenBy {
  lab,    ///< The lab's rubric ("forbidden"): "cub" in a lab timed against CUB.
  grader  ///< The grader, in every lab's student files: forbidden_everywhere(), ##, computed #include.
};

/// @brief One use of something forbidden.
struct SourceViolation {
  std::string file;      ///< The file, relative to the source tree; empty from find_violations().
  std::size_t line = 0;  ///< 1-based line.
  std::string name;      ///< The forbidden name ("cub"), or "##", or "computed #include".
  std::string found;     ///< What the source has: "cub::DeviceScan::ExclusiveSum", "#include <cub/cub.cuh>".
  std::string why;       ///< The rubric's reason, or the grader's.
  ForbiddenBy by = ForbiddenBy::lab;  ///< The lab's rubric or the grader.
};

/// @brief One group of what no student file may use, in any lab, with the
/// reason and what to do. See forbidden_everywhere().
struct ForbiddenGroup {
  std::string why;  ///< One line for the student: why it is refused, and what to do.
  /// Identifiers, matched as whole tokens except as members (x.open(), p->close()),
  /// also in their library spellings (__builtin_exit, __open64_2, open64, __environ)
  /// and inside asm("...") strings and alias("...") attributes.
  std::vector<std::string> names;
  std::vector<std::string> headers;   ///< Names that an #include path may not name (see path_names()).
  std::vector<std::string> literals;  ///< Texts that no string literal may contain.
  /// The names count as members too: fields such as accessPolicyWindow are
  /// reached as members (attr.accessPolicyWindow.base_ptr).
  bool members_too = false;
};

/// @brief What no student file may use, in any lab, whatever the rubric says
/// (see grader/README.md): what ends the process, sends signals, reads or
/// changes the environment, opens or writes files, redirects output, starts
/// processes, reaches functions by name or number, touches the test harness
/// and the grader's results channel, starts threads or host callbacks, or
/// changes a setting of the whole GPU. The student's file only computes on
/// the GPU; the tests do the I/O.
/// @return The groups, in the order the README lists them.
const std::vector<ForbiddenGroup>& forbidden_everywhere();

/// @brief Strips a C++/CUDA source to its code: splices lines, blanks comments,
/// string and character literals (raw strings and encoding prefixes included;
/// digit separators such as 1'000 are not literals), and records the #include
/// directives (whose quoted paths are read before the strings are blanked).
/// @param[in] text The file's text.
/// @return The code, the line of each character, and the includes.
StrippedSource strip_source(std::string_view text);

/// @brief Whether an include path names @p name in any spelling: the path's
/// words (split at '/', '.', '_', '-', case changes and digits, lower-cased)
/// joined in a row equal the name lower-cased without underscores. So "cub"
/// is named by "cub/cub.cuh" and "CUB/x.h" but not "cublas_v2.h", and
/// "CountScan" by "workbook/count_scan.cuh".
/// @param[in] path The include's path.
/// @param[in] name A forbidden name.
/// @return true when the path names it.
bool path_names(std::string_view path, std::string_view name);

/// @brief Every use of a forbidden name in @p source: as a whole identifier
/// token in the code, and in the path of an #include; also every token-pasting
/// operator ## (or %:%:) and every computed #include, which could build a
/// forbidden name the check cannot see. In line order.
/// @param[in] source The stripped source.
/// @param[in] forbidden The names.
/// @return The violations, with file empty.
std::vector<SourceViolation> find_violations(const StrippedSource& source,
                                             const std::vector<ForbiddenName>& forbidden);

/// @brief find_violations(strip_source(text), forbidden).
/// @param[in] text A file's text.
/// @param[in] forbidden The names.
/// @return The violations, with file empty.
std::vector<SourceViolation> find_violations(std::string_view text,
                                             const std::vector<ForbiddenName>& forbidden);

/// @brief Every use in @p source of what no student file may use
/// (forbidden_everywhere()): its names as tokens that are not members, also
/// in library spellings and inside asm and alias strings; its headers; its
/// literals (also split over adjacent literals); and mangled C++ symbol names
/// (identifiers starting with _Z), which could name any library function.
/// Token pasting and computed includes are find_violations()'s. In line order,
/// with by = ForbiddenBy::grader.
/// @param[in] source The stripped source.
/// @return The violations, with file empty.
std::vector<SourceViolation> find_violations_everywhere(const StrippedSource& source);

/// @brief find_violations_everywhere(strip_source(text)).
/// @param[in] text A file's text.
/// @return The violations, with file empty.
std::vector<SourceViolation> find_violations_everywhere(std::string_view text);

/// @brief One line for the student: "<file>:<line>: remove <found> ('<name>'
/// is forbidden in this lab). <why>", or "... forbidden in every lab ..."
/// for what the grader forbids.
/// @param[in] violation The violation.
/// @return The line, no newline.
std::string describe_violation(const SourceViolation& violation);

/// @brief The file of a lab that is graded, relative to the source tree:
/// labs/<id>/<base>.cu, or solutions/<id>/<base>.cu with @p solutions.
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded.
/// @return The relative path.
std::string lab_source_file(const LabEntry& lab, bool solutions);

/// @brief The files of a lab that the source checks read: the graded file
/// (lab_source_file()) and, following their #includes, the files of the lab's
/// own folders that they include (labs/<id>/, and solutions/<id>/ with
/// @p solutions). Files that cannot be read are left out.
/// @param[in] source_dir The source tree.
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded.
/// @return Paths relative to @p source_dir, the graded file first.
std::vector<std::string> lab_source_files(const std::string& source_dir, const LabEntry& lab, bool solutions);

/// @brief Checks the graded file of a lab, and the files it includes from the
/// lab's own folder (a student could move the code into a header there),
/// against the lab's forbidden names and what no student file may use
/// (find_violations(), find_violations_everywhere()).
/// @param[in] source_dir The source tree (the manifest's source_dir).
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded.
/// @param[in] forbidden The rubric's forbidden names of the lab.
/// @return Empty when the lab may be graded; else why it is refused, for the
/// student: a first line saying that the lab scores 0, then one line "- ..."
/// per violation. A file that cannot be read is refused too, but a lab that
/// forbids no names of its own is graded when its graded file does not exist
/// or the manifest gives no source_dir (a build tree without sources: there is
/// nothing to check, and ./workbook grade builds from the file it checks).
std::string check_lab_source(const std::string& source_dir, const LabEntry& lab, bool solutions,
                             const std::vector<ForbiddenName>& forbidden);

}  // namespace workbook::grader
