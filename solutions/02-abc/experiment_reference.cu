// Lab 02, the comparison kept beside the reference solution: the load-width
// table. The same grid-stride a * b + c with 32-, 64- and 128-bit loads and
// stores (float, float2, float4), the widths that Chalmers' Seminar 4 on CUDA
// reports for a GeForce GTX 280, on a slide about Billeter, Olsson and
// Assarsson's stream compaction (the handout's "Then and now" compares them).
// It lives here and not in labs/02-abc/experiment.cu because its float version
// is TODO(2), the grid-stride loop, under another name: the student's folder
// must not hold it.
//   ./workbook bench abc --solution   (the experiment, then this program)
// Its rows are recorded in table "load width", as before they moved.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include "abc.cuh"
#include "workbook/bench_rows.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/timing.hpp"

namespace {

constexpr char kLab[] = "02-abc";
// The experiment's size: 2^26 floats, a multiple of 4, so that the vectors cover it.
constexpr std::size_t kElements = std::size_t{1} << 26;
// Every rate counts 16 bytes per element: a, b and c read and d written, 4 bytes each.
constexpr double kBytesPerElement = 16.0;
constexpr int kBlocksPerSm = 8;
constexpr int kThreads = 256;

// a * b + c on one float, or on each float of a float2 or float4: the same
// arithmetic with 32-, 64- or 128-bit loads and stores.
__device__ float abc_of(float a, float b, float c) {
  return a * b + c;
}
__device__ float2 abc_of(float2 a, float2 b, float2 c) {
  return make_float2(a.x * b.x + c.x, a.y * b.y + c.y);
}
__device__ float4 abc_of(float4 a, float4 b, float4 c) {
  return make_float4(a.x * b.x + c.x, a.y * b.y + c.y, a.z * b.z + c.z, a.w * b.w + c.w);
}

// A grid-stride loop over `count` vectors of 1, 2 or 4 floats.
template <typename Vector>
__global__ void abc_vectors(const Vector* a, const Vector* b, const Vector* c, Vector* d, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    d[i] = abc_of(a[i], b[i], c[i]);
}

// Whether d = a * b + c, within a float's rounding (the GPU may fuse the multiply and the add).
bool holds_abc(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
               const std::vector<float>& d) {
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double want = static_cast<double>(a[i]) * b[i] + c[i];
    if (!(std::fabs(d[i] - want) <= 1e-6 * std::fabs(want) + 1e-30)) return false;
  }
  return true;
}

}  // namespace

int main() {
  try {
    if (!workbook::have_device_for_experiment()) return 2;
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    const std::size_t n = kElements;
    const double bytes = kBytesPerElement * static_cast<double>(n);
    workbook::DeviceBuffer<float> a(n), b(n), c(n), d(n);
    workbook::fill_random_floats(a.data(), n, 1, -1.0f, 1.0f);
    workbook::fill_random_floats(b.data(), n, 2, -1.0f, 1.0f);
    workbook::fill_random_floats(c.data(), n, 3, -1.0f, 1.0f);
    const std::vector<float> host_a = a.to_host(), host_b = b.to_host(), host_c = c.to_host();

    std::printf("\nBeside the table of variants, from solutions/02-abc/experiment_reference.cu:\n");
    workbook::print_rows_header(
        "Load width: a * b + c with one float, a float2 or a float4 per load and store, n = 2^26, 8 blocks "
        "of 256 per SM",
        "GB/s", "copy");
    int wrong = 0;
    const auto run_width = [&](const char* name, auto vector_tag) {
      using Vector = decltype(vector_tag);
      const std::size_t count = n * sizeof(float) / sizeof(Vector);
      const auto* as = reinterpret_cast<const Vector*>(a.data());
      const auto* bs = reinterpret_cast<const Vector*>(b.data());
      const auto* cs = reinterpret_cast<const Vector*>(c.data());
      auto* ds = reinterpret_cast<Vector*>(d.data());
      d.fill_bytes(0xFF);  // NaN: an element the kernel forgot never matches.
      const workbook::TimingResult timing = workbook::time_gpu([&](cudaStream_t) {
        abc_vectors<Vector><<<gpu.sm_count * kBlocksPerSm, kThreads>>>(as, bs, cs, ds, count);
        CUDA_CHECK_LAUNCH("abc_vectors");
      });
      const workbook::BenchRow row{
          "load width", name, n, timing, workbook::gigabytes_per_second(bytes, timing.median_ms), "GB/s"};
      if (!workbook::print_and_record(kLab, row, copy_gbps, holds_abc(host_a, host_b, host_c, d.to_host())))
        ++wrong;
    };
    run_width("32-bit loads (float)", float{});
    run_width("64-bit loads (float2)", float2{});
    run_width("128-bit loads (float4)", float4{});
    if (wrong > 0) {
      std::fprintf(stderr, "%d wrong result(s): see the rows marked WRONG RESULT\n", wrong);
      return 1;
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
