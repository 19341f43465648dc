// Lab 08's open miss (measurements.md, "split_sort: launches and stream
// rate"): flag_zero_bits and split_scatter, one key a thread, move their bytes
// at 62 to 65 % of the copy. Our suspect, untested: one 4-byte load in flight
// per thread (lab 04's sum went from 2560 to 3594 GB/s with 2 loads a thread).
//
// The test: both kernels at 2^28 keys, bit 0, as the lab runs them (the
// reference launchers) and rewritten with K = 2 and K = 4 keys a thread, all
// K loads issued before any is used. Key k of thread t in block b is
// b * 256 * K + k * 256 + t, so each warp load still reads one 128-byte line.
// If K = 2 moves the bytes at near the copy's rate, too few loads in flight
// was the hold; if it stays at 62 to 65 %, it was not.
//
// It links the reference solution, so it stays in solutions/. From the
// repository root:
//   WORKBOOK_BUILD_TARGET="workbook_common lab08_solution" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Ilabs/08-radix-sort -Icommon/include \
//     -o build/probes/split_keys_per_thread solutions/08-radix-sort/probes/split_keys_per_thread.cu \
//     build/default/liblab08_solution.a build/default/common/libworkbook_common.a
//   build/probes/split_keys_per_thread
#include <cstdio>
#include <functional>
#include <vector>

#include "radix_sort.cuh"
#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

using radix_sort::kThreadsPerBlock;

template <int K>
__global__ void flag_zero_bits_k(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kThreadsPerBlock * K + threadIdx.x;
  std::uint32_t key[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * kThreadsPerBlock;
    key[k] = i < n ? keys[i] : 0u;
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * kThreadsPerBlock;
    if (i < n) flags[i] = ((key[k] >> bit) & 1u) == 0u ? 1u : 0u;
  }
}

template <int K>
__global__ void split_scatter_k(const std::uint32_t* keys_in, std::size_t n, int bit,
                                const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                                std::uint32_t* keys_out) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kThreadsPerBlock * K + threadIdx.x;
  std::uint32_t key[K], zeros_before[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * kThreadsPerBlock;
    key[k] = i < n ? keys_in[i] : 0u;
    zeros_before[k] = i < n ? zero_offsets[i] : 0u;
  }
  const std::size_t zeros = *zero_count;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * kThreadsPerBlock;
    if (i < n)
      keys_out[((key[k] >> bit) & 1u) == 0u ? zeros_before[k] : zeros + (i - zeros_before[k])] = key[k];
  }
}

__global__ void fill_keys(std::uint32_t* keys, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = workbook::hash_index(i);
}

}  // namespace

int main() {
  const std::size_t n = std::size_t{1} << 28;
  const int bit = 0;
  workbook::DeviceBuffer<std::uint32_t> keys(n), flags(n), out(n);
  radix_sort::SplitScratch scratch(n);
  fill_keys<<<static_cast<unsigned>((n + 255) / 256), 256>>>(keys.data(), n);
  CUDA_CHECK_LAUNCH("fill_keys");
  // The scanned flags and the zero count the scatters read, made once.
  radix_sort::launch_flag_zero_bits(keys.data(), n, bit, scratch.flags(), nullptr);
  scratch.count_scan().exclusive(scratch.flags(), scratch.flags(), n, scratch.zero_count(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());

  // The host's flags and stable split, against every kernel's output.
  const std::vector<std::uint32_t> host_keys = keys.to_host();
  std::vector<std::uint32_t> host_flags(n), host_split;
  host_split.reserve(n);
  for (std::size_t i = 0; i < n; ++i) host_flags[i] = ((host_keys[i] >> bit) & 1u) == 0u ? 1u : 0u;
  for (const std::uint32_t one : {0u, 1u}) {
    for (std::size_t i = 0; i < n; ++i) {
      if (((host_keys[i] >> bit) & 1u) == one) host_split.push_back(host_keys[i]);
    }
  }

  workbook::TimingOptions options;
  options.time_budget_ms = 2000.0;
  const double copy_gbps = workbook::copy_bandwidth_gbps();
  std::printf(
      "lab 08 probe: split_sort's kernels at 2^28 keys, bit 0, 1, 2 or 4 keys a thread; "
      "workbook::time_gpu, cold L2; copy %.1f GB/s\n",
      copy_gbps);
  bool all_ok = true;
  const auto row = [&](const char* what, int keys_a_thread, double bytes_a_key,
                       const std::function<void(cudaStream_t)>& work, bool flags_out) {
    CUDA_CHECK(cudaMemset(flags_out ? flags.data() : out.data(), 0xFF, n * sizeof(std::uint32_t)));
    const double ms = workbook::time_gpu(work, options).median_ms;
    CUDA_CHECK(cudaDeviceSynchronize());
    const bool ok = flags_out ? flags.to_host() == host_flags : out.to_host() == host_split;
    all_ok = all_ok && ok;
    const double gbps = bytes_a_key * static_cast<double>(n) / ms / 1e6;
    std::printf("  %-16s %d key(s) a thread %8.4f ms %6.1f B a key %8.1f GB/s %5.1f %% of copy   %s\n", what,
                keys_a_thread, ms, bytes_a_key, gbps, 100.0 * gbps / copy_gbps, ok ? "ok" : "WRONG");
  };
  const auto blocks = [&](int k) {
    return static_cast<unsigned>((n + kThreadsPerBlock * k - 1) / (kThreadsPerBlock * k));
  };
  row(
      "flag_zero_bits", 1, 8.0,
      [&](cudaStream_t s) { radix_sort::launch_flag_zero_bits(keys.data(), n, bit, flags.data(), s); }, true);
  row(
      "flag_zero_bits", 2, 8.0,
      [&](cudaStream_t s) {
        flag_zero_bits_k<2><<<blocks(2), kThreadsPerBlock, 0, s>>>(keys.data(), n, bit, flags.data());
      },
      true);
  row(
      "flag_zero_bits", 4, 8.0,
      [&](cudaStream_t s) {
        flag_zero_bits_k<4><<<blocks(4), kThreadsPerBlock, 0, s>>>(keys.data(), n, bit, flags.data());
      },
      true);
  row(
      "split_scatter", 1, 12.0,
      [&](cudaStream_t s) {
        radix_sort::launch_split_scatter(keys.data(), n, bit, scratch.flags(), scratch.zero_count(),
                                         out.data(), s);
      },
      false);
  row(
      "split_scatter", 2, 12.0,
      [&](cudaStream_t s) {
        split_scatter_k<2><<<blocks(2), kThreadsPerBlock, 0, s>>>(keys.data(), n, bit, scratch.flags(),
                                                                  scratch.zero_count(), out.data());
      },
      false);
  row(
      "split_scatter", 4, 12.0,
      [&](cudaStream_t s) {
        split_scatter_k<4><<<blocks(4), kThreadsPerBlock, 0, s>>>(keys.data(), n, bit, scratch.flags(),
                                                                  scratch.zero_count(), out.data());
      },
      false);
  std::printf(
      "  reading: 1 key a thread should repeat the 62 to 65 %% of the copy profiled; 2 or 4 keys a thread "
      "well "
      "above that (near 100 %%) confirm too few loads in flight; the same %% rules it out\n");
  return all_ok ? 0 : 1;
}
