/// @file count_scan.cuh
/// @brief A device-wide exclusive prefix sum of 32-bit counts, provided by the
/// harness for the labs that need a scan as one step of a larger algorithm
/// (compaction, radix sort, histograms, the BVH). It is lab 07's
/// reduce-then-scan, kept here once so that later labs call it instead of
/// copying it. Lab 07's own file may not call it: writing a scan is that lab.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "workbook/buffers.hpp"

namespace workbook {

/// @brief Counts scanned per tile (per block) by CountScan: 256 threads with 8
/// counts each.
constexpr std::size_t kCountScanTile = 2048;

/// @brief Exclusive prefix sums of up to a fixed number of uint32 counts,
/// with all its scratch memory allocated once at construction, so that a
/// scan inside a timed loop or a sort pass allocates nothing. Not for use by
/// two streams at once: the scratch is shared by its calls.
///
/// Three kernels: every tile of kCountScanTile counts is summed, the tile
/// sums are scanned (by the same method, one level down, when there are more
/// than one tile's worth of them), and every tile is scanned starting from its
/// tile's offset. Sums wrap modulo 2^32, as unsigned arithmetic does.
class CountScan {
 public:
  /// @brief Allocates the scratch for scans of up to @p max_count counts.
  /// @param[in] max_count The largest n that exclusive() will be given.
  /// @throws workbook::CudaError when the allocation fails.
  explicit CountScan(std::size_t max_count);

  /// @brief offsets[i] = counts[0] + ... + counts[i - 1] (offsets[0] = 0),
  /// and, when @p total is not nullptr, *total = the sum of all n counts.
  /// Asynchronous on @p stream. @p offsets may be the same array as
  /// @p counts (in place); otherwise they must not overlap.
  /// @param[in] counts Device array of n counts.
  /// @param[out] offsets Device array of n offsets.
  /// @param[in] n Number of counts, at most max_count(); 0 writes only *total = 0.
  /// @param[out] total Device pointer to one uint32, or nullptr.
  /// @param[in] stream The stream to launch on (default: the default stream).
  /// @throws std::invalid_argument when n is larger than max_count().
  /// @throws workbook::CudaError when a launch fails.
  void exclusive(const std::uint32_t* counts, std::uint32_t* offsets, std::size_t n,
                 std::uint32_t* total = nullptr, cudaStream_t stream = nullptr);

  /// @brief The largest n this scanner was built for.
  /// @return max_count as given at construction.
  std::size_t max_count() const noexcept { return max_count_; }

 private:
  const std::uint32_t* level_input(const std::uint32_t* counts, int depth) const;
  std::uint32_t* level_output(int depth);
  std::uint32_t* level_output_or(std::uint32_t* offsets, int depth);

  std::size_t max_count_;
  // The tile sums of each level: level 0 holds one sum per tile of the input,
  // level 1 one per tile of level 0, ... until one tile holds them all.
  std::vector<DeviceBuffer<std::uint32_t>> level_sums_;
};

}  // namespace workbook
