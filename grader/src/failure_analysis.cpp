#include "failure_analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "error.hpp"
#include "gtest_protocol.hpp"

namespace workbook::grader {
namespace {

// What compare.cpp's ComparisonReport::describe() puts before the sentence.
const std::string kShapeLead = "Shape of the error: ";
// What workbook::testing::matches() puts before a comparison's case and report.
const std::string kWrongResult = "wrong result for ";
// Sizes named in a line before the rest are counted.
constexpr std::size_t kSizesListed = 4;

bool starts_with(const std::string& text, const std::string& start) {
  return text.compare(0, start.size(), start) == 0;
}

std::string first_line_of(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The message as the test wrote it, without the lines this stage added.
std::string own_part(const std::string& message) {
  std::string own;
  for (const std::string& line : lines_of(message)) {
    if (!is_analysis_line(line)) own += (own.empty() ? "" : "\n") + line;
  }
  return own;
}

// A failure whose second run could show a race: an answer, not a crash, a
// time-out, a test never run or a kernel fault (those messages are the
// grader's and the harness's own; see lab_runner.cpp and testing.cpp).
bool is_an_answer(const TestResult& test) {
  if (test.status != TestStatus::failed || in_speed_suite(test.name)) return false;
  for (const char* start : {"crashed:", "timed out", "not run:", "no result was reported"}) {
    if (starts_with(test.message, start)) return false;
  }
  return test.message.find("a kernel of this test failed on the GPU") == std::string::npos;
}

// What two runs of a test are compared on: each comparison's case and report
// (from "wrong result for" to the end of its line), else the whole message.
std::string compared_part(const std::string& message) {
  std::string part;
  for (const std::string& line : lines_of(own_part(message))) {
    const std::size_t at = line.find(kWrongResult);
    if (at != std::string::npos) part += line.substr(at) + "\n";
  }
  return part.empty() ? own_part(message) : part;
}

// "3 of 31" from "3 of 31 elements differ", or "".
std::string mismatch_count(const std::string& message) {
  static const std::regex count(R"((\d+) of (\d+) elements differ)");
  std::smatch match;
  return std::regex_search(message, match, count) ? match[1].str() + " of " + match[2].str() : "";
}

std::string seed_phrase(const std::string& message, std::optional<std::uint64_t> seed) {
  const std::optional<std::uint64_t> named = seed_in_message(message);
  if (named) return "seed=" + std::to_string(*named);
  return seed ? "seed=" + std::to_string(*seed) : "the same seed";
}

// "1, 30, 32 and 2 more"
std::string size_list(const std::vector<std::uint64_t>& sizes) {
  std::string text;
  for (std::size_t i = 0; i < sizes.size() && i < kSizesListed; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(sizes[i]);
  if (sizes.size() > kSizesListed) text += " and " + std::to_string(sizes.size() - kSizesListed) + " more";
  return text;
}

// "OneThreadPerElement.ComputesAbc" for "Sizes/OneThreadPerElement.ComputesAbc/n*",
// "Filter.Keeps (all_odd)" for "Sizes/Filter.Keeps/n*_all_odd".
std::string family_title(const SizeInName& sized) {
  std::string title = sized.prefix;
  const std::size_t slash = title.find('/');
  if (slash != std::string::npos && slash < title.find('.')) title.erase(0, slash + 1);
  if (!sized.suffix.empty()) title += " (" + sized.suffix.substr(1) + ")";
  return title;
}

/// One family's tests that ran, by size.
struct Family {
  std::string title;
  std::vector<std::pair<std::uint64_t, const TestResult*>> cases;
};

std::vector<Family> families_of(const LabRun& run) {
  std::vector<Family> families;
  std::map<std::string, std::size_t> index;
  for (const TestResult& test : run.tests) {
    if (test.status == TestStatus::skipped || in_speed_suite(test.name)) continue;
    const std::optional<SizeInName> sized = size_in_name(test.name);
    if (!sized) continue;
    const auto [at, added] = index.emplace(sized->family(), families.size());
    if (added) families.push_back({family_title(*sized), {}});
    families[at->second].cases.emplace_back(sized->size, &test);
  }
  for (Family& family : families) {
    std::stable_sort(family.cases.begin(), family.cases.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return families;
}

// The line of a family whose smallest failing case is cases[first_failing].
std::string size_line(const Family& family, std::size_t first_failing, std::optional<std::uint64_t> seed) {
  const auto& [size, test] = family.cases[first_failing];
  std::vector<std::uint64_t> passing_below, passing_above, failing_above;
  for (std::size_t i = 0; i < family.cases.size(); ++i) {
    const bool passed = family.cases[i].second->status == TestStatus::passed;
    if (i < first_failing) passing_below.push_back(family.cases[i].first);
    if (i > first_failing) (passed ? passing_above : failing_above).push_back(family.cases[i].first);
  }
  const std::string n = "n=" + std::to_string(size);
  const std::optional<std::uint64_t> named = seed_in_message(test->message);
  std::string text = family.title + " fails at " + n;
  if (named || seed) text += " (seed=" + std::to_string(named ? *named : *seed) + ")";
  if (failing_above.size() == 1) text += " and at n=" + size_list(failing_above);
  if (failing_above.size() > 1)
    text += " and at " + std::to_string(failing_above.size()) +
            " larger sizes, up to n=" + std::to_string(failing_above.back());
  if (passing_below.empty()) {
    text += "; " + n + " is the smallest size tested";
    if (!passing_above.empty()) text += ", and it passes at n=" + size_list(passing_above) + " above it";
    return text + ". The mistake shows on the smallest input tested: start with " + test->name + ".";
  }
  text += "; it passes at every smaller size tested (n=" + size_list(passing_below) + ")";
  if (!passing_above.empty()) text += " and at n=" + size_list(passing_above) + " above it";
  return text + ". Start with " + test->name + ": the smallest input that shows the mistake.";
}

/// What is left of the lab's budget for a second run of @p tests, with their
/// limits as a cap: a hang in it costs at most what it cost the first time.
double rerun_budget(const RunOptions& options, const std::vector<std::string>& tests, double spent) {
  double needed = kListTimeoutS;
  for (const std::string& test : tests) needed += options.limits.for_test(test);
  return std::min(needed, options.limits.lab_s - spent);
}

RunOptions rerun_options(const RunOptions& options, const std::vector<std::string>& tests, double budget) {
  RunOptions again = options;
  const std::set<std::string> chosen(tests.begin(), tests.end());
  again.select = [chosen](const std::string& test) { return chosen.count(test) != 0; };
  again.unselected_message.clear();
  again.shards = 1;
  again.runs_alone = nullptr;
  again.progress = nullptr;
  again.limits.lab_s = budget;
  again.work_dir = options.work_dir + "/rerun";
  std::filesystem::create_directories(again.work_dir);
  return again;
}

std::string seconds_text(double seconds) {
  if (seconds < 0.05) return "under 0.1 s";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

std::string tests_text(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " failing test" : " failing tests");
}

/// Runs rerun_candidates() again and marks the tests that answered
/// differently; returns their names.
std::set<std::string> rerun_failures(const RunOptions& options, LabRun& run) {
  const std::vector<std::string> chosen = rerun_candidates(run);
  if (chosen.empty()) return {};
  const double budget = rerun_budget(options, chosen, run.seconds);
  if (budget < 1.0) {
    run.notes.push_back(tests_text(chosen.size()) +
                        " not run again to look for a race: the lab's time budget is spent");
    return {};
  }
  const LabRun second = run_lab(run.lab_id, rerun_options(options, chosen, budget));
  run.seconds += second.seconds;
  run.processes += second.processes;
  std::set<std::string> raced;
  for (const TestResult& again : second.tests) {
    const auto first = std::find_if(run.tests.begin(), run.tests.end(),
                                    [&](const TestResult& test) { return test.name == again.name; });
    if (first == run.tests.end()) continue;
    const std::string line = describe_rerun(*first, again, run.lab_id, options.seed);
    if (line.empty()) continue;
    first->message += "\n" + line;
    raced.insert(again.name);
  }
  std::string note = "ran " + tests_text(chosen.size()) + " again on the same input to look for a race (" +
                     seconds_text(second.seconds) + "): ";
  if (!second.error.empty()) {
    note += "the second run could not be made (" + first_line_of(second.error) + ")";
  } else if (raced.empty()) {
    note += chosen.size() == 1 ? "it gave the same answer" : "each gave the same answer";
  } else {
    note += std::to_string(raced.size()) + " gave another answer, which points to a race (see " +
            (raced.size() == 1 ? "its message)" : "their messages)");
  }
  run.notes.push_back(note);
  return raced;
}

}  // namespace

const std::vector<std::string>& failure_shape_keys() {
  static const std::vector<std::string> keys = {"shifted",  "from_element", "tail", "unwritten",
                                                "constant", "race",         "guard"};
  return keys;
}

const std::vector<std::string>& guard_phrases() {
  // As the labs' tests word their checks of the elements past an output
  // (labs/*/tests/*.cu); the test FailureAnalysisRealLabs.* holds them to it.
  static const std::vector<std::string> phrases = {
      "guard elements",     "guard counts",       "nothing may be written there", "must not write",
      "must write nothing", "wrote past element", "written past the capacity"};
  return phrases;
}

std::vector<std::string> shapes_in_message(const std::string& message) {
  // The openings of the sentences ErrorShape::sentence() writes
  // (common/src/compare.cpp): change both together.
  static const std::vector<std::pair<std::string, std::string>> openings = {
      {"the values are shifted by one position", "shifted"},
      {"the wrong elements still hold the value", "unwritten"},
      {"every element is off by", "constant"},
      {"right except the last", "tail"},
      {"right up to element", "from_element"}};
  std::set<std::string> found;
  for (std::size_t at = message.find(kShapeLead); at != std::string::npos;
       at = message.find(kShapeLead, at + 1)) {
    const std::size_t sentence = at + kShapeLead.size();
    for (const auto& [opening, key] : openings) {
      if (message.compare(sentence, opening.size(), opening) == 0) found.insert(key);
    }
  }
  for (const std::string& phrase : guard_phrases()) {
    if (message.find(phrase) != std::string::npos) found.insert("guard");
  }
  std::vector<std::string> keys;
  for (const std::string& key : failure_shape_keys()) {
    if (found.count(key) != 0) keys.push_back(key);
  }
  return keys;
}

std::optional<std::uint64_t> seed_in_message(const std::string& message) {
  static const std::regex seed(R"(\bseed=(\d{1,19})\b)");
  std::smatch match;
  if (!std::regex_search(message, match, seed)) return std::nullopt;
  try {
    return std::stoull(match[1].str());
  } catch (const std::out_of_range&) {
    return std::nullopt;
  }
}

bool is_analysis_line(const std::string& line) {
  return starts_with(line, kRaceLead) || starts_with(line, kHandoutLead);
}

std::vector<SizeFinding> find_smallest_failing_sizes(const LabRun& run, std::optional<std::uint64_t> seed) {
  std::vector<SizeFinding> findings;
  for (const Family& family : families_of(run)) {
    if (family.cases.size() < 2) continue;  // One size says nothing about sizes.
    const auto failing = std::find_if(family.cases.begin(), family.cases.end(),
                                      [](const auto& c) { return c.second->status == TestStatus::failed; });
    if (failing == family.cases.end()) continue;
    const std::size_t first = static_cast<std::size_t>(failing - family.cases.begin());
    findings.push_back({failing->second->name, size_line(family, first, seed)});
  }
  return findings;
}

std::vector<std::string> rerun_candidates(const LabRun& run) {
  // The smallest failing case of each family first (a test without a size is
  // a family of its own): the quickest to run, and as many kinds as can be.
  std::vector<std::string> families;
  std::map<std::string, std::pair<std::uint64_t, std::string>> smallest;
  for (const TestResult& test : run.tests) {
    if (!is_an_answer(test)) continue;
    const std::optional<SizeInName> sized = size_in_name(test.name);
    const std::pair<std::uint64_t, std::string> here(sized ? sized->size : 0, test.name);
    const auto [at, added] = smallest.emplace(sized ? sized->family() : test.name, here);
    if (added) families.push_back(at->first);
    if (here.first < at->second.first) at->second = here;
  }
  std::vector<std::string> chosen;
  for (const std::string& family : families) chosen.push_back(smallest.at(family).second);
  for (const TestResult& test : run.tests) {
    if (is_an_answer(test) && std::find(chosen.begin(), chosen.end(), test.name) == chosen.end())
      chosen.push_back(test.name);
  }
  if (chosen.size() > kMostReruns) chosen.resize(kMostReruns);
  return chosen;
}

std::string describe_rerun(const TestResult& first, const TestResult& second, const std::string& lab_id,
                           std::optional<std::uint64_t> seed) {
  std::string what;
  if (second.status == TestStatus::passed) {
    what = "this test passed";
  } else if (!is_an_answer(second) || compared_part(first.message) == compared_part(second.message)) {
    return "";
  } else {
    const std::string before = mismatch_count(own_part(first.message));
    const std::string after = mismatch_count(second.message);
    what = "it failed with another answer";
    if (!before.empty() && !after.empty()) {
      what += before == after
                  ? " (as many wrong elements, " + before + ", but other ones or other values)"
                  : " (" + before + " elements differed the first time, " + after + " the second)";
    }
  }
  return kRaceLead + std::string("run again on the same input (") + seed_phrase(first.message, seed) + "), " +
         what +
         ". Output that changes between two runs of the same input points to a race: a missing "
         "__syncthreads(), a plain add where an atomic one is needed, or a read of a value another block has "
         "not written yet. The test still counts as failed (a correct kernel gives the same answer every "
         "time): find the race with ./workbook grade " +
         lab_id + " --sanitize=racecheck, which names the kernel and the line.";
}

Explanations parse_explanations(const std::string& text, const std::string& path) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    throw GraderError(path + ": not valid JSON: " + first_line_of(error.what()));
  }
  if (!root.is_object()) throw GraderError(path + ": must be a JSON object");
  Explanations explanations;
  const auto failures = root.find("failures");
  if (failures == root.end()) return explanations;
  if (!failures->is_object()) throw GraderError(path + ": \"failures\" must be an object");
  const std::vector<std::string>& keys = failure_shape_keys();
  for (const auto& [key, sentence] : failures->items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      std::string known;
      for (const std::string& name : keys) known += (known.empty() ? "" : ", ") + name;
      throw GraderError(path + ": failures." + key + ": not a shape of error; the shapes are " + known);
    }
    if (!sentence.is_string() || sentence.get<std::string>().empty())
      throw GraderError(path + ": failures." + key + ": must be a sentence (a non-empty string)");
    explanations.failures[key] = sentence.get<std::string>();
  }
  return explanations;
}

Explanations load_explanations(const std::string& lab_dir, const std::string& lab_id, std::string* problem) {
  if (lab_dir.empty()) return {};
  const std::string path = lab_dir + "/explain.json";
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  std::ostringstream text;
  text << file.rdbuf();
  try {
    Explanations explanations = parse_explanations(text.str(), path);
    explanations.handout = "labs/" + lab_id + "/README.md";
    if (std::ifstream(lab_dir + "/hints.md")) explanations.hints_page = "labs/" + lab_id + "/hints.md";
    return explanations;
  } catch (const GraderError& error) {
    if (problem != nullptr)
      *problem = std::string(error.what()) + " (so no failure names its line of the handout)";
    return {};
  }
}

void add_handout_lines(const Explanations& explanations, const std::set<std::string>& raced, LabRun& run) {
  if (explanations.failures.empty()) return;
  for (TestResult& test : run.tests) {
    if (test.status != TestStatus::failed) continue;
    const std::vector<std::string> shown = shapes_in_message(own_part(test.message));
    const std::set<std::string> keys(shown.begin(), shown.end());
    for (const std::string& key : failure_shape_keys()) {
      if (keys.count(key) == 0 && !(key == "race" && raced.count(test.name) != 0)) continue;
      const auto sentence = explanations.failures.find(key);
      if (sentence == explanations.failures.end()) continue;
      test.message += "\n" + (kHandoutLead + explanations.handout) + "): " + sentence->second;
      if (!explanations.hints_page.empty() && sentence->second.find("Hints by task") != std::string::npos)
        test.message += " (Hints by task: " + explanations.hints_page + ")";
    }
  }
}

void analyze_failures(const std::string& lab_dir, const RunOptions& options, bool rerun, LabRun& run) {
  if (run.refused || !run.error.empty()) return;
  run.size_findings = find_smallest_failing_sizes(run, options.seed);
  const std::set<std::string> raced = rerun ? rerun_failures(options, run) : std::set<std::string>{};
  std::string problem;
  const Explanations explanations = load_explanations(lab_dir, run.lab_id, &problem);
  if (!problem.empty()) run.notes.push_back(problem);
  add_handout_lines(explanations, raced, run);
}

}  // namespace workbook::grader
