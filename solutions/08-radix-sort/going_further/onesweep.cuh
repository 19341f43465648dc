/// @file onesweep.cuh
/// @brief Lab 08, Going further: a single-pass ("Onesweep") LSD radix sort of
/// uint32 keys and key-value pairs, after Adinets and Merrill (2022).
///
/// Not part of the student's contract and not graded: a reference for
/// self-learners, kept beside the solution (it never reaches the student
/// release). One kernel reads the keys once and counts the digits of all four
/// passes; then each pass is one kernel that ranks its tile, finds where the
/// tile's keys of each digit go with decoupled look-back over the tiles'
/// digit counts (lab 07's single-pass scan, one scan per digit) and scatters.
/// Compared with sort_keys()'s three launches per pass, the digit counts are
/// never written to and read back from DRAM per tile, and the keys are read
/// once per pass instead of twice.
///
///   ./workbook bench radix-sort --solution    (the experiment, then the Onesweep rows)
#pragma once

#include <cstddef>
#include <cstdint>

#include "radix_sort.cuh"
#include "workbook/buffers.hpp"

namespace radix_sort {

/// Threads per block of a Onesweep pass: 12 warps, so that 3 blocks fill an
/// H200 SM's register file at 56 registers a thread (CUB's sm_90 tuning for
/// 4-byte keys is 384 x 23 too).
constexpr int kOnesweepThreads = 384;
/// Keys per thread: a tile of 384 x 23 = 8832 keys. Tiles of 384 x 16 were
/// 10-13 % slower at 2^24 and 2^28 (tools/sweeps/onesweep_sweep.cu): each tile
/// pays its look-back and its barriers once, whatever its size.
constexpr int kOnesweepItems = 23;
/// Keys per tile.
constexpr int kOnesweepTileSize = kOnesweepThreads * kOnesweepItems;

/// @brief The device memory of onesweep_sort_keys() and onesweep_sort_pairs(),
/// allocated once so that a sort allocates nothing.
class OnesweepScratch {
 public:
  /// @brief Allocates for sorts of at most @p max_n keys (and values, if asked).
  /// @param[in] max_n The largest n the scratch will serve, below 2^30 (the
  /// look-back words carry counts in 30 bits).
  /// @param[in] with_values Whether to allocate the values' second buffer,
  /// which onesweep_sort_pairs() needs.
  /// @throws std::invalid_argument if max_n >= 2^30.
  explicit OnesweepScratch(std::size_t max_n, bool with_values = false);

  /// @return The largest n this scratch serves.
  std::size_t max_n() const { return max_n_; }
  /// @return Whether the scratch can serve onesweep_sort_pairs().
  bool has_values() const { return has_values_; }

  /// @return kPasses x kRadix counts, then first positions, of the digits.
  std::uint32_t* digit_starts() { return digit_starts_.data(); }
  /// @return For each pass: one look-back word per (tile, digit), then the pass's tile counter.
  std::uint32_t* look_back() { return look_back_.data(); }
  /// @return The number of 32-bit words look_back() holds per pass.
  std::size_t look_back_words_per_pass() const { return words_per_pass_; }
  /// @return The keys' second buffer (the passes ping-pong between it and the output).
  std::uint32_t* keys_temp() { return keys_temp_.data(); }
  /// @return The values' second buffer.
  std::uint32_t* values_temp() { return values_temp_.data(); }
  /// @return Blocks of the histogram kernel: enough to fill the GPU.
  unsigned histogram_blocks() const { return histogram_blocks_; }

 private:
  std::size_t max_n_;
  bool has_values_;
  std::size_t words_per_pass_;
  unsigned histogram_blocks_;
  workbook::DeviceBuffer<std::uint32_t> digit_starts_, look_back_, keys_temp_, values_temp_;
};

/// @brief keys_out = keys_in in ascending order, stable: one histogram pass and
/// kPasses Onesweep passes, all on @p stream.
/// @param[in] keys_in Device array of n keys; read, never written unless it is keys_out.
/// @param[out] keys_out Device array of n keys (may be keys_in).
/// @param[in] n Number of keys, at most scratch.max_n().
/// @param[in,out] scratch The device memory, built for at least n keys.
/// @param[in] stream The stream (nullptr: the default stream).
/// @throws std::invalid_argument for n above the scratch's max_n or a null array with n > 0.
void onesweep_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
                        OnesweepScratch& scratch, cudaStream_t stream = nullptr);

/// @brief As onesweep_sort_keys(), each value moving with its key: keys_out
/// ascending, values_out[i] the value of the key now at i, equal keys in input order.
/// @param[in] keys_in Device array of n keys.
/// @param[in] values_in Device array of n values.
/// @param[out] keys_out Device array of n keys (may be keys_in).
/// @param[out] values_out Device array of n values (may be values_in).
/// @param[in] n Number of pairs, at most scratch.max_n().
/// @param[in,out] scratch Built with with_values = true.
/// @param[in] stream The stream.
/// @throws std::invalid_argument as onesweep_sort_keys(), or for a scratch without values.
void onesweep_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                         std::uint32_t* keys_out, std::uint32_t* values_out, std::size_t n,
                         OnesweepScratch& scratch, cudaStream_t stream = nullptr);

}  // namespace radix_sort
