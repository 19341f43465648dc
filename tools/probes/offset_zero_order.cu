// Lab 03's open gap (measurements.md, "Offset 0 against stride 1"): offset 0
// and stride 1 are the same access, out[i] = in[i], yet table 2's offset 0
// took 0.213 ms and table 1's stride 1 0.202 ms. Each table has its own
// buffers (table 1 reads from 32 n floats, table 2 from n + 32) and offset 0
// is the first row table 2 times.
//
// This probe times both kernels on both inputs, in an order that separates
// the suspects: the kernel, the buffer, being timed first, and (part B) the
// experiment's sequence, table 2's buffers allocated after table 1's 8.6 GB
// were freed. n = 2^26 floats, as the experiment; workbook::time_gpu (cold L2,
// the experiment's timer); the output filled with 0xFF before each row, as the
// experiment does.
//
// Links the reference solution's library; from the repository root:
//   WORKBOOK_BUILD_TARGET="lab03_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/03-coalescing -Icommon/include \
//     -c tools/probes/offset_zero_order.cu -o build/probes/offset_zero_order.o
//   nvcc -arch=sm_90 -o build/probes/offset_zero_order build/probes/offset_zero_order.o \
//     build/default/liblab03_solution.a build/default/common/libworkbook_common.a
//   build/probes/offset_zero_order
#include <cstdio>
#include <functional>

#include "coalescing.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/timing.hpp"

namespace {

__global__ void fill_with_indices(float* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i & 0xFFFFFF);
}

void fill(workbook::DeviceBuffer<float>& buffer) {
  fill_with_indices<<<static_cast<unsigned>((buffer.size() + 255) / 256), 256>>>(buffer.data(),
                                                                                 buffer.size());
  CUDA_CHECK_LAUNCH("fill_with_indices");
}

}  // namespace

int main() {
  const std::size_t n = std::size_t{1} << 26;
  std::printf(
      "lab 03 probe: out[i] = in[i], n = 2^26 floats; workbook::time_gpu, cold L2; in launch order\n");
  const auto row = [&](const char* what, workbook::DeviceBuffer<float>& out,
                       const workbook::DeviceBuffer<float>& in, bool offset_kernel, int shift) {
    out.fill_bytes(0xFF);
    const workbook::TimingResult t = workbook::time_gpu([&](cudaStream_t s) {
      if (offset_kernel) {
        coalescing::launch_offset_copy(out.data(), in.data(), n, shift, s);
      } else {
        coalescing::launch_strided_copy(out.data(), in.data(), n, shift, s);
      }
    });
    std::printf("  %-60s %8.4f ms  %s\n", what, t.median_ms, t.summary().c_str());
  };
  // P: allocated before anything else and kept to the end, timed first and last: if P is
  // slower at the end, time (the GPU's state), not where a buffer landed, sets the rows.
  workbook::DeviceBuffer<float> p_in(n + 32);
  workbook::DeviceBuffer<float> p_out(n);
  fill(p_in);
  CUDA_CHECK(cudaDeviceSynchronize());
  row("P (allocated first, kept): strided_copy, stride 1", p_out, p_in, false, 1);
  {
    std::printf(" A. both inputs allocated together, never freed\n");
    workbook::DeviceBuffer<float> wide(32 * n);    // table 1's input: 32 n floats
    workbook::DeviceBuffer<float> narrow(n + 32);  // table 2's input: n + 32 floats
    workbook::DeviceBuffer<float> out(n);
    fill(wide);
    fill(narrow);
    CUDA_CHECK(cudaDeviceSynchronize());
    row("offset_copy, offset 0, table 2's input (timed first)", out, narrow, true, 0);
    row("strided_copy, stride 1, table 2's input", out, narrow, false, 1);
    row("strided_copy, stride 1, table 1's input", out, wide, false, 1);
    row("offset_copy, offset 0, table 1's input", out, wide, true, 0);
    row("offset_copy, offset 0, table 2's input (again)", out, narrow, true, 0);
    row("strided_copy, stride 1, table 1's input (again)", out, wide, false, 1);
  }
  {
    std::printf(" B. the experiment's sequence: table 1's buffers, freed, then table 2's\n");
    {
      workbook::DeviceBuffer<float> wide(32 * n);
      workbook::DeviceBuffer<float> out(n);
      fill(wide);
      row("table 1: strided_copy, stride 1", out, wide, false, 1);
    }
    workbook::DeviceBuffer<float> narrow(n + 32);
    workbook::DeviceBuffer<float> out(n);
    fill(narrow);
    row("table 2: offset_copy, offset 0", out, narrow, true, 0);
    row("table 2's buffers: strided_copy, stride 1", out, narrow, false, 1);
    row("table 2: offset_copy, offset 1", out, narrow, true, 1);
    row("table 2: offset_copy, offset 0 (again)", out, narrow, true, 0);
  }
  {
    std::printf(" C. table 2's buffers allocated anew (after B's were freed)\n");
    workbook::DeviceBuffer<float> narrow(n + 32);
    workbook::DeviceBuffer<float> out(n);
    fill(narrow);
    row("offset_copy, offset 0", out, narrow, true, 0);
    row("strided_copy, stride 1", out, narrow, false, 1);
  }
  {
    std::printf(" D. buffers or time? X allocated first, Y after a large buffer was freed, timed in turn\n");
    workbook::DeviceBuffer<float> x_in(n + 32);
    workbook::DeviceBuffer<float> x_out(n);
    fill(x_in);
    row("X: strided_copy, stride 1", x_out, x_in, false, 1);
    { workbook::DeviceBuffer<float> large(32 * n); }
    workbook::DeviceBuffer<float> y_in(n + 32);
    workbook::DeviceBuffer<float> y_out(n);
    fill(y_in);
    row("Y: strided_copy, stride 1", y_out, y_in, false, 1);
    row("X: strided_copy, stride 1 (again)", x_out, x_in, false, 1);
    row("Y: strided_copy, stride 1 (again)", y_out, y_in, false, 1);
    row("X in, Y out: strided_copy, stride 1", y_out, x_in, false, 1);
    row("Y in, X out: strided_copy, stride 1", x_out, y_in, false, 1);
  }
  row("P (allocated first, kept): strided_copy, stride 1, last", p_out, p_in, false, 1);
  row("P: offset_copy, offset 0, last", p_out, p_in, true, 0);
  return 0;
}
