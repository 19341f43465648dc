/// @file explain.hpp
/// @brief --explain: why a speed item is slow. The item's call runs once more
/// under Nsight Compute (ncu_profile.hpp), outside any timing, and its
/// counters are read in the handout's terms: the bytes it moved against the
/// bytes the task needs, how it reads memory, how full the GPU was, where the
/// warps waited, and the likely cause with the handout section about it.
/// Profiling never changes a score.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "lab_runner.hpp"
#include "ncu_profile.hpp"
#include "rubric.hpp"

namespace workbook::grader {

/// @brief Which speed items --explain profiles.
enum class ExplainMode {
  off,   ///< --no-explain: none (an exam, or no time to spare).
  slow,  ///< The default: the items below their target.
  all    ///< --explain: every measured item, the fast ones too.
};

/// @brief What a lab's handout says a speed item needs, from its explain.json.
struct SpeedItemNeeds {
  /// The bytes the handout's speed of light counts for the call, as a
  /// multiple of the test's min_bytes (every input read once and every
  /// output written once): 4.5 for lab 08's four 8-bit passes.
  double bytes_factor = 1.0;
  /// Those bytes in words, e.g. "four 8-bit passes, 36 bytes per key".
  std::string bytes_are = "every input read once and every output written once";
  /// Rules the handout expects this call to trip, with why (a tree's
  /// scattered node reads): reported, but not as a cause.
  std::map<std::string, std::string> expected;
};

/// @brief A lab's explanation data: labs/NN-name/explain.json.
struct LabExplainData {
  std::map<std::string, SpeedItemNeeds> speed;  ///< By speed test ("Suite.Name").
  /// Where the handout explains each cause, by rule ("bytes", "coalescing",
  /// "bank_conflicts", "atomics", "latency", "grid", "occupancy"); a rule missing here
  /// points to explain_default_see()'s place.
  std::map<std::string, std::string> see;
};

/// @brief The rules' names, each with where the course explains it when a
/// lab's explain.json names no place of its own.
/// @return Rule name -> place.
const std::map<std::string, std::string>& explain_default_see();

/// @brief Reads the "speed" and "see" parts of a lab's explain.json (other
/// keys belong to other stages).
/// @param[in] root The document.
/// @param[in] path Its path, for messages.
/// @return The data.
/// @throws GraderError naming the path and the key for a malformed entry or an unknown rule.
LabExplainData parse_lab_explain_data(const nlohmann::json& root, const std::string& path);

/// @brief parse_lab_explain_data() of the file at @p path; the defaults when
/// the lab has no such file.
/// @param[in] path labs/NN-name/explain.json.
/// @return The data.
/// @throws GraderError when the file exists but is not valid.
LabExplainData load_lab_explain_data(const std::string& path);

/// @brief What the harness's profile mode wrote about the call it profiled.
struct ProfileRecord {
  std::string test;       ///< "Suite.Name".
  std::string what;       ///< The student's call and its input.
  std::string yardstick;  ///< The yardstick's name.
  double min_bytes = 0;   ///< The bytes any correct version must move.
  std::string problem;    ///< "" when the profiled call's output was right, else what was wrong.
};

/// @brief Reads the harness's profile record.
/// @param[in] root The record's JSON.
/// @return The record.
/// @throws nlohmann::json::exception when a field is missing or of the wrong type.
ProfileRecord parse_profile_record(const nlohmann::json& root);

/// @brief The explanation of one profiled speed item, in lines for the
/// report: the bytes of the student's call and of the yardstick's against
/// what the task needs, each of the student's kernels (time share, launch,
/// memory access, occupancy, top stalls), then one "Likely cause" line per
/// rule that fires on it, or a line saying that none does.
/// @param[in] record The harness's record of the profiled call.
/// @param[in] call The launches, split at the marks.
/// @param[in] needs What the handout says the call needs.
/// @param[in] see Where the handout explains each rule (LabExplainData::see).
/// @return The lines, without newlines.
std::vector<std::string> explain_speed_item(const ProfileRecord& record, const ProfiledCall& call,
                                            const SpeedItemNeeds& needs,
                                            const std::map<std::string, std::string>& see);

/// @brief The stage: for each of the lab's speed items that @p mode selects
/// (and that measured a speed: an item voided by a wrong run has nothing to
/// explain), runs its test once more under ncu in the harness's profile mode,
/// with the ordinary run's sandbox and limits, and puts the explanation in the
/// item's TestResult::explanation. Notes say what was profiled, and when ncu
/// is missing or may not read the counters, what to do; nothing is scored.
/// @param[in] mode Which items.
/// @param[in] lab_dir The lab's folder in the course tree (its explain.json).
/// @param[in] lab The lab's rubric (its speed items and targets).
/// @param[in] options How the ordinary run was made.
/// @param[in,out] run The ordinary run's results.
void explain_speed_items(ExplainMode mode, const std::string& lab_dir, const LabRubric& lab,
                         const RunOptions& options, LabRun& run);

}  // namespace workbook::grader
