/// @file source_tree.hpp
/// @brief What the grader's tests read from the workbook's own tree: a file's
/// text, the tree's root, and the labs the build adds (shared by the
/// source-check and barrier-check tests).
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "manifest.hpp"

namespace workbook::grader::test_tree {

/// @brief The whole text of a file ("" when it cannot be read).
/// @param[in] path The file.
/// @return Its bytes.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// @brief The workbook's source tree: this header is grader/tests/source_tree.hpp.
/// @return The tree's root.
inline std::filesystem::path source_tree() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
}

/// @brief The labs of the build, from the top-level CMakeLists.txt: workbook_add_lab(NN-name base).
/// @return One entry per lab, with its id and base name.
inline std::vector<LabEntry> real_labs() {
  const std::string text = read_text(source_tree() / "CMakeLists.txt");
  const std::regex add_lab(R"(\nworkbook_add_lab\(([0-9]{2}-[a-z0-9-]+)\s+([a-z0-9_]+)\))");
  std::vector<LabEntry> labs;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), add_lab); it != std::sregex_iterator();
       ++it) {
    LabEntry lab;
    lab.id = (*it)[1];
    lab.base = (*it)[2];
    labs.push_back(lab);
  }
  return labs;
}

}  // namespace workbook::grader::test_tree
