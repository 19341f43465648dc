// The CSV gradebook: one row per graded submission.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "error.hpp"
#include "report.hpp"

namespace workbook::grader {

namespace {
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string points(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}
}  // namespace

static std::vector<std::string> lab_ids_of(const GradeReport& report) {
  std::vector<std::string> ids;
  for (const LabScore& lab : report.scores) ids.push_back(lab.lab_id);
  return ids;
}

std::string gradebook_csv_header(const std::vector<std::string>& lab_ids) {
  std::string line = "student";
  for (const std::string& id : lab_ids) line += "," + csv_field(id);
  return line + ",total,max";
}

std::string gradebook_csv_row(const GradeReport& report, const std::string& student) {
  std::string line = csv_field(student);
  for (const LabScore& lab : report.scores) line += "," + points(lab.score);
  return line + "," + points(total_score(report)) + "," + points(total_max_score(report));
}

void check_gradebook(const std::string& path, const std::vector<std::string>& lab_ids) {
  std::string existing;
  std::ifstream in(path, std::ios::binary);
  if (in) std::getline(in, existing);
  const std::string header = gradebook_csv_header(lab_ids);
  if (!existing.empty() && existing != header) {
    throw GraderError(path + " is a gradebook of other labs (its header is '" + existing +
                      "', this grading's is '" + header + "'); grade the same labs or start a new file");
  }
}

void append_to_gradebook(const std::string& path, const GradeReport& report, const std::string& student) {
  const std::vector<std::string> ids = lab_ids_of(report);
  check_gradebook(path, ids);
  std::error_code error;
  const std::filesystem::path file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  const bool fresh = !std::filesystem::exists(file, error) || std::filesystem::file_size(file, error) == 0;
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (fresh) out << gradebook_csv_header(ids) << "\n";
  out << gradebook_csv_row(report, student) << "\n";
  out.close();
  if (!out) throw GraderError("cannot write " + path + (error ? " (" + error.message() + ")" : ""));
}

}  // namespace workbook::grader
