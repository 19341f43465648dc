// Speed tests of lab 08: sort_keys and sort_pairs against
// cub::DeviceRadixSort on the same uniform random uint32 keys, both timed
// with workbook::time_gpu (cold L2, median of repeated CUDA-event timings) in
// the same run. The input changes before every run of your sort (untimed:
// workbook::testing::AlternatingInput, keys + 0, + 1, + 2), so that an answer
// kept from an earlier call fails; the output of the last timed run is checked
// first, against CUB's sort of the same input, itself checked against that
// input on the host: speed counts only for correct code. Rates are in keys
// (pairs) per second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "cub_yardstick.cuh"
#include "radix_sort.cuh"
#include "workbook/buffers.hpp"
#include "workbook/generators.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace radix_sort {
namespace {

using workbook::compare_exact;
using workbook::DeviceBuffer;
using workbook::testing::AlternatingInput;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;

std::vector<std::uint32_t> uniform_keys(std::size_t n) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = static_cast<std::uint32_t>(workbook::hash64(workbook::test_seed() + 21, i) >> 16);
  }
  return keys;
}

std::string size_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

double gigakeys_per_second(std::size_t n, double ms) {
  return static_cast<double>(n) / ms / 1.0e6;
}

// The three versions of the keys that the timed runs alternate between:
// version k is key + k (mod 2^32). Every key changes and the keys stay
// uniform. The sorted answers differ: the versions' sums mod 2^32 differ by n
// or 2n, which is not a multiple of 2^32 for 0 < n < 2^31 (measure_keys
// asserts it; for pairs the values differ as well).
std::vector<std::vector<std::uint32_t>> key_versions(std::vector<std::uint32_t> keys) {
  std::vector<std::uint32_t> plus_1(keys.size()), plus_2(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    plus_1[i] = keys[i] + 1u;
    plus_2[i] = keys[i] + 2u;
  }
  return {std::move(keys), std::move(plus_1), std::move(plus_2)};
}

// The three versions of the values of sort_pairs: version k holds
// i + k * n at index i, so every value changes and still names its input
// index (value - k * n), and the answers differ: version k's values lie in
// [k n, (k + 1) n). Needs 3n <= 2^32.
std::vector<std::vector<std::uint32_t>> value_versions(std::size_t n) {
  std::vector<std::vector<std::uint32_t>> versions(3, std::vector<std::uint32_t>(n));
  for (std::size_t k = 0; k < 3; ++k) {
    for (std::size_t i = 0; i < n; ++i) versions[k][i] = static_cast<std::uint32_t>(k * n + i);
  }
  return versions;
}

// An order-free fingerprint of a multiset of keys: the sum of a 64-bit hash of
// every key. Equal multisets have equal sums, different ones practically never.
// With a check that they ascend, it shows in one pass, without sorting 2^28
// keys on the host, that sorted keys are exactly the input's keys.
std::uint64_t multiset_fingerprint(const std::vector<std::uint32_t>& keys) {
  std::uint64_t sum = 0;
  for (const std::uint32_t key : keys) sum += workbook::hash64(0x5EED, key);
  return sum;
}

// "" when (keys_out, values_out) is the stable sort of the pairs
// (keys_in[i], first_value + i), else the first problem found. In one pass:
// every value names one input pair (no pair twice), its key is that pair's key,
// the keys ascend, and equal keys keep their input order.
std::string stable_sort_problem(const std::vector<std::uint32_t>& keys_in, std::uint32_t first_value,
                                const std::vector<std::uint32_t>& keys_out,
                                const std::vector<std::uint32_t>& values_out) {
  const std::size_t n = keys_in.size();
  if (keys_out.size() != n || values_out.size() != n) return "the output has another size than the input";
  std::vector<bool> seen(n, false);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t from = values_out[j] - first_value;  // wraps to a large number below first_value
    if (from >= n || seen[from])
      return "value " + std::to_string(values_out[j]) + " at " + std::to_string(j) +
             " names no input pair, or one already placed";
    seen[from] = true;
    if (keys_out[j] != keys_in[from]) return "key at " + std::to_string(j) + " is not its value's key";
    if (j == 0) continue;
    const std::size_t before = values_out[j - 1] - first_value;
    if (keys_out[j - 1] > keys_out[j] || (keys_out[j - 1] == keys_out[j] && before > from))
      return "the pairs at " + std::to_string(j - 1) + " and " + std::to_string(j) + " are out of order";
  }
  return "";
}

class RadixSortSpeed : public GpuTest {
 protected:
  // sort_keys against CUB's SortKeys on n uniform keys.
  void measure_keys(std::size_t n) {
    ASSERT_TRUE(n > 0 && n < (std::size_t{1} << 31)) << "test-setup error: key_versions() needs 0 < n < 2^31";
    std::vector<std::vector<std::uint32_t>> versions = key_versions(uniform_keys(n));
    DeviceBuffer<std::uint32_t> in = workbook::to_device(versions[0]);
    AlternatingInput<std::uint32_t> in_versions(in, std::move(versions));
    DeviceBuffer<std::uint32_t> out(n);
    DeviceBuffer<std::uint32_t> cub_out(n);
    RadixSortScratch scratch(n);
    out.fill_bytes(0x7F);

    // Only your sort gets a new input before each run; CUB is timed as before.
    workbook::TimingOptions options;
    options.before_each = [&](cudaStream_t stream) { in_versions.next(stream); };
    const workbook::TimingResult ours = workbook::time_gpu(
        [&](cudaStream_t stream) { sort_keys(in.data(), out.data(), n, scratch, stream); }, options);
    const std::string context = "sort_keys, n=" + size_text(n) +
                                " uniform uint32 keys, seed=" + std::to_string(workbook::test_seed()) +
                                " (the last timed run, input changed before each run)";
    const std::vector<std::uint32_t>& last = in_versions.last();
    expect_input_unchanged(last, in, context, "keys_in");
    if (HasFailure()) return;
    // CUB sorts what the input holds now: the version of the last timed run.
    yardstick::CubSortKeys<std::uint32_t> cub(in.data(), cub_out.data(), n);
    const workbook::TimingResult theirs = workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });

    // CUB's output is the expected answer once it is checked against its input.
    const std::vector<std::uint32_t> want = cub_out.to_host();
    ASSERT_TRUE(std::is_sorted(want.begin(), want.end()))
        << "test-setup error: cub::DeviceRadixSort::SortKeys did not sort";
    ASSERT_EQ(multiset_fingerprint(want), multiset_fingerprint(last))
        << "test-setup error: cub::DeviceRadixSort::SortKeys did not output its input's keys";
    ASSERT_TRUE(matches(compare_exact(want, out.to_host()), context + ", against CUB's sort of that input"));

    const double rate = gigakeys_per_second(n, ours.median_ms);
    const double cub_rate = gigakeys_per_second(n, theirs.median_ms);
    std::printf("[  TIMING  ] sort_keys, %s keys: %s, %.2f Gkeys/s\n", size_text(n).c_str(),
                ours.summary().c_str(), rate);
    std::printf("[  TIMING  ] cub::DeviceRadixSort::SortKeys: %s, %.2f Gkeys/s\n", theirs.summary().c_str(),
                cub_rate);
    workbook::testing::expect_speed(
        {rate, cub_rate, "Gkeys/s", "cub::DeviceRadixSort::SortKeys on the same keys"});
  }
};

TEST_F(RadixSortSpeed, KeysAt2To24ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 24);  // 64 MiB: a little above an H100's L2
}

TEST_F(RadixSortSpeed, KeysAt2To28ReachTargetFractionOfCub) {
  measure_keys(std::size_t{1} << 28);  // 1 GiB, 20 times an H100's L2
}

TEST_F(RadixSortSpeed, PairsAt2To24ReachTargetFractionOfCub) {
  const std::size_t n = std::size_t{1} << 24;
  std::vector<std::vector<std::uint32_t>> keys = key_versions(uniform_keys(n));
  std::vector<std::vector<std::uint32_t>> values = value_versions(n);
  DeviceBuffer<std::uint32_t> keys_in = workbook::to_device(keys[0]);
  DeviceBuffer<std::uint32_t> values_in = workbook::to_device(values[0]);
  AlternatingInput<std::uint32_t> key_inputs(keys_in, std::move(keys));
  AlternatingInput<std::uint32_t> value_inputs(values_in, std::move(values));
  DeviceBuffer<std::uint32_t> keys_out(n), values_out(n), cub_keys(n), cub_values(n);
  RadixSortScratch scratch(n, true);
  keys_out.fill_bytes(0x7F);
  values_out.fill_bytes(0x7F);

  // Keys and values change together (the same version) before each run of
  // your sort only; CUB is timed as before.
  workbook::TimingOptions options;
  options.before_each = [&](cudaStream_t stream) {
    key_inputs.next(stream);
    value_inputs.next(stream);
  };
  const workbook::TimingResult ours = workbook::time_gpu(
      [&](cudaStream_t stream) {
        sort_pairs(keys_in.data(), values_in.data(), keys_out.data(), values_out.data(), n, scratch, stream);
      },
      options);
  const std::string context = "sort_pairs, n=2^24 uniform uint32 keys, values = input index + k n, seed=" +
                              std::to_string(workbook::test_seed()) +
                              " (the last timed run, input changed before each run)";
  const std::vector<std::uint32_t>& last_keys = key_inputs.last();
  const std::vector<std::uint32_t>& last_values = value_inputs.last();
  expect_input_unchanged(last_keys, keys_in, context, "keys_in");
  expect_input_unchanged(last_values, values_in, context, "values_in");
  if (HasFailure()) return;
  // CUB sorts what the inputs hold now: the version of the last timed run.
  yardstick::CubSortPairs cub(keys_in.data(), values_in.data(), cub_keys.data(), cub_values.data(), n);
  const workbook::TimingResult theirs = workbook::time_gpu([&](cudaStream_t stream) { cub.run(stream); });

  // CUB's output is the expected answer once it is checked against its input.
  const std::vector<std::uint32_t> want_keys = cub_keys.to_host(), want_values = cub_values.to_host();
  const std::string problem = stable_sort_problem(last_keys, last_values[0], want_keys, want_values);
  ASSERT_TRUE(problem.empty())
      << "test-setup error: cub::DeviceRadixSort::SortPairs is not the stable sort of its input: " << problem;
  ASSERT_TRUE(matches(compare_exact(want_keys, keys_out.to_host()), context + " (keys, against CUB's)"));
  ASSERT_TRUE(
      matches(compare_exact(want_values, values_out.to_host()), context + " (values, against CUB's)"));

  const double rate = gigakeys_per_second(n, ours.median_ms);
  const double cub_rate = gigakeys_per_second(n, theirs.median_ms);
  std::printf("[  TIMING  ] sort_pairs, 2^24 pairs: %s, %.2f Gpairs/s\n", ours.summary().c_str(), rate);
  std::printf("[  TIMING  ] cub::DeviceRadixSort::SortPairs: %s, %.2f Gpairs/s\n", theirs.summary().c_str(),
              cub_rate);
  workbook::testing::expect_speed(
      {rate, cub_rate, "Gpairs/s", "cub::DeviceRadixSort::SortPairs on the same pairs"});
}

}  // namespace
}  // namespace radix_sort
