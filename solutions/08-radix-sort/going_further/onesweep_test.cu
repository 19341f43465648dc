// Tests of lab 08's Going-further Onesweep sort (onesweep.cuh). Not a student
// test: the maintainers' suite runs it (./workbook test); the argument checks
// run on the host, the sorts are GPU tests, skipped with the reason where
// there is no GPU. Every result is compared element by element with
// std::stable_sort's, with the output poisoned beforehand and guard elements
// after it that must keep the poison.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "onesweep.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/random.hpp"
#include "workbook/testing.hpp"

namespace radix_sort {
namespace {

using workbook::DeviceBuffer;
using workbook::testing::GpuTest;

constexpr std::uint32_t kPoison = 0x7F7F7F7Fu;
constexpr std::size_t kGuard = 64;
constexpr std::size_t kTile = kOnesweepTileSize;

enum class Shape { kUniform, kAllEqual, kSorted, kReversed, kEightValues, kTopByteOnly };

std::string shape_name(Shape shape) {
  switch (shape) {
    case Shape::kUniform:
      return "uniform";
    case Shape::kAllEqual:
      return "all equal";
    case Shape::kSorted:
      return "sorted";
    case Shape::kReversed:
      return "reversed";
    case Shape::kEightValues:
      return "eight values";
    case Shape::kTopByteOnly:
      return "top byte only";
  }
  return "?";
}

std::vector<std::uint32_t> make_keys(std::size_t n, Shape shape, std::uint64_t stream) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto random = static_cast<std::uint32_t>(workbook::hash64(stream, i) >> 16);
    switch (shape) {
      case Shape::kUniform:
        keys[i] = random;
        break;
      case Shape::kAllEqual:
        keys[i] = 0x12345678u;
        break;
      case Shape::kSorted:
        keys[i] = static_cast<std::uint32_t>(i * 7);
        break;
      case Shape::kReversed:
        keys[i] = static_cast<std::uint32_t>((n - i) * 7);
        break;
      case Shape::kEightValues:
        keys[i] = (random % 8u) * 0x01010101u;
        break;
      case Shape::kTopByteOnly:
        keys[i] = random & 0xFF000000u;
        break;
    }
  }
  return keys;
}

// n elements followed by kGuard poisoned ones.
DeviceBuffer<std::uint32_t> poisoned_output(std::size_t n) {
  DeviceBuffer<std::uint32_t> out(n + kGuard);
  out.fill_bytes(0x7F);
  return out;
}

// The first n elements must be `want`, the guard untouched.
void expect_output(const DeviceBuffer<std::uint32_t>& out, const std::vector<std::uint32_t>& want,
                   const std::string& what) {
  const std::vector<std::uint32_t> got = out.to_host();
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i], want[i]) << what << ": first difference at index " << i;
  }
  for (std::size_t i = want.size(); i < got.size(); ++i) {
    ASSERT_EQ(got[i], kPoison) << what << ": written past the end, at index " << i;
  }
}

TEST(OnesweepArguments, AreRejectedWithAMessageBeforeAnythingIsLaunched) {
  EXPECT_THROW(OnesweepScratch(std::size_t{1} << 30), std::invalid_argument);
  OnesweepScratch empty(0);  // allocates nothing: no GPU needed
  std::uint32_t* fake = reinterpret_cast<std::uint32_t*>(std::uintptr_t{256});
  try {
    onesweep_sort_keys(fake, fake, 1, empty);
    FAIL() << "n above max_n was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("larger max_n"), std::string::npos) << error.what();
  }
  OnesweepScratch zero_with_values(0, true);
  EXPECT_THROW(onesweep_sort_pairs(fake, fake, fake, fake, 1, zero_with_values), std::invalid_argument);
  try {
    onesweep_sort_pairs(fake, fake, fake, fake, 0, empty);
    FAIL() << "a scratch without values was accepted for pairs";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("OnesweepScratch(max_n, true)"), std::string::npos)
        << error.what();
  }
  // n = 0 sorts nothing and launches nothing, whatever the pointers.
  EXPECT_NO_THROW(onesweep_sort_keys(nullptr, nullptr, 0, empty));
}

class OnesweepKeys : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

// Around a warp, a tile (8832 keys) and many tiles: 5 * 2^20 keys are 594
// tiles, more than an H200 runs at once (3 per SM: 396), so later tiles look
// back over tiles that finished long ago.
TEST_P(OnesweepKeys, SortsEveryShapeLikeStableSort) {
  const std::size_t n = GetParam();
  OnesweepScratch scratch(n);
  for (Shape shape : {Shape::kUniform, Shape::kAllEqual, Shape::kSorted, Shape::kReversed,
                      Shape::kEightValues, Shape::kTopByteOnly}) {
    const std::vector<std::uint32_t> keys = make_keys(n, shape, 80 + static_cast<int>(shape));
    std::vector<std::uint32_t> want = keys;
    std::sort(want.begin(), want.end());
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(keys);
    DeviceBuffer<std::uint32_t> out = poisoned_output(n);
    onesweep_sort_keys(in.data(), out.data(), n, scratch);
    CUDA_CHECK(cudaDeviceSynchronize());
    expect_output(out, want, "n=" + std::to_string(n) + ", " + shape_name(shape));
    EXPECT_EQ(in.to_host(), keys) << "the input was written";
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnesweepKeys,
                         ::testing::Values(1, 31, 32, 33, kTile - 1, kTile, kTile + 1, 100003,
                                           5 * (std::size_t{1} << 20)),
                         workbook::testing::size_name);

class OnesweepPairs : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

// Values are the input indices: the stable order is the only right one.
TEST_P(OnesweepPairs, MoveEachValueWithItsKeyStably) {
  const std::size_t n = GetParam();
  OnesweepScratch scratch(n, true);
  for (Shape shape : {Shape::kUniform, Shape::kEightValues, Shape::kAllEqual}) {
    const std::vector<std::uint32_t> keys = make_keys(n, shape, 90 + static_cast<int>(shape));
    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs(n);
    for (std::size_t i = 0; i < n; ++i) pairs[i] = {keys[i], values[i]};
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::uint32_t> want_keys(n), want_values(n);
    for (std::size_t i = 0; i < n; ++i) std::tie(want_keys[i], want_values[i]) = pairs[i];
    const DeviceBuffer<std::uint32_t> keys_in = workbook::to_device(keys);
    const DeviceBuffer<std::uint32_t> values_in = workbook::to_device(values);
    DeviceBuffer<std::uint32_t> keys_out = poisoned_output(n);
    DeviceBuffer<std::uint32_t> values_out = poisoned_output(n);
    onesweep_sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::string what = "n=" + std::to_string(n) + ", " + shape_name(shape);
    expect_output(keys_out, want_keys, what + ", keys");
    expect_output(values_out, want_values, what + ", values");
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, OnesweepPairs,
                         ::testing::Values(1, 33, kTile - 1, kTile + 1, 100003, 5 * (std::size_t{1} << 20)),
                         workbook::testing::size_name);

class OnesweepReuse : public GpuTest {};

// One scratch for several sizes, on a stream, in place, keys and pairs.
TEST_F(OnesweepReuse, OneScratchSortsSeveralSizesInPlaceOnAStream) {
  const std::size_t max_n = 3 * kTile + 5;
  OnesweepScratch scratch(max_n, true);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  for (std::size_t n : {max_n, std::size_t{1000}, kTile, max_n - 7}) {
    std::vector<std::uint32_t> keys = make_keys(n, Shape::kUniform, 100 + n);
    std::vector<std::uint32_t> want = keys;
    std::sort(want.begin(), want.end());
    DeviceBuffer<std::uint32_t> data = workbook::to_device(keys);
    onesweep_sort_keys(data.data(), data.data(), n, scratch, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT_EQ(data.to_host(), want) << "keys in place, n=" << n;

    std::vector<std::uint32_t> values(n);
    std::iota(values.begin(), values.end(), 0u);
    DeviceBuffer<std::uint32_t> key_data = workbook::to_device(keys);
    DeviceBuffer<std::uint32_t> value_data = workbook::to_device(values);
    onesweep_sort_pairs(key_data.data(), value_data.data(), key_data.data(), value_data.data(), n, scratch,
                        stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::vector<std::uint32_t> got_keys = key_data.to_host(), got_values = value_data.to_host();
    EXPECT_EQ(got_keys, want) << "pairs in place, n=" << n;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(keys[got_values[i]], got_keys[i]) << "value " << got_values[i] << " left its key, n=" << n;
      if (i > 0 && got_keys[i] == got_keys[i - 1]) {
        ASSERT_LT(got_values[i - 1], got_values[i])
            << "equal keys out of input order at " << i << ", n=" << n;
      }
    }
  }
  CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace radix_sort
