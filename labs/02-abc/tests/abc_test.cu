// Tests of lab 02. GPU tests derive from workbook::testing::GpuTest and are
// skipped, with the reason, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "abc.cuh"
#include "workbook/buffers.hpp"
#include "workbook/device.hpp"
#include "workbook/testing.hpp"
#include "workbook/timing.hpp"

namespace abc {
namespace {

using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::describe_case;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::size_name;

using Launcher = std::function<void(const float*, const float*, const float*, float*, std::size_t)>;

struct Inputs {
  std::vector<float> a, b, c;
};

Inputs make_inputs(std::size_t n, Pattern pattern) {
  const std::uint64_t seed = workbook::test_seed();
  return {workbook::generate_floats(n, pattern, seed), workbook::generate_floats(n, pattern, seed + 1),
          workbook::generate_floats(n, Pattern::uniform, seed + 2)};
}

std::vector<float> expected_d(const Inputs& in) {
  std::vector<float> d(in.a.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    d[i] = static_cast<float>(static_cast<double>(in.a[i]) * in.b[i] + in.c[i]);
  }
  return d;
}

// The GPU fuses a*b+c into one FMA (one rounding), the double reference rounds
// once at the end: they agree to about one float ulp of the largest term.
workbook::FloatTolerance abc_tolerance() {
  return {1e-6, 1e-6};
}

// Runs a launcher on n elements and checks d, including that nothing is
// written past the end (kGuard poisoned floats after d), and that a, b and c
// come back unchanged.
constexpr std::size_t kGuard = 64;

void check_launcher(const Launcher& launch, std::size_t n, Pattern pattern) {
  const Inputs in = make_inputs(n, pattern);
  const DeviceBuffer<float> a = workbook::to_device(in.a), b = workbook::to_device(in.b),
                            c = workbook::to_device(in.c);
  DeviceBuffer<float> d(n + kGuard);
  d.fill_bytes(0xFF);  // NaN: an element the kernel forgot never matches.
  launch(a.data(), b.data(), c.data(), d.data(), n);
  std::vector<float> got = d.to_host();
  const std::vector<float> guard(got.begin() + static_cast<std::ptrdiff_t>(n), got.end());
  got.resize(n);
  EXPECT_TRUE(
      matches(workbook::compare_floats(expected_d(in), got, abc_tolerance()), describe_case(n, pattern)));
  bool guard_intact = true;
  for (float value : guard) guard_intact = guard_intact && std::isnan(value);
  EXPECT_TRUE(guard_intact) << "for " << describe_case(n, pattern)
                            << ": the kernel wrote past element n-1; threads with i >= n must not write";
  const std::string context = describe_case(n, pattern);
  expect_input_unchanged(in.a, a, context, "a");
  expect_input_unchanged(in.b, b, context, "b");
  expect_input_unchanged(in.c, c, context, "c");
}

const std::vector<std::size_t> kSizes = {1, 31, 32, 33, kThreadsPerBlock - 1, kThreadsPerBlock,
                                         kThreadsPerBlock + 1, 1000, 100003,
                                         // More elements than one grid-stride pass covers on any GPU.
                                         std::size_t{5} << 20,
                                         // 2^26 elements: 1 GiB moved, well above L2.
                                         std::size_t{1} << 26};

class OneThreadPerElement : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(OneThreadPerElement, ComputesAbcForEveryElement) {
  check_launcher(launch_abc_one_per_element, GetParam(), Pattern::uniform);
}

INSTANTIATE_TEST_SUITE_P(Sizes, OneThreadPerElement, ::testing::ValuesIn(kSizes), size_name);

class GridStrideLoop : public GpuTest, public ::testing::WithParamInterface<std::size_t> {};

TEST_P(GridStrideLoop, ComputesAbcForEveryElement) {
  check_launcher(launch_abc_grid_stride, GetParam(), Pattern::uniform);
}

INSTANTIATE_TEST_SUITE_P(Sizes, GridStrideLoop, ::testing::ValuesIn(kSizes), size_name);

class GridStrideLoopPatterns : public GpuTest {};

TEST_F(GridStrideLoopPatterns, ComputesAbcForSortedEqualAndFewUniqueInputs) {
  for (Pattern pattern : workbook::all_patterns()) check_launcher(launch_abc_grid_stride, 4099, pattern);
}

class RoundTrip : public GpuTest {};

TEST_F(RoundTrip, AbcOnGpuReturnsDForHostVectorsOfAnySize) {
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1} << 20}) {
    const Inputs in = make_inputs(n, Pattern::uniform);
    EXPECT_TRUE(
        matches(workbook::compare_floats(expected_d(in), abc_on_gpu(in.a, in.b, in.c), abc_tolerance()),
                describe_case(n, Pattern::uniform) + " (abc_on_gpu)"));
  }
  EXPECT_TRUE(abc_on_gpu({}, {}, {}).empty()) << "abc_on_gpu of three empty vectors must return an empty one";
  EXPECT_THROW(abc_on_gpu(std::vector<float>(3), std::vector<float>(3), std::vector<float>(2)),
               std::invalid_argument)
      << "abc_on_gpu must reject vectors of different sizes";
}

// c plus `step` in every element: another version of the input, another answer.
std::vector<float> shifted(const std::vector<float>& values, float step) {
  std::vector<float> out(values);
  for (float& value : out) value += step;
  return out;
}

// Speed: bytes moved per second (3 reads + 1 write of 4 bytes per element)
// against the device-to-device copy bandwidth measured in the same process.
// c changes before every run (untimed), so the last run's d must be the answer
// for the last c: an answer kept from an earlier call fails the check.
void expect_copy_speed(const Launcher& launch) {
  const std::size_t n = std::size_t{1} << 26;
  Inputs in = make_inputs(n, Pattern::uniform);
  const DeviceBuffer<float> a = workbook::to_device(in.a), b = workbook::to_device(in.b);
  DeviceBuffer<float> c = workbook::to_device(in.c);
  DeviceBuffer<float> d(n);
  workbook::testing::AlternatingInput<float> c_versions(c, {in.c, shifted(in.c, 1.0f), shifted(in.c, 2.0f)});
  workbook::TimingOptions options;
  options.before_each = [&](cudaStream_t stream) { c_versions.next(stream); };
  const workbook::TimingResult timing =
      workbook::time_gpu([&](cudaStream_t) { launch(a.data(), b.data(), c.data(), d.data(), n); }, options);
  // Speed counts only for correct results: those of the last run's inputs.
  in.c = c_versions.last();
  ASSERT_TRUE(
      matches(workbook::compare_floats(expected_d(in), d.to_host(), abc_tolerance()),
              describe_case(n, Pattern::uniform) + " (the last timed run, c changed before each run)"));
  const double gbps = workbook::gigabytes_per_second(16.0 * static_cast<double>(n), timing.median_ms);
  std::printf("[  TIMING  ] %s\n", timing.summary().c_str());
  workbook::testing::expect_speed(
      {gbps, workbook::copy_bandwidth_gbps(), "GB/s", "device-to-device copy bandwidth"});
}

class AbcSpeed : public GpuTest {};

TEST_F(AbcSpeed, OneThreadPerElementReachesCopyBandwidth) {
  expect_copy_speed(launch_abc_one_per_element);
}

TEST_F(AbcSpeed, GridStrideLoopReachesCopyBandwidth) {
  expect_copy_speed(launch_abc_grid_stride);
}

}  // namespace
}  // namespace abc
