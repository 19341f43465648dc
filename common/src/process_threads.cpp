// Counting the test program's threads, for the speed harness's rule that a
// student file starts none (workbook/speed.hpp): a thread of its own could
// keep the GPU busy while the yardstick is timed and pause while the
// student's call is.
#include <cuda_runtime.h>
#include <dirent.h>

#include "testing_internal.hpp"

namespace workbook::testing::internal {
namespace {

int& threads_at_main() {
  static int count = -1;
  return count;
}

int& thread_baseline() {
  static int count = -1;
  return count;
}

}  // namespace

int process_threads() {
  // Linux lists a process's threads as the folders of /proc/self/task.
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return -1;
  int count = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(tasks);
  return count;
}

void record_threads_at_main() {
  threads_at_main() = process_threads();
}

void record_thread_baseline() {
  // The CUDA runtime starts threads of its own when it starts (two with
  // CUDA 13.0 on an H200): started here, before any test, they are in the
  // baseline, and anything above it later is the code under test's.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) cudaFree(nullptr);
  cudaGetLastError();  // no GPU: the GPU tests say so themselves
  thread_baseline() = process_threads();
}

std::string thread_problem(const std::string& when) {
  const int now = process_threads();
  if (now < 0 || thread_baseline() < 0) return "";  // not Linux, or /proc hidden: nothing to count
  if (threads_at_main() > 1) {
    return std::to_string(threads_at_main() - 1) +
           " thread(s) already ran beside main() when the test program started: a global object's "
           "constructor (a static initializer) in your file started it. A student file may not start "
           "threads; remove it";
  }
  if (now <= thread_baseline()) return "";
  return "your code left a thread running: the test program has " + std::to_string(now) + " threads " + when +
         ", " + std::to_string(thread_baseline()) +
         " when the tests began (the main thread and the CUDA runtime's own). A thread of your own could "
         "keep the GPU busy while the yardstick is timed, so a student file may not start threads or host "
         "callbacks; your functions run on the caller's thread and only launch GPU work";
}

}  // namespace workbook::testing::internal
