// JUnit XML: one testsuite per lab, one testcase per test.
#include <cstdio>

#include "report.hpp"

namespace workbook::grader {

std::string junit_xml(const GradeReport& report) {
  const auto seconds = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", value);
    return std::string(text);
  };
  std::string suites;
  std::size_t all_tests = 0;
  std::size_t all_failures = 0;
  std::size_t all_skipped = 0;
  for (const LabRun& run : report.runs) {
    std::size_t failures = 0;
    std::size_t skipped = 0;
    std::string cases;
    if (!run.error.empty()) {
      ++failures;
      cases += "    <testcase classname=\"" + xml_escape(run.lab_id, true) + "\" name=\"" +
               (run.refused ? "(forbidden names)" : "(lab)") +
               "\" time=\"0.000\">\n"
               "      <failure message=\"" +
               xml_escape(first_lines(run.error, 1), true) + "\">" + xml_escape(run.error) +
               "</failure>\n    </testcase>\n";
    }
    for (const TestResult& test : run.tests) {
      cases += "    <testcase classname=\"" + xml_escape(run.lab_id, true) + "\" name=\"" +
               xml_escape(test.name, true) + "\" time=\"" + seconds(test.time_ms / 1000.0) + "\"";
      // --explain's lines, where the test was profiled: the testcase's own output.
      std::string why;
      for (const std::string& line : test.explanation) why += line + "\n";
      const std::string explained =
          why.empty() ? "" : "      <system-out>" + xml_escape(why) + "</system-out>\n";
      if (test.status == TestStatus::passed) {
        cases += explained.empty() ? "/>\n" : ">\n" + explained + "    </testcase>\n";
        continue;
      }
      const std::string summary =
          test.message.empty() ? to_string(test.status) : first_lines(test.message, 1);
      if (test.status == TestStatus::skipped) {
        ++skipped;
        cases += ">\n      <skipped message=\"" + xml_escape(summary, true) + "\"/>\n    </testcase>\n";
      } else {
        ++failures;
        cases += ">\n      <failure message=\"" + xml_escape(summary, true) + "\">" +
                 xml_escape(test.message) + "</failure>\n" + explained + "    </testcase>\n";
      }
    }
    const std::size_t count = run.tests.size() + (run.error.empty() ? 0 : 1);
    all_tests += count;
    all_failures += failures;
    all_skipped += skipped;
    suites += "  <testsuite name=\"" + xml_escape(run.lab_id, true) + "\" tests=\"" + std::to_string(count) +
              "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
              std::to_string(skipped) + "\" time=\"" + seconds(run.seconds) + "\">\n" + cases;
    if (!run.notes.empty() || !run.warnings.empty() || !run.size_findings.empty()) {
      std::string notes;
      for (const std::string& warning : run.warnings) notes += "warning: " + warning + "\n";
      for (const SizeFinding& finding : run.size_findings)
        notes += "smallest failing size: " + finding.text + "\n";
      for (const std::string& note : run.notes) notes += note + "\n";
      suites += "    <system-out>" + xml_escape(notes) + "</system-out>\n";
    }
    suites += "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"workbook\" tests=\"" +
         std::to_string(all_tests) + "\" failures=\"" + std::to_string(all_failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(all_skipped) + "\" time=\"" + seconds(report.seconds) +
         "\">\n" + suites + "</testsuites>\n";
}

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += attribute ? "&#13;" : "\r";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        // XML 1.0 allows no other control characters, not even escaped.
        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
    }
  }
  return out;
}

}  // namespace workbook::grader
