// Lab 02 experiment: how fast is a*b+c, and which launch configurations reach
// the yardstick, the copy bandwidth? Run: ./workbook bench abc
// It times the grid-stride kernel with a single block first (the handout
// predicts the next rows from it), then with 1 to 16 blocks per SM, then your
// two launchers and a kernel written here in which each thread owns a
// contiguous chunk, for the handout's questions. Then a sweep over
// n = 2^10 ... 2^28 shows where the launch overhead ends and the bandwidth
// begins, with a device-to-device copy of the same bytes as the yardstick; its
// results are checked against the host, and a wrong one makes the program exit 1.
// Every timed row is also recorded for ./workbook bench --all's charts.
// The handout's load-width table (float, float2 and float4 loads) is not here:
// its float version would be your TODO(2) under another name. `./workbook bench
// abc --solution` prints it in the full repository, and the handout quotes it.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "abc.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

// Each thread owns a contiguous chunk of ceil(n / threads) elements and walks
// through it: in each step neighbouring threads touch addresses a chunk apart.
__global__ void abc_chunk_per_thread(const float* a, const float* b, const float* c, float* d,
                                     std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t chunk = (n + threads - 1) / threads;
  const std::size_t begin = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  for (std::size_t i = begin; i < begin + chunk && i < n; ++i) d[i] = a[i] * b[i] + c[i];
}

// Every rate counts 16 bytes per element: a, b and c read and d written, 4 bytes each.
constexpr double kBytesPerElement = 16.0;

// Rows whose check failed: main exits 1 when there is any.
int wrong_results = 0;

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const std::string& implementation, std::size_t n,
            const workbook::TimingResult& timing) {
  const double gbps =
      workbook::gigabytes_per_second(kBytesPerElement * static_cast<double>(n), timing.median_ms);
  workbook::record("02-abc", {table, implementation, n, timing, gbps, "GB/s"});
}

using workbook::spread_text;

void print_row(const char* name, const workbook::TimingResult& timing, double gbps, double copy_gbps) {
  std::printf("| %-46s | %8.3f | %7.0f | %5.1f%% | %s |\n", name, timing.median_ms, gbps,
              100.0 * gbps / copy_gbps, spread_text(timing).c_str());
}

std::string power_text(std::size_t n) {
  int log = 0;
  while ((std::size_t{1} << log) < n) ++log;
  return "2^" + std::to_string(log);
}

// data[i] = i mod modulus: small whole numbers, so a * b + c is exact in float
// (with or without a fused multiply-add) and the host can check every element.
__global__ void fill_pattern(float* data, std::size_t n, unsigned modulus) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i % modulus);
}

void fill(workbook::DeviceBuffer<float>& buffer, unsigned modulus) {
  const unsigned blocks = static_cast<unsigned>((buffer.size() + 255) / 256);
  fill_pattern<<<blocks, 256>>>(buffer.data(), buffer.size(), modulus);
  CUDA_CHECK_LAUNCH("fill_pattern");
}

// The moduli of a, b and c in the sweep, and of the copy's source (2^24: every
// value below it is a float exactly, so a copied value tells where it came from).
constexpr unsigned kModulusA = 7;
constexpr unsigned kModulusB = 11;
constexpr unsigned kModulusC = 13;
constexpr unsigned kModulusCopy = 1u << 24;

// The host checks count i mod m up with a wrap instead of dividing: at 2^28
// elements a division per element would take seconds.
bool holds_pattern(const std::vector<float>& got, unsigned modulus) {
  unsigned want = 0;
  for (const float value : got) {
    if (value != static_cast<float>(want)) return false;
    if (++want == modulus) want = 0;
  }
  return true;
}

bool holds_abc(const std::vector<float>& d) {
  unsigned a = 0, b = 0, c = 0;  // i mod kModulusA, kModulusB and kModulusC
  for (const float value : d) {
    if (value != static_cast<float>(a) * static_cast<float>(b) + static_cast<float>(c)) return false;
    if (++a == kModulusA) a = 0;
    if (++b == kModulusB) b = 0;
    if (++c == kModulusC) c = 0;
  }
  return true;
}

void print_sweep_row(const std::string& name, std::size_t n, const workbook::TimingResult& timing,
                     double copy_ms, bool ok) {
  const double gbps =
      workbook::gigabytes_per_second(kBytesPerElement * static_cast<double>(n), timing.median_ms);
  std::printf("| %-31s | %5s | %9.4f | %7.0f | %8.1f%% | %s | %-12s |\n", name.c_str(), power_text(n).c_str(),
              timing.median_ms, gbps, 100.0 * copy_ms / timing.median_ms, spread_text(timing).c_str(),
              ok ? "ok" : "WRONG RESULT");
  if (!ok) ++wrong_results;
  record("sweep", name, n, timing);
}

// The sweep: your two launchers and a copy of the same bytes, n = 2^10, 2^12,
// ..., 2^28, as many as fit in half the free memory.
void sweep() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::vector<std::size_t> sizes =
      workbook::sweep_sizes(10, 28, 2, static_cast<std::size_t>(kBytesPerElement), free_bytes / 2);
  // Small sizes take microseconds and their spread seldom falls under 3 %: a
  // shorter time budget than the default keeps the sweep to seconds.
  workbook::TimingOptions options;
  options.time_budget_ms = 500.0;

  std::printf("\nSweep over n: 16 bytes per element for a * b + c (3 reads + 1 write of a float).\n");
  std::printf("The yardstick copies 8 bytes per element device to device (cudaMemcpyAsync):\n");
  std::printf(
      "the same 16 bytes read + written. %% of copy: the copy's time at the same n over the row's.\n");
  std::printf("Every result is checked on the host.\n");
  std::printf("| %-31s | %5s | %9s | %7s | %9s | %7s | %-12s |\n", "variant", "n", "ms", "GB/s", "% of copy",
              "spread", "check");
  std::printf("|%s|%s|%s|%s|%s|%s|%s|\n", std::string(33, '-').c_str(), std::string(7, '-').c_str(),
              std::string(11, '-').c_str(), std::string(9, '-').c_str(), std::string(11, '-').c_str(),
              std::string(9, '-').c_str(), std::string(14, '-').c_str());
  for (const std::size_t n : sizes) {
    // The yardstick first, in its own buffers, freed before a, b, c and d are made.
    workbook::TimingResult copy;
    bool copy_ok = false;
    {
      workbook::DeviceBuffer<float> source(2 * n), target(2 * n);
      fill(source, kModulusCopy);
      target.fill_bytes(0xFF);
      copy = workbook::time_gpu(
          [&](cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), source.bytes(), cudaMemcpyDeviceToDevice,
                                       stream));
          },
          options);
      copy_ok = holds_pattern(target.to_host(), kModulusCopy);
    }

    workbook::DeviceBuffer<float> a(n), b(n), c(n), d(n);
    fill(a, kModulusA);
    fill(b, kModulusB);
    fill(c, kModulusC);
    struct Variant {
      const char* name;
      void (*launch)(const float*, const float*, const float*, float*, std::size_t);
    };
    const Variant variants[] = {
        {"your one thread per element", abc::launch_abc_one_per_element},
        {"your grid-stride loop", abc::launch_abc_grid_stride},
    };
    for (const Variant& variant : variants) {
      d.fill_bytes(0xFF);  // NaN: an element the kernel forgot never matches.
      const workbook::TimingResult timing = workbook::time_gpu(
          [&](cudaStream_t) { variant.launch(a.data(), b.data(), c.data(), d.data(), n); }, options);
      print_sweep_row(variant.name, n, timing, copy.median_ms, holds_abc(d.to_host()));
    }
    print_sweep_row("cudaMemcpyAsync (the yardstick)", n, copy, copy.median_ms, copy_ok);
  }
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    const std::size_t n = std::size_t{1} << 26;
    const double bytes = kBytesPerElement * static_cast<double>(n);
    workbook::DeviceBuffer<float> a(n), b(n), c(n), d(n);
    a.fill_bytes(0);
    b.fill_bytes(0);
    c.fill_bytes(0);
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    std::printf("GPU: %s (%d SMs, %.0f MB L2); n = 2^26 floats, 16 bytes per element, cold L2\n",
                gpu.name.c_str(), gpu.sm_count, gpu.l2_bytes / 1e6);
    std::printf("Device-to-device copy bandwidth: %.0f GB/s\n", copy_gbps);
    std::printf("spread: interquartile range of the timed runs over their median\n\n");
    std::printf("| %-46s | %8s | %7s | %6s | %7s |\n", "variant", "ms", "GB/s", "% copy", "spread");
    std::printf("|%s|%s|%s|%s|%s|\n", std::string(48, '-').c_str(), std::string(10, '-').c_str(),
                std::string(9, '-').c_str(), std::string(8, '-').c_str(), std::string(9, '-').c_str());

    auto run = [&](const char* name, const std::function<void()>& launch) {
      const workbook::TimingResult t = workbook::time_gpu([&](cudaStream_t) { launch(); });
      print_row(name, t, workbook::gigabytes_per_second(bytes, t.median_ms), copy_gbps);
      record("variants", name, n, t);
    };
    // The single block first: the handout's Speed of light reads the latency off it
    // and predicts the rows after it.
    run("grid-stride, a single block of 256", [&] {
      abc::abc_grid_stride<<<1, 256>>>(a.data(), b.data(), c.data(), d.data(), n);
      CUDA_CHECK_LAUNCH("abc_grid_stride");
    });
    for (int blocks_per_sm : {1, 2, 4, 8, 16}) {
      const std::string name = "grid-stride, " + std::to_string(blocks_per_sm) + " block(s) of 256 per SM";
      run(name.c_str(), [&] {
        abc::abc_grid_stride<<<gpu.sm_count * blocks_per_sm, 256>>>(a.data(), b.data(), c.data(), d.data(),
                                                                    n);
        CUDA_CHECK_LAUNCH("abc_grid_stride");
      });
    }
    run("your one thread per element",
        [&] { abc::launch_abc_one_per_element(a.data(), b.data(), c.data(), d.data(), n); });
    run("your grid-stride loop",
        [&] { abc::launch_abc_grid_stride(a.data(), b.data(), c.data(), d.data(), n); });
    run("contiguous chunk per thread (uncoalesced)", [&] {
      abc_chunk_per_thread<<<gpu.sm_count * 8, 256>>>(a.data(), b.data(), c.data(), d.data(), n);
      CUDA_CHECK_LAUNCH("abc_chunk_per_thread");
    });

    sweep();
    if (wrong_results > 0) {
      std::fprintf(stderr, "%d wrong result(s): see the rows marked WRONG RESULT\n", wrong_results);
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
