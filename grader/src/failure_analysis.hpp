/// @file failure_analysis.hpp
/// @brief What a lab's failures mean, worked out after its tests ran: the
/// smallest size at which each test fails, a race (a failing test run again on
/// the same input gives another answer), and the handout's line for each shape
/// of error (the lab's explain.json). Nothing here changes a test's status or a
/// score: it adds lines to the messages and to the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lab_runner.hpp"

namespace workbook::grader {

/// @brief How many failing tests of a lab are run again to look for a race.
constexpr std::size_t kMostReruns = 3;

/// @brief The start of the line a race adds to a test's message.
inline const char* const kRaceLead = "Two runs, two answers: ";
/// @brief The start of each line the handout's explain.json adds to a test's message.
inline const char* const kHandoutLead = "In the handout (";

/// @brief The keys explain.json's "failures" may use, in the order a test's
/// lines are added: "shifted", "from_element", "tail", "unwritten",
/// "constant", "race", "guard".
/// @return The keys.
const std::vector<std::string>& failure_shape_keys();

/// @brief The phrases with which the labs' tests report that a guard element
/// (past the end of an output) was written: "guard elements", "must not
/// write", "nothing may be written there", ...
/// @return The phrases.
const std::vector<std::string>& guard_phrases();

/// @brief The shapes of error a failure message names: the sentences that
/// follow "Shape of the error: " (ErrorShape::sentence() in
/// common/src/compare.cpp) and the guard phrases. "race" is never read from a
/// message: only a second run shows it.
/// @param[in] message A test's failure message.
/// @return The keys found, in failure_shape_keys() order, each once.
std::vector<std::string> shapes_in_message(const std::string& message);

/// @brief The seed a failure message names ("seed=20261121").
/// @param[in] message A test's failure message.
/// @return The first seed in it, if any.
std::optional<std::uint64_t> seed_in_message(const std::string& message);

/// @brief Whether a line of a message was added by this stage (it starts with
/// kRaceLead or kHandoutLead): reports that cut a message short keep these.
/// @param[in] line One line, without its newline.
/// @return true for an added line.
bool is_analysis_line(const std::string& line);

/// @brief The smallest failing size of each family of failing correctness
/// tests: the tests whose names differ only in their size (size_in_name()),
/// at least two of them run, at least one failed. Speed tests and skipped
/// tests are left out.
/// @param[in] run The lab's results.
/// @param[in] seed The run's seed, named when the failure message names none.
/// @return One finding per family, in the order the families were listed.
std::vector<SizeFinding> find_smallest_failing_sizes(const LabRun& run, std::optional<std::uint64_t> seed);

/// @brief The failing tests to run again, at most kMostReruns: the smallest
/// failing case of each family first, in listing order, then the other
/// failures. Speed tests, crashes, time-outs, tests not run and faults (a
/// kernel that failed on the GPU) are left out: a second run of those says
/// nothing about a race.
/// @param[in] run The lab's results.
/// @return The tests' names.
std::vector<std::string> rerun_candidates(const LabRun& run);

/// @brief What running a failing test again on the same input says: when the
/// second run passed, or failed with another answer (the text after "wrong
/// result for", or the whole message when it has none), a line that names the
/// race and says how to find it; "" when both runs agree or the second run
/// says nothing (it was skipped, crashed or timed out).
/// @param[in] first The test's result in the graded run.
/// @param[in] second Its result in the second run.
/// @param[in] lab_id The lab, for the racecheck command.
/// @param[in] seed The run's seed, named when the message names none.
/// @return The line, starting with kRaceLead, or "".
std::string describe_rerun(const TestResult& first, const TestResult& second, const std::string& lab_id,
                           std::optional<std::uint64_t> seed);

/// @brief A lab's explain.json: per shape of error, the sentence that points
/// to the handout's hint or section that explains it.
struct Explanations {
  std::map<std::string, std::string> failures;  ///< Shape key (failure_shape_keys()) -> sentence.
  std::string handout;  ///< The handout as the lines name it: "labs/02-abc/README.md".
  /// The page of hints by task beside it, "labs/02-abc/hints.md", when the lab has one:
  /// a sentence that sends the student to "Hints by task" then names it.
  std::string hints_page;
};

/// @brief Reads explain.json's text. Its top-level object may hold other keys
/// (they are left alone); "failures", when present, must be an object whose
/// keys are shape keys and whose values are sentences (non-empty strings).
/// @param[in] text The JSON.
/// @param[in] path The file, for messages.
/// @return The failures' sentences (handout left empty).
/// @throws GraderError (one line naming the file) when it is malformed.
Explanations parse_explanations(const std::string& text, const std::string& path);

/// @brief Reads @p lab_dir/explain.json, when there is one.
/// @param[in] lab_dir The lab's folder in the source tree; "" for none.
/// @param[in] lab_id The lab's id, which names the handout in the lines.
/// @param[out] problem Set, for the report's notes, when the file is malformed.
/// @return Its sentences; none without a file or when it is malformed.
Explanations load_explanations(const std::string& lab_dir, const std::string& lab_id, std::string* problem);

/// @brief Adds to every failing test's message one line per shape of error it
/// shows (shapes_in_message(), and "race" for @p raced tests) that @p
/// explanations has a sentence for.
/// @param[in] explanations The lab's sentences.
/// @param[in] raced The tests whose second run gave another answer.
/// @param[in,out] run The lab's results.
void add_handout_lines(const Explanations& explanations, const std::set<std::string>& raced, LabRun& run);

/// @brief The stage: sets @p run's size_findings; when @p rerun, runs
/// rerun_candidates() once more with the same seed (run_lab() with
/// RunOptions::select, within what is left of the lab's time budget), adds
/// describe_rerun()'s line to each test that answered differently and a note
/// saying how many ran again and how long it took; then adds the handout's
/// lines. Does nothing for a refused lab or one that could not be graded.
/// @param[in] lab_dir The lab's folder in the source tree (its explain.json); "" for none.
/// @param[in] options How the lab's tests were run.
/// @param[in] rerun Whether to run failing tests again (not in sanitizer mode).
/// @param[in,out] run The lab's results.
void analyze_failures(const std::string& lab_dir, const RunOptions& options, bool rerun, LabRun& run);

}  // namespace workbook::grader
