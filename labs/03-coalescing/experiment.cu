// Lab 03 experiment: how fast are the same bytes moved with different access patterns?
//   ./workbook bench coalescing
// Prints five tables: strided copy, offset copy, row vs column sums,
// transposes against a plain copy, and both transposes and the copy over square
// matrices of side 2^5 ... 2^14. Every rate counts the useful bytes only
// (each element read once and written once) and is compared with the device's
// copy bandwidth, the yardstick (not a ceiling) of a memory-bound kernel. Each
// result is checked, so a fast wrong kernel is flagged, and a wrong one makes
// the program exit 1. Every timed row is also recorded for ./workbook bench
// --all's charts.
// With --once it launches the copies of tables 1 and 2 once each, untimed, for
// Nsight Compute to count their sectors (tools/ncu_lab03.sh).
// Table 4's row for a tile without padding is not here (it would be your
// TODO(8) less one column): `./workbook bench coalescing --solution` adds it in
// the full repository, and the handout quotes it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "coalescing.cuh"
#include "workbook/bench_csv.hpp"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/timing.hpp"

namespace {

using workbook::DeviceBuffer;

// Every value below 2^24 is a float exactly, so in[i] = i mod 2^24 tells where a
// copied value came from.
constexpr std::size_t kValueMask = (std::size_t{1} << 24) - 1;

// The rows of tables 1 and 2, in order (--once launches them in this order too).
constexpr int kStrides[] = {1, 2, 4, 8, 16, 32};
constexpr int kOffsets[] = {0, 1, 2, 4, 8, 16, 32};

float value_at(std::size_t i) {
  return static_cast<float>(i & kValueMask);
}

__global__ void fill_with_indices(float* data, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i & kValueMask);
}

void fill_indices(DeviceBuffer<float>& buffer) {
  const unsigned blocks = static_cast<unsigned>(coalescing::ceil_div(buffer.size(), 256));
  fill_with_indices<<<blocks, 256>>>(buffer.data(), buffer.size());
  CUDA_CHECK_LAUNCH("fill_with_indices");
}

// row * cols + col, for this file's checks (they stay independent of the lab's row_major_index).
std::size_t index_of(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

struct Measured {
  double ms;                      // the median
  double gbps;                    // useful bytes over the median
  workbook::TimingResult timing;  // with the spread of the samples
};

// Times work (cold L2, median of samples) and converts useful bytes to GB/s.
Measured measure(const std::function<void(cudaStream_t)>& work, double useful_bytes,
                 const workbook::TimingOptions& options = {}) {
  const workbook::TimingResult timing = workbook::time_gpu(work, options);
  return {timing.median_ms, workbook::gigabytes_per_second(useful_bytes, timing.median_ms), timing};
}

// Rows whose check failed: main exits 1 when there is any.
int wrong_results = 0;

const char* verdict(bool ok) {
  if (!ok) ++wrong_results;
  return ok ? "ok" : "WRONG RESULT";
}

using workbook::spread_text;

void print_row(const std::string& label, const Measured& m, double copy_gbps, bool ok) {
  std::printf("  %-34s %9.3f %10.1f %10.1f%% %s   %s\n", label.c_str(), m.ms, m.gbps,
              100.0 * m.gbps / copy_gbps, spread_text(m.timing).c_str(), verdict(ok));
}

void print_header(const char* first_column) {
  std::printf("  %-34s %9s %10s %11s %7s   %s\n", first_column, "ms", "GB/s", "% of copy", "spread", "check");
}

// A row for ./workbook bench --all's charts (nothing happens without $WORKBOOK_BENCH_CSV).
void record(const char* table, const std::string& implementation, std::size_t n, const Measured& m) {
  workbook::record("03-coalescing", {table, implementation, n, m.timing, m.gbps, "GB/s"});
}

// Table 5: both transposes and a copy of the same bytes over square matrices
// of side 2^5, 2^6, ..., 2^14 (n = side * side = 2^10, 2^12, ..., 2^28
// elements), as many as fit in half the free memory. Small matrices show the
// cost of a launch, large ones the bandwidth.
void transpose_sweep() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::vector<std::size_t> sizes = workbook::sweep_sizes(10, 28, 2, 2 * sizeof(float), free_bytes / 2);
  // Small matrices take microseconds and their spread seldom falls under 3 %:
  // a shorter time budget than the default keeps the sweep to seconds.
  workbook::TimingOptions options;
  options.time_budget_ms = 500.0;

  std::printf(
      "5. Transpose of square float matrices of side 2^5 to 2^14 (n = side^2 floats read + written)\n");
  std::printf("  %% of copy: the time of cudaMemcpy device to device at the same size over the row's\n");
  std::printf("  %-34s %13s %9s %10s %11s %7s   %s\n", "kernel", "matrix", "ms", "GB/s", "% of copy",
              "spread", "check");
  for (const std::size_t n : sizes) {
    int side = 1;
    while (static_cast<std::size_t>(side) * static_cast<std::size_t>(side) < n) side *= 2;
    DeviceBuffer<float> in(n);
    DeviceBuffer<float> out(n);
    fill_indices(in);  // value of (r, c) = (r * side + c) mod 2^24
    const double bytes = 2.0 * static_cast<double>(n * sizeof(float));

    // The host reads the output in order and computes what belongs there: out(c, r) = in(r, c).
    const auto check_transpose = [&]() {
      const std::vector<float> got = out.to_host();
      for (int c = 0; c < side; ++c) {
        for (int r = 0; r < side; ++r) {
          if (got[index_of(c, r, side)] != value_at(index_of(r, c, side))) return false;
        }
      }
      return true;
    };
    const auto check_copy = [&]() {
      const std::vector<float> got = out.to_host();
      for (std::size_t i = 0; i < n; ++i) {
        if (got[i] != value_at(i)) return false;
      }
      return true;
    };

    out.fill_bytes(0xFF);
    const Measured copy = measure(
        [&](cudaStream_t stream) {
          CUDA_CHECK(
              cudaMemcpyAsync(out.data(), in.data(), n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
        },
        bytes, options);
    const bool copy_ok = check_copy();

    const std::string matrix = std::to_string(side) + " x " + std::to_string(side);
    const auto row = [&](const char* label, const Measured& m, bool ok) {
      std::printf("  %-34s %13s %9.4f %10.1f %10.1f%% %s   %s\n", label, matrix.c_str(), m.ms, m.gbps,
                  100.0 * copy.ms / m.ms, spread_text(m.timing).c_str(), verdict(ok));
      record("transpose sweep", label, n, m);
    };
    out.fill_bytes(0xFF);
    const Measured tiled = measure(
        [&](cudaStream_t stream) {
          coalescing::launch_transpose_tiled(out.data(), in.data(), side, side, stream);
        },
        bytes, options);
    row("tiled transpose (padded tile)", tiled, check_transpose());
    out.fill_bytes(0xFF);
    const Measured naive = measure(
        [&](cudaStream_t stream) {
          coalescing::launch_transpose_naive(out.data(), in.data(), side, side, stream);
        },
        bytes, options);
    row("naive transpose", naive, check_transpose());
    row("cudaMemcpy device to device", copy, copy_ok);
  }
}

// --once: every strided copy of table 1, then every offset copy of table 2, one
// launch each on the same buffers, so that a profiler's list of launches is the
// tables' rows in order (ncu replays a launch per metric pass; timed
// repetitions would only multiply the list).
void launch_each_copy_once() {
  const std::size_t n = std::size_t{1} << 26;
  {
    DeviceBuffer<float> in(n * 32);
    DeviceBuffer<float> out(n);
    fill_indices(in);
    for (const int stride : kStrides) coalescing::launch_strided_copy(out.data(), in.data(), n, stride, 0);
  }
  {
    DeviceBuffer<float> in(n + 32);
    DeviceBuffer<float> out(n);
    fill_indices(in);
    for (const int offset : kOffsets) coalescing::launch_offset_copy(out.data(), in.data(), n, offset, 0);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf(
      "launched strided_copy for strides 1 2 4 8 16 32, then offset_copy for offsets 0 1 2 4 8 16 32,\n"
      "once each on n = 2^26 floats\n");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 2 || (argc == 2 && std::strcmp(argv[1], "--once") != 0)) {
      std::fprintf(stderr, "usage: %s [--once]   (--once: each copy of tables 1 and 2 once, for ncu)\n",
                   argv[0]);
      return 1;
    }
    if (!workbook::have_device_for_experiment()) return 2;
    if (argc == 2) {
      launch_each_copy_once();
      return 0;
    }
    const workbook::DeviceInfo gpu = workbook::current_device_info();
    std::printf("GPU: %s\n", workbook::describe(gpu).c_str());
    const double copy_gbps = workbook::copy_bandwidth_gbps();
    std::printf("Copy bandwidth (cudaMemcpy device to device, read + write): %.1f GB/s, the yardstick\n",
                copy_gbps);
    std::printf("All rates count useful bytes only: each element read once and written once.\n");
    std::printf("spread: interquartile range of the timed runs over their median.\n\n");

    // --- 1. Strided copy -------------------------------------------------------------------
    // n output elements; the input is n * 32 floats so that every stride reads from one buffer.
    // On a GPU with little memory n is halved until the buffers fit.
    std::size_t n = std::size_t{1} << 26;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    while (n > (std::size_t{1} << 20) && 34 * n * sizeof(float) > free_bytes / 4 * 3) n /= 2;
    {
      DeviceBuffer<float> in(n * 32);
      DeviceBuffer<float> out(n);
      fill_indices(in);
      std::printf(
          "1. Strided copy, out[i] = in[i * stride], n = %zu floats (%.0f MB read + %.0f MB written)\n", n,
          n * 4 / 1.0e6, n * 4 / 1.0e6);
      print_header("stride");
      for (const int stride : kStrides) {
        out.fill_bytes(0xFF);
        const Measured m = measure(
            [&](cudaStream_t stream) {
              coalescing::launch_strided_copy(out.data(), in.data(), n, stride, stream);
            },
            2.0 * n * sizeof(float));
        const std::vector<float> got = out.to_host();
        bool ok = true;
        for (std::size_t i = 0; i < n && ok; ++i) ok = got[i] == value_at(i * stride);
        print_row(std::to_string(stride), m, copy_gbps, ok);
        record("strided copy", "stride " + std::to_string(stride), n, m);
      }
      std::printf("\n");
    }

    // --- 2. Offset copy --------------------------------------------------------------------
    {
      const std::size_t count = std::size_t{1} << 26;
      DeviceBuffer<float> in(count + 32);
      DeviceBuffer<float> out(count);
      fill_indices(in);
      std::printf(
          "2. Offset copy, out[i] = in[i + offset], n = %zu floats (%.0f MB read + %.0f MB written)\n", count,
          count * 4 / 1.0e6, count * 4 / 1.0e6);
      print_header("offset");
      for (const int offset : kOffsets) {
        out.fill_bytes(0xFF);
        const Measured m = measure(
            [&](cudaStream_t stream) {
              coalescing::launch_offset_copy(out.data(), in.data(), count, offset, stream);
            },
            2.0 * count * sizeof(float));
        const std::vector<float> got = out.to_host();
        bool ok = true;
        for (std::size_t i = 0; i < count && ok; ++i) ok = got[i] == value_at(i + offset);
        print_row(std::to_string(offset), m, copy_gbps, ok);
        record("offset copy", "offset " + std::to_string(offset), count, m);
      }
      std::printf("\n");
    }

    // --- 3 and 4. One 8192 x 8192 matrix for the sums and the transposes --------------------
    const int rows = 8192;
    const int cols = 8192;
    const std::size_t elements = static_cast<std::size_t>(rows) * cols;
    DeviceBuffer<float> matrix(elements);
    DeviceBuffer<float> out(elements);
    fill_indices(matrix);  // value of (r, c) = (r * cols + c) mod 2^24
    const double matrix_bytes = static_cast<double>(elements * sizeof(float));

    {
      // A value_at matrix has sums far beyond float precision, so the check
      // compares with a double sum within a relative tolerance.
      std::printf("3. Sums of a %d x %d float matrix (%.0f MB), one thread per row or per column\n", rows,
                  cols, matrix_bytes / 1.0e6);
      print_header("kernel");
      DeviceBuffer<float> sums(rows > cols ? rows : cols);
      const auto check_sums = [&](bool by_row) {
        const std::vector<float> got = sums.to_host();
        const int count = by_row ? rows : cols;
        for (int k = 0; k < count; k += 97) {
          double want = 0.0;
          for (int j = 0; j < (by_row ? cols : rows); ++j) {
            want += value_at(by_row ? index_of(k, j, cols) : index_of(j, k, cols));
          }
          if (!(std::abs(got[k] - want) <= 1e-3 * want + 1.0)) return false;
        }
        return true;
      };
      sums.fill_bytes(0xFF);
      const Measured by_row = measure(
          [&](cudaStream_t stream) {
            coalescing::launch_row_sums(sums.data(), matrix.data(), rows, cols, stream);
          },
          matrix_bytes + rows * sizeof(float));
      print_row("row sums (uncoalesced reads)", by_row, copy_gbps, check_sums(true));
      record("sums", "row sums (uncoalesced reads)", elements, by_row);
      sums.fill_bytes(0xFF);
      const Measured by_column = measure(
          [&](cudaStream_t stream) {
            coalescing::launch_column_sums(sums.data(), matrix.data(), rows, cols, stream);
          },
          matrix_bytes + cols * sizeof(float));
      print_row("column sums (coalesced reads)", by_column, copy_gbps, check_sums(false));
      record("sums", "column sums (coalesced reads)", elements, by_column);
      std::printf("  column sums are %.1fx as fast as row sums\n\n", by_row.ms / by_column.ms);
    }

    {
      std::printf("4. Transpose of a %d x %d float matrix (%.0f MB read + %.0f MB written)\n", rows, cols,
                  matrix_bytes / 1.0e6, matrix_bytes / 1.0e6);
      print_header("kernel");
      const auto check_transpose = [&]() {
        const std::vector<float> got = out.to_host();
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < cols; ++c) {
            if (got[index_of(c, r, rows)] != value_at(index_of(r, c, cols))) return false;
          }
        }
        return true;
      };
      const auto check_copy = [&]() {
        const std::vector<float> got = out.to_host();
        for (std::size_t i = 0; i < elements; ++i) {
          if (got[i] != value_at(i)) return false;
        }
        return true;
      };
      out.fill_bytes(0xFF);
      const Measured memcpy_rate = measure(
          [&](cudaStream_t stream) {
            CUDA_CHECK(cudaMemcpyAsync(out.data(), matrix.data(), elements * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream));
          },
          2.0 * matrix_bytes);
      print_row("cudaMemcpy device to device", memcpy_rate, copy_gbps, check_copy());
      record("transpose", "cudaMemcpy device to device", elements, memcpy_rate);
      out.fill_bytes(0xFF);
      const Measured copy_rate = measure(
          [&](cudaStream_t stream) {
            coalescing::launch_strided_copy(out.data(), matrix.data(), elements, 1, stream);
          },
          2.0 * matrix_bytes);
      print_row("copy kernel (stride 1)", copy_rate, copy_gbps, check_copy());
      record("transpose", "copy kernel (stride 1)", elements, copy_rate);
      out.fill_bytes(0xFF);
      const Measured naive = measure(
          [&](cudaStream_t stream) {
            coalescing::launch_transpose_naive(out.data(), matrix.data(), rows, cols, stream);
          },
          2.0 * matrix_bytes);
      print_row("naive transpose", naive, copy_gbps, check_transpose());
      record("transpose", "naive transpose", elements, naive);
      out.fill_bytes(0xFF);
      const Measured tiled = measure(
          [&](cudaStream_t stream) {
            coalescing::launch_transpose_tiled(out.data(), matrix.data(), rows, cols, stream);
          },
          2.0 * matrix_bytes);
      print_row("tiled transpose (padded tile)", tiled, copy_gbps, check_transpose());
      record("transpose", "tiled transpose (padded tile)", elements, tiled);
      std::printf("  the tiled transpose is %.1fx as fast as the naive one\n\n", naive.ms / tiled.ms);
    }

    transpose_sweep();
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
