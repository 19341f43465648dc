#include "gtest_protocol.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace workbook::grader {
namespace {

std::string strip_comment(const std::string& line) {
  std::string text = line;
  const std::size_t hash = text.find('#');
  if (hash != std::string::npos) text.erase(hash);
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool is_disabled(const std::string& suite, const std::string& name) {
  const std::size_t slash = suite.rfind('/');
  const std::string suite_part = slash == std::string::npos ? suite : suite.substr(slash + 1);
  return suite_part.rfind("DISABLED_", 0) == 0 || name.rfind("DISABLED_", 0) == 0;
}

std::string suite_of(const std::string& test) {
  // Suite names never contain '.', test names may contain '/' but not '.'.
  const std::size_t dot = test.find('.');
  return dot == std::string::npos ? test : test.substr(0, dot);
}

}  // namespace

std::vector<std::string> parse_test_list(const std::string& output) {
  std::vector<std::string> tests;
  std::istringstream in(output);
  std::string line;
  std::string suite;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      const std::string text = strip_comment(line);
      // A suite line is one word ending in '.'; anything else (a banner such
      // as "Running main() from ...") ends the current suite.
      if (!text.empty() && text.back() == '.' && text.find(' ') == std::string::npos) {
        suite = text.substr(0, text.size() - 1);
      } else {
        suite.clear();
      }
      continue;
    }
    if (suite.empty()) continue;
    const std::string name = strip_comment(line);
    if (name.empty() || name.find(' ') != std::string::npos) continue;
    if (!is_disabled(suite, name)) tests.push_back(suite + "." + name);
  }
  return tests;
}

std::vector<ResultEvent> parse_result_lines(const std::string& text) {
  std::vector<ResultEvent> events;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!record.is_object()) continue;
    const auto event = record.find("event");
    if (event == record.end() || !event->is_string()) continue;
    ResultEvent out;
    const auto text_of = [&record](const char* key) {
      const auto it = record.find(key);
      return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (*event == "start") {
      out.kind = ResultEvent::Kind::start;
      out.test = text_of("test");
      if (out.test.empty()) continue;
    } else if (*event == "end") {
      out.kind = ResultEvent::Kind::end;
      out.test = text_of("test");
      out.status = text_of("status");
      out.message = text_of("message");
      if (out.test.empty()) continue;
      if (out.status != "passed" && out.status != "failed" && out.status != "skipped") {
        // An unknown status is never a pass.
        out.message =
            "unknown status '" + out.status + "' reported" + (out.message.empty() ? "" : ": " + out.message);
        out.status = "failed";
      }
      const auto time = record.find("time_ms");
      if (time != record.end() && time->is_number()) out.time_ms = time->get<double>();
      const auto metrics = record.find("metrics");
      if (metrics != record.end() && metrics->is_object()) {
        const auto speed = metrics->find("speed");
        if (speed != metrics->end() && speed->is_object() && speed->contains("ratio") &&
            speed->at("ratio").is_number()) {
          SpeedMetric metric;
          const auto number = [&speed](const char* key) {
            const auto it = speed->find(key);
            return it != speed->end() && it->is_number() ? it->get<double>() : 0.0;
          };
          const auto word = [&speed](const char* key) {
            const auto it = speed->find(key);
            return it != speed->end() && it->is_string() ? it->get<std::string>() : std::string();
          };
          metric.value = number("value");
          metric.unit = word("unit");
          metric.yardstick = word("yardstick");
          metric.yardstick_value = number("yardstick_value");
          metric.ratio = number("ratio");
          metric.target = number("target");
          metric.floor = number("floor");
          out.speed = metric;
        }
      }
    } else if (*event == "abort") {
      out.kind = ResultEvent::Kind::abort;
      out.reason = text_of("reason");
    } else {
      continue;
    }
    events.push_back(std::move(out));
  }
  return events;
}

std::string make_gtest_filter(const std::vector<std::string>& wanted, const std::vector<std::string>& all) {
  std::map<std::string, std::size_t> suite_size;
  for (const std::string& test : all) ++suite_size[suite_of(test)];
  std::map<std::string, std::size_t> wanted_in_suite;
  std::set<std::string> wanted_set(wanted.begin(), wanted.end());
  for (const std::string& test : wanted_set) ++wanted_in_suite[suite_of(test)];

  std::string filter;
  std::set<std::string> whole_suites_done;
  for (const std::string& test : wanted) {
    const std::string suite = suite_of(test);
    const bool whole =
        suite_size.count(suite) != 0 && wanted_in_suite[suite] == suite_size[suite] && suite_size[suite] > 1;
    std::string pattern;
    if (whole) {
      if (!whole_suites_done.insert(suite).second) continue;
      pattern = suite + ".*";
    } else {
      pattern = test;
    }
    filter += (filter.empty() ? "" : ":") + pattern;
  }
  return filter;
}

bool in_speed_suite(const std::string& test) {
  const std::string suite = test.substr(0, test.find('.'));
  const std::string ending = "Speed";
  return suite.size() >= ending.size() &&
         suite.compare(suite.size() - ending.size(), ending.size(), ending) == 0;
}

}  // namespace workbook::grader
