// A test program whose "student file" starts a thread in a static
// initializer, before main(): the speed harness must fail every item of it
// (workbook/speed.hpp), though the thread is older than any test. Its own
// program, since the rule fails every speed item of the process.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/speed.hpp"
#include "workbook/testing.hpp"

namespace workbook {
namespace {

// The cheat: a global object whose constructor starts a thread that outlives it.
struct StartsAThread {
  StartsAThread() {
    std::thread([] { std::this_thread::sleep_for(std::chrono::minutes(10)); }).detach();
  }
};
const StartsAThread starts_a_thread;

__global__ void copy_words(const std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

class ThreadBeforeMain : public testing::GpuTest {};

TEST_F(ThreadBeforeMain, FailsTheSpeedItemsOfTheProgram) {
  constexpr std::size_t n = 1 << 20;
  DeviceBuffer<std::uint32_t> in(n), out(n), want(n);
  in.fill_bytes(1);
  testing::SpeedTask task;
  task.what = "a copy";
  task.yardstick = "the same copy";
  task.unit = "GB/s";
  task.work = 8.0 * n;
  task.prepare = [](std::uint64_t, cudaStream_t) {};
  task.run = [&](cudaStream_t s) { copy_words<<<n / 256, 256, 0, s>>>(in.data(), out.data(), n); };
  task.run_yardstick = [&](cudaStream_t s) { copy_words<<<n / 256, 256, 0, s>>>(in.data(), want.data(), n); };
  task.check = [] { return std::string(); };
  task.inputs = {{"in", bytes_of(in)}};
  task.yardstick_writes = {bytes_of(want)};
  const testing::SpeedOutcome outcome = testing::measure_speed(task);
  EXPECT_NE(outcome.problem.find("already ran beside main() when the test program started"),
            std::string::npos)
      << outcome.problem;
  EXPECT_EQ(outcome.runs_checked, 0) << "nothing may be timed";
}

}  // namespace
}  // namespace workbook
