// Tests of lab 05. Every GPU test derives from workbook::testing::GpuTest, so
// it is skipped (with the reason) on a machine without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "atomics.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/generators.hpp"
#include "workbook/random.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace atomics {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::seed_text;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

// Sizes around a warp and a block, not multiples of either, and 2^26.
constexpr std::size_t kLarge = std::size_t{1} << 26;
const std::size_t kSizes[] = {
    1, 31, 32, 33, kThreadsPerBlock - 1, kThreadsPerBlock, kThreadsPerBlock + 1, 513, 1000, 100003, kLarge};

// ---------------------------------------------------------------------------
// Part 1 on the host: layout, slot choice, set and total.

TEST(ParallelCounterLayout, PackedSlotsAreNeighboursInOneCacheLine) {
  EXPECT_EQ(sizeof(PackedCounter), std::size_t{kCacheLineBytes});
  for (int s = 0; s < kCounterSlots; ++s) EXPECT_EQ(PackedCounter::word_of_slot(s), s) << "slot " << s;
}

TEST(ParallelCounterLayout, PaddedSlotsAreACacheLineApart) {
  EXPECT_EQ(sizeof(PaddedCounter), std::size_t{kCounterSlots} * kCacheLineBytes);
  for (int s = 0; s < kCounterSlots; ++s) {
    EXPECT_EQ(PaddedCounter::word_of_slot(s) * sizeof(unsigned), std::size_t(s) * kCacheLineBytes)
        << "slot " << s << " should start " << s << " cache lines into the counter";
  }
}

// sizeof alone does not make a counter one line: 128 bytes that start at byte
// 64 of a line straddle two. The header aligns every counter to a line; these
// two tests check the type and where real objects land.
bool starts_a_line(const void* address) {
  return reinterpret_cast<std::uintptr_t>(address) % kCacheLineBytes == 0;
}

TEST(ParallelCounterLayout, CountersAreAlignedToACacheLine) {
  EXPECT_EQ(alignof(PackedCounter), std::size_t{kCacheLineBytes});
  EXPECT_EQ(alignof(PaddedCounter), std::size_t{kCacheLineBytes});
  EXPECT_EQ(alignof(EightSlotCounter), std::size_t{kCacheLineBytes});
  EXPECT_EQ(offsetof(PackedCounter, words), std::size_t{0}) << "the slots start where the counter starts";
  EXPECT_EQ(offsetof(PaddedCounter, words), std::size_t{0}) << "the slots start where the counter starts";
  // Objects on the stack, side by side in an array and in a std::vector (heap).
  PackedCounter packed[3];
  PaddedCounter padded[2];
  const std::vector<PackedCounter> packed_on_heap(3);
  for (int k = 0; k < 3; ++k) {
    EXPECT_TRUE(starts_a_line(&packed[k])) << "PackedCounter packed[" << k << "] on the stack";
    EXPECT_TRUE(starts_a_line(&packed_on_heap[k])) << "PackedCounter " << k << " of a std::vector";
  }
  for (int k = 0; k < 2; ++k) EXPECT_TRUE(starts_a_line(&padded[k])) << "PaddedCounter padded[" << k << "]";
}

TEST(ParallelCounterLayout, PaddedSlotsAreAlignedEachAtTheStartOfItsOwnLine) {
  // Byte offsets of the slots inside the type, then addresses in a real object.
  for (int s = 0; s + 1 < kCounterSlots; ++s) {
    const std::size_t offset =
        offsetof(PaddedCounter, words) + PaddedCounter::word_of_slot(s) * sizeof(unsigned);
    const std::size_t next =
        offsetof(PaddedCounter, words) + PaddedCounter::word_of_slot(s + 1) * sizeof(unsigned);
    EXPECT_EQ(offset % kCacheLineBytes, std::size_t{0}) << "slot " << s << " starts at byte " << offset;
    EXPECT_EQ(next - offset, std::size_t{kCacheLineBytes}) << "slots " << s << " and " << s + 1;
  }
  PaddedCounter padded;
  for (int s = 0; s < kCounterSlots; ++s) {
    EXPECT_TRUE(starts_a_line(&padded.words[PaddedCounter::word_of_slot(s)]))
        << "slot " << s << " of a PaddedCounter on the stack should start a 128-byte line";
  }
  PackedCounter packed;
  const auto line_of = [](const void* address) {
    return reinterpret_cast<std::uintptr_t>(address) / kCacheLineBytes;
  };
  EXPECT_EQ(line_of(&packed.words[PackedCounter::word_of_slot(0)]),
            line_of(&packed.words[PackedCounter::word_of_slot(kCounterSlots - 1)]))
      << "the first and the last slot of a PackedCounter should share one 128-byte line";
}

TEST(ParallelCounterLayout, ACounterCopiedByteByByteKeepsItsValue) {
  static_assert(std::is_trivially_copyable_v<EightSlotCounter> &&
                std::is_standard_layout_v<EightSlotCounter>);
  PackedCounter original;
  original.set(123457u);
  unsigned char bytes[sizeof(PackedCounter)];
  std::memcpy(bytes, &original, sizeof bytes);  // what cudaMemcpy does, in both directions
  PackedCounter copy;
  std::memcpy(&copy, bytes, sizeof bytes);
  EXPECT_EQ(copy.total(), 123457u) << "set(123457) on the host, copied as bytes, then total()";
}

TEST(ParallelCounterHost, SlotOfIsTheThreadIndexModuloTheSlots) {
  for (unsigned t = 0; t < 1024; ++t) {
    ASSERT_EQ(PackedCounter::slot_of(t), static_cast<int>(t % 32)) << "thread " << t << ", 32 slots";
    ASSERT_EQ(PaddedCounter::slot_of(t), static_cast<int>(t % 32)) << "thread " << t << ", 32 padded slots";
    ASSERT_EQ(EightSlotCounter::slot_of(t), static_cast<int>(t % 8)) << "thread " << t << ", 8 slots";
  }
}

// The words a counter of `slots` slots, `pitch` words apart, holds after set(value).
std::vector<unsigned> words_after_set(unsigned value, int slots, int pitch) {
  std::vector<unsigned> words(static_cast<std::size_t>(slots) * pitch, 0u);
  for (int s = 0; s < slots; ++s) {
    words[static_cast<std::size_t>(s) * pitch] =
        value / static_cast<unsigned>(slots) + (static_cast<unsigned>(s) < value % slots ? 1u : 0u);
  }
  return words;
}

template <typename Counter>
std::vector<unsigned> words_of(const Counter& counter) {
  return std::vector<unsigned>(std::begin(counter.words), std::end(counter.words));
}

template <typename Counter>
void check_set(int slots, int pitch, const char* name) {
  for (const unsigned value : {0u, 1u, 7u, 31u, 32u, 33u, 1000u, 4294967295u}) {
    Counter counter;
    std::memset(&counter, 0xAB, sizeof counter);  // garbage that set() must overwrite, padding too
    counter.set(value);
    EXPECT_TRUE(matches(compare_exact(words_after_set(value, slots, pitch), words_of(counter)),
                        std::string(name) + ".set(" + std::to_string(value) +
                            ") (slot s gets value / slots, plus 1 for s < value % slots; padding 0)"));
  }
}

TEST(ParallelCounterHost, SetSpreadsTheValueEvenlyOverTheSlots) {
  check_set<PackedCounter>(kCounterSlots, kPackedPitch, "PackedCounter");
  check_set<PaddedCounter>(kCounterSlots, kPaddedPitch, "PaddedCounter");
  check_set<EightSlotCounter>(8, kPackedPitch, "EightSlotCounter");
}

TEST(ParallelCounterHost, TotalIsTheSumOfTheSlotsModuloTwoToThe32) {
  PackedCounter packed;
  for (int s = 0; s < kCounterSlots; ++s) packed.words[s] = static_cast<unsigned>(s + 1);
  EXPECT_EQ(packed.total(), 528u) << "slots holding 1, 2, ..., 32";

  // A slot may wrap below zero after subtractions; the sum wraps back.
  packed.words[5] = 0xFFFFFFFFu;  // -1
  packed.words[6] = 3u;
  unsigned expected = 0;
  for (int s = 0; s < kCounterSlots; ++s) expected += packed.words[s];
  EXPECT_EQ(packed.total(), expected) << "a slot at 2^32 - 1 counts as -1";

  PaddedCounter padded;
  std::memset(&padded, 0x5A, sizeof padded);  // padding words are garbage and must be ignored
  for (int s = 0; s < kCounterSlots; ++s) padded.words[s * kPaddedPitch] = 10u;
  EXPECT_EQ(padded.total(), 320u) << "32 padded slots holding 10 each, garbage in the padding";

  EightSlotCounter eight;
  for (int s = 0; s < 8; ++s) eight.words[s] = 1000u * static_cast<unsigned>(s);
  EXPECT_EQ(eight.total(), 28000u);
}

// ---------------------------------------------------------------------------
// Part 1 on the device: a host-built counter copied over, a device global, mapped memory.

// The slots after `initial` (spread as set() spreads it) and then n threads each
// adding (or subtracting) amount: thread i uses slot i % slots (blocks are whole
// multiples of the slot count, so threadIdx.x % slots == i % slots).
std::vector<unsigned> expected_words(unsigned initial, std::size_t n, unsigned amount, bool subtract,
                                     int slots, int pitch) {
  std::vector<unsigned> words = words_after_set(initial, slots, pitch);
  for (int s = 0; s < slots; ++s) {
    const std::size_t threads = n / slots + (static_cast<std::size_t>(s) < n % slots ? 1 : 0);
    const unsigned change = static_cast<unsigned>(threads) * amount;  // modulo 2^32, like the device
    unsigned& word = words[static_cast<std::size_t>(s) * pitch];
    word = subtract ? word - change : word + change;
  }
  return words;
}

// Builds a counter on the host (words written directly, so that this test does
// not depend on set()), copies it to the device, adds or subtracts from n
// threads, copies it back and compares every word.
template <typename Counter>
void check_counter_on_device(std::size_t n, unsigned initial, unsigned amount, bool subtract, int slots,
                             int pitch, const std::string& name) {
  Counter counter;
  const std::vector<unsigned> start = words_after_set(initial, slots, pitch);
  std::copy(start.begin(), start.end(), std::begin(counter.words));
  DeviceBuffer<Counter> device_counter = workbook::to_device(std::vector<Counter>{counter});
  if constexpr (std::is_same_v<Counter, EightSlotCounter>) {
    launch_add_to_counter(device_counter.data(), n, amount);
  } else if (subtract) {
    launch_subtract_from_counter(device_counter.data(), n, amount);
  } else {
    launch_add_to_counter(device_counter.data(), n, amount);
  }
  const Counter result = device_counter.to_host()[0];
  const std::string what = name + " starting at " + std::to_string(initial) + ", n=" + std::to_string(n) +
                           " threads each " + (subtract ? "subtracting " : "adding ") +
                           std::to_string(amount) + " (thread i updates slot i % " + std::to_string(slots) +
                           ")";
  EXPECT_TRUE(matches(
      compare_exact(expected_words(initial, n, amount, subtract, slots, pitch), words_of(result)), what));
}

class ParallelCounterOnDevice : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(ParallelCounterOnDevice, PackedCounterAddsFromEveryThreadToItsSlot) {
  check_counter_on_device<PackedCounter>(GetParam(), 1000003u, 3u, false, kCounterSlots, kPackedPitch,
                                         "PackedCounter");
}

TEST_P(ParallelCounterOnDevice, PaddedCounterAddsFromEveryThreadToItsSlot) {
  check_counter_on_device<PaddedCounter>(GetParam(), 77u, 5u, false, kCounterSlots, kPaddedPitch,
                                         "PaddedCounter");
}

TEST_P(ParallelCounterOnDevice, EightSlotCounterAddsFromEveryThreadToItsSlot) {
  check_counter_on_device<EightSlotCounter>(GetParam(), 12u, 1u, false, 8, kPackedPitch, "EightSlotCounter");
}

TEST_P(ParallelCounterOnDevice, SubtractingFromEveryThreadTakesItBackOut) {
  const std::size_t n = GetParam();
  // 2n + 11, minus 2 from each of n threads, leaves 11 in total, while some
  // slots go below their starting share (and may wrap) on the way.
  const unsigned initial = static_cast<unsigned>(2 * n + 11);
  check_counter_on_device<PackedCounter>(n, initial, 2u, true, kCounterSlots, kPackedPitch, "PackedCounter");
  check_counter_on_device<PaddedCounter>(n, initial, 2u, true, kCounterSlots, kPaddedPitch, "PaddedCounter");
}

TEST_P(ParallelCounterOnDevice, ADeviceGlobalCounterCountsEveryThread) {
  const std::size_t n = GetParam();
  // Twice: set() on the device must reset what the first run left behind.
  for (int run = 1; run <= 2; ++run) {
    EXPECT_EQ(count_with_device_global(n, 7u), static_cast<unsigned>(n + 7))
        << "run " << run << ": the __device__ global counter set to 7, then n=" << n << " threads adding 1";
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, ParallelCounterOnDevice, ::testing::ValuesIn(kSizes), size_name);

class MappedCounter : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(MappedCounter, ACounterInMappedHostMemoryCountsEveryThread) {
  const std::size_t n = GetParam();
  EXPECT_EQ(count_in_mapped_memory(n, 9u), static_cast<unsigned>(n + 9))
      << "a counter in mapped host memory set to 9 on the host, then n=" << n << " threads adding 1";
}

// Every atomic crosses the bus to host memory: sizes stay at 2^20 and below.
INSTANTIATE_TEST_SUITE_P(Sizes, MappedCounter,
                         ::testing::Values(std::size_t{1}, std::size_t{31}, std::size_t{33}, std::size_t{257},
                                           std::size_t{100003}, std::size_t{1} << 20),
                         size_name);

// ---------------------------------------------------------------------------
// Inputs of the count and the filters: ints in [-2^20, 2^20].

constexpr int kValueLimit = 1 << 20;

enum class Input { uniform, all_odd, all_even };

const char* input_name(Input input) {
  switch (input) {
    case Input::uniform:
      return "uniform";
    case Input::all_odd:
      return "all_odd";
    case Input::all_even:
      return "all_even";
  }
  return "?";
}

struct ValuesCase {
  std::size_t n;
  Input input;
};

std::ostream& operator<<(std::ostream& out, const ValuesCase& c) {
  return out << "n=" << c.n << ", input=" << input_name(c.input);
}

std::string describe(const ValuesCase& c) {
  return "n=" + std::to_string(c.n) + ", input=" + input_name(c.input) + " (ints in [-2^20, 2^20]), " +
         seed_text();
}

std::string values_case_name(const ::testing::TestParamInfo<ValuesCase>& info) {
  return "n" + std::to_string(info.param.n) + "_" + input_name(info.param.input);
}

// Half odd (uniform), all odd (every thread on the one counter), none odd.
std::vector<int> make_values(const ValuesCase& c) {
  std::vector<std::int32_t> values =
      workbook::generate_ints(c.n, Pattern::uniform, workbook::test_seed(), -kValueLimit, kValueLimit);
  if (c.input == Input::all_odd) {
    for (auto& v : values) v = (v == kValueLimit) ? v - 1 : (v | 1);
  } else if (c.input == Input::all_even) {
    for (auto& v : values) v &= ~1;
  }
  return std::vector<int>(values.begin(), values.end());
}

std::vector<ValuesCase> values_cases() {
  std::vector<ValuesCase> cases;
  for (const std::size_t n : kSizes) {
    for (const Input input : {Input::uniform, Input::all_odd, Input::all_even}) {
      if (n == kLarge && input == Input::all_even) continue;  // nothing new at this size
      cases.push_back({n, input});
    }
  }
  return cases;
}

std::size_t count_odd(const std::vector<int>& values) {
  std::size_t count = 0;
  for (const int v : values) count += is_odd(v) ? 1 : 0;
  return count;
}

// ---------------------------------------------------------------------------
// Part 2: block-aggregated count.

class BlockAggregatedCount : public GpuTest, public ::testing::WithParamInterface<ValuesCase> {};

TEST_P(BlockAggregatedCount, AddsTheNumberOfOddValuesToTheCounter) {
  const ValuesCase c = GetParam();
  const std::vector<int> values = make_values(c);
  const DeviceBuffer<int> device_values = workbook::to_device(values);
  DeviceBuffer<unsigned> count = workbook::to_device(std::vector<unsigned>{5u});
  launch_count_odd_block_aggregated(device_values.data(), c.n, count.data());
  EXPECT_EQ(count.to_host()[0], static_cast<unsigned>(5 + count_odd(values)))
      << "for " << describe(c) << ": the counter started at 5 and must grow by the number of odd values";
  expect_input_unchanged(values, device_values, describe(c), "values");
}

INSTANTIATE_TEST_SUITE_P(Sizes, BlockAggregatedCount, ::testing::ValuesIn(values_cases()), values_case_name);

// ---------------------------------------------------------------------------
// Part 3: filters. The output order is free, so the kept values are compared as
// a multiset (a histogram over the value range), and the output past the count
// must still hold the poison.

using FilterLauncher = void (*)(const int*, std::size_t, int*, unsigned*, cudaStream_t);

constexpr int kPoisonByte = 0x7F;
constexpr int kPoison = 0x7F7F7F7F;  // odd, but outside [-2^20, 2^20]: never a real value
constexpr std::size_t kGuard = 64;

// Whether `got` holds the same values as `wanted`, each as often, in any order.
::testing::AssertionResult same_multiset(const std::vector<int>& wanted, const std::vector<int>& got,
                                         const std::string& context) {
  if (wanted.size() != got.size()) {
    return ::testing::AssertionFailure()
           << "for " << context << ": expected " << wanted.size() << " values, got " << got.size();
  }
  std::vector<std::int64_t> histogram(2 * static_cast<std::size_t>(kValueLimit) + 1, 0);
  for (const int v : wanted) ++histogram[static_cast<std::size_t>(v + kValueLimit)];
  for (std::size_t i = 0; i < got.size(); ++i) {
    const int v = got[i];
    if (v < -kValueLimit || v > kValueLimit) {
      return ::testing::AssertionFailure()
             << "for " << context << ": out[" << i << "] = " << v
             << (v == kPoison ? " (the poison: nobody wrote this position)" : " is not an input value");
    }
    --histogram[static_cast<std::size_t>(v + kValueLimit)];
  }
  for (std::size_t k = 0; k < histogram.size(); ++k) {
    if (histogram[k] != 0) {
      const int v = static_cast<int>(k) - kValueLimit;
      return ::testing::AssertionFailure()
             << "for " << context << ": the value " << v << " should appear "
             << (histogram[k] > 0 ? "more" : "fewer") << " times in the output (off by "
             << (histogram[k] > 0 ? histogram[k] : -histogram[k])
             << "); values were lost or written twice, or two threads got the same position";
    }
  }
  return ::testing::AssertionSuccess();
}

// Checks a filter's output: the count, the kept values in any order, and
// nothing written past the count.
void check_filter_output(const std::vector<int>& values, const DeviceBuffer<int>& out,
                         const DeviceBuffer<unsigned>& out_count, const std::string& context) {
  std::vector<int> wanted;
  for (const int v : values) {
    if (is_odd(v)) wanted.push_back(v);
  }
  const unsigned count = out_count.to_host()[0];
  ASSERT_EQ(count, wanted.size()) << "for " << context
                                  << ": the output count should be the number of odd values";
  const std::vector<int> downloaded = out.to_host();
  const std::vector<int> got(downloaded.begin(), downloaded.begin() + count);
  EXPECT_TRUE(same_multiset(wanted, got, context));
  const std::vector<int> rest(downloaded.begin() + count, downloaded.end());
  EXPECT_TRUE(matches(compare_exact(std::vector<int>(rest.size(), kPoison), rest),
                      context + ", the output after the last kept value (index 0 = position " +
                          std::to_string(count) + "; nothing may be written there)"));
}

void check_filter(FilterLauncher launch, const ValuesCase& c) {
  const std::vector<int> values = make_values(c);
  const DeviceBuffer<int> device_values = workbook::to_device(values);
  DeviceBuffer<int> out(c.n + kGuard);
  out.fill_bytes(kPoisonByte);
  DeviceBuffer<unsigned> out_count(1);
  out_count.fill_bytes(0);
  launch(device_values.data(), c.n, out.data(), out_count.data(), nullptr);
  check_filter_output(values, out, out_count, describe(c));
  expect_input_unchanged(values, device_values, describe(c), "values");
}

class Filter : public GpuTest, public ::testing::WithParamInterface<ValuesCase> {};

TEST_P(Filter, PerThreadAtomicsKeepExactlyTheOddValues) {
  check_filter(launch_filter_odd_per_thread, GetParam());
}

TEST_P(Filter, WarpAggregatedAtomicsKeepExactlyTheOddValues) {
  check_filter(launch_filter_odd_warp_aggregated, GetParam());
}

TEST_P(Filter, BlockAggregatedAtomicsKeepExactlyTheOddValues) {
  check_filter(launch_filter_odd_block_aggregated, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Sizes, Filter, ::testing::ValuesIn(values_cases()), values_case_name);

TEST(WarpMasks, LanesBelowSetsTheBitsOfTheLowerLanes) {
  EXPECT_EQ(lanes_below(0), 0u);
  EXPECT_EQ(lanes_below(1), 1u);
  EXPECT_EQ(lanes_below(5), 0x1Fu);
  EXPECT_EQ(lanes_below(16), 0xFFFFu);
  EXPECT_EQ(lanes_below(31), 0x7FFFFFFFu);
}

TEST(WarpMasks, RankCountsTheLanesOfTheMaskBelowTheLane) {
  EXPECT_EQ(rank_in_mask(0b10110u, 4), 2) << "lanes 1 and 2 are below lane 4";
  EXPECT_EQ(rank_in_mask(0b10110u, 1), 0);
  EXPECT_EQ(rank_in_mask(kFullMask, 31), 31);
  EXPECT_EQ(rank_in_mask(kFullMask, 0), 0);
  for (std::uint64_t k = 0; k < 200; ++k) {
    const unsigned mask = static_cast<unsigned>(workbook::hash64(17, k));
    for (int lane = 0; lane < kWarpSize; ++lane) {
      int below = 0;
      for (int j = 0; j < lane; ++j) below += (mask >> j) & 1u;
      ASSERT_EQ(rank_in_mask(mask, lane), below)
          << "mask 0x" << std::hex << mask << std::dec << ", lane " << lane;
    }
  }
}

TEST(WarpMasks, TheLeaderIsTheLowestLaneOfTheMask) {
  EXPECT_EQ(leader_of(1u), 0);
  EXPECT_EQ(leader_of(0b1100u), 2);
  EXPECT_EQ(leader_of(0x80000000u), 31);
  EXPECT_EQ(leader_of(kFullMask), 0);
  for (std::uint64_t k = 0; k < 200; ++k) {
    const unsigned mask = static_cast<unsigned>(workbook::hash64(29, k)) | 0x80000000u;
    int lowest = 0;
    while (((mask >> lowest) & 1u) == 0) ++lowest;
    ASSERT_EQ(leader_of(mask), lowest) << "mask 0x" << std::hex << mask;
  }
}

// ---------------------------------------------------------------------------
// Part 4: CAS loops, under contention but at bounded sizes (a double CAS loop
// with 2^15 threads per slot took 698.993 ms on an H200 in ./workbook bench
// --all --solution, 2026-11-26; one slot shared by 2^16 threads would take seconds).

enum class FloatInput { uniform, ascending, descending, all_equal, all_negative };

const char* float_input_name(FloatInput input) {
  switch (input) {
    case FloatInput::uniform:
      return "uniform";
    case FloatInput::ascending:
      return "ascending";
    case FloatInput::descending:
      return "descending";
    case FloatInput::all_equal:
      return "all_equal";
    case FloatInput::all_negative:
      return "all_negative";
  }
  return "?";
}

struct MaxCase {
  std::size_t n;
  int slots;
  FloatInput input;
};

std::ostream& operator<<(std::ostream& out, const MaxCase& c) {
  return out << "n=" << c.n << ", slots=" << c.slots << ", input=" << float_input_name(c.input);
}

std::vector<float> make_floats(const MaxCase& c) {
  const std::uint64_t seed = workbook::test_seed();
  switch (c.input) {
    case FloatInput::ascending:
      return workbook::generate_floats(c.n, Pattern::sorted, seed, -1e6f, 1e6f);
    case FloatInput::descending:
      return workbook::generate_floats(c.n, Pattern::reverse_sorted, seed, -1e6f, 1e6f);
    case FloatInput::all_equal:
      return workbook::generate_floats(c.n, Pattern::all_equal, seed, -1e6f, 1e6f);
    case FloatInput::all_negative:
      return workbook::generate_floats(c.n, Pattern::uniform, seed, -1000.0f, -1.0f);
    case FloatInput::uniform:
      break;
  }
  return workbook::generate_floats(c.n, Pattern::uniform, seed, -1e6f, 1e6f);
}

class AtomicMaxFloat : public GpuTest, public ::testing::WithParamInterface<MaxCase> {};

TEST_P(AtomicMaxFloat, EachSlotEndsWithTheLargestOfItsValues) {
  const MaxCase c = GetParam();
  const std::vector<float> values = make_floats(c);
  const float lowest = -std::numeric_limits<float>::infinity();
  std::vector<float> expected(static_cast<std::size_t>(c.slots), lowest);
  for (std::size_t i = 0; i < c.n; ++i) {
    float& slot = expected[i % static_cast<std::size_t>(c.slots)];
    slot = std::max(slot, values[i]);
  }
  const DeviceBuffer<float> device_values = workbook::to_device(values);
  DeviceBuffer<float> slots =
      workbook::to_device(std::vector<float>(static_cast<std::size_t>(c.slots), lowest));
  launch_max_into_slots_cas(device_values.data(), c.n, slots.data(), c.slots);
  std::ostringstream context;
  context << c << ", " << seed_text() << " (slot k = max of values[i] with i % slots == k, from -infinity)";
  EXPECT_TRUE(matches(compare_exact(expected, slots.to_host()), context.str()));
  expect_input_unchanged(values, device_values, context.str(), "values");
}

INSTANTIATE_TEST_SUITE_P(
    Contention, AtomicMaxFloat,
    ::testing::Values(MaxCase{1, 1, FloatInput::uniform}, MaxCase{1, 32, FloatInput::uniform},
                      MaxCase{31, 32, FloatInput::uniform}, MaxCase{32, 32, FloatInput::descending},
                      MaxCase{33, 32, FloatInput::ascending}, MaxCase{255, 7, FloatInput::all_negative},
                      MaxCase{256, 1, FloatInput::ascending}, MaxCase{257, 32, FloatInput::all_equal},
                      MaxCase{4096, 1, FloatInput::ascending}, MaxCase{4096, 1, FloatInput::all_negative},
                      MaxCase{65536, 32, FloatInput::ascending}, MaxCase{65536, 32, FloatInput::all_negative},
                      MaxCase{100003, 5, FloatInput::uniform}, MaxCase{kLarge, 32, FloatInput::uniform}),
    [](const ::testing::TestParamInfo<MaxCase>& info) {
      return "n" + std::to_string(info.param.n) + "_slots" + std::to_string(info.param.slots) + "_" +
             float_input_name(info.param.input);
    });

struct AddCase {
  std::size_t n;
  int slots;
};

std::ostream& operator<<(std::ostream& out, const AddCase& c) {
  return out << "n=" << c.n << ", slots=" << c.slots;
}

class AtomicAddDoubleCas : public GpuTest, public ::testing::WithParamInterface<AddCase> {};

TEST_P(AtomicAddDoubleCas, AddsEveryValueToItsSlotLikeTheNativeAtomicAdd) {
  const AddCase c = GetParam();
  // Multiples of 1/4 in [-64, 64]: every partial sum is exact in a double, so
  // the result is the same in any order and can be compared exactly.
  const std::vector<std::int32_t> quarters =
      workbook::generate_ints(c.n, Pattern::uniform, workbook::test_seed(), -256, 256);
  std::vector<double> values(c.n);
  for (std::size_t i = 0; i < c.n; ++i) values[i] = quarters[i] / 4.0;
  const std::vector<double> start(static_cast<std::size_t>(c.slots), 0.5);
  std::vector<double> expected = start;
  for (std::size_t i = 0; i < c.n; ++i) expected[i % static_cast<std::size_t>(c.slots)] += values[i];

  std::ostringstream context;
  context << c << ", " << seed_text() << " (slot k starts at 0.5 and gains values[i] with i % slots == k)";
  const DeviceBuffer<double> device_values = workbook::to_device(values);
  DeviceBuffer<double> cas_slots = workbook::to_device(start);
  launch_add_into_slots_cas(device_values.data(), c.n, cas_slots.data(), c.slots);
  EXPECT_TRUE(matches(compare_exact(expected, cas_slots.to_host()), "the CAS loop, " + context.str()));
  expect_input_unchanged(values, device_values, "the CAS loop, " + context.str(), "values");
  DeviceBuffer<double> native_slots = workbook::to_device(start);
  launch_add_into_slots_native(device_values.data(), c.n, native_slots.data(), c.slots);
  EXPECT_TRUE(matches(compare_exact(expected, native_slots.to_host()), "native atomicAdd, " + context.str()));
  expect_input_unchanged(values, device_values, "native atomicAdd, " + context.str(), "values");
}

INSTANTIATE_TEST_SUITE_P(Contention, AtomicAddDoubleCas,
                         ::testing::Values(AddCase{1, 1}, AddCase{31, 32}, AddCase{33, 32}, AddCase{255, 7},
                                           AddCase{257, 1}, AddCase{4096, 1}, AddCase{65536, 32}),
                         [](const ::testing::TestParamInfo<AddCase>& info) {
                           return "n" + std::to_string(info.param.n) + "_slots" +
                                  std::to_string(info.param.slots);
                         });

class AtomicAddDoubleCasTickets : public GpuTest {};

TEST_F(AtomicAddDoubleCasTickets, ReturnsTheOldValueSoEveryThreadGetsADistinctTicket) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{257}, std::size_t{4096}}) {
    DeviceBuffer<double> counter = workbook::to_device(std::vector<double>{0.0});
    DeviceBuffer<double> tickets(n);
    tickets.fill_bytes(0xFF);  // NaN
    launch_take_tickets_cas(counter.data(), n, tickets.data());
    std::vector<double> got = tickets.to_host();
    std::sort(got.begin(), got.end());
    std::vector<double> expected(n);
    for (std::size_t k = 0; k < n; ++k) expected[k] = static_cast<double>(k);
    EXPECT_TRUE(matches(compare_exact(expected, got),
                        "n=" + std::to_string(n) +
                            " threads adding 1.0 to one counter, the values the add returned, sorted "
                            "(each thread must get the counter's value just before its own add)"));
    EXPECT_EQ(counter.to_host()[0], static_cast<double>(n)) << "the counter after n=" << n << " adds of 1.0";
  }
}

TEST(LaunchArguments, ASlotCountBelowOneIsRejected) {
  // Checked on the host before any launch: no GPU needed.
  EXPECT_THROW(launch_max_into_slots_cas(nullptr, 10, nullptr, 0), std::invalid_argument);
  EXPECT_THROW(launch_add_into_slots_cas(nullptr, 10, nullptr, -1), std::invalid_argument);
  EXPECT_THROW(launch_add_into_slots_native(nullptr, 10, nullptr, 0), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Part 5: count by key with __match_any_sync.

enum class Keys { runs, random_runs, all_equal, unsorted };

struct KeysCase {
  std::size_t n;
  Keys keys;
  int run;  // run length for Keys::runs
};

std::string keys_name(const KeysCase& c) {
  switch (c.keys) {
    case Keys::runs:
      return c.run == 1 ? std::string("all_distinct") : "runs_of_" + std::to_string(c.run);
    case Keys::random_runs:
      return "random_runs";
    case Keys::all_equal:
      return "all_equal";
    case Keys::unsorted:
      return "unsorted";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& out, const KeysCase& c) {
  return out << "n=" << c.n << ", keys=" << keys_name(c);
}

// Sorted keys 0, 0, ..., 1, 1, ... in runs of c.run; or in seeded runs of 1 to
// 64; or all 0; or unsorted keys in [0, 1000).
std::vector<int> make_keys(const KeysCase& c) {
  const std::uint64_t seed = workbook::test_seed();
  std::vector<int> keys(c.n);
  int key = 0;
  std::size_t left_in_run = 0;
  for (std::size_t i = 0; i < c.n; ++i) {
    switch (c.keys) {
      case Keys::runs:
        keys[i] = static_cast<int>(i / static_cast<std::size_t>(c.run));
        break;
      case Keys::all_equal:
        keys[i] = 0;
        break;
      case Keys::unsorted:
        keys[i] = static_cast<int>(workbook::hash64(seed, i) % 1000);
        break;
      case Keys::random_runs:
        if (left_in_run == 0) {
          left_in_run = 1 + workbook::hash64(seed, i) % 64;
          if (i > 0) ++key;
        }
        keys[i] = key;
        --left_in_run;
        break;
    }
  }
  return keys;
}

std::vector<unsigned> host_counts(const std::vector<int>& keys, unsigned start) {
  const int largest = keys.empty() ? 0 : *std::max_element(keys.begin(), keys.end());
  std::vector<unsigned> counts(static_cast<std::size_t>(largest) + 1, start);
  for (const int k : keys) ++counts[static_cast<std::size_t>(k)];
  return counts;
}

std::vector<KeysCase> keys_cases() {
  std::vector<KeysCase> cases;
  for (const std::size_t n : kSizes) {
    if (n == kLarge) {
      for (const KeysCase c : {KeysCase{n, Keys::runs, 1}, KeysCase{n, Keys::runs, 32},
                               KeysCase{n, Keys::random_runs, 0}, KeysCase{n, Keys::all_equal, 0}}) {
        cases.push_back(c);
      }
      continue;
    }
    for (const int run : {1, 8, 32, 33, 256}) cases.push_back({n, Keys::runs, run});
    for (const Keys keys : {Keys::random_runs, Keys::all_equal, Keys::unsorted})
      cases.push_back({n, keys, 0});
  }
  return cases;
}

class CountByKeyMatchAny : public GpuTest, public ::testing::WithParamInterface<KeysCase> {};

TEST_P(CountByKeyMatchAny, CountsEveryKey) {
  const KeysCase c = GetParam();
  const std::vector<int> keys = make_keys(c);
  const std::vector<unsigned> start(host_counts(keys, 0).size(), 1u);
  const DeviceBuffer<int> device_keys = workbook::to_device(keys);
  DeviceBuffer<unsigned> counts = workbook::to_device(start);
  launch_count_by_key_match_any(device_keys.data(), c.n, counts.data());
  std::ostringstream context;
  context << c << ", " << seed_text() << " (counts[k] starts at 1 and gains the number of keys equal to k)";
  EXPECT_TRUE(matches(compare_exact(host_counts(keys, 1u), counts.to_host()), context.str()));
  expect_input_unchanged(keys, device_keys, context.str(), "keys");
}

INSTANTIATE_TEST_SUITE_P(Sizes, CountByKeyMatchAny, ::testing::ValuesIn(keys_cases()),
                         [](const ::testing::TestParamInfo<KeysCase>& info) {
                           return "n" + std::to_string(info.param.n) + "_" + keys_name(info.param);
                         });

// ---------------------------------------------------------------------------
// No elements: nothing launched (a grid of 0 blocks is an error), nothing changed.

class EmptyInput : public GpuTest {};

TEST_F(EmptyInput, NoElementsLaunchNothingAndChangeNothing) {
  DeviceBuffer<unsigned> count = workbook::to_device(std::vector<unsigned>{3u});
  EXPECT_NO_THROW(launch_count_odd_block_aggregated(nullptr, 0, count.data()));
  EXPECT_NO_THROW(launch_filter_odd_per_thread(nullptr, 0, nullptr, count.data()));
  EXPECT_NO_THROW(launch_filter_odd_warp_aggregated(nullptr, 0, nullptr, count.data()));
  EXPECT_NO_THROW(launch_filter_odd_block_aggregated(nullptr, 0, nullptr, count.data()));
  EXPECT_NO_THROW(launch_count_by_key_match_any(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_max_into_slots_cas(nullptr, 0, nullptr, 1));
  EXPECT_NO_THROW(launch_add_into_slots_cas(nullptr, 0, nullptr, 1));
  EXPECT_NO_THROW(launch_take_tickets_cas(nullptr, 0, nullptr));
  EXPECT_NO_THROW(launch_add_to_counter(static_cast<PackedCounter*>(nullptr), 0, 1u));
  EXPECT_NO_THROW(launch_subtract_from_counter(static_cast<PaddedCounter*>(nullptr), 0, 1u));
  EXPECT_EQ(count.to_host()[0], 3u);
}

// ---------------------------------------------------------------------------
// Speed, only where aggregation pays on the H200 (the handout's fold "Ours",
// 2026-11-26, tables 1 to 3): each yardstick is the plain per-thread atomic
// version, written here, with outputs of its own, and timed alternately with
// yours on the same input. Every run reads a new input drawn on the GPU, and
// your output of every run must match the yardstick's. Rates are elements per
// second; higher is better.

constexpr std::size_t kSpeedN = std::size_t{1} << 26;  // 256 MiB of ints, over 4 times the H200's L2

__global__ void count_odd_per_thread(const int* values, std::size_t n, unsigned* count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && is_odd(values[i])) atomicAdd(count, 1u);
}

__global__ void filter_odd_per_thread_yardstick(const int* values, std::size_t n, int* out,
                                                unsigned* out_count) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int value = values[i];
  if (is_odd(value)) out[atomicAdd(out_count, 1u)] = value;
}

__global__ void count_by_key_plain(const int* keys, std::size_t n, unsigned* counts) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[keys[i]], 1u);
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(ceil_div(n, kThreadsPerBlock));
}

// Sorted keys in runs of 32 (a warp's worth of equal keys): run r has key
// 2r or 2r + 1, drawn from the seed, so the keys ascend as in the handout's
// measurements and still differ from run to run. Keys lie in [0, n / 16 + 2).
__global__ void fill_runs_of_32(int* keys, std::size_t n, std::uint64_t seed) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = static_cast<int>(2 * (i / 32) + (workbook::random_u32_at(seed, i / 32) & 1u));
}

// What a filter left in out[0, size), with count kept values: the order is
// free, so the kept values are summarised by a sum of a hash of each (equal
// sums: the same values, each as often, but for a 2^-64 chance).
struct FilterSummary {
  unsigned long long hash_sum;      // sum of hash64 of out[0, count), modulo 2^64
  unsigned long long unwritten;     // elements of out[0, count) still holding the poison
  unsigned long long written_past;  // elements of out[count, size) that lost the poison
};

__global__ void summarize_filter(const int* out, std::size_t count, std::size_t size,
                                 FilterSummary* summary) {
  unsigned long long hash_sum = 0, unwritten = 0, written_past = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < size;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int value = out[i];
    if (i < count) {
      hash_sum += workbook::hash64(0x5EED, static_cast<std::uint32_t>(value));
      unwritten += value == kPoison ? 1 : 0;
    } else {
      written_past += value != kPoison ? 1 : 0;
    }
  }
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    hash_sum += __shfl_down_sync(kFullMask, hash_sum, offset);
    unwritten += __shfl_down_sync(kFullMask, unwritten, offset);
    written_past += __shfl_down_sync(kFullMask, written_past, offset);
  }
  if (threadIdx.x % kWarpSize == 0) {
    atomicAdd(&summary->hash_sum, hash_sum);
    atomicAdd(&summary->unwritten, unwritten);
    atomicAdd(&summary->written_past, written_past);
  }
}

FilterSummary filter_summary(const int* out, std::size_t count, std::size_t size) {
  DeviceBuffer<FilterSummary> summary(1);
  summary.fill_bytes(0);
  summarize_filter<<<1024, kThreadsPerBlock>>>(out, count, size, summary.data());
  CUDA_CHECK_LAUNCH("summarize_filter");
  return summary.to_host()[0];
}

unsigned device_value(const DeviceBuffer<unsigned>& one) {
  return one.to_host()[0];
}

class AtomicsSpeed : public GpuTest {};

TEST_F(AtomicsSpeed, BlockAggregatedCountBeatsPerThreadAtomics) {
  const std::size_t n = kSpeedN;
  DeviceBuffer<int> values(n);
  DeviceBuffer<unsigned> count(1), yardstick_count(1);

  SpeedTask task;
  task.what = "launch_count_odd_block_aggregated of 2^26 uniform ints";
  task.yardstick = "a count with one atomicAdd per odd value, on the same ints";
  task.unit = "Gelements/s";
  task.work = static_cast<double>(n);
  task.min_bytes = static_cast<double>(sizeof(int) * n);  // every value read once
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_ints(values.data(), n, seed, -kValueLimit, kValueLimit, stream);
    CUDA_CHECK(cudaMemsetAsync(count.data(), 0, count.bytes(), stream));
  };
  // The yardsticks zero their own counters: the harness calls them twice per run.
  task.run_yardstick = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(yardstick_count.data(), 0, yardstick_count.bytes(), stream));
    count_odd_per_thread<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(values.data(), n,
                                                                         yardstick_count.data());
    CUDA_CHECK_LAUNCH("count_odd_per_thread");
  };
  task.run = [&](cudaStream_t stream) {
    launch_count_odd_block_aggregated(values.data(), n, count.data(), stream);
  };
  task.check = [&]() -> std::string {
    const unsigned want = device_value(yardstick_count), got = device_value(count);
    if (got == want) return "";
    return "the count is " + std::to_string(got) + ", expected " + std::to_string(want) +
           " (the number of odd values, from 0)";
  };
  task.inputs = {{"values", workbook::bytes_of(values)}};
  task.yardstick_writes = {workbook::bytes_of(yardstick_count)};
  workbook::testing::check_speed(task);
}

TEST_F(AtomicsSpeed, BlockAggregatedFilterBeatsPerThreadAtomics) {
  const std::size_t n = kSpeedN;
  DeviceBuffer<int> values(n), out(n + kGuard), yardstick_out(n);
  DeviceBuffer<unsigned> out_count(1), yardstick_count(1);

  SpeedTask task;
  task.what = "launch_filter_odd_block_aggregated of 2^26 uniform ints";
  task.yardstick = "a filter with one atomicAdd per kept value, on the same ints";
  task.unit = "Gelements/s";
  task.work = static_cast<double>(n);
  // Every value read once and the odd half of them written (2^25 give or take
  // a few thousand).
  task.min_bytes = static_cast<double>(sizeof(int) * (n + n / 2));
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_ints(values.data(), n, seed, -kValueLimit, kValueLimit, stream);
    // Poisoned every run: what an earlier run left past this run's count would pass for output.
    CUDA_CHECK(cudaMemsetAsync(out.data(), kPoisonByte, out.bytes(), stream));
    CUDA_CHECK(cudaMemsetAsync(out_count.data(), 0, out_count.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(yardstick_count.data(), 0, yardstick_count.bytes(), stream));
    filter_odd_per_thread_yardstick<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(
        values.data(), n, yardstick_out.data(), yardstick_count.data());
    CUDA_CHECK_LAUNCH("filter_odd_per_thread_yardstick");
  };
  task.run = [&](cudaStream_t stream) {
    launch_filter_odd_block_aggregated(values.data(), n, out.data(), out_count.data(), stream);
  };
  // The order of the output is free: the count, the kept values as a multiset
  // and the poison past the count are checked, as check_filter_output() does.
  task.check = [&]() -> std::string {
    const unsigned want = device_value(yardstick_count), got = device_value(out_count);
    if (got != want) {
      return "the output count is " + std::to_string(got) + ", expected " + std::to_string(want) +
             " (the number of odd values)";
    }
    const FilterSummary yours = filter_summary(out.data(), got, out.size());
    if (yours.unwritten != 0) {
      return std::to_string(yours.unwritten) + " of the first " + std::to_string(got) +
             " output positions still hold the poison: nobody wrote them";
    }
    if (yours.hash_sum != filter_summary(yardstick_out.data(), want, want).hash_sum) {
      return "the kept values are not the odd values of the input, each once: values were lost or written "
             "twice, or two threads got the same position";
    }
    if (yours.written_past != 0) {
      return std::to_string(yours.written_past) + " elements after the last kept value (position " +
             std::to_string(got) + ") were written: nothing may be written there";
    }
    return "";
  };
  task.inputs = {{"values", workbook::bytes_of(values)}};
  task.yardstick_writes = {workbook::bytes_of(yardstick_out), workbook::bytes_of(yardstick_count)};
  workbook::testing::check_speed(task);
}

TEST_F(AtomicsSpeed, MatchAnyCountByKeyBeatsPlainAtomicsOnLongRuns) {
  const std::size_t n = kSpeedN;
  const int key_count = static_cast<int>(n / 16) + 2;
  DeviceBuffer<int> keys(n);
  DeviceBuffer<unsigned> counts(static_cast<std::size_t>(key_count)),
      yardstick_counts(static_cast<std::size_t>(key_count));

  SpeedTask task;
  task.what = "launch_count_by_key_match_any of 2^26 keys in runs of 32";
  task.yardstick = "a count by key with one atomicAdd per key, on the same keys";
  task.unit = "Gelements/s";
  task.work = static_cast<double>(n);
  task.min_bytes = static_cast<double>(sizeof(int) * n);  // every key read once
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    fill_runs_of_32<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys.data(), n, seed);
    CUDA_CHECK_LAUNCH("fill_runs_of_32");
    CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream));
  };
  task.run_yardstick = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(yardstick_counts.data(), 0, yardstick_counts.bytes(), stream));
    count_by_key_plain<<<blocks_for(n), kThreadsPerBlock, 0, stream>>>(keys.data(), n,
                                                                       yardstick_counts.data());
    CUDA_CHECK_LAUNCH("count_by_key_plain");
  };
  task.run = [&](cudaStream_t stream) {
    launch_count_by_key_match_any(keys.data(), n, counts.data(), stream);
  };
  task.check = [&] {
    const std::string problem =
        workbook::device_differences(yardstick_counts.data(), counts.data(), counts.size());
    return problem.empty() ? problem : "counts (index = key): " + problem;
  };
  task.inputs = {{"keys", workbook::bytes_of(keys)}};
  task.yardstick_writes = {workbook::bytes_of(yardstick_counts)};
  workbook::testing::check_speed(task);
}

}  // namespace
}  // namespace atomics
