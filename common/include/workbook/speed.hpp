/// @file speed.hpp
/// @brief The one timing loop of every lab's speed tests. A speed point must
/// mean that the student's code is that fast, so each run of a speed item:
///   1. reads an input nobody has seen: `prepare` draws it on the device from a
///      seed made for that run alone (workbook/device_inputs.hpp), untimed;
///   2. is timed so that all the GPU work the call started counts, on any
///      stream: CUDA events on the default stream, and the host's clock up to
///      a device-wide synchronize for work on streams of the student's own;
///      before each timed call the L2 cache is flushed and what a call could
///      leave in it for the next (a persisting carve-out, a default stream's
///      access window, a device-wide cache preference) is reset;
///   3. times the yardstick on the same input (after one untimed call of it, so
///      that both timed calls start on a busy GPU) just before the student's call
///      (yardstick, student, yardstick, student, ...: clocks, temperature and
///      leftover work hit both alike);
///   4. keeps the yardstick's answer out of the student's reach: after its
///      timed call, everything it wrote (`yardstick_writes`: its output and its
///      temporary storage) is overwritten; the inputs are fingerprinted before
///      the student's call and must be unchanged after it; then the yardstick
///      runs again, untimed, on that same input, and `check` compares;
///   5. has its output checked, untimed, by `check` (on the device where the
///      data is large): one wrong run, warm-ups included, fails the item with
///      the run's number and what was wrong, and it scores nothing.
/// No work behind the grader's back: the process may hold no thread beyond
/// the main thread and the CUDA runtime's own, before the student's first
/// call and after each (workbook/process_threads), and the yardstick's median
/// in the alternation may not be clearly slower than its clean time, measured
/// alone on the GPU before the student's call ran in the item: something else
/// used the GPU then, and the item is not scored.
/// A median faster than the task's speed of light (the bytes it must move at
/// the copy bandwidth measured in the same process) is refused, whatever the
/// output.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/profile_record.hpp"
#include "workbook/timing.hpp"

namespace workbook::testing {

/// @brief A device input of a speed item, by its name in the lab's contract.
struct SpeedInput {
  std::string name;   ///< e.g. "keys_in".
  DeviceBytes range;  ///< The memory the student's call reads.
};

/// @brief One speed item: what to run, what to compare it with, how to check it.
struct SpeedTask {
  std::string what;       ///< The student's call and its input, e.g. "sort_keys of 2^24 uniform keys".
  std::string yardstick;  ///< e.g. "cub::DeviceRadixSort::SortKeys on the same keys".
  std::string unit;       ///< The rate's unit, e.g. "Gkeys/s"; rate = work / time.
  /// Units of work per call (bytes, keys, ...): rate = work / time, in billions per second.
  double work = 0;
  /// Bytes any correct version must read and write per call: the speed of light.
  double min_bytes = 0;
  /// Draws the input of one run from @p seed and resets outputs (poison, zero
  /// counters), untimed, on @p stream.
  std::function<void(std::uint64_t seed, cudaStream_t stream)> prepare;
  /// The yardstick on the run's input: called twice per run, once untimed to
  /// warm up and then timed, first; each call must leave the same answer (a
  /// yardstick that adds into a counter zeroes it itself).
  std::function<void(cudaStream_t stream)> run_yardstick;
  /// The student's call on the same input (timed, second).
  std::function<void(cudaStream_t stream)> run;
  /// After the student's call and one more untimed call of the yardstick on
  /// the same (unchanged) input: "" when the student's output is right for
  /// that input (the yardstick's output, or a property that proves it), else
  /// what is wrong (untimed).
  std::function<std::string()> check;
  /// Everything the student's call reads: fingerprinted after `prepare` and
  /// checked after the call, which may not change a byte of it.
  std::vector<SpeedInput> inputs;
  /// Everything the yardstick writes: its output and its temporary storage
  /// (CubCall::storage()). Overwritten after its timed call, before the
  /// student's, so that no answer of it is left where the student's code
  /// could copy it.
  std::vector<DeviceBytes> yardstick_writes;
};

/// @brief How long to measure.
struct SpeedOptions {
  int warmup_runs = 1;                ///< Runs before the samples (checked too, never timed).
  int min_samples = 5;                ///< Never fewer samples of each than this.
  int max_samples = 30;               ///< Never more than this.
  double max_relative_spread = 0.03;  ///< Stop once both spreads ((p75 - p25) / median) are this small.
  double time_budget_ms = 2000.0;     ///< Stop after this much wall time (at >= min_samples).
  /// A rate up to this many times the copy bandwidth's is believed: a kernel
  /// that only reads can beat a copy's read-and-write rate by about 5 % (H200).
  double light_allowance = 1.25;
  /// Timed runs of the yardstick alone, before the student's first call: its clean time.
  int clean_runs = 5;
  /// The item is not scored when the yardstick's median in the alternation
  /// exceeds its clean median by more than this fraction, and by
  /// clean_margin_ms: something else used the GPU while it was timed.
  double yardstick_slowdown = 0.15;
  double clean_margin_ms = 0.005;  ///< The absolute part of that bound (timer jitter on short calls).
};

/// @brief What a speed item measured.
struct SpeedOutcome {
  TimingResult yours;         ///< The student's samples.
  TimingResult yardstick;     ///< The yardstick's samples, taken alternately with them.
  TimingResult clean;         ///< The yardstick alone, before the student's first call.
  double rate = 0;            ///< work / the student's median.
  double yardstick_rate = 0;  ///< work / the yardstick's median.
  int runs_checked = 0;       ///< Runs whose output was checked (warm-ups included).
  /// Empty, or why the item scores nothing: a wrong run, an input written, a
  /// thread left running, a yardstick slowed by other work, an impossible speed.
  std::string problem;
};

/// @brief Runs the loop described at the top of this file.
/// @param[in] task The speed item.
/// @param[in] options How long to measure.
/// @return The timings and rates, or the problem that voids them.
/// @throws std::invalid_argument when the task lacks a part (inputs and
/// yardstick_writes included).
SpeedOutcome measure_speed(const SpeedTask& task, const SpeedOptions& options = {});

/// @brief The seed of run @p run of the running test: derived from the test
/// seed (workbook::test_seed()) and the test's name, so that items differ and
/// an instructor's secret seed changes every input.
/// @param[in] run The run's number (0 for the first warm-up).
/// @return The seed.
std::uint64_t speed_run_seed(int run);

/// @brief Profile mode, for the grader's --explain: draws the input of run 0,
/// then, between cudaProfilerStart() and cudaProfilerStop() (what
/// `ncu --profile-from-start off` profiles), makes one call of the student's
/// function and one of the yardstick's, each after an empty mark kernel
/// (`workbook_profile_mark_yours`, `workbook_profile_mark_yardstick`) that
/// tells their launches apart. Nothing is timed. Writes a JSON record to
/// @p record_path: the test, what, yardstick, unit, work, min_bytes, and
/// problem (the check's verdict on that call, "" when right).
/// @param[in] task The speed item.
/// @param[in] record_path Where to write the record.
/// @throws std::invalid_argument when the task lacks a part; std::runtime_error
/// when the record cannot be written.
void profile_speed_task(const SpeedTask& task, const std::string& record_path);

/// @brief Measures @p task and grades it against the rubric's target for lab
/// @p lab_id: a problem fails the test and records no speed (the item scores
/// nothing), otherwise expect_speed_for() records and judges the ratio. With
/// kProfileRecordEnv set, profiles the task instead (profile_speed_task())
/// and skips the test.
/// @param[in] lab_id The lab's folder name.
/// @param[in] task The speed item.
/// @param[in] options How long to measure.
void check_speed_for(const std::string& lab_id, const SpeedTask& task, const SpeedOptions& options = {});

#if defined(WORKBOOK_LAB_ID)
/// @brief check_speed_for() for the lab being built (WORKBOOK_LAB_ID, set by CMake).
/// @param[in] task The speed item.
/// @param[in] options How long to measure.
inline void check_speed(const SpeedTask& task, const SpeedOptions& options = {}) {
  check_speed_for(WORKBOOK_LAB_ID, task, options);
}
#endif

}  // namespace workbook::testing
