// Tests of lab 09. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU; the checks of
// the small helpers and of the arguments run on the host.
//
// Every histogram is compared bin by bin with one counted on the host (in the
// speed tests: with CUB's, on the device), its bins must add up to n, and the
// counts after its last bin (guards, filled with a poison value beforehand)
// must be untouched. The inputs cover the cases a histogram finds hard: every
// byte in one bin, two bins alternating, four bins in one shared-memory bank,
// sorted runs, and the easy ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cub_yardstick.cuh"
#include "histogram.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace histogram {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::seed_text;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

// Bins are filled with 0x7F bytes before each run: a bin nobody wrote reads
// 2139062143, more than any count of these tests.
constexpr int kPoisonByte = 0x7F;
constexpr std::uint32_t kPoison = 0x7F7F7F7Fu;
// Counts after the last bin: a kernel that writes past its bins overwrites them.
constexpr std::size_t kGuard = 64;

// ---------------------------------------------------------------------------
// Inputs

enum class Input { uniform, normal_like, sorted, single_bin, two_bins_alternating, few_bins, every_value };

// The single bin is the highest value: code that reads the bytes as (signed)
// char would index bin -1 with it.
constexpr std::uint8_t kSingleByte = 255;
// Four bins that fall into one bank of a single 256-count shared histogram
// (0, 32, 64 and 96 are all 0 modulo 32): the worst case for bank conflicts
// short of one bin.
constexpr std::uint8_t kFewBytes[4] = {0, 32, 64, 96};
constexpr std::uint16_t kSingleWide = 65535;
constexpr std::uint16_t kFewWide[4] = {1, 4097, 32768, 65535};

std::string to_string(Input input, bool wide) {
  switch (input) {
    case Input::uniform:
      return "uniform";
    case Input::normal_like:
      return "normal-like (the mean of four uniform values)";
    case Input::sorted:
      return "sorted (ascending runs)";
    case Input::single_bin:
      return wide ? "single bin (every value 65535)" : "single bin (every byte 255)";
    case Input::two_bins_alternating:
      return wide ? "two bins alternating (0, 65535, 0, ...)" : "two bins alternating (0, 255, 0, ...)";
    case Input::few_bins:
      return wide ? "four bins (1, 4097, 32768, 65535)" : "four bins in one bank (0, 32, 64, 96)";
    case Input::every_value:
      return wide ? "every value in turn (i % 65536)" : "every value in turn (i % 256)";
  }
  return "?";
}

const Input kAllInputs[] = {Input::uniform,    Input::normal_like,          Input::sorted,
                            Input::single_bin, Input::two_bins_alternating, Input::few_bins,
                            Input::every_value};

// Every input for small sizes; the hard ones and one easy one for the large sizes.
std::vector<Input> inputs_for(std::size_t n) {
  if (n >= (std::size_t{1} << 25)) return {Input::uniform, Input::single_bin, Input::sorted};
  return std::vector<Input>(std::begin(kAllInputs), std::end(kAllInputs));
}

// Value i of an input of n values in [0, 2^bits), from the seeded hash.
std::uint32_t value_at(std::size_t i, std::size_t n, Input input, int bits) {
  const std::uint32_t mask = (1u << bits) - 1u;
  const std::uint64_t hash = workbook::hash64(workbook::test_seed(), i);
  switch (input) {
    case Input::uniform:
      return static_cast<std::uint32_t>(hash) & mask;
    case Input::normal_like: {
      std::uint64_t sum = 0;
      for (int k = 0; k < 4; ++k) sum += (hash >> (16 * k)) & mask;
      return static_cast<std::uint32_t>(sum / 4);
    }
    case Input::sorted:
      return static_cast<std::uint32_t>((static_cast<std::uint64_t>(i) << bits) / n);
    case Input::single_bin:
      return bits == 8 ? kSingleByte : kSingleWide;
    case Input::two_bins_alternating:
      return i % 2 == 0 ? 0u : mask;
    case Input::few_bins:
      return bits == 8 ? kFewBytes[hash % 4] : kFewWide[hash % 4];
    case Input::every_value:
      return static_cast<std::uint32_t>(i) & mask;
  }
  return 0;
}

std::vector<std::uint8_t> make_bytes(std::size_t n, Input input) {
  std::vector<std::uint8_t> bytes(n);
  if (input == Input::uniform) {
    // Byte i is byte i % 8 of hash64(seed, i / 8) (workbook::random_byte_at):
    // one hash per 8 bytes.
    const std::uint64_t seed = workbook::test_seed();
    for (std::size_t group = 0; group * 8 < n; ++group) {
      const std::uint64_t hash = workbook::hash64(seed, group);
      for (std::size_t k = 0; k < 8 && group * 8 + k < n; ++k)
        bytes[group * 8 + k] = static_cast<std::uint8_t>(hash >> (8 * k));
    }
    return bytes;
  }
  if (input == Input::single_bin) {
    std::fill(bytes.begin(), bytes.end(), static_cast<std::uint8_t>(kSingleByte));
    return bytes;
  }
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(value_at(i, n, input, 8));
  return bytes;
}

std::vector<std::uint16_t> make_wide(std::size_t n, Input input) {
  std::vector<std::uint16_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<std::uint16_t>(value_at(i, n, input, 16));
  return values;
}

// ---------------------------------------------------------------------------
// Histograms on the host, and the checks

std::vector<std::uint32_t> host_histogram(const std::vector<std::uint8_t>& bytes) {
  // Four copies of the bins, byte i counted in copy i % 4: a run of equal
  // bytes then does not wait on one counter's previous increment at every byte.
  constexpr std::size_t bins_per_copy = kBins;
  std::vector<std::uint32_t> copies(4 * bins_per_copy, 0);
  std::size_t i = 0;
  for (; i + 4 <= bytes.size(); i += 4) {
    ++copies[bytes[i]];
    ++copies[bins_per_copy + bytes[i + 1]];
    ++copies[2 * bins_per_copy + bytes[i + 2]];
    ++copies[3 * bins_per_copy + bytes[i + 3]];
  }
  for (; i < bytes.size(); ++i) ++copies[bytes[i]];
  std::vector<std::uint32_t> bins(bins_per_copy, 0);
  for (std::size_t b = 0; b < bins_per_copy; ++b)
    bins[b] =
        copies[b] + copies[bins_per_copy + b] + copies[2 * bins_per_copy + b] + copies[3 * bins_per_copy + b];
  return bins;
}

std::vector<std::uint32_t> host_wide_histogram(const std::vector<std::uint16_t>& values) {
  std::vector<std::uint32_t> bins(kWideBins, 0);
  for (const std::uint16_t value : values) ++bins[value];
  return bins;
}

// The pixel's bytes in memory order are R, G, B, A: read them as bytes, not
// through the uint32, so that this reference does not share a bug with rgb_bin().
std::vector<std::uint32_t> host_rgb_histogram(const std::vector<std::uint32_t>& pixels) {
  std::vector<std::uint32_t> bins(kRgbBins, 0);
  for (const std::uint32_t pixel : pixels) {
    unsigned char bytes[4];
    std::memcpy(bytes, &pixel, sizeof bytes);
    for (int channel = 0; channel < kRgbChannels; ++channel) ++bins[channel * kBins + bytes[channel]];
  }
  return bins;
}

// Checks the bins bin by bin, their total against n, and the guards after them.
void expect_histogram(const std::vector<std::uint32_t>& expected, const std::vector<std::uint32_t>& got,
                      std::size_t n, const std::string& context) {
  const std::size_t bins = expected.size();
  ASSERT_GE(got.size(), bins);
  const std::vector<std::uint32_t> counts(got.begin(), got.begin() + bins);
  EXPECT_TRUE(matches(compare_exact(expected, counts),
                      context + " (index = bin; 2139062143 = 0x7F7F7F7F: the bin was never written)"));
  const std::uint64_t total = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  EXPECT_EQ(total, n) << context << ": the bins add up to " << total << ", but there are " << n
                      << " values: each must be counted exactly once";
  const std::vector<std::uint32_t> guards(got.begin() + bins, got.end());
  EXPECT_TRUE(matches(compare_exact(std::vector<std::uint32_t>(guards.size(), kPoison), guards),
                      context + ", the guard counts after the last bin (index 0 = bin " +
                          std::to_string(bins) + "; nothing may be written there)"));
}

std::string describe(const std::string& what, std::size_t n, const std::string& unit,
                     const std::string& input) {
  return what + ", n=" + std::to_string(n) + " " + unit + ", input=" + input + ", " + seed_text();
}

// A 256-bin histogram function of the lab: histogram_global_atomics and its siblings.
using ByteHistogram = std::function<void(const std::uint8_t*, std::size_t, std::uint32_t*)>;

// Runs @p run on every input for n bytes and checks each histogram.
void check_byte_histogram(const std::string& what, const ByteHistogram& run, std::size_t n) {
  DeviceBuffer<std::uint32_t> bins(kBins + kGuard);
  for (const Input input : inputs_for(n)) {
    const std::vector<std::uint8_t> bytes = make_bytes(n, input);
    const DeviceBuffer<std::uint8_t> in = workbook::to_device(bytes);
    bins.fill_bytes(kPoisonByte);
    run(in.data(), n, bins.data());
    const std::string context = describe(what, n, "bytes", to_string(input, false));
    expect_histogram(host_histogram(bytes), bins.to_host(), n, context);
    expect_input_unchanged(bytes, in, context, "in");
    if (::testing::Test::HasFailure()) return;  // one failing case says enough
  }
}

// ---------------------------------------------------------------------------
// On the host: the reference, the split of an input for 16-byte loads, the
// slots of the lane copies, the bins of a pixel.

TEST(HostHistograms, CountASmallExampleByHand) {
  const std::vector<std::uint32_t> bins = host_histogram({7, 0, 7, 255});
  EXPECT_EQ(bins[0], 1u);
  EXPECT_EQ(bins[7], 2u);
  EXPECT_EQ(bins[255], 1u);
  EXPECT_EQ(std::accumulate(bins.begin(), bins.end(), 0u), 4u);
  // Pixel bytes R, G, B, A = 1, 2, 3, 4: red bin 1, green bin 256 + 2, blue bin 512 + 3, alpha nowhere.
  const unsigned char pixel_bytes[4] = {1, 2, 3, 4};
  std::uint32_t pixel = 0;
  std::memcpy(&pixel, pixel_bytes, sizeof pixel);
  const std::vector<std::uint32_t> rgb = host_rgb_histogram({pixel});
  EXPECT_EQ(rgb[1], 1u);
  EXPECT_EQ(rgb[258], 1u);
  EXPECT_EQ(rgb[515], 1u);
  EXPECT_EQ(std::accumulate(rgb.begin(), rgb.end(), 0u), 3u);
  const std::vector<std::uint32_t> wide = host_wide_histogram({65535, 0, 65535});
  EXPECT_EQ(wide[65535], 2u);
  EXPECT_EQ(wide[0], 1u);
}

TEST(VectorSplit, CoversEveryByteOnceWithAlignedVectors) {
  for (std::uintptr_t offset = 0; offset < 2 * kVectorBytes; ++offset) {
    const void* in = reinterpret_cast<const void*>(std::uintptr_t{4096} + offset);
    for (std::size_t n = 0; n < 100; ++n) {
      const VectorSplit split = split_for_vectors(in, n);
      const std::string context =
          "split_for_vectors(address 4096 + " + std::to_string(offset) + ", n=" + std::to_string(n) + ")";
      ASSERT_EQ(split.head + split.vectors * kVectorBytes + split.tail, n) << context;
      ASSERT_LT(split.head, static_cast<std::size_t>(kVectorBytes)) << context;
      ASSERT_LT(split.tail, static_cast<std::size_t>(kVectorBytes)) << context;
      if (split.vectors > 0) ASSERT_EQ((offset + split.head) % kVectorBytes, 0u) << context;
      // The head is no longer than it must be: it stops at the first boundary.
      const std::size_t to_boundary = (kVectorBytes - offset % kVectorBytes) % kVectorBytes;
      ASSERT_EQ(split.head, std::min(n, to_boundary)) << context;
    }
  }
}

TEST(LaneCopySlots, AreDistinctAndPutTheLanesOfAWarpInDistinctBanks) {
  std::set<int> slots;
  for (int bin = 0; bin < kBins; ++bin) {
    for (int lane = 0; lane < kLaneCopies; ++lane) {
      const int slot = lane_copy_slot(bin, lane);
      ASSERT_GE(slot, 0) << "bin " << bin << ", lane " << lane;
      ASSERT_LT(slot, kLaneCopySlots) << "bin " << bin << ", lane " << lane;
      slots.insert(slot);
    }
  }
  EXPECT_EQ(slots.size(), static_cast<std::size_t>(kLaneCopySlots))
      << "two (bin, lane) pairs share a slot: their counts would be mixed up";
  // Whatever bins the 32 lanes of a warp count, they touch 32 different banks.
  for (std::uint64_t trial = 0; trial < 500; ++trial) {
    std::set<int> banks;
    for (int lane = 0; lane < kWarpSize; ++lane) {
      const int bin = trial == 0 ? 0 : static_cast<int>(workbook::hash64(9, trial * 32 + lane) % kBins);
      banks.insert(lane_copy_slot(bin, lane) % kSharedBanks);
    }
    ASSERT_EQ(banks.size(), static_cast<std::size_t>(kWarpSize))
        << "trial " << trial << (trial == 0 ? " (every lane counts bin 0)" : " (random bins)")
        << ": the lanes of a warp share a bank";
  }
}

TEST(LaneCopySlots, TheMergeReadsEveryCopyOnceAndAWarpReadsDistinctBanks) {
  for (int bin = 0; bin < kBins; ++bin) {
    std::set<int> lanes;
    for (int step = 0; step < kLaneCopies; ++step) {
      const int lane = merge_lane(bin, step);
      ASSERT_GE(lane, 0) << "bin " << bin << ", step " << step;
      ASSERT_LT(lane, kLaneCopies) << "bin " << bin << ", step " << step;
      lanes.insert(lane);
    }
    ASSERT_EQ(lanes.size(), static_cast<std::size_t>(kLaneCopies))
        << "merging bin " << bin << " misses a copy (or reads one twice)";
  }
  // The threads of warp w merge bins 32w .. 32w + 31; at every step they must hit 32 banks.
  for (int warp = 0; warp < kBins / kWarpSize; ++warp) {
    for (int step = 0; step < kLaneCopies; ++step) {
      std::set<int> banks;
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int bin = warp * kWarpSize + lane;
        banks.insert(lane_copy_slot(bin, merge_lane(bin, step)) % kSharedBanks);
      }
      ASSERT_EQ(banks.size(), static_cast<std::size_t>(kWarpSize))
          << "warp " << warp << ", step " << step << " of the merge: its threads share a bank";
    }
  }
}

TEST(RgbBins, TakeEachChannelsByteAndIgnoreAlpha) {
  // Bytes in memory R, G, B, A = 0xAA, 0xBB, 0xCC, 0xDD: the uint32 is 0xDDCCBBAA.
  EXPECT_EQ(rgb_bin(0xDDCCBBAAu, 0), 0xAA) << "red is the byte first in memory, the low byte of the uint32";
  EXPECT_EQ(rgb_bin(0xDDCCBBAAu, 1), kBins + 0xBB) << "green: 256 + its byte";
  EXPECT_EQ(rgb_bin(0xDDCCBBAAu, 2), 2 * kBins + 0xCC) << "blue: 512 + its byte";
  EXPECT_EQ(rgb_bin(0xFF000000u, 0), 0) << "alpha must not leak into red";
  EXPECT_EQ(rgb_bin(0xFFFFFFFFu, 2), 2 * kBins + 255);
  for (std::uint64_t k = 0; k < 1000; ++k) {
    const auto pixel = static_cast<std::uint32_t>(workbook::hash64(3, k));
    unsigned char bytes[4];
    std::memcpy(bytes, &pixel, sizeof bytes);
    for (int channel = 0; channel < kRgbChannels; ++channel) {
      ASSERT_EQ(rgb_bin(pixel, channel), channel * kBins + bytes[channel])
          << "pixel 0x" << std::hex << pixel << std::dec << ", channel " << channel;
    }
  }
}

// Checked on the host before anything is launched: null pointers and the
// impossible n never reach the GPU, so this runs without one.
TEST(HistogramArguments, BadArgumentsAreRejectedWithAMessage) {
  const std::size_t too_many = std::size_t{1} << 32;
  std::uint32_t* no_bins = nullptr;
  // Stand-ins for device pointers that are never dereferenced: every call below must throw first.
  auto* fake_bytes = reinterpret_cast<const std::uint8_t*>(std::uintptr_t{4096});
  auto* fake_bins = reinterpret_cast<std::uint32_t*>(std::uintptr_t{8192});
  const std::vector<std::pair<std::string, ByteHistogram>> functions = {
      {"histogram_global_atomics", [](const std::uint8_t* in, std::size_t n,
                                      std::uint32_t* bins) { histogram_global_atomics(in, n, bins); }},
      {"histogram_two_phase", [&](const std::uint8_t* in, std::size_t n,
                                  std::uint32_t* bins) { histogram_two_phase(in, n, bins, fake_bins); }},
      {"histogram_shared_atomics", [](const std::uint8_t* in, std::size_t n,
                                      std::uint32_t* bins) { histogram_shared_atomics(in, n, bins); }},
      {"histogram_match_any",
       [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) { histogram_match_any(in, n, bins); }},
      {"histogram_lane_copies", [](const std::uint8_t* in, std::size_t n,
                                   std::uint32_t* bins) { histogram_lane_copies(in, n, bins); }},
  };
  for (const auto& [name, run] : functions) {
    try {
      run(fake_bytes, 100, no_bins);
      ADD_FAILURE() << name << " with bins = nullptr did not throw";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("bins"), std::string::npos)
          << name << ": the message should name the bins: " << error.what();
    }
    EXPECT_THROW(run(fake_bytes, 0, no_bins), std::invalid_argument) << name << ", n=0 and bins = nullptr";
    EXPECT_THROW(run(nullptr, 100, fake_bins), std::invalid_argument) << name << ", in = nullptr with n=100";
    try {
      run(fake_bytes, too_many, fake_bins);
      ADD_FAILURE() << name << " with n = 2^32 did not throw";
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find("4294967296"), std::string::npos)
          << name << ": the message should name n: " << error.what();
    }
  }
  EXPECT_THROW(histogram_two_phase(fake_bytes, 100, fake_bins, nullptr), std::invalid_argument)
      << "histogram_two_phase needs its block_bins";
  EXPECT_THROW(rgb_histogram(nullptr, 10, fake_bins), std::invalid_argument)
      << "rgb_histogram, pixels = nullptr";
  EXPECT_THROW(rgb_histogram(reinterpret_cast<const std::uint32_t*>(fake_bytes), 10, nullptr),
               std::invalid_argument)
      << "rgb_histogram, bins = nullptr";
  EXPECT_THROW(rgb_histogram(reinterpret_cast<const std::uint32_t*>(fake_bytes), too_many, fake_bins),
               std::invalid_argument)
      << "rgb_histogram, 2^32 pixels";
  EXPECT_THROW(wide_histogram(nullptr, 10, fake_bins), std::invalid_argument)
      << "wide_histogram, in = nullptr";
  EXPECT_THROW(wide_histogram(reinterpret_cast<const std::uint16_t*>(fake_bytes), 10, nullptr),
               std::invalid_argument)
      << "wide_histogram, bins = nullptr";
  EXPECT_THROW(wide_histogram(reinterpret_cast<const std::uint16_t*>(fake_bytes), too_many, fake_bins),
               std::invalid_argument)
      << "wide_histogram, 2^32 values";
}

// ---------------------------------------------------------------------------
// The byte histograms at every size. Sizes around a vector (15, 16, 17), a
// warp's 32 bytes and its 512 bytes of vectors, a block's chunk of 4096 bytes
// and the lane-copy kernel's chunk of 16384, a non-power of two, more than
// 2^20 (more blocks than fit at once on small inputs), and 2^26.

constexpr std::size_t kLarge = std::size_t{1} << 26;
const std::size_t kByteSizes[] = {1,     15,    16,    17,    31,     32,
                                  33,    511,   512,   513,   4095,   4096,
                                  4097,  16383, 16384, 16385, 100003, (std::size_t{5} << 20) + 3,
                                  kLarge};

class GlobalAtomics : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(GlobalAtomics, CountEveryByteIntoItsBin) {
  check_byte_histogram(
      "histogram_global_atomics",
      [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
        histogram_global_atomics(in, n, bins);
      },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, GlobalAtomics, ::testing::ValuesIn(kByteSizes), size_name);

// Part 2, phase by phase: phase 1 is checked through the sum of its per-block
// histograms (which bytes each block counts is up to it), phase 2 on
// per-block histograms made on the host.

class GridBlocks : public GpuTest {};

TEST_F(GridBlocks, FillTheGpuWithoutExceedingTheScratch) {
  EXPECT_EQ(grid_blocks(0), 0);
  EXPECT_EQ(grid_blocks(1), 1);
  for (const std::size_t n : {std::size_t{1}, std::size_t{4096}, std::size_t{4097}, std::size_t{100003},
                              std::size_t{1} << 30, (std::size_t{1} << 32) - 1}) {
    const int blocks = grid_blocks(n);
    EXPECT_GE(blocks, 1) << "n=" << n;
    EXPECT_LE(blocks, kMaxGridBlocks) << "n=" << n;
    EXPECT_LE(static_cast<std::size_t>(blocks), (n + kChunkBytes - 1) / kChunkBytes)
        << "n=" << n << ": a block without a chunk of input";
  }
}

class BlockHistograms : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(BlockHistograms, EachBlockWritesItsShareAndTheSharesAddUp) {
  const std::size_t n = GetParam();
  const int blocks = grid_blocks(n);
  const std::size_t written = static_cast<std::size_t>(blocks) * kBins;
  DeviceBuffer<std::uint32_t> block_bins(written + kGuard);
  for (const Input input : inputs_for(n)) {
    const std::vector<std::uint8_t> bytes = make_bytes(n, input);
    const DeviceBuffer<std::uint8_t> in = workbook::to_device(bytes);
    block_bins.fill_bytes(kPoisonByte);
    launch_count_bytes_per_block(in.data(), n, block_bins.data());
    const std::vector<std::uint32_t> got = block_bins.to_host();
    const std::string context = describe("count_bytes_per_block (" + std::to_string(blocks) + " blocks)", n,
                                         "bytes", to_string(input, false));
    // Every count of every block written, none larger than n.
    for (std::size_t k = 0; k < written; ++k) {
      ASSERT_LE(got[k], n) << context << ": block " << k / kBins << ", bin " << k % kBins << " holds "
                           << got[k] << (got[k] == kPoison ? " (the poison: never written)" : "");
    }
    std::vector<std::uint32_t> sums(kBins + kGuard, kPoison);
    for (int bin = 0; bin < kBins; ++bin) {
      sums[bin] = 0;
      for (int b = 0; b < blocks; ++b) sums[bin] += got[static_cast<std::size_t>(b) * kBins + bin];
    }
    std::copy(got.begin() + written, got.end(), sums.begin() + kBins);
    expect_histogram(host_histogram(bytes), sums, n,
                     context + ", summed over the blocks (guards: after the last block)");
    expect_input_unchanged(bytes, in, context, "in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, BlockHistograms, ::testing::ValuesIn(kByteSizes), size_name);

class SumBlockHistograms : public GpuTest {};

TEST_F(SumBlockHistograms, AddsUpTheSameBinOfEveryBlock) {
  for (const int blocks : {0, 1, 2, 31, 132, 1000, kMaxGridBlocks}) {
    std::vector<std::uint32_t> block_bins(static_cast<std::size_t>(blocks) * kBins);
    std::vector<std::uint32_t> expected(kBins, 0);
    for (std::size_t k = 0; k < block_bins.size(); ++k) {
      block_bins[k] = static_cast<std::uint32_t>(workbook::hash64(workbook::test_seed(), k) % (1u << 20));
      expected[k % kBins] += block_bins[k];
    }
    const std::size_t n = std::accumulate(expected.begin(), expected.end(), std::size_t{0});
    DeviceBuffer<std::uint32_t> device_block_bins(block_bins.size() + 1);  // never empty
    // The spare element too: the input check below reads all of it (initcheck
    // found it unset on the H100).
    device_block_bins.fill_bytes(kPoisonByte);
    if (!block_bins.empty()) {
      CUDA_CHECK(cudaMemcpy(device_block_bins.data(), block_bins.data(),
                            block_bins.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    }
    DeviceBuffer<std::uint32_t> bins(kBins + kGuard);
    bins.fill_bytes(kPoisonByte);
    launch_sum_block_histograms(device_block_bins.data(), blocks, bins.data());
    const std::string context =
        "sum_block_histograms of " + std::to_string(blocks) + " seeded block histograms, " + seed_text();
    expect_histogram(expected, bins.to_host(), n, context);
    expect_input_unchanged(block_bins, device_block_bins, context, "block_bins");
    if (HasFailure()) return;
  }
}

class TwoPhase : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(TwoPhase, CountEveryByteIntoItsBin) {
  DeviceBuffer<std::uint32_t> block_bins(static_cast<std::size_t>(kMaxGridBlocks) * kBins);
  check_byte_histogram(
      "histogram_two_phase",
      [&](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
        histogram_two_phase(in, n, bins, block_bins.data());
      },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, TwoPhase, ::testing::ValuesIn(kByteSizes), size_name);

class SharedAtomicsMerged : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(SharedAtomicsMerged, CountEveryByteIntoItsBin) {
  check_byte_histogram(
      "histogram_shared_atomics",
      [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
        histogram_shared_atomics(in, n, bins);
      },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, SharedAtomicsMerged, ::testing::ValuesIn(kByteSizes), size_name);

// Part 3.

class MatchAny : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(MatchAny, CountEveryByteIntoItsBin) {
  check_byte_histogram(
      "histogram_match_any",
      [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) { histogram_match_any(in, n, bins); },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, MatchAny, ::testing::ValuesIn(kByteSizes), size_name);

class LaneCopies : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(LaneCopies, CountEveryByteIntoItsBin) {
  check_byte_histogram(
      "histogram_lane_copies",
      [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) { histogram_lane_copies(in, n, bins); },
      GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, LaneCopies, ::testing::ValuesIn(kByteSizes), size_name);

// Any alignment: the input starts 0 to 15 bytes past a 16-byte boundary, and
// the bytes around it (which must not be counted) all hold 0xEE.

class Misaligned : public GpuTest {};

TEST_F(Misaligned, InputsAtEveryOffsetCountOnlyTheirOwnBytes) {
  DeviceBuffer<std::uint32_t> block_bins(static_cast<std::size_t>(kMaxGridBlocks) * kBins);
  const std::vector<std::pair<std::string, ByteHistogram>> functions = {
      {"histogram_global_atomics", [](const std::uint8_t* in, std::size_t n,
                                      std::uint32_t* bins) { histogram_global_atomics(in, n, bins); }},
      {"histogram_two_phase",
       [&](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) {
         histogram_two_phase(in, n, bins, block_bins.data());
       }},
      {"histogram_shared_atomics", [](const std::uint8_t* in, std::size_t n,
                                      std::uint32_t* bins) { histogram_shared_atomics(in, n, bins); }},
      {"histogram_match_any",
       [](const std::uint8_t* in, std::size_t n, std::uint32_t* bins) { histogram_match_any(in, n, bins); }},
      {"histogram_lane_copies", [](const std::uint8_t* in, std::size_t n,
                                   std::uint32_t* bins) { histogram_lane_copies(in, n, bins); }},
  };
  constexpr std::uint8_t kOutside = 0xEE;
  DeviceBuffer<std::uint32_t> bins(kBins + kGuard);
  for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{17}, std::size_t{100},
                              std::size_t{4097}, std::size_t{100003}}) {
    for (const Input input : {Input::uniform, Input::single_bin}) {
      const std::vector<std::uint8_t> bytes = make_bytes(n, input);
      const std::vector<std::uint32_t> expected = host_histogram(bytes);
      DeviceBuffer<std::uint8_t> buffer(n + 2 * kVectorBytes);  // cudaMalloc: 256-byte aligned
      for (std::size_t offset = 0; offset < static_cast<std::size_t>(kVectorBytes); ++offset) {
        // The whole buffer as uploaded: the input at the offset, 0xEE around it.
        std::vector<std::uint8_t> uploaded(buffer.size(), kOutside);
        std::copy(bytes.begin(), bytes.end(), uploaded.begin() + offset);
        buffer.fill_bytes(kOutside);
        CUDA_CHECK(cudaMemcpy(buffer.data() + offset, bytes.data(), n, cudaMemcpyHostToDevice));
        for (const auto& [name, run] : functions) {
          bins.fill_bytes(kPoisonByte);
          run(buffer.data() + offset, n, bins.data());
          const std::string context = describe(name + " with the input " + std::to_string(offset) +
                                                   " bytes past a 16-byte boundary (bytes around it: 0xEE)",
                                               n, "bytes", to_string(input, false));
          expect_histogram(expected, bins.to_host(), n, context);
          expect_input_unchanged(
              uploaded, buffer, context,
              "in (with the 0xEE bytes around it: index " + std::to_string(offset) + " is in[0])");
          if (HasFailure()) return;
        }
      }
    }
  }
}

class EmptyInput : public GpuTest {};

TEST_F(EmptyInput, GivesAllZeroBinsAndLaunchesNothing) {
  DeviceBuffer<std::uint32_t> block_bins(static_cast<std::size_t>(kMaxGridBlocks) * kBins);
  DeviceBuffer<std::uint32_t> bins(kWideBins + kGuard);
  // The bins must be zeros; the kGuard counts after them must still hold the poison.
  const auto expect_zeros = [&](int bin_count, const std::string& what) {
    const std::vector<std::uint32_t> all = bins.to_host();
    const std::vector<std::uint32_t> checked(all.begin(), all.begin() + bin_count + kGuard);
    expect_histogram(std::vector<std::uint32_t>(bin_count, 0), checked, 0, what + " of n=0");
  };
  bins.fill_bytes(kPoisonByte);
  histogram_global_atomics(nullptr, 0, bins.data());
  expect_zeros(kBins, "histogram_global_atomics");
  bins.fill_bytes(kPoisonByte);
  histogram_two_phase(nullptr, 0, bins.data(), block_bins.data());
  expect_zeros(kBins, "histogram_two_phase");
  bins.fill_bytes(kPoisonByte);
  histogram_shared_atomics(nullptr, 0, bins.data());
  expect_zeros(kBins, "histogram_shared_atomics");
  bins.fill_bytes(kPoisonByte);
  histogram_match_any(nullptr, 0, bins.data());
  expect_zeros(kBins, "histogram_match_any");
  bins.fill_bytes(kPoisonByte);
  histogram_lane_copies(nullptr, 0, bins.data());
  expect_zeros(kBins, "histogram_lane_copies");
  bins.fill_bytes(kPoisonByte);
  rgb_histogram(nullptr, 0, bins.data());
  expect_zeros(kRgbBins, "rgb_histogram");
  bins.fill_bytes(kPoisonByte);
  wide_histogram(nullptr, 0, bins.data());
  expect_zeros(kWideBins, "wide_histogram");
  // A grid of 0 blocks is an invalid configuration: the launchers must not try.
  EXPECT_NO_THROW(launch_count_bytes_with_global_atomics(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_bytes_per_block(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_bytes_merged(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_bytes_match_any(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_bytes_lane_copies(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_rgb(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_count_wide_match_any(nullptr, 0, nullptr));
}

// ---------------------------------------------------------------------------
// Part 4: RGB images. Pixels are RGBA, R first in memory.

enum class Pixels { uniform, single_colour, gradient, only_alpha_varies, few_colours };

std::string to_string(Pixels pixels) {
  switch (pixels) {
    case Pixels::uniform:
      return "uniform (all four bytes random)";
    case Pixels::single_colour:
      return "one colour (R, G, B, A = 255, 0, 128, 7)";
    case Pixels::gradient:
      return "a gradient (R rising, G falling, B = R / 2)";
    case Pixels::only_alpha_varies:
      return "only alpha varies (R, G, B = 10, 20, 30)";
    case Pixels::few_colours:
      return "four colours";
  }
  return "?";
}

std::uint32_t rgba(unsigned r, unsigned g, unsigned b, unsigned a) {
  const unsigned char bytes[4] = {static_cast<unsigned char>(r), static_cast<unsigned char>(g),
                                  static_cast<unsigned char>(b), static_cast<unsigned char>(a)};
  std::uint32_t pixel = 0;
  std::memcpy(&pixel, bytes, sizeof pixel);
  return pixel;
}

std::vector<std::uint32_t> make_pixels(std::size_t count, Pixels kind) {
  std::vector<std::uint32_t> pixels(count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t hash = workbook::hash64(workbook::test_seed() + 2, i);
    const auto ramp = static_cast<unsigned>((static_cast<std::uint64_t>(i) * 256) / count);
    switch (kind) {
      case Pixels::uniform:
        pixels[i] = static_cast<std::uint32_t>(hash);
        break;
      case Pixels::single_colour:
        pixels[i] = rgba(255, 0, 128, 7);
        break;
      case Pixels::gradient:
        pixels[i] = rgba(ramp, 255 - ramp, ramp / 2, 255);
        break;
      case Pixels::only_alpha_varies:
        pixels[i] = rgba(10, 20, 30, static_cast<unsigned>(hash));
        break;
      case Pixels::few_colours: {
        const std::uint32_t colours[4] = {rgba(0, 0, 0, 255), rgba(255, 255, 255, 255), rgba(255, 0, 0, 0),
                                          rgba(0, 32, 64, 96)};
        pixels[i] = colours[hash % 4];
        break;
      }
    }
  }
  return pixels;
}

const std::size_t kPixelSizes[] = {
    1, 31, 32, 33, 255, 256, 257, 1000, 100003, (std::size_t{1} << 20) + 7, std::size_t{1} << 24};

class RgbHistogram : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(RgbHistogram, CountsEachChannelAndIgnoresAlpha) {
  const std::size_t count = GetParam();
  DeviceBuffer<std::uint32_t> bins(kRgbBins + kGuard);
  for (const Pixels kind : {Pixels::uniform, Pixels::single_colour, Pixels::gradient,
                            Pixels::only_alpha_varies, Pixels::few_colours}) {
    const std::vector<std::uint32_t> pixels = make_pixels(count, kind);
    const DeviceBuffer<std::uint32_t> in = workbook::to_device(pixels);
    bins.fill_bytes(kPoisonByte);
    rgb_histogram(in.data(), count, bins.data());
    const std::string context = describe("rgb_histogram (bins 0-255 red, 256-511 green, 512-767 blue)", count,
                                         "pixels", to_string(kind));
    // Three counts per pixel: the bins add up to 3 * count.
    expect_histogram(host_rgb_histogram(pixels), bins.to_host(), 3 * count, context);
    expect_input_unchanged(pixels, in, context, "pixels");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, RgbHistogram, ::testing::ValuesIn(kPixelSizes), size_name);

// ---------------------------------------------------------------------------
// Part 5: 65536 bins of 16-bit values.

const std::size_t kWideSizes[] = {1,
                                  31,
                                  32,
                                  33,
                                  255,
                                  256,
                                  257,
                                  65535,
                                  65536,
                                  65537,
                                  100003,
                                  (std::size_t{5} << 20) + 3,
                                  std::size_t{1} << 25};

class WideHistogram : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(WideHistogram, CountsEverySixteenBitValue) {
  const std::size_t n = GetParam();
  DeviceBuffer<std::uint32_t> bins(kWideBins + kGuard);
  for (const Input input : inputs_for(n)) {
    const std::vector<std::uint16_t> values = make_wide(n, input);
    const DeviceBuffer<std::uint16_t> in = workbook::to_device(values);
    bins.fill_bytes(kPoisonByte);
    wide_histogram(in.data(), n, bins.data());
    const std::string context = describe("wide_histogram", n, "16-bit values", to_string(input, true));
    expect_histogram(host_wide_histogram(values), bins.to_host(), n, context);
    expect_input_unchanged(values, in, context, "in");
    if (HasFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, WideHistogram, ::testing::ValuesIn(kWideSizes), size_name);

// ---------------------------------------------------------------------------
// Speed: histogram_lane_copies() against cub::DeviceHistogram::HistogramEven
// on 2^30 bytes, through the workbook's speed harness (workbook/speed.hpp):
// every run, warm-up included, counts bytes drawn on the GPU just before it
// from a seed of its own; CUB counts the same bytes first, alternately with
// your histogram, and your 256 bins of every run must equal CUB's, with the
// guard counts after them untouched. The rate is input bytes per second.

constexpr std::size_t kSpeedBytes = std::size_t{1} << 30;  // 1 GiB: about 17 times the H200's 62.9 MB L2

class HistogramSpeed : public GpuTest {
 protected:
  // @p fill draws the run's input from its seed.
  void measure(const std::string& input,
               const std::function<void(std::uint8_t*, std::uint64_t, cudaStream_t)>& fill) {
    const std::size_t n = kSpeedBytes;
    DeviceBuffer<std::uint8_t> in(n);
    DeviceBuffer<std::uint32_t> bins(kBins + kGuard), cub_bins(kBins);
    // What the guards must still hold after each run.
    DeviceBuffer<std::uint32_t> poison(kGuard);
    poison.fill_bytes(kPoisonByte);
    yardstick::CubByteHistogram cub(in.data(), n, cub_bins.data());

    SpeedTask task;
    task.what = "histogram_lane_copies of 2^30 bytes, " + input;
    task.yardstick = "cub::DeviceHistogram::HistogramEven on the same input";
    task.unit = "GB/s";
    task.work = static_cast<double>(n);
    // Every byte read once, and the 1 KiB of bins written once.
    task.min_bytes = static_cast<double>(n) + kBins * sizeof(std::uint32_t);
    task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
      fill(in.data(), seed, stream);
      CUDA_CHECK(cudaMemsetAsync(bins.data(), kPoisonByte, bins.bytes(), stream));
      CUDA_CHECK(cudaMemsetAsync(cub_bins.data(), kPoisonByte, cub_bins.bytes(), stream));
    };
    task.run_yardstick = [&](cudaStream_t stream) { cub.run(stream); };
    task.run = [&](cudaStream_t stream) { histogram_lane_copies(in.data(), n, bins.data(), stream); };
    task.check = [&] {
      const std::string counts = workbook::device_differences(cub_bins.data(), bins.data(), kBins);
      if (!counts.empty()) return "bins (index = bin; 2139062143 = 0x7F7F7F7F: never written): " + counts;
      const std::string guards = workbook::device_differences(poison.data(), bins.data() + kBins, kGuard);
      if (guards.empty()) return guards;
      return "the guard counts after the last bin (index 0 = bin 256; nothing may be written there): " +
             guards;
    };
    task.inputs = {{"in", workbook::bytes_of(in)}};
    task.yardstick_writes = {workbook::bytes_of(cub_bins), cub.storage()};
    workbook::testing::check_speed(task);
  }
};

TEST_F(HistogramSpeed, LaneCopiesReachTargetFractionOfCubOnUniformBytes) {
  measure("uniform", [](std::uint8_t* in, std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_bytes(in, kSpeedBytes, seed, stream);
  });
}

// Every byte the same, a value drawn per run so that the answer changes
// between runs (in about half the runs it is 128 or more: bytes read as
// signed char would index a negative bin).
TEST_F(HistogramSpeed, LaneCopiesReachTargetFractionOfCubOnSingleBinBytes) {
  measure("every byte in one bin", [](std::uint8_t* in, std::uint64_t seed, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(in, static_cast<int>(seed & 0xFF), kSpeedBytes, stream));
  });
}

}  // namespace
}  // namespace histogram
