#include "manifest.hpp"

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.hpp"

namespace workbook::grader {
namespace {

const char* const kBuildHint = "run ./workbook grade, which builds the workbook first";

std::string string_field(const nlohmann::json& object, const char* key, bool required,
                         const std::string& where, const std::string& path) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (required)
      throw GraderError("the build manifest " + path + " is malformed: " + where + " has no \"" + key +
                        "\"; " + kBuildHint);
    return {};
  }
  if (!it->is_string()) {
    throw GraderError("the build manifest " + path + " is malformed: " + where + "." + key +
                      " is not a string; " + kBuildHint);
  }
  return it->get<std::string>();
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

/// The lab's number from its "NN-name" id, or -1.
int lab_number(const std::string& id) {
  std::size_t digits = 0;
  while (digits < id.size() && std::isdigit(static_cast<unsigned char>(id[digits])) != 0) ++digits;
  if (digits == 0 || digits > 6) return -1;
  return std::stoi(id.substr(0, digits));
}

bool lab_matches(const LabEntry& lab, const std::string& name) {
  if (name == lab.id || name == lab.base) return true;
  if (all_digits(name) && name.size() <= 6) return std::stoi(name) == lab_number(lab.id);
  const std::size_t dash = lab.id.find('-');
  return dash != std::string::npos && lab.id.substr(dash + 1) == name;
}

}  // namespace

Manifest parse_manifest(const std::string& text, const std::string& path) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw GraderError("the build manifest " + path + " is not valid JSON (" + e.what() + "); " + kBuildHint);
  }
  if (!root.is_object())
    throw GraderError("the build manifest " + path + " is not a JSON object; " + kBuildHint);
  Manifest manifest;
  manifest.path = path;
  manifest.source_dir = string_field(root, "source_dir", false, "the top level", path);
  manifest.rubric = string_field(root, "rubric", false, "the top level", path);
  manifest.student_root = string_field(root, "student_root", false, "the top level", path);
  if (manifest.student_root.empty()) manifest.student_root = manifest.source_dir;
  const auto labs = root.find("labs");
  if (labs == root.end() || !labs->is_array()) {
    throw GraderError("the build manifest " + path + " has no \"labs\" list; " + kBuildHint);
  }
  for (std::size_t i = 0; i < labs->size(); ++i) {
    const nlohmann::json& entry = (*labs)[i];
    const std::string where = "labs[" + std::to_string(i) + "]";
    if (!entry.is_object())
      throw GraderError("the build manifest " + path + " is malformed: " + where + " is not an object");
    LabEntry lab;
    lab.id = string_field(entry, "id", true, where, path);
    lab.base = string_field(entry, "base", false, where, path);
    lab.student_tests = string_field(entry, "student_tests", true, where, path);
    lab.solution_tests = string_field(entry, "solution_tests", false, where, path);
    lab.student_experiment = string_field(entry, "student_experiment", false, where, path);
    lab.solution_experiment = string_field(entry, "solution_experiment", false, where, path);
    lab.student_library = string_field(entry, "student_library", false, where, path);
    lab.solution_library = string_field(entry, "solution_library", false, where, path);
    manifest.labs.push_back(lab);
  }
  return manifest;
}

Manifest load_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw GraderError("the build is missing: " + path + " does not exist; " + kBuildHint);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_manifest(text.str(), path);
}

std::vector<LabEntry> select_labs(const Manifest& manifest, const std::vector<std::string>& requested) {
  if (requested.empty()) return manifest.labs;
  std::vector<bool> chosen(manifest.labs.size(), false);
  for (const std::string& name : requested) {
    bool found = false;
    for (std::size_t i = 0; i < manifest.labs.size(); ++i) {
      if (lab_matches(manifest.labs[i], name)) {
        chosen[i] = true;
        found = true;
      }
    }
    if (!found) {
      std::string all;
      for (const LabEntry& lab : manifest.labs) all += (all.empty() ? "" : ", ") + lab.id;
      throw GraderError("unknown lab '" + name + "'; the labs are: " + (all.empty() ? "(none)" : all));
    }
  }
  std::vector<LabEntry> selected;
  for (std::size_t i = 0; i < manifest.labs.size(); ++i) {
    if (chosen[i]) selected.push_back(manifest.labs[i]);
  }
  return selected;
}

}  // namespace workbook::grader
