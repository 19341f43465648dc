#include "workbook/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/device.hpp"

namespace workbook {

std::string TimingResult::summary() const {
  char line[160];
  std::snprintf(line, sizeof line, "median %.4f ms (min %.4f, max %.4f, spread %.1f%%, %d samples)",
                median_ms, min_ms, max_ms, 100.0 * relative_spread, samples);
  return line;
}

void flush_l2(cudaStream_t stream) {
  // Twice the L2 size: whatever was cached is evicted by the time the memset ends.
  static DeviceBuffer<unsigned char> scratch(2 *
                                             std::max<std::size_t>(current_device_info().l2_bytes, 8u << 20));
  CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.bytes(), stream));
}

namespace {
double quantile(std::vector<double> sorted, double q) {
  std::sort(sorted.begin(), sorted.end());
  const double position = q * static_cast<double>(sorted.size() - 1);
  const std::size_t below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}
}  // namespace

TimingResult time_gpu(const std::function<void(cudaStream_t)>& work, const TimingOptions& options) {
  // The legacy default stream: lab launchers take no stream, and timing them
  // on the stream they use keeps the events' meaning obvious.
  const cudaStream_t stream = nullptr;
  CudaEvent start;
  CudaEvent stop;
  for (int i = 0; i < options.warmup_runs; ++i) {
    if (options.before_each) options.before_each(stream);
    work(stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  std::vector<double> samples;
  const auto began = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < options.max_samples) {
    if (options.before_each) options.before_each(stream);
    if (options.flush_l2) flush_l2(stream);
    start.record(stream);
    work(stream);
    stop.record(stream);
    samples.push_back(stop.elapsed_ms_since(start));

    if (static_cast<int>(samples.size()) < options.min_samples) continue;
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    if (summarize_samples(samples, options.max_relative_spread).converged || elapsed > options.time_budget_ms)
      break;
  }
  return summarize_samples(samples, options.max_relative_spread);
}

TimingResult summarize_samples(const std::vector<double>& samples, double max_relative_spread) {
  TimingResult result;
  if (samples.empty()) return result;
  const double median = quantile(samples, 0.5);
  result.relative_spread = median > 0 ? (quantile(samples, 0.75) - quantile(samples, 0.25)) / median : 0;
  result.converged = result.relative_spread <= max_relative_spread;
  result.samples = static_cast<int>(samples.size());
  result.median_ms = median;
  result.min_ms = *std::min_element(samples.begin(), samples.end());
  result.max_ms = *std::max_element(samples.begin(), samples.end());
  return result;
}

std::string spread_text(const TimingResult& timing) {
  char text[32];
  const int bytes = std::snprintf(text, sizeof text, "\u00b1%.1f%%", 100.0 * timing.relative_spread);
  const int columns = bytes - 1;  // "±" is two bytes in UTF-8, one column
  return std::string(columns < 7 ? static_cast<std::size_t>(7 - columns) : 0, ' ') + text;
}

}  // namespace workbook
