/// @file manifest.hpp
/// @brief The build's lab manifest (<build>/workbook-labs.json) and choosing
/// labs from the command line.
#pragma once

#include <string>
#include <vector>

namespace workbook::grader {

/// @brief One lab as the build describes it. Paths are absolute; optional
/// ones are empty when the build has no such binary.
struct LabEntry {
  std::string id;                   ///< Folder name, e.g. "02-abc".
  std::string base;                 ///< Base name of its files, e.g. "abc".
  std::string student_tests;        ///< Test binary linked to the student's code.
  std::string solution_tests;       ///< Test binary linked to the reference solution.
  std::string student_experiment;   ///< Optional experiment binary.
  std::string solution_experiment;  ///< Optional experiment binary (solution).
  std::string student_library;      ///< Optional: the static library of the compiled student file.
  std::string solution_library;     ///< Optional: the static library of the compiled reference solution.
};

/// @brief The whole manifest.
struct Manifest {
  std::string path;            ///< Where it was read from.
  std::string source_dir;      ///< The workbook's source tree.
  std::string student_root;    ///< Where labs/<id>/<base>.cu, the student files, are (a staged submission, or
                               ///< source_dir).
  std::string rubric;          ///< Default rubric path.
  std::vector<LabEntry> labs;  ///< In build order.
};

/// @brief Reads and checks the manifest.
/// @param[in] path The manifest file.
/// @return The manifest.
/// @throws GraderError (one line) when it is missing or malformed.
Manifest load_manifest(const std::string& path);

/// @brief Parses a manifest from JSON text (for tests).
/// @param[in] text The JSON.
/// @param[in] path Where it came from, for messages.
/// @return The manifest.
/// @throws GraderError when it is malformed.
Manifest parse_manifest(const std::string& text, const std::string& path);

/// @brief Resolves lab names given on the command line. Each may be the
/// number ("01" or "1"), the id ("01-hello-world"), the id without its number
/// ("hello-world") or the base name ("hello").
/// @param[in] manifest The labs there are.
/// @param[in] requested The names; empty selects every lab.
/// @return The selected labs, in manifest order, without duplicates.
/// @throws GraderError "unknown lab 'x'; the labs are: ..." for a name that matches none.
std::vector<LabEntry> select_labs(const Manifest& manifest, const std::vector<std::string>& requested);

}  // namespace workbook::grader
