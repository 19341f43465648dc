#include "ncu_profile.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "process.hpp"

namespace workbook::grader {

std::optional<double> KernelProfile::get(const std::string& metric) const {
  const auto found = metrics.find(metric);
  if (found == metrics.end()) return std::nullopt;
  return found->second;
}

double KernelProfile::value_or(const std::string& metric, double fallback) const {
  return get(metric).value_or(fallback);
}

const std::vector<std::string>& explain_metrics() {
  static const std::vector<std::string> metrics = [] {
    std::vector<std::string> names = {
        // Time, and the bytes the DRAM moved (the speed of light's currency).
        "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        // Coalescing: 32-byte sectors per request, and how much of each sector was used.
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
        // Shared memory: bank conflicts per shared-memory instruction.
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__inst_executed_op_shared_ld.sum",
        "smsp__inst_executed_op_shared_st.sum",
        // Global atomics (atom: the result is used; red: it is not).
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
        // How full the GPU was, and what limits it.
        "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct",
        "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
        "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks", "launch__grid_size",
        "launch__block_size", "launch__registers_per_thread", "launch__shared_mem_per_block_static",
        "launch__shared_mem_per_block_dynamic", "launch__waves_per_multiprocessor",
        "device__attribute_multiprocessor_count"};
    // Where warps wait: cycles stalled per issued instruction, by reason.
    for (const char* reason :
         {"barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
          "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc", "no_instruction",
          "not_selected", "selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"}) {
      names.push_back(std::string("smsp__average_warps_issue_stalled_") + reason + "_per_issue_active.ratio");
    }
    return names;
  }();
  return metrics;
}

std::string find_ncu() {
  if (const char* chosen = std::getenv("WORKBOOK_NCU"); chosen != nullptr && *chosen != '\0')
    return ::access(chosen, X_OK) == 0 ? chosen : "";
  std::string program = find_on_path("ncu");
  if (program.empty() && ::access("/usr/local/cuda/bin/ncu", X_OK) == 0) program = "/usr/local/cuda/bin/ncu";
  return program;
}

std::vector<std::string> ncu_command(const std::string& ncu, const std::string& log_path) {
  std::string metrics;
  for (const std::string& metric : explain_metrics()) metrics += (metrics.empty() ? "" : ",") + metric;
  return {ncu,    "--profile-from-start", "off",      "--csv",      "--page", "raw",       "--print-units",
          "base", "--print-kernel-base",  "function", "--log-file", log_path, "--metrics", metrics};
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

namespace {

/// A number as ncu prints it ("268,454,144", "12.5"), or nothing ("n/a", "").
std::optional<double> parse_number(const std::string& text) {
  std::string digits;
  for (const char c : text) {
    if (c != ',' && c != ' ') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return value;
}

bool is_launch_id(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

}  // namespace

std::vector<KernelProfile> parse_ncu_csv(const std::string& text) {
  std::vector<KernelProfile> launches;
  std::vector<std::string> header;
  std::size_t id_column = 0;
  std::size_t name_column = 0;
  std::stringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '"') continue;
    const std::vector<std::string> fields = split_csv_line(line);
    if (header.empty()) {
      header = fields;
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "ID") id_column = i;
        if (header[i] == "Kernel Name") name_column = i;
      }
      continue;
    }
    // The units row, and anything else that is not a launch, has no ID.
    if (fields.size() != header.size() || !is_launch_id(fields[id_column])) continue;
    KernelProfile launch;
    launch.name = fields[name_column];
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (header[i].find("__") == std::string::npos) continue;  // Not a metric: a column such as "Stream".
      if (const std::optional<double> value = parse_number(fields[i])) launch.metrics[header[i]] = *value;
    }
    launches.push_back(std::move(launch));
  }
  return launches;
}

ProfiledCall split_at_marks(const std::vector<KernelProfile>& launches) {
  ProfiledCall call;
  std::vector<KernelProfile>* into = nullptr;
  for (const KernelProfile& launch : launches) {
    if (launch.name == kYoursMark) {
      into = &call.yours;
    } else if (launch.name == kYardstickMark) {
      into = &call.yardstick;
    } else if (into != nullptr) {
      into->push_back(launch);
    }
  }
  return call;
}

std::string ncu_refusal(const std::string& text) {
  if (text.find("ERR_NVGPUCTRPERM") == std::string::npos) return "";
  return "Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM), so --explain "
         "cannot "
         "say why: run the grader as root, or have an administrator allow it for every user (the NVIDIA "
         "driver's option NVreg_RestrictProfilingToAdminUsers=0; see "
         "https://developer.nvidia.com/ERR_NVGPUCTRPERM). Your grade is the same either way.";
}

}  // namespace workbook::grader
