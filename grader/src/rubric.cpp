#include "rubric.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "error.hpp"
#include "sanitizer.hpp"

namespace workbook::grader {
namespace {

using nlohmann::json;

/// Collects the context of a problem so every message names file and place.
class Checker {
 public:
  explicit Checker(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& problem) const {
    throw GraderError("rubric " + path_ + ": " + (where.empty() ? "" : where + ": ") + problem);
  }

  const json& object(const json& value, const std::string& where) const {
    if (!value.is_object()) fail(where, "must be an object");
    return value;
  }

  // A typo such as "speeds" would otherwise drop points silently. Keys that
  // start with '_' are free for comments.
  void known_keys(const json& object, const std::set<std::string>& allowed, const std::string& where) const {
    for (const auto& item : object.items()) {
      if (allowed.count(item.key()) != 0 || item.key().rfind('_', 0) == 0) continue;
      std::string list;
      for (const std::string& key : allowed) list += (list.empty() ? "" : ", ") + key;
      fail(where, "unknown key \"" + item.key() + "\" (expected " + list + ")");
    }
  }

  const json& member(const json& object, const char* key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(where, std::string("missing \"") + key + "\"");
    return *it;
  }

  std::string string(const json& object, const char* key, const std::string& where) const {
    const json& value = member(object, key, where);
    if (!value.is_string() || value.get<std::string>().empty())
      fail(where + "." + key, "must be a non-empty string");
    return value.get<std::string>();
  }

  double number(const json& object, const char* key, const std::string& where) const {
    const json& value = member(object, key, where);
    if (!value.is_number()) fail(where + "." + key, "must be a number");
    return value.get<double>();
  }

 private:
  std::string path_;
};

/// An optional time limit in seconds: absent, or a number > 0.
std::optional<double> optional_seconds(const Checker& check, const json& object, const char* key,
                                       const std::string& where) {
  if (!object.contains(key)) return std::nullopt;
  const double seconds = check.number(object, key, where);
  if (!(seconds > 0)) check.fail(where + "." + key, "must be > 0");
  return seconds;
}

/// An optional Gradescope visibility: absent ("visible") or one of kVisibilities.
std::string optional_visibility(const Checker& check, const json& object, const std::string& where) {
  if (!object.contains("visibility")) return "visible";
  const std::string value = check.string(object, "visibility", where);
  for (const char* allowed : kVisibilities) {
    if (value == allowed) return value;
  }
  check.fail(where + ".visibility",
             "must be visible, hidden, after_due_date or after_published, not \"" + value + "\"");
  return value;
}

RubricGroup parse_group(const Checker& check, const json& value, const std::string& where) {
  check.object(value, where);
  check.known_keys(value, {"name", "tests", "points", "test_timeout_s", "visibility"}, where);
  RubricGroup group;
  group.name = check.string(value, "name", where);
  const json& tests = check.member(value, "tests", where);
  if (!tests.is_array() || tests.empty())
    check.fail(where + ".tests", "must be a non-empty list of test globs");
  for (const json& glob : tests) {
    if (!glob.is_string() || glob.get<std::string>().empty())
      check.fail(where + ".tests", "every entry must be a non-empty string");
    group.tests.push_back(glob.get<std::string>());
  }
  group.points = check.number(value, "points", where);
  if (group.points < 0) check.fail(where + ".points", "must be >= 0");
  group.test_timeout_s = optional_seconds(check, value, "test_timeout_s", where);
  group.visibility = optional_visibility(check, value, where);
  return group;
}

RubricSpeed parse_speed(const Checker& check, const json& value, const std::string& where) {
  check.object(value, where);
  check.known_keys(value,
                   {"name", "test", "yardstick", "target", "floor", "points", "test_timeout_s", "visibility"},
                   where);
  RubricSpeed speed;
  speed.name = check.string(value, "name", where);
  speed.test = check.string(value, "test", where);
  speed.yardstick = check.string(value, "yardstick", where);
  speed.target = check.number(value, "target", where);
  speed.floor = check.number(value, "floor", where);
  speed.points = check.number(value, "points", where);
  if (speed.floor < 0) check.fail(where + ".floor", "must be >= 0");
  if (!(speed.target > speed.floor)) check.fail(where, "target must be greater than floor");
  if (speed.points < 0) check.fail(where + ".points", "must be >= 0");
  speed.test_timeout_s = optional_seconds(check, value, "test_timeout_s", where);
  speed.visibility = optional_visibility(check, value, where);
  return speed;
}

bool is_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0])) != 0) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

ForbiddenName parse_forbidden_name(const Checker& check, const json& value, const std::string& where) {
  check.object(value, where);
  check.known_keys(value, {"name", "why"}, where);
  ForbiddenName forbidden;
  forbidden.name = check.string(value, "name", where);
  // It is matched as one whole identifier token, so "cub::" or "cub/" would never match anything.
  if (!is_identifier(forbidden.name))
    check.fail(where + ".name", "must be a C++ identifier such as \"cub\" (it is matched as a whole token)");
  forbidden.why = check.string(value, "why", where);
  if (forbidden.why.find_first_of("\r\n") != std::string::npos)
    check.fail(where + ".why", "must be one line");
  return forbidden;
}

std::vector<ForbiddenName> parse_forbidden(const Checker& check, const json& value,
                                           const std::string& where) {
  if (!value.is_array()) check.fail(where, "must be a list of {\"name\", \"why\"} objects");
  std::vector<ForbiddenName> names;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string place = where + "[" + std::to_string(i) + "]";
    names.push_back(parse_forbidden_name(check, value[i], place));
    if (!seen.insert(names.back().name).second)
      check.fail(place + ".name", "\"" + names.back().name + "\" is listed twice");
  }
  return names;
}

std::vector<std::string> string_list(const Checker& check, const json& value, const std::string& where) {
  if (!value.is_array()) check.fail(where, "must be a list of strings");
  std::vector<std::string> strings;
  for (const json& item : value) {
    if (!item.is_string() || item.get<std::string>().empty())
      check.fail(where, "must be a list of non-empty strings");
    strings.push_back(item.get<std::string>());
  }
  return strings;
}

/// "sanitize": {"tests": [globs], "gate": [tools]}, both optional.
void parse_sanitize(const Checker& check, const json& value, const std::string& where, LabRubric& lab) {
  check.object(value, where);
  check.known_keys(value, {"tests", "gate"}, where);
  if (value.contains("tests")) lab.sanitize_tests = string_list(check, value.at("tests"), where + ".tests");
  if (!value.contains("gate")) return;
  lab.sanitize_gate = string_list(check, value.at("gate"), where + ".gate");
  const auto& known = sanitizer_tools();
  for (const std::string& tool : lab.sanitize_gate) {
    if (std::find(known.begin(), known.end(), tool) == known.end())
      check.fail(where + ".gate",
                 "unknown tool \"" + tool + "\" (expected memcheck, racecheck, synccheck or initcheck)");
  }
}

/// "barrier_in_divergent_code": "warn" (the default) or "fail".
BarrierPolicy parse_barrier_policy(const Checker& check, const json& object, const std::string& where) {
  const char* const key = "barrier_in_divergent_code";
  if (!object.contains(key)) return BarrierPolicy::warn;
  const json& value = object.at(key);
  if (value == "warn") return BarrierPolicy::warn;
  if (value == "fail") return BarrierPolicy::fail;
  check.fail(where + "." + key,
             std::string("must be \"warn\" (a warning that costs no points) or \"fail\" (the lab scores 0), "
                         "not ") +
                 value.dump());
  return BarrierPolicy::warn;
}

LabRubric parse_lab(const Checker& check, const json& value, const std::string& where) {
  check.object(value, where);
  check.known_keys(
      value, {"title", "timeout_s", "groups", "speed", "forbidden", "sanitize", "barrier_in_divergent_code"},
      where);
  LabRubric lab;
  lab.title = check.string(value, "title", where);
  lab.timeout_s = optional_seconds(check, value, "timeout_s", where).value_or(kDefaultLabTimeoutS);
  if (value.contains("groups")) {
    const json& groups = value.at("groups");
    if (!groups.is_array()) check.fail(where + ".groups", "must be a list");
    for (std::size_t i = 0; i < groups.size(); ++i) {
      lab.groups.push_back(parse_group(check, groups[i], where + ".groups[" + std::to_string(i) + "]"));
    }
  }
  if (value.contains("speed")) {
    const json& speed = value.at("speed");
    if (!speed.is_array()) check.fail(where + ".speed", "must be a list");
    for (std::size_t i = 0; i < speed.size(); ++i) {
      lab.speed.push_back(parse_speed(check, speed[i], where + ".speed[" + std::to_string(i) + "]"));
    }
  }
  if (value.contains("forbidden"))
    lab.forbidden = parse_forbidden(check, value.at("forbidden"), where + ".forbidden");
  lab.sanitize_gate = sanitizer_tools();
  if (value.contains("sanitize")) parse_sanitize(check, value.at("sanitize"), where + ".sanitize", lab);
  lab.barrier_in_divergent_code = parse_barrier_policy(check, value, where);
  return lab;
}

}  // namespace

Rubric parse_rubric(const json& root, const std::string& path) {
  const Checker check(path);
  if (!root.is_object()) check.fail("", "the top level must be an object");
  check.known_keys(root, {"version", "labs", "calibration"}, "top level");
  const json& version = check.member(root, "version", "top level");
  if (!version.is_number_integer() || version.get<long long>() != 1) check.fail("version", "must be 1");
  const json& labs = check.member(root, "labs", "top level");
  if (!labs.is_object()) check.fail("labs", "must be an object keyed by lab id");
  Rubric rubric;
  rubric.path = path;
  for (const auto& item : labs.items()) {
    rubric.labs[item.key()] = parse_lab(check, item.value(), "labs." + item.key());
  }
  if (root.contains("calibration")) {
    const json& value = check.object(root.at("calibration"), "calibration");
    check.known_keys(value, {"gpu", "driver", "cuda", "date", "runs", "rule", "base"}, "calibration");
    RubricCalibration calibration;
    calibration.gpu = check.string(value, "gpu", "calibration");
    for (const auto& [key, field] :
         {std::pair{"driver", &calibration.driver}, std::pair{"cuda", &calibration.cuda},
          std::pair{"date", &calibration.date}}) {
      if (!value.contains(key)) continue;
      if (!value.at(key).is_string()) check.fail(std::string("calibration.") + key, "must be a string");
      *field = value.at(key).get<std::string>();
    }
    rubric.calibration = calibration;
  }
  return rubric;
}

Rubric load_rubric(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw GraderError("rubric " + path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  json root;
  try {
    root = json::parse(text.str());
  } catch (const json::exception& e) {
    std::string why = e.what();
    std::replace(why.begin(), why.end(), '\n', ' ');
    throw GraderError("rubric " + path + ": not valid JSON: " + why);
  }
  return parse_rubric(root, path);
}

void check_rubric_covers(const Rubric& rubric, const std::vector<std::string>& lab_ids) {
  for (const std::string& id : lab_ids) {
    if (rubric.labs.count(id) == 0) {
      throw GraderError("rubric " + rubric.path + ": labs: no entry for lab '" + id +
                        "', which the build has");
    }
  }
}

}  // namespace workbook::grader
