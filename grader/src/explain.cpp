#include "explain.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "error.hpp"
#include "process.hpp"
#include "workbook/profile_record.hpp"

namespace workbook::grader {
namespace {

// The rules' thresholds. Each sits well between what the references measure
// and what the slow wrong solutions of tools/wrong_solutions/mutations.json
// measure on the H200 (grader/README.md, "Why it is slow", has the figures).

/// DRAM bytes over the bytes the handout counts: above this, the call moves
/// data it need not. H200, 2026-11-28: the references move 0.96x to 1.01x,
/// lab 08's sort_keys 1.32x (47 bytes per key against 36); reduce-then-scan
/// in place of the single pass 1.49x (12 bytes against 8).
constexpr double kBytesRatioLimit = 1.4;
/// Percent of each 32-byte sector a warp's global loads or stores use: below
/// this, most of every sector fetched is thrown away (a transposed store uses
/// 4 of 32 bytes, 12.5 %; a coalesced access 100 %) ...
constexpr double kSectorUseLimitPct = 50.0;
/// ... and the sectors thrown away add up to this share of the bytes the call
/// needs (H200: lab 08's tile counts, stored digit-major, waste 19 % over the
/// four passes; a naive transpose's stores 350 %).
constexpr double kWastedShareLimit = 0.25;
/// Bank conflicts per shared-memory instruction: above this, an average
/// access waits for several passes. H200 references: at most 1.15 (lab 08's
/// scatter); an unpadded 32 x 32 tile read by columns: about 15 (0 for the
/// row writes, 31 for the column reads).
constexpr double kConflictsPerInstructionLimit = 4.0;
/// Global atomic instructions per KiB the call needs to move: one per warp
/// of int32 is 8, one per block of 256 threads 1 (lab 05's reference, and
/// lab 10's build at 1.05).
constexpr double kAtomicsPerKiBLimit = 4.0;
/// DRAM throughput, percent of its peak, below which a kernel that takes
/// most of the call and whose warps wait most on memory, a fence or a barrier
/// is said to wait on one access at a time, or on other blocks, rather than
/// on bandwidth (lab 07's look-back without aggregates: its warps wait at the
/// barrier while one warp looks back one tile at a time). H200 references
/// (bytes over ncu's time): lab 05's count and lab 08's scatter 22 %, lab
/// 10's climb 13 % (all above it); lab 10's query 1.6 % (expected there).
constexpr double kLatencyBoundPct = 10.0;
/// The call's time share above which that rule looks at a kernel.
constexpr double kDominantShare = 0.5;
/// Achieved occupancy, percent of the SM's warps, below which a kernel is
/// said to have too few warps to hide memory latency.
constexpr double kLowOccupancyPct = 25.0;
/// Kernels that take less than this share of the call's time get no
/// per-kernel rules: a small second pass is not the problem.
constexpr double kSignificantShare = 0.10;
/// Stall reasons shown per kernel.
constexpr std::size_t kStallsShown = 3;
/// Seconds one profile may take (ncu replays each kernel once per pass of counters).
constexpr double kProfileSeconds = 300.0;

const char* const kStallPrefix = "smsp__average_warps_issue_stalled_";
const char* const kStallSuffix = "_per_issue_active.ratio";

std::string format(const char* pattern, double value) {
  char text[256];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return format("%.2f GB", bytes / 1e9);
  if (bytes >= 1e6) return format("%.1f MB", bytes / 1e6);
  if (bytes >= 1e3) return format("%.1f kB", bytes / 1e3);
  return format("%.0f B", bytes);
}

std::string see_text(const std::map<std::string, std::string>& see, const std::string& rule) {
  const auto found = see.find(rule);
  return found != see.end() ? found->second : explain_default_see().at(rule);
}

/// What a stall reason means, in the words of the course.
std::string stall_meaning(const std::string& reason) {
  static const std::map<std::string, std::string> meanings = {
      {"long_scoreboard", "waiting for global memory"},
      {"short_scoreboard", "waiting for shared memory"},
      {"barrier", "waiting at __syncthreads()"},
      {"membar", "waiting at a memory fence"},
      {"lg_throttle", "the queue of global loads, stores and atomics is full"},
      {"mio_throttle", "the queue of shared-memory instructions is full"},
      {"math_pipe_throttle", "the arithmetic units are busy"},
      {"wait", "fixed waits between dependent instructions"},
      {"not_selected", "ready, another warp issued"},
      {"selected", "issuing"},
      {"no_instruction", "waiting for instructions"},
      {"branch_resolving", "resolving branches"},
      {"dispatch_stall", "the dispatcher stalled"},
      {"drain", "draining stores at exit"},
      {"imc_miss", "waiting for the constant cache"},
      {"sleeping", "sleeping"},
      {"tex_throttle", "the texture queue is full"},
      {"misc", "other reasons"}};
  const auto found = meanings.find(reason);
  return found != meanings.end() ? found->second : reason;
}

double sum_of(const std::vector<KernelProfile>& kernels, const std::string& metric) {
  double total = 0;
  for (const KernelProfile& kernel : kernels) total += kernel.value_or(metric, 0.0);
  return total;
}

double dram_bytes(const std::vector<KernelProfile>& kernels) {
  return sum_of(kernels, "dram__bytes_read.sum") + sum_of(kernels, "dram__bytes_write.sum");
}

double global_atomics(const std::vector<KernelProfile>& kernels) {
  return sum_of(kernels, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum") +
         sum_of(kernels, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
}

/// "3 kernels", or "20 launches of 5 kernels" when some run more than once.
std::string kernels_text(const std::vector<KernelProfile>& launches) {
  std::vector<std::string> names;
  for (const KernelProfile& launch : launches) {
    if (std::find(names.begin(), names.end(), launch.name) == names.end()) names.push_back(launch.name);
  }
  const std::string kernels = std::to_string(names.size()) + (names.size() == 1 ? " kernel" : " kernels");
  if (names.size() == launches.size()) return kernels;
  return std::to_string(launches.size()) + " launches of " + kernels;
}

/// Sectors per request and the share of each sector used, for loads ("ld") or stores ("st").
struct Access {
  bool any = false;
  double sectors_per_request = 0;
  double used_pct = 100;
  double wasted_bytes = 0;  // Bytes of the sectors brought in and not used.
};

Access access_of(const KernelProfile& kernel, const std::string& op) {
  Access access;
  const double requests = kernel.value_or("l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum", 0.0);
  if (requests <= 0) return access;
  access.any = true;
  access.sectors_per_request =
      kernel.value_or("l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum", 0.0) / requests;
  access.used_pct =
      kernel.value_or("smsp__sass_average_data_bytes_per_sector_mem_global_op_" + op + ".pct", 100.0);
  access.wasted_bytes = 32.0 *
                        kernel.value_or("l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum", 0.0) *
                        (1.0 - access.used_pct / 100.0);
  return access;
}

std::string access_text(const Access& access) {
  if (!access.any) return "none";
  return format("%.1f sectors per request", access.sectors_per_request) +
         format(" (%.0f%% of each sector used)", access.used_pct);
}

double shared_conflicts_per_instruction(const KernelProfile& kernel, bool* any) {
  const double instructions = kernel.value_or("smsp__inst_executed_op_shared_ld.sum", 0.0) +
                              kernel.value_or("smsp__inst_executed_op_shared_st.sum", 0.0);
  *any = instructions > 0;
  if (instructions <= 0) return 0;
  return (kernel.value_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0.0) +
          kernel.value_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0.0)) /
         instructions;
}

/// What limits the blocks per SM: the smallest of ncu's four limits.
std::string occupancy_limiter(const KernelProfile& kernel) {
  const std::pair<const char*, const char*> limits[] = {
      {"launch__occupancy_limit_registers", "registers per thread"},
      {"launch__occupancy_limit_shared_mem", "shared memory per block"},
      {"launch__occupancy_limit_warps", "the block size (warps per SM)"},
      {"launch__occupancy_limit_blocks", "blocks per SM"}};
  std::string limiter;
  double smallest = 1e30;
  for (const auto& [metric, meaning] : limits) {
    const std::optional<double> value = kernel.get(metric);
    if (value && *value < smallest) {
      smallest = *value;
      limiter = meaning;
    }
  }
  return limiter;
}

std::vector<std::pair<std::string, double>> top_stalls(const KernelProfile& kernel) {
  std::vector<std::pair<std::string, double>> stalls;
  const std::string prefix = kStallPrefix;
  const std::string suffix = kStallSuffix;
  for (const auto& [metric, value] : kernel.metrics) {
    if (metric.rfind(prefix, 0) != 0 || metric.size() <= prefix.size() + suffix.size()) continue;
    if (metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string reason = metric.substr(prefix.size(), metric.size() - prefix.size() - suffix.size());
    // Issuing, or ready while another warp issues, is not waiting.
    if (reason == "selected" || reason == "not_selected" || value <= 0) continue;
    stalls.emplace_back(reason, value);
  }
  std::sort(stalls.begin(), stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (stalls.size() > kStallsShown) stalls.resize(kStallsShown);
  return stalls;
}

/// Launches of one kernel, folded into one entry: a sort's passes or a
/// scan's levels launch the same kernels many times, and one entry per name
/// keeps the report short. Counters (".sum") add up; the share of each sector
/// used is averaged over the sectors; the rest (launch shape, occupancy,
/// stalls) is the longest launch's.
struct KernelGroup {
  KernelProfile total;
  std::size_t launches = 0;
};

std::vector<KernelGroup> group_by_name(const std::vector<KernelProfile>& launches) {
  std::vector<KernelGroup> groups;
  std::map<std::string, double> longest;
  for (const KernelProfile& launch : launches) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&launch](const KernelGroup& g) { return g.total.name == launch.name; });
    const double time = launch.value_or("gpu__time_duration.sum", 0.0);
    if (group == groups.end()) {
      groups.push_back({launch, 1});
      longest[launch.name] = time;
      continue;
    }
    KernelProfile& total = group->total;
    for (const char* op : {"ld", "st"}) {
      const std::string sectors = std::string("l1tex__t_sectors_pipe_lsu_mem_global_op_") + op + ".sum";
      const std::string used =
          std::string("smsp__sass_average_data_bytes_per_sector_mem_global_op_") + op + ".pct";
      const double a = total.value_or(sectors, 0.0), b = launch.value_or(sectors, 0.0);
      if (a + b > 0)
        total.metrics[used] = (total.value_or(used, 100.0) * a + launch.value_or(used, 100.0) * b) / (a + b);
    }
    const bool longer = time > longest[launch.name];
    for (const auto& [metric, value] : launch.metrics) {
      const bool counter = metric.size() > 4 && metric.compare(metric.size() - 4, 4, ".sum") == 0;
      if (counter) {
        total.metrics[metric] = total.value_or(metric, 0.0) + value;
      } else if (longer && metric.find("bytes_per_sector") == std::string::npos) {
        total.metrics[metric] = value;
      }
    }
    if (longer) longest[launch.name] = time;
    ++group->launches;
  }
  return groups;
}

/// Whether a stall reason is a wait on memory or on other threads (the
/// latency rule): a global load, a fence, a sleep in a spin, a barrier.
bool waits_on_others(const std::string& reason) {
  return reason == "long_scoreboard" || reason == "membar" || reason == "sleeping" || reason == "barrier";
}

/// A rule that fired, and what it says.
struct Cause {
  std::string rule;
  std::string text;
};

/// One kernel's lines, and the causes its counters point to.
void explain_kernel(const KernelProfile& kernel, std::size_t launches, std::size_t index, std::size_t count,
                    double share, double needed_bytes, const std::map<std::string, std::string>& see,
                    std::vector<std::string>& lines, std::vector<Cause>& causes) {
  const double grid = kernel.value_or("launch__grid_size", 0.0);
  const double block = kernel.value_or("launch__block_size", 0.0);
  const double sms = kernel.value_or("device__attribute_multiprocessor_count", 0.0);
  const double shared_bytes = kernel.value_or("launch__shared_mem_per_block_static", 0.0) +
                              kernel.value_or("launch__shared_mem_per_block_dynamic", 0.0);
  std::string head = "  kernel " + std::to_string(index + 1) + " of " + std::to_string(count) + ", " +
                     kernel.name + (launches > 1 ? " (" + std::to_string(launches) + " launches)" : "") +
                     format(", %.3f ms", kernel.value_or("gpu__time_duration.sum", 0.0) / 1e6) +
                     format(" (%.0f%% of the call's GPU time): ", 100.0 * share) +
                     format("%.0f blocks", grid) + format(" of %.0f threads", block);
  if (sms > 0)
    head += grid >= sms ? format(" (%.1f per SM)", grid / sms) : std::string(" (fewer than the SMs)");
  head += format(", %.0f registers per thread", kernel.value_or("launch__registers_per_thread", 0.0));
  head += ", " + bytes_text(shared_bytes) + " of shared memory per block";
  lines.push_back(head);

  const Access loads = access_of(kernel, "ld");
  const Access stores = access_of(kernel, "st");
  bool any_shared = false;
  const double conflicts = shared_conflicts_per_instruction(kernel, &any_shared);
  std::string memory = "    memory: DRAM " + bytes_text(kernel.value_or("dram__bytes_read.sum", 0.0) +
                                                        kernel.value_or("dram__bytes_write.sum", 0.0));
  if (const std::optional<double> pct = kernel.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"))
    memory += format(" at %.0f%% of the DRAM's peak", *pct);
  memory += std::string("; global loads ") + access_text(loads) + "; global stores " + access_text(stores);
  memory += any_shared ? format("; %.2f bank conflicts per shared-memory instruction", conflicts)
                       : "; no shared memory";
  lines.push_back(memory);

  const std::optional<double> achieved = kernel.get("sm__warps_active.avg.pct_of_peak_sustained_active");
  const std::optional<double> possible = kernel.get("sm__maximum_warps_per_active_cycle_pct");
  const std::string limiter = occupancy_limiter(kernel);
  std::string fullness = "    occupancy: ";
  fullness += achieved ? format("%.0f%% of the SM's warps active", *achieved) : "not reported";
  if (possible) fullness += format(", at most %.0f%% possible", *possible);
  if (!limiter.empty()) fullness += " (limited by " + limiter + ")";
  const auto stalls = top_stalls(kernel);
  if (!stalls.empty()) {
    fullness += "; warps wait most on:";
    for (std::size_t i = 0; i < stalls.size(); ++i) {
      fullness += (i == 0 ? " " : ", ") + stalls[i].first + format(" %.1f", stalls[i].second) + " (" +
                  stall_meaning(stalls[i].first) + ")";
    }
    fullness += " cycles per instruction";
  }
  lines.push_back(fullness);

  if (share < kSignificantShare) return;
  const std::string where = "kernel " + std::to_string(index + 1) + " (" + kernel.name + ")";
  for (const auto& [access, kind] : {std::make_pair(loads, "loads"), std::make_pair(stores, "stores")}) {
    if (access.any && access.used_pct < kSectorUseLimitPct &&
        access.wasted_bytes >= kWastedShareLimit * needed_bytes) {
      causes.push_back(
          {"coalescing",
           std::string("uncoalesced global ") + kind + " in " + where +
               format(": each 32-byte sector brought in is %.0f%% used", access.used_pct) +
               format(" (%.1f sectors per request; a warp touching 32 neighbouring 4-byte words needs 4). ",
                      access.sectors_per_request) +
               "Make neighbouring threads touch neighbouring addresses. See " + see_text(see, "coalescing")});
    }
  }
  if (any_shared && conflicts > kConflictsPerInstructionLimit) {
    causes.push_back(
        {"bank_conflicts",
         "shared-memory bank conflicts in " + where +
             format(": %.1f extra passes per shared-memory instruction, where 0 is conflict-free. ",
                    conflicts) +
             "Threads of a warp hit the same bank at different addresses. See " +
             see_text(see, "bank_conflicts")});
  }
  // Atomics that wait for one another are a cause of their own (the atomics
  // rule, checked first): the latency rule would only name their symptom.
  const bool atomics_named =
      std::any_of(causes.begin(), causes.end(), [](const Cause& cause) { return cause.rule == "atomics"; });
  const std::optional<double> throughput = kernel.get("dram__throughput.avg.pct_of_peak_sustained_elapsed");
  if (!atomics_named && share >= kDominantShare && throughput && *throughput < kLatencyBoundPct &&
      !stalls.empty() && waits_on_others(stalls[0].first)) {
    causes.push_back(
        {"latency", where + format(" moves data at %.1f%% of the DRAM's peak", *throughput) +
                        " while its warps wait most on " + stalls[0].first + " (" +
                        stall_meaning(stalls[0].first) +
                        "): its threads wait for one access at a time, or for one another (a chain "
                        "of dependent reads, a spin on another block's flag), not for bandwidth. See " +
                        see_text(see, "latency")});
  }
  if (sms > 0 && grid > 0 && grid < sms) {
    causes.push_back({"grid", "too few blocks in " + where + format(": %.0f blocks", grid) +
                                  format(" for %.0f SMs, so some SMs have nothing to do. See ", sms) +
                                  see_text(see, "grid")});
  } else if (achieved && *achieved < kLowOccupancyPct) {
    causes.push_back({"occupancy", "too few warps in flight in " + where +
                                       format(": %.0f%% of the SM's warps active", *achieved) +
                                       (limiter.empty() ? std::string() : ", limited by " + limiter) +
                                       ", too few to hide the memory's latency. See " +
                                       see_text(see, "occupancy")});
  }
}

}  // namespace

const std::map<std::string, std::string>& explain_default_see() {
  static const std::map<std::string, std::string> see = {
      {"bytes", "the handout's Speed of light"},
      {"coalescing", "lab 03 (coalescing), Background"},
      {"bank_conflicts", "lab 03 (coalescing), the padded tile"},
      {"atomics", "lab 05 (atomics), block aggregation"},
      {"grid", "lab 02 (a*b+c), launch configuration and the grid-stride loop"},
      {"latency",
       "the handout's What to expect, and lab 07 (prefix sum): what a tile does while it waits for its "
       "look-back"},
      {"occupancy", "the student guide, Profiling: occupancy"}};
  return see;
}

LabExplainData parse_lab_explain_data(const nlohmann::json& root, const std::string& path) {
  LabExplainData data;
  if (!root.is_object()) throw GraderError(path + ": must be a JSON object");
  if (const auto speed = root.find("speed"); speed != root.end()) {
    if (!speed->is_object()) throw GraderError(path + ": \"speed\" must map speed tests to what they need");
    for (const auto& [test, entry] : speed->items()) {
      SpeedItemNeeds needs;
      const auto factor = entry.find("bytes_factor");
      const auto are = entry.find("bytes_are");
      if (!entry.is_object() || factor == entry.end() || !factor->is_number() || factor->get<double>() <= 0 ||
          are == entry.end() || !are->is_string()) {
        throw GraderError(path + ": speed." + test +
                          " needs \"bytes_factor\" (a positive number: the handout's bytes over the test's "
                          "min_bytes) and \"bytes_are\" (those bytes in words)");
      }
      needs.bytes_factor = factor->get<double>();
      needs.bytes_are = are->get<std::string>();
      if (const auto expected = entry.find("expected"); expected != entry.end()) {
        if (!expected->is_object())
          throw GraderError(path + ": speed." + test +
                            ".expected must map rules to why the handout expects them");
        for (const auto& [rule, why] : expected->items()) {
          if (explain_default_see().count(rule) == 0 || !why.is_string())
            throw GraderError(path + ": speed." + test + ".expected." + rule +
                              ": not a rule of --explain, or its reason is not a string");
          needs.expected[rule] = why.get<std::string>();
        }
      }
      data.speed[test] = needs;
    }
  }
  if (const auto see = root.find("see"); see != root.end()) {
    if (!see->is_object()) throw GraderError(path + ": \"see\" must map rules to handout sections");
    for (const auto& [rule, place] : see->items()) {
      if (explain_default_see().count(rule) == 0) {
        std::string known;
        for (const auto& [name, unused] : explain_default_see()) known += (known.empty() ? "" : ", ") + name;
        throw GraderError(path + ": see." + rule + " is not a rule of --explain (the rules: " + known + ")");
      }
      if (!place.is_string()) throw GraderError(path + ": see." + rule + " must be a string");
      data.see[rule] = place.get<std::string>();
    }
  }
  return data;
}

LabExplainData load_lab_explain_data(const std::string& path) {
  std::ifstream file(path);
  if (!file) return {};
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throw GraderError(path + " is not valid JSON: " + error.what());
  }
  return parse_lab_explain_data(root, path);
}

ProfileRecord parse_profile_record(const nlohmann::json& root) {
  ProfileRecord record;
  record.test = root.at("test").get<std::string>();
  record.what = root.at("what").get<std::string>();
  record.yardstick = root.at("yardstick").get<std::string>();
  record.min_bytes = root.at("min_bytes").get<double>();
  record.problem = root.at("problem").get<std::string>();
  return record;
}

std::vector<std::string> explain_speed_item(const ProfileRecord& record, const ProfiledCall& call,
                                            const SpeedItemNeeds& needs,
                                            const std::map<std::string, std::string>& see) {
  std::vector<std::string> lines;
  std::vector<Cause> causes;
  const double needed = record.min_bytes * needs.bytes_factor;
  const double yours = dram_bytes(call.yours);
  if (!record.problem.empty()) {
    lines.push_back("  the profiled call's output was wrong, so these counters describe wrong code: " +
                    record.problem);
  }
  if (call.yours.empty()) {
    lines.push_back("  your call (" + record.what +
                    ") launched no kernel that Nsight Compute saw: its work is not on the GPU, or it "
                    "returned without doing any");
    return lines;
  }
  std::string mine =
      "  your call, " + record.what + ": " + kernels_text(call.yours) + ", DRAM moved " + bytes_text(yours);
  if (needed > 0) {
    mine += format(", %.2fx", yours / needed) + " the " + bytes_text(needed) + " it needs (" +
            needs.bytes_are + ")";
  }
  lines.push_back(mine);
  if (!call.yardstick.empty()) {
    const double theirs = dram_bytes(call.yardstick);
    std::string line = "  the yardstick, " + record.yardstick + ": " + kernels_text(call.yardstick) +
                       ", DRAM moved " + bytes_text(theirs);
    if (needed > 0) line += format(", %.2fx", theirs / needed);
    lines.push_back(line);
  } else {
    lines.push_back("  the yardstick, " + record.yardstick +
                    ": no kernel (a copy engine's transfer, which Nsight Compute does not profile)");
  }
  if (needed > 0 && yours > kBytesRatioLimit * needed) {
    causes.push_back({"bytes", format("it moves %.2fx the bytes it needs", yours / needed) + " (" +
                                   needs.bytes_are +
                                   "): some data is read or written more often than the task requires. See " +
                                   see_text(see, "bytes")});
  }
  const double atomics = global_atomics(call.yours);
  if (needed > 0 && atomics / (needed / 1024.0) > kAtomicsPerKiBLimit) {
    causes.push_back(
        {"atomics", format("%.0f global atomic instructions", atomics) +
                        format(", %.1f per KiB the call needs to move: ", atomics / (needed / 1024.0)) +
                        "atomics on the same addresses wait for one another. Combine in shared "
                        "memory first and send one atomic per block. See " +
                        see_text(see, "atomics")});
  }
  const double total_time = std::max(sum_of(call.yours, "gpu__time_duration.sum"), 1e-9);
  const std::vector<KernelGroup> groups = group_by_name(call.yours);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const double share = groups[i].total.value_or("gpu__time_duration.sum", 0.0) / total_time;
    explain_kernel(groups[i].total, groups[i].launches, i, groups.size(), share, needed, see, lines, causes);
  }
  std::size_t likely = 0;
  for (const Cause& cause : causes) {
    const auto expected = needs.expected.find(cause.rule);
    if (expected != needs.expected.end()) {
      lines.push_back("  Expected here, not a cause (" + expected->second + "): " + cause.text + ".");
    } else {
      lines.push_back("  Likely cause: " + cause.text + ".");
      ++likely;
    }
  }
  if (likely == 0) {
    lines.push_back(needed > 0
                        ? format("  Likely cause: none of the rules fires (%.2fx the bytes it needs; "
                                 "sectors used, bank conflicts, atomics, waits and occupancy within bounds)",
                                 yours / needed)
                        : "  Likely cause: none of the rules fires");
  }
  return lines;
}

namespace {

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// The first "==ERROR==" line of ncu's output, or "".
std::string ncu_error_line(const std::string& text) {
  const std::size_t at = text.find("==ERROR==");
  if (at == std::string::npos) return "";
  const std::size_t end = text.find('\n', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

/// The items @p mode selects: measured ones (slow ones unless "all").
std::vector<const RubricSpeed*> items_to_explain(ExplainMode mode, const LabRubric& lab, const LabRun& run) {
  std::vector<const RubricSpeed*> items;
  for (const RubricSpeed& item : lab.speed) {
    const auto test = std::find_if(run.tests.begin(), run.tests.end(),
                                   [&item](const TestResult& result) { return result.name == item.test; });
    if (test == run.tests.end() || !test->speed) continue;
    if (mode == ExplainMode::slow && test->speed->ratio >= item.target) continue;
    items.push_back(&item);
  }
  return items;
}

}  // namespace

void explain_speed_items(ExplainMode mode, const std::string& lab_dir, const LabRubric& lab,
                         const RunOptions& options, LabRun& run) {
  if (mode == ExplainMode::off || !run.error.empty()) return;
  const std::vector<const RubricSpeed*> items = items_to_explain(mode, lab, run);
  if (items.empty()) return;
  const std::string ncu = find_ncu();
  if (ncu.empty()) {
    run.notes.push_back("explain: no Nsight Compute (ncu) here, so the grader cannot say why " +
                        std::string(items.size() == 1 ? "a speed item is" : "speed items are") +
                        " slow: it comes with the CUDA Toolkit (put its bin folder on the PATH, or set "
                        "WORKBOOK_NCU to its path). Your grade is the same either way.");
    return;
  }
  // A malformed explain.json costs the explanation, never the grade or the report.
  LabExplainData data;
  try {
    data = load_lab_explain_data(lab_dir + "/explain.json");
  } catch (const GraderError& error) {
    run.notes.push_back(std::string("explain: nothing explained: ") + error.what());
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  std::size_t explained = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const RubricSpeed& item = *items[i];
    RunOptions under = options;
    under.work_dir = options.work_dir + "/explain-" + std::to_string(i + 1);
    std::filesystem::create_directories(under.work_dir);
    const std::string log_path = under.work_dir + "/ncu.csv";
    const std::string record_path = under.work_dir + "/profile.json";
    under.wrapper = ncu_command(ncu, log_path);
    under.env.emplace_back(workbook::testing::kProfileRecordEnv, record_path);
    const std::string wanted = item.test;
    under.select = [wanted](const std::string& test) { return test == wanted; };
    under.unselected_message.clear();
    under.progress = nullptr;
    under.shards = 1;
    under.runs_alone = nullptr;
    under.limits.items.clear();
    under.limits.test_s = kProfileSeconds;
    under.limits.lab_s = kProfileSeconds + 60.0;
    const LabRun profiled = run_lab(run.lab_id, under);

    std::string output = read_text_file(log_path);
    for (const std::string& log : profiled.logs) output += read_text_file(log);
    if (const std::string refusal = ncu_refusal(output); !refusal.empty()) {
      run.notes.push_back("explain: " + refusal);
      return;
    }
    const auto test = std::find_if(run.tests.begin(), run.tests.end(),
                                   [&item](const TestResult& result) { return result.name == item.test; });
    if (test == run.tests.end()) continue;
    std::ifstream record_file(record_path);
    if (!record_file) {
      std::string why = ncu_error_line(output);
      if (why.empty() && !profiled.tests.empty()) why = first_line(profiled.tests.front().message);
      if (why.empty() && !profiled.error.empty()) why = profiled.error;
      run.notes.push_back("explain: could not profile '" + item.name + "'" + (why.empty() ? "" : ": " + why) +
                          " (ncu's output: " + log_path + ")");
      continue;
    }
    try {
      const ProfileRecord record = parse_profile_record(nlohmann::json::parse(record_file));
      const ProfiledCall call = split_at_marks(parse_ncu_csv(read_text_file(log_path)));
      const auto needs = data.speed.find(item.test);
      test->explanation = explain_speed_item(
          record, call, needs != data.speed.end() ? needs->second : SpeedItemNeeds{}, data.see);
      ++explained;
    } catch (const nlohmann::json::exception& error) {
      run.notes.push_back("explain: the profile record " + record_path + " is not what the harness writes (" +
                          error.what() + ")");
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  run.notes.push_back("explain: profiled " + std::to_string(explained) + " of " +
                      std::to_string(items.size()) + " speed item(s) under Nsight Compute in " +
                      format_seconds(std::round(seconds)) + " s (one call each, untimed; no score changed)");
}

}  // namespace workbook::grader
