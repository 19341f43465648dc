// Lab 05 experiment: what do atomics cost, and which tricks still pay on your GPU?
//   ./workbook bench atomics
// Prints the copy bandwidth and the SM clock (the two bounds of the handout's
// "Speed of light"), then five tables: one counter shared by every thread
// (plain atomicAdd merged and not, ParallelCounter, block-aggregated count), the filter three
// ways, count by key on sorted keys with and without __match_any_sync, a double
// add by compare-and-swap against the native one, and the block-aggregated
// count against per-thread atomics (the speed test's pair) at 2^10 ... 2^28
// values. Times are medians of CUDA-event timings with a cold L2, with their
// spread (the interquartile range over the median); every result is checked,
// so a fast wrong kernel is flagged, and a wrong one makes the program exit with 1.
// Under ./workbook bench --all every timed row is also recorded for the charts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "atomics.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

// The sizes of the handout's table: 2^28 threads, and 2^20 for the CAS loop,
// which needs hundreds of milliseconds even at that size.
constexpr std::size_t kElements = std::size_t{1} << 28;
constexpr std::size_t kCasElements = std::size_t{1} << 20;
constexpr int kCasSlots = 32;

// The sweep of table 5: 2^10, 2^12, ..., 2^28 values.
constexpr int kSweepFromLog2 = 10;
constexpr int kSweepToLog2 = 28;
constexpr int kSweepStepLog2 = 2;

// Every failed check, so that main() can exit non-zero after printing every
// table: ./workbook bench --all then reports the lab as failed.
int wrong_results = 0;

__device__ std::size_t thread_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(atomics::ceil_div(n, atomics::kThreadsPerBlock));
}

// ---- the plain versions, written here as the baselines ----

// Every thread adds 1 to the same counter and ignores what atomicAdd returns.
__global__ void add_one_result_unused(unsigned* counter, std::size_t n) {
  if (thread_index() < n) atomicAdd(counter, 1u);
}

// The same, but the returned value is used (the compiler must give every
// thread its own old value, not just the total).
__global__ void add_one_result_used(unsigned* counter, std::size_t n, unsigned* witness) {
  const std::size_t i = thread_index();
  if (i >= n) return;
  const unsigned old = atomicAdd(counter, 1u);
  if (old == 0xFFFFFFFFu)
    *witness = static_cast<unsigned>(i);  // never true here, but the compiler cannot know
}

// The same add at an address nvcc cannot prove is one for the whole warp
// (offset_mask is 0 at run time), so it cannot merge the warp's adds into one:
// every lane sends its own, as (we think) nvcc compiled atomicAdd(counter, 1) before CUDA 9
// (the handout's Then and now).
__global__ void add_one_unmerged(unsigned* counter, std::size_t n, std::size_t offset_mask) {
  const std::size_t i = thread_index();
  if (i < n) atomicAdd(counter + (i & offset_mask), 1u);
}

__global__ void count_odd_per_thread(const int* values, std::size_t n, unsigned* count) {
  const std::size_t i = thread_index();
  if (i < n && atomics::is_odd(values[i])) atomicAdd(count, 1u);
}

__global__ void count_by_key_plain(const int* keys, std::size_t n, unsigned* counts) {
  const std::size_t i = thread_index();
  if (i < n) atomicAdd(&counts[keys[i]], 1u);
}

// ---- inputs, made on the device (2^28 elements are slow to make on the host) ----

// On the host too: the sweep computes its expected counts from it.
__host__ __device__ unsigned mix(std::size_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<unsigned>(z ^ (z >> 31));
}

// Pseudo-random ints in [0, 2^20); with all_odd, every one of them odd.
__host__ __device__ int value_at(std::size_t i, bool all_odd) {
  const int value = static_cast<int>(mix(i) & 0xFFFFFu);
  return all_odd ? (value | 1) : value;
}

__global__ void fill_values(int* values, std::size_t n, bool all_odd) {
  const std::size_t i = thread_index();
  if (i < n) values[i] = value_at(i, all_odd);
}

__global__ void fill_sorted_keys(int* keys, std::size_t n, int run) {
  const std::size_t i = thread_index();
  if (i < n) keys[i] = static_cast<int>(i / static_cast<std::size_t>(run));
}

__global__ void fill_doubles(double* values, std::size_t n, double value) {
  const std::size_t i = thread_index();
  if (i < n) values[i] = value;
}

// ---- timing and printing ----

workbook::TimingOptions quick_options() {
  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  return options;
}

double giga_elements_per_second(std::size_t n, const workbook::TimingResult& timing) {
  return static_cast<double>(n) / (timing.median_ms * 1.0e6);
}

// "ok" or "WRONG RESULT" for a check column; a wrong result is counted.
const char* check_text(bool ok) {
  if (!ok) ++wrong_results;
  return ok ? "ok" : "WRONG RESULT";
}

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const std::string& implementation, std::size_t n,
            const workbook::TimingResult& timing) {
  workbook::record("05-atomics",
                   {table, implementation, n, timing, giga_elements_per_second(n, timing), "G elem/s"});
}

using workbook::spread_text;

// The spread says how far repeated runs of the same kernel differ.
void print_columns() {
  std::printf("  %-60s %10s %7s %12s   %s\n", "variant", "ms", "spread", "G elem/s", "check");
}

void print_header(const char* title) {
  std::printf("%s\n", title);
  print_columns();
}

// Prints the row and records it in @p table.
void print_row(const char* table, const std::string& label, std::size_t n,
               const workbook::TimingResult& timing, bool ok) {
  record(table, label, n, timing);
  std::printf("  %-60s %10.3f %s %12.2f   %s\n", label.c_str(), timing.median_ms, spread_text(timing).c_str(),
              giga_elements_per_second(n, timing), check_text(ok));
}

// ---- the tables ----

void one_counter_table(std::size_t n) {
  print_header("1. One counter, every thread adds 1 (n threads)");
  DeviceBuffer<unsigned> counter(1);
  DeviceBuffer<unsigned> witness(1);
  const auto counter_value = [&]() { return counter.to_host()[0]; };
  const auto run_clean = [&](const std::function<void(cudaStream_t)>& work) {
    counter.fill_bytes(0);
    work(nullptr);
    return counter_value() == static_cast<unsigned>(n);
  };

  const auto unused = [&](cudaStream_t stream) {
    add_one_result_unused<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(counter.data(), n);
    CUDA_CHECK_LAUNCH("add_one_result_unused");
  };
  const workbook::TimingResult unused_time = workbook::time_gpu(unused, quick_options());
  print_row("one counter", "atomicAdd(counter, 1), result unused", n, unused_time, run_clean(unused));

  const auto used = [&](cudaStream_t stream) {
    add_one_result_used<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(counter.data(), n,
                                                                                 witness.data());
    CUDA_CHECK_LAUNCH("add_one_result_used");
  };
  const workbook::TimingResult used_time = workbook::time_gpu(used, quick_options());
  print_row("one counter", "atomicAdd(counter, 1), result used", n, used_time, run_clean(used));

  const auto unmerged = [&](cudaStream_t stream) {
    add_one_unmerged<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(counter.data(), n, 0);
    CUDA_CHECK_LAUNCH("add_one_unmerged");
  };
  const workbook::TimingResult unmerged_time = workbook::time_gpu(unmerged, quick_options());
  print_row("one counter", "atomicAdd(counter + (i & mask), 1), mask 0: not merged", n, unmerged_time,
            run_clean(unmerged));

  {
    atomics::PackedCounter zero{};
    DeviceBuffer<atomics::PackedCounter> packed =
        workbook::to_device(std::vector<atomics::PackedCounter>{zero});
    const workbook::TimingResult time = workbook::time_gpu(
        [&](cudaStream_t stream) { atomics::launch_add_to_counter(packed.data(), n, 1u, stream); },
        quick_options());
    packed.copy_from({zero});
    atomics::launch_add_to_counter(packed.data(), n, 1u);
    print_row("one counter", "ParallelCounter<32>, packed: 32 slots in one 128-byte line", n, time,
              packed.to_host()[0].total() == static_cast<unsigned>(n));
  }
  {
    atomics::PaddedCounter zero{};
    DeviceBuffer<atomics::PaddedCounter> padded =
        workbook::to_device(std::vector<atomics::PaddedCounter>{zero});
    const workbook::TimingResult time = workbook::time_gpu(
        [&](cudaStream_t stream) { atomics::launch_add_to_counter(padded.data(), n, 1u, stream); },
        quick_options());
    padded.copy_from({zero});
    atomics::launch_add_to_counter(padded.data(), n, 1u);
    print_row("one counter", "ParallelCounter<32>, padded: one 128-byte line per slot", n, time,
              padded.to_host()[0].total() == static_cast<unsigned>(n));
  }
  {
    // An input where every value is odd: every thread counts, as above, but
    // it must also read its 4 bytes, like any real count.
    DeviceBuffer<int> values(n);
    fill_values<<<blocks_for(n), atomics::kThreadsPerBlock>>>(values.data(), n, true);
    CUDA_CHECK_LAUNCH("fill_values");
    const auto per_thread = [&](cudaStream_t stream) {
      count_odd_per_thread<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(values.data(), n,
                                                                                    counter.data());
      CUDA_CHECK_LAUNCH("count_odd_per_thread");
    };
    const workbook::TimingResult per_thread_time = workbook::time_gpu(per_thread, quick_options());
    print_row("one counter", "count odd values (all odd): per-thread atomicAdd", n, per_thread_time,
              run_clean(per_thread));
    const auto block = [&](cudaStream_t stream) {
      atomics::launch_count_odd_block_aggregated(values.data(), n, counter.data(), stream);
    };
    const workbook::TimingResult block_time = workbook::time_gpu(block, quick_options());
    print_row("one counter", "count odd values (all odd): shared-memory count per block", n, block_time,
              run_clean(block));
    std::printf("  the block-aggregated count is %.1fx as fast as the per-thread one\n\n",
                per_thread_time.median_ms / block_time.median_ms);
  }
}

void filter_table(std::size_t n) {
  print_header("2. Filter: keep the odd values of n pseudo-random ints (about half of them)");
  DeviceBuffer<int> values(n);
  fill_values<<<blocks_for(n), atomics::kThreadsPerBlock>>>(values.data(), n, false);
  CUDA_CHECK_LAUNCH("fill_values");
  const std::vector<int> input = values.to_host();
  std::size_t expected_count = 0;
  std::int64_t expected_sum = 0;
  for (const int v : input) {
    if (atomics::is_odd(v)) {
      ++expected_count;
      expected_sum += v;
    }
  }
  DeviceBuffer<int> out(n);
  DeviceBuffer<unsigned> out_count(1);

  using Launcher = void (*)(const int*, std::size_t, int*, unsigned*, cudaStream_t);
  struct Variant {
    const char* label;
    Launcher launch;
  };
  const Variant variants[] = {
      {"per-thread atomicAdd for the output index", atomics::launch_filter_odd_per_thread},
      {"warp-aggregated by hand (__ballot_sync, __popc, __shfl_sync)",
       atomics::launch_filter_odd_warp_aggregated},
      {"block-aggregated (shared-memory atomics)", atomics::launch_filter_odd_block_aggregated},
  };
  for (const Variant& variant : variants) {
    const workbook::TimingResult time = workbook::time_gpu(
        [&](cudaStream_t stream) {
          CUDA_CHECK(cudaMemsetAsync(out_count.data(), 0, sizeof(unsigned), stream));
          variant.launch(values.data(), n, out.data(), out_count.data(), stream);
        },
        quick_options());
    // The output of the last timed run: the right count, and the kept values add up.
    const unsigned count = out_count.to_host()[0];
    bool ok = count == expected_count;
    if (ok) {
      const std::vector<int> kept = out.to_host();
      std::int64_t sum = 0;
      for (std::size_t i = 0; i < count; ++i) {
        sum += kept[i];
        ok = ok && atomics::is_odd(kept[i]);
      }
      ok = ok && sum == expected_sum;
    }
    print_row("filter", variant.label, n, time, ok);
  }
  std::printf("\n");
}

void count_by_key_table(std::size_t n) {
  print_header("3. Count by key, n sorted keys in runs of equal keys");
  DeviceBuffer<int> keys(n);
  DeviceBuffer<unsigned> counts(n);  // room for n keys: runs of 1
  for (const int run : {1, 8, 32, 256}) {
    fill_sorted_keys<<<blocks_for(n), atomics::kThreadsPerBlock>>>(keys.data(), n, run);
    CUDA_CHECK_LAUNCH("fill_sorted_keys");
    const std::size_t key_count = atomics::ceil_div(n, static_cast<std::size_t>(run));
    const auto check = [&]() {
      const std::vector<unsigned> got = counts.to_host();
      for (std::size_t k = 0; k < key_count; ++k) {
        const std::size_t want = std::min(static_cast<std::size_t>(run), n - k * run);
        if (got[k] != want) return false;
      }
      return true;
    };
    const auto plain = [&](cudaStream_t stream) {
      count_by_key_plain<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(keys.data(), n,
                                                                                  counts.data());
      CUDA_CHECK_LAUNCH("count_by_key_plain");
    };
    const auto match_any = [&](cudaStream_t stream) {
      atomics::launch_count_by_key_match_any(keys.data(), n, counts.data(), stream);
    };
    const workbook::TimingResult plain_time = workbook::time_gpu(plain, quick_options());
    counts.fill_bytes(0);
    plain(nullptr);
    print_row("count by key", "runs of " + std::to_string(run) + ": plain atomicAdd per key", n, plain_time,
              check());
    const workbook::TimingResult match_time = workbook::time_gpu(match_any, quick_options());
    counts.fill_bytes(0);
    match_any(nullptr);
    print_row("count by key",
              "runs of " + std::to_string(run) + ": __match_any_sync, one atomic per run per warp", n,
              match_time, check());
  }
  std::printf("\n");
}

void double_add_table() {
  const std::size_t n = kCasElements;
  std::printf("4. Double add, %zu threads on %d slots (%zu threads per slot)\n", n, kCasSlots, n / kCasSlots);
  print_columns();
  DeviceBuffer<double> values(n);
  fill_doubles<<<blocks_for(n), atomics::kThreadsPerBlock>>>(values.data(), n, 1.0);
  CUDA_CHECK_LAUNCH("fill_doubles");
  DeviceBuffer<double> slots(kCasSlots);
  slots.fill_bytes(0);
  const auto check = [&]() {
    for (const double slot : slots.to_host()) {
      if (slot != static_cast<double>(n / kCasSlots)) return false;
    }
    return true;
  };
  const workbook::TimingResult native = workbook::time_gpu(
      [&](cudaStream_t stream) {
        atomics::launch_add_into_slots_native(values.data(), n, slots.data(), kCasSlots, stream);
      },
      quick_options());
  slots.fill_bytes(0);
  atomics::launch_add_into_slots_native(values.data(), n, slots.data(), kCasSlots);
  print_row("double add", "native atomicAdd(double*, double)", n, native, check());

  // Each sample may take most of a second: few of them.
  workbook::TimingOptions slow;
  slow.warmup_runs = 1;
  slow.min_samples = 3;
  slow.max_samples = 5;
  slow.time_budget_ms = 1000.0;
  const workbook::TimingResult cas = workbook::time_gpu(
      [&](cudaStream_t stream) {
        atomics::launch_add_into_slots_cas(values.data(), n, slots.data(), kCasSlots, stream);
      },
      slow);
  slots.fill_bytes(0);
  atomics::launch_add_into_slots_cas(values.data(), n, slots.data(), kCasSlots);
  print_row("double add", "atomicCAS loop", n, cas, check());
  std::printf("  the CAS loop is %.0fx as slow as the native atomic\n\n", cas.median_ms / native.median_ms);
}

// Table 5: the pair of the speed test AtomicsSpeed.BlockAggregatedCountBeatsPerThreadAtomics
// (pseudo-random values, about half of them odd) from a few blocks to far
// beyond L2: at which n does one atomic per block instead of one per odd value pay?
void count_sweep(std::size_t max_bytes) {
  const char* table = "count odd by size";
  std::printf(
      "5. Count the odd values of n pseudo-random ints (about half of them) by n: shared-memory count per\n"
      "   block (count_odd_block_aggregated) against per-thread atomicAdd, the speed test's pair\n");
  std::printf("  %12s %12s %7s %10s %14s %7s %10s %9s   %s\n", "n", "block ms", "spread", "G elem/s",
              "per-thread ms", "spread", "G elem/s", "speed-up", "check");
  DeviceBuffer<unsigned> count(1);
  // Both kernels add to the count: it is zeroed before every run (untimed), so
  // that it ends as the count of the last run. A shorter time budget than the
  // tables': ten sizes, two kernels each.
  workbook::TimingOptions options;
  options.time_budget_ms = 300.0;
  options.before_each = [&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(count.data(), 0, sizeof(unsigned), stream));
  };
  for (const std::size_t n :
       workbook::sweep_sizes(kSweepFromLog2, kSweepToLog2, kSweepStepLog2, sizeof(int), max_bytes)) {
    DeviceBuffer<int> values(n);
    fill_values<<<blocks_for(n), atomics::kThreadsPerBlock>>>(values.data(), n, false);
    CUDA_CHECK_LAUNCH("fill_values");
    unsigned expected = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (atomics::is_odd(value_at(i, false))) ++expected;
    }

    const workbook::TimingResult block = workbook::time_gpu(
        [&](cudaStream_t stream) {
          atomics::launch_count_odd_block_aggregated(values.data(), n, count.data(), stream);
        },
        options);
    const bool block_ok = count.to_host()[0] == expected;
    const workbook::TimingResult per_thread = workbook::time_gpu(
        [&](cudaStream_t stream) {
          count_odd_per_thread<<<blocks_for(n), atomics::kThreadsPerBlock, 0, stream>>>(values.data(), n,
                                                                                        count.data());
          CUDA_CHECK_LAUNCH("count_odd_per_thread");
        },
        options);
    const bool per_thread_ok = count.to_host()[0] == expected;

    record(table, "shared-memory count per block: count_odd_block_aggregated", n, block);
    record(table, "per-thread atomicAdd (the yardstick)", n, per_thread);
    std::printf("  %12zu %12.4f %s %10.2f %14.4f %s %10.2f %8.1fx   %s\n", n, block.median_ms,
                spread_text(block).c_str(), giga_elements_per_second(n, block), per_thread.median_ms,
                spread_text(per_thread).c_str(), giga_elements_per_second(n, per_thread),
                per_thread.median_ms / block.median_ms, check_text(block_ok && per_thread_ok));
  }
  std::printf("\n");
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s\n", workbook::describe(gpu).c_str());
    // The bandwidth this lab's speed of light is computed from (the handout's "Speed of light").
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s\n",
                workbook::copy_bandwidth_gbps());
    // The clock of the other bound: at best one update to one address per clock.
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, gpu.id));
    std::printf("SM clock: at most %.0f MHz (cudaDevAttrClockRate), one clock is %.3f ns\n", clock_khz / 1e3,
                1e6 / clock_khz);

    // The filter and the count by key need 8 bytes per element at once; on a
    // GPU with little memory n is halved until that fits.
    std::size_t n = kElements;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 9 * n > free_bytes / 4 * 3) n /= 2;
    std::printf("n = %zu (2^%d) elements; median of CUDA-event timings, cold L2\n\n", n,
                static_cast<int>(std::log2(static_cast<double>(n))));

    one_counter_table(n);
    filter_table(n);
    count_by_key_table(n);
    double_add_table();
    // The sweep's buffers: at most half of the memory free now.
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    count_sweep(free_bytes / 2);

    std::printf(
        "To see what the compiler made of each atomic, list the atomic, vote and popcount\n"
        "instructions of this program's kernels (the SASS exercise of the handout):\n"
        "  cuobjdump -sass build/default/lab05_experiment | grep -E "
        "\"Function|ATOM|RED|VOTE|POPC|SHFL|MATCH\"\n");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  if (wrong_results > 0) {
    std::fprintf(stderr, "%d check(s) found a WRONG RESULT\n", wrong_results);
    return 1;
  }
  return 0;
}
