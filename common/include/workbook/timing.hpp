/// @file timing.hpp
/// @brief Timing GPU work with CUDA events: warm-up, cold L2, median of samples
/// repeated until the spread is small or a time budget ends.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace workbook {

/// @brief How to time.
struct TimingOptions {
  int warmup_runs = 2;                ///< Untimed runs first (module load, caches, clocks).
  int min_samples = 7;                ///< Never fewer timed samples than this.
  int max_samples = 100;              ///< Never more than this.
  double max_relative_spread = 0.03;  ///< Stop once (p75 - p25) / median is at most this.
  double time_budget_ms = 4000.0;     ///< Stop after this much wall time (at >= min_samples).
  bool flush_l2 = true;               ///< Overwrite a buffer larger than L2 before each sample.
  /// Untimed, before every run of the work (the warm-ups too), on its stream:
  /// for an experiment that resets an output between runs. (Speed tests use
  /// workbook::testing::measure_speed, which draws a new input for every run.)
  std::function<void(cudaStream_t)> before_each;
};

/// @brief The outcome of timing: median and spread of the samples.
struct TimingResult {
  double median_ms = 0;        ///< Median of the samples, milliseconds.
  double min_ms = 0;           ///< Fastest sample.
  double max_ms = 0;           ///< Slowest sample.
  double relative_spread = 0;  ///< Interquartile range over the median.
  int samples = 0;             ///< Number of timed samples.
  bool converged = false;      ///< Whether the spread fell below the requested one.

  /// @brief One line: "median 1.418 ms (min 1.41, max 1.43, spread 0.4%, 9 samples)".
  /// @return The summary.
  std::string summary() const;
};

/// @brief The median, extremes and spread of timed samples.
/// @param[in] samples Milliseconds, at least one.
/// @param[in] max_relative_spread The spread at or below which they count as converged.
/// @return The summary.
TimingResult summarize_samples(const std::vector<double>& samples, double max_relative_spread);

/// @brief The spread of a timing for a table column: the interquartile range
/// over the median, as "±0.4%", right-aligned in 7 columns (printf's widths
/// count bytes, and "±" is two bytes in one column, so print it with "%s").
/// @param[in] timing The timing.
/// @return The text, 7 columns wide (wider only past ±999.9%).
std::string spread_text(const TimingResult& timing);

/// @brief Times @p work, which enqueues GPU work on the stream it is given
/// (the legacy default stream, where launches without a stream argument go).
/// Each sample: flush L2 (if asked), record an event, run @p work, record an event.
/// @param[in] work The work to time, e.g. a kernel launch on the given stream.
/// @param[in] options How many samples, how long, cold or warm L2.
/// @return The median and spread of the samples.
TimingResult time_gpu(const std::function<void(cudaStream_t)>& work, const TimingOptions& options = {});

/// @brief Overwrites a device buffer of twice the L2 size so that the next
/// kernel finds none of its data in L2.
/// @param[in] stream The stream to enqueue the overwrite on.
void flush_l2(cudaStream_t stream);

/// @brief Bandwidth in GB/s (10^9 bytes per second).
/// @param[in] bytes Bytes moved (read plus written).
/// @param[in] ms Time in milliseconds.
/// @return bytes / ms / 10^6.
inline double gigabytes_per_second(double bytes, double ms) {
  return bytes / ms / 1.0e6;
}

}  // namespace workbook
