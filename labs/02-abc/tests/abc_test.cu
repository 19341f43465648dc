// Tests of lab 02. GPU tests derive from workbook::testing::GpuTest and are
// skipped, with the reason, on a machine without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "abc.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace abc {
namespace {

using workbook::DeviceBuffer;
using workbook::Pattern;
using workbook::testing::describe_case;
using workbook::testing::expect_input_unchanged;
using workbook::testing::GpuTest;
using workbook::testing::matches;
using workbook::testing::size_name;
using workbook::testing::SpeedTask;

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

// Speed: bytes moved per second (3 reads + 1 write of 4 bytes per element)
// against a device-to-device copy of 8 bytes per element, which reads and
// writes the same 16 bytes, timed alternately with the launcher. Every run
// reads new a, b and c drawn on the GPU, and its d is checked against a
// reference computed on the GPU, untimed.
__global__ void abc_reference(const float* a, const float* b, const float* c, float* d, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Rounded once, like expected_d(): a*b is exact in double.
  if (i < n) d[i] = static_cast<float>(static_cast<double>(a[i]) * b[i] + c[i]);
}

void expect_copy_speed(const Launcher& launch, const std::string& name) {
  const std::size_t n = std::size_t{1} << 26;  // 1 GiB moved, well above L2
  DeviceBuffer<float> a(n), b(n), c(n), d(n), want(n);
  DeviceBuffer<float> copy_from(2 * n), copy_to(2 * n);
  copy_from.fill_bytes(0);

  SpeedTask task;
  task.what = name + " on 2^26 floats";
  task.yardstick = "cudaMemcpyAsync device to device of 2^27 floats (the same bytes read and written)";
  task.unit = "GB/s";
  task.work = 16.0 * static_cast<double>(n);
  task.min_bytes = 16.0 * static_cast<double>(n);  // a, b and c read once, d written once: 4 x 4 bytes
  task.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    workbook::fill_random_floats(a.data(), n, seed, -1.0f, 1.0f, stream);
    workbook::fill_random_floats(b.data(), n, seed ^ 0x9E3779B97F4A7C15ull, -1.0f, 1.0f, stream);
    workbook::fill_random_floats(c.data(), n, ~seed, -1.0f, 1.0f, stream);
    CUDA_CHECK(cudaMemsetAsync(d.data(), 0xFF, d.bytes(), stream));  // NaN: a skipped element never matches
  };
  task.run_yardstick = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(copy_to.data(), copy_from.data(), copy_from.bytes(), cudaMemcpyDeviceToDevice,
                               stream));
  };
  task.run = [&](cudaStream_t) { launch(a.data(), b.data(), c.data(), d.data(), n); };
  task.check = [&] {
    abc_reference<<<static_cast<unsigned>((n + 255) / 256), 256>>>(a.data(), b.data(), c.data(), want.data(),
                                                                   n);
    CUDA_CHECK_LAUNCH("abc_reference");
    return workbook::device_float_differences(want.data(), d.data(), n, abc_tolerance());
  };
  task.inputs = {{"a", workbook::bytes_of(a)}, {"b", workbook::bytes_of(b)}, {"c", workbook::bytes_of(c)}};
  task.yardstick_writes = {workbook::bytes_of(copy_to)};
  workbook::testing::check_speed(task);
}

class AbcSpeed : public GpuTest {};

TEST_F(AbcSpeed, OneThreadPerElementReachesCopyBandwidth) {
  expect_copy_speed(launch_abc_one_per_element, "launch_abc_one_per_element");
}

TEST_F(AbcSpeed, GridStrideLoopReachesCopyBandwidth) {
  expect_copy_speed(launch_abc_grid_stride, "launch_abc_grid_stride");
}

}  // namespace
}  // namespace abc
