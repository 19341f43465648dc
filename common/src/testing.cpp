#include "workbook/testing.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "testing_internal.hpp"
#include "workbook/device.hpp"

namespace workbook::testing {

namespace {
// What the running test reported, written out by the result stream.
nlohmann::json& current_metrics() {
  static nlohmann::json metrics = nlohmann::json::object();
  return metrics;
}
std::string& context_lost_reason() {
  static std::string reason;
  return reason;
}

// What a student should look at first for an error a test's kernels left
// behind: the usual "index past the end" hint misleads for a launch that was
// refused or a runtime that ran out of host resources.
std::string likely_cause(cudaError_t status) {
  switch (status) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorLaunchOutOfResources:
      return "The launch was refused: check the block size (at most 1024 threads), the grid size and the "
             "shared memory a block asks for.";
    case cudaErrorDevicesUnavailable:
    case cudaErrorMemoryAllocation:
    case cudaErrorOperatingSystem:
      return "The CUDA runtime ran out of a resource it needs (threads, processes or memory of the host "
             "or the GPU): do not start threads or processes of your own, and allocate only what the lab "
             "asks for.";
    default:
      return "Typical causes: an index past the end of an array, or a missing bounds check. Run the lab "
             "under `compute-sanitizer` to find the line.";
  }
}
}  // namespace

void GpuTest::SetUp() {
  static std::string reason;
  static const bool available = workbook::cuda_device_available(&reason);
  if (!available) {
    GTEST_SKIP() << "workbook-skip: " << reason
                 << ". GPU tests are skipped, never passed; run them on a machine with an NVIDIA GPU "
                    "(README.md, \"No GPU?\").";
  }
}

void GpuTest::TearDown() {
  if (IsSkipped()) return;
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status == cudaSuccess) return;
  cudaGetLastError();
  const bool lost = cudaDeviceSynchronize() != cudaSuccess;
  ADD_FAILURE() << "a kernel of this test failed on the GPU: " << cudaGetErrorName(status) << " ("
                << cudaGetErrorString(status) << "). " << likely_cause(status);
  if (lost) context_lost_reason() = cudaGetErrorName(status);
}

std::string describe_case(std::size_t n, Pattern pattern) {
  return "n=" + std::to_string(n) + ", pattern=" + to_string(pattern) +
         ", seed=" + std::to_string(test_seed());
}

::testing::AssertionResult matches(const ComparisonReport& report, const std::string& context) {
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wrong result for " << context << ": " << report.describe();
}

void record_metric(const std::string& name, double value) {
  current_metrics()[name] = value;
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

namespace internal {
std::string running_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return "";
  return std::string(info->test_suite_name()) + "." + info->name();
}
}  // namespace internal

namespace {
std::string rubric_path() {
  const char* path = std::getenv("WORKBOOK_RUBRIC");
  return path != nullptr && *path != '\0' ? path : WORKBOOK_DEFAULT_RUBRIC;
}
}  // namespace

SpeedTarget speed_target_for(const std::string& lab_id) {
  const std::string path = rubric_path();
  std::ifstream file(path);
  if (!file)
    throw std::runtime_error("cannot open the rubric " + path + " (set WORKBOOK_RUBRIC to its path)");
  nlohmann::json rubric;
  try {
    rubric = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error("the rubric " + path + " is not valid JSON: " + error.what());
  }
  const std::string test = internal::running_test_name();
  const auto lab = rubric.find("labs");
  if (lab != rubric.end() && lab->contains(lab_id)) {
    for (const auto& item : (*lab)[lab_id].value("speed", nlohmann::json::array())) {
      if (item.value("test", "") == test)
        return {item.at("target").get<double>(), item.at("floor").get<double>()};
    }
  }
  throw std::runtime_error("the rubric " + path + " has no speed entry for lab " + lab_id + ", test " + test);
}

void expect_speed_for(const std::string& lab_id, const SpeedMeasurement& speed) {
  const SpeedTarget target = speed_target_for(lab_id);
  const double ratio = speed.yardstick_value > 0 ? speed.value / speed.yardstick_value : 0.0;
  nlohmann::json record = {{"value", speed.value},
                           {"unit", speed.unit},
                           {"yardstick", speed.yardstick},
                           {"yardstick_value", speed.yardstick_value},
                           {"ratio", ratio},
                           {"target", target.target},
                           {"floor", target.floor}};
  current_metrics()["speed"] = record;
  ::testing::Test::RecordProperty("speed_ratio", std::to_string(ratio));
  char line[256];
  std::snprintf(line, sizeof line, "%.1f %s = %.1f%% of %s (%.1f %s); target %.0f%%, floor %.0f%%",
                speed.value, speed.unit.c_str(), 100.0 * ratio, speed.yardstick.c_str(),
                speed.yardstick_value, speed.unit.c_str(), 100.0 * target.target, 100.0 * target.floor);
  std::printf("[  SPEED   ] %s\n", line);
  EXPECT_GE(ratio, target.target)
      << "too slow: " << line << ". Look at the handout's hints on memory access and launch configuration.";
}

// ---- result stream: one JSON line per test event, for the grader ----

namespace internal {

class ResultStream : public ::testing::EmptyTestEventListener {
 public:
  explicit ResultStream(const std::string& path) : out_(path, std::ios::app) {
    if (!out_) throw std::runtime_error("cannot write the results file " + path);
  }

  void OnTestStart(const ::testing::TestInfo& info) override {
    current_metrics() = nlohmann::json::object();
    write({{"event", "start"}, {"test", name(info)}});
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const ::testing::TestResult& result = *info.result();
    std::string status = result.Skipped() ? "skipped" : result.Failed() ? "failed" : "passed";
    std::string message;
    for (int i = 0; i < result.total_part_count(); ++i) {
      const ::testing::TestPartResult& part = result.GetTestPartResult(i);
      if (part.failed() || part.skipped()) {
        if (!message.empty()) message += "\n";
        if (part.file_name() != nullptr)
          message += std::string(part.file_name()) + ":" + std::to_string(part.line_number()) + ": ";
        message += part.message();
      }
    }
    if (message.size() > 4000) message = message.substr(0, 4000) + " [...]";
    write({{"event", "end"},
           {"test", name(info)},
           {"status", status},
           {"message", message},
           {"time_ms", result.elapsed_time()},
           {"metrics", current_metrics()}});
    if (!context_lost_reason().empty()) {
      // The CUDA context is unusable after a fault; every later test would
      // fail for the wrong reason. Stop; the grader resumes in a new process.
      write({{"event", "abort"},
             {"reason", "CUDA context lost after " + name(info) + ": " + context_lost_reason()}});
      std::fflush(nullptr);
      std::_Exit(3);
    }
  }

 private:
  static std::string name(const ::testing::TestInfo& info) {
    return std::string(info.test_suite_name()) + "." + info.name();
  }
  void write(const nlohmann::json& record) {
    out_ << record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    out_.flush();  // The process may die in the next test; keep what is known.
  }
  std::ofstream out_;
};

void install_result_stream() {
  const char* path = std::getenv("WORKBOOK_RESULTS");
  if (path == nullptr || *path == '\0') return;
  ::testing::UnitTest::GetInstance()->listeners().Append(new ResultStream(path));
}

}  // namespace internal
}  // namespace workbook::testing
