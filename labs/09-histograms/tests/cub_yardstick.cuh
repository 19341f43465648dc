/// @file cub_yardstick.cuh
/// @brief The yardsticks of lab 09: cub::DeviceHistogram (it ships with the
/// CUDA Toolkit) on the same inputs, for the speed tests and the experiment.
/// Not part of the student's file: students write their own histograms, and
/// the grader refuses one that calls CUB.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_histogram.cuh>

#include "histogram.cuh"
#include "workbook/cub_call.hpp"

namespace histogram::yardstick {

/// @brief cub::DeviceHistogram::HistogramEven of n bytes into kBins bins
/// (257 levels, 0 to 256: bin k holds the bytes equal to k), with its
/// temporary storage allocated once at construction so that run() times the
/// histogram alone.
class CubByteHistogram {
 public:
  /// @brief Asks CUB how much temporary storage the histogram needs and allocates it.
  /// @param[in] in Device array of n bytes.
  /// @param[in] n Number of bytes.
  /// @param[out] bins Device array of kBins counts: the histogram of each run().
  CubByteHistogram(const std::uint8_t* in, std::size_t n, std::uint32_t* bins)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceHistogram::HistogramEven(temp, bytes, in, bins, kBins + 1, 0, kBins,
                                                     static_cast<std::int64_t>(n), stream);
        }) {}

  /// @brief Enqueues the histogram on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

/// @brief cub::DeviceHistogram::MultiHistogramEven of RGBA pixels: 4
/// interleaved channels of which the first 3 are counted, 256 bins each,
/// written to the kRgbBins bins in the layout of rgb_histogram() (red, green, blue).
class CubRgbHistogram {
 public:
  /// @brief Asks CUB how much temporary storage the histogram needs and allocates it.
  /// @param[in] pixels Device array of pixel_count RGBA pixels.
  /// @param[in] pixel_count Number of pixels.
  /// @param[out] bins Device array of kRgbBins counts.
  CubRgbHistogram(const std::uint32_t* pixels, std::size_t pixel_count, std::uint32_t* bins)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
#if CUB_VERSION >= 300000  // CCCL 3 (CUDA 13) takes arrays by value; the pointer form is deprecated there
          ::cuda::std::array<std::uint32_t*, kRgbChannels> channels = {bins, bins + kBins, bins + 2 * kBins};
          ::cuda::std::array<int, kRgbChannels> levels = {kBins + 1, kBins + 1, kBins + 1};
          ::cuda::std::array<int, kRgbChannels> lower = {0, 0, 0};
          ::cuda::std::array<int, kRgbChannels> upper = {kBins, kBins, kBins};
#else
          std::uint32_t* channels[kRgbChannels] = {bins, bins + kBins, bins + 2 * kBins};
          int levels[kRgbChannels] = {kBins + 1, kBins + 1, kBins + 1};
          int lower[kRgbChannels] = {0, 0, 0};
          int upper[kRgbChannels] = {kBins, kBins, kBins};
#endif
          return cub::DeviceHistogram::MultiHistogramEven<4, kRgbChannels>(
              temp, bytes, reinterpret_cast<const std::uint8_t*>(pixels), channels, levels, lower, upper,
              static_cast<std::int64_t>(pixel_count), stream);
        }) {
  }

  /// @brief Enqueues the histogram on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) {
    call_.run(stream);
  }

 private:
  workbook::CubCall call_;
};

/// @brief cub::DeviceHistogram::HistogramEven of n 16-bit values into
/// kWideBins bins (bin k holds the values equal to k).
class CubWideHistogram {
 public:
  /// @brief Asks CUB how much temporary storage the histogram needs and allocates it.
  /// @param[in] in Device array of n values.
  /// @param[in] n Number of values.
  /// @param[out] bins Device array of kWideBins counts.
  CubWideHistogram(const std::uint16_t* in, std::size_t n, std::uint32_t* bins)
      : call_([=](void* temp, std::size_t& bytes, cudaStream_t stream) {
          return cub::DeviceHistogram::HistogramEven(temp, bytes, in, bins, kWideBins + 1, 0, kWideBins,
                                                     static_cast<std::int64_t>(n), stream);
        }) {}

  /// @brief Enqueues the histogram on @p stream.
  /// @param[in] stream The stream (nullptr: the default stream).
  void run(cudaStream_t stream) { call_.run(stream); }

  /// @brief CUB's temporary storage, which the speed harness overwrites after
  /// each timed call together with the output.
  /// @return The storage.
  workbook::DeviceBytes storage() { return call_.storage(); }

 private:
  workbook::CubCall call_;
};

}  // namespace histogram::yardstick
