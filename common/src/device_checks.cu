#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/device_checks.hpp"
#include "workbook/random.hpp"

namespace workbook {
namespace {

constexpr int kCheckThreads = 256;
constexpr unsigned kMaxCheckBlocks = 4096;

// What the comparison kernel leaves: how many elements differ, and the lowest such index.
struct Tally {
  unsigned long long count;
  unsigned long long first;
};

struct Exact {
  template <typename T>
  __device__ bool operator()(T want, T got) const {
    return want == got;
  }
};

struct Close {
  double absolute, relative;
  __device__ bool operator()(float want, float got) const {
    return fabs(static_cast<double>(got) - want) <= absolute + relative * fabs(static_cast<double>(want));
  }
};

template <typename T, typename Same>
__global__ void count_differences(const T* want, const T* got, std::size_t n, Same same, Tally* tally) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long count = 0, first = n;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (same(want[i], got[i])) continue;
    if (count++ == 0) first = i;  // a thread's indices ascend: its first is its lowest
  }
  // Nearly always nothing differs: the atomics run only where something did.
  if (count > 0) {
    atomicAdd(&tally->count, count);
    atomicMin(&tally->first, first);
  }
}

template <typename T>
std::string text_of(T value) {
  std::ostringstream out;
  out << +value;  // unary plus prints 8-bit values as numbers
  return out.str();
}

template <typename T, typename Same>
std::string differences(const T* want, const T* got, std::size_t n, Same same) {
  if (n == 0) return "";
  DeviceBuffer<Tally> tally = to_device(std::vector<Tally>{{0, n}});
  const std::size_t blocks = std::min<std::size_t>((n + kCheckThreads - 1) / kCheckThreads, kMaxCheckBlocks);
  count_differences<<<static_cast<unsigned>(blocks), kCheckThreads>>>(want, got, n, same, tally.data());
  CUDA_CHECK_LAUNCH("count_differences");
  const Tally result = tally.to_host()[0];
  if (result.count == 0) return "";
  T want_value{}, got_value{};
  CUDA_CHECK(cudaMemcpy(&want_value, want + result.first, sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&got_value, got + result.first, sizeof(T), cudaMemcpyDeviceToHost));
  std::ostringstream out;
  out << result.count << " of " << n << " elements differ, the first at index " << result.first
      << ": expected " << text_of(want_value) << ", got " << text_of(got_value);
  return out.str();
}

// fingerprint += hash64 of each word with its position; one atomicAdd per warp.
template <typename Word>
__global__ void add_word_hashes(const Word* words, std::size_t n, std::uint64_t key,
                                unsigned long long* fingerprint) {
  unsigned long long sum = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    sum += hash64(key ^ (i * 0xD6E8FEB86659FD93ull), words[i]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(fingerprint, sum);
}

}  // namespace

std::string device_differences(const std::int32_t* want, const std::int32_t* got, std::size_t n) {
  return differences(want, got, n, Exact{});
}

std::string device_differences(const std::uint32_t* want, const std::uint32_t* got, std::size_t n) {
  return differences(want, got, n, Exact{});
}

std::string device_differences(const std::uint64_t* want, const std::uint64_t* got, std::size_t n) {
  return differences(want, got, n, Exact{});
}

std::string device_float_differences(const float* want, const float* got, std::size_t n,
                                     FloatTolerance tolerance) {
  return differences(want, got, n, Close{tolerance.absolute, tolerance.relative});
}

std::uint64_t device_fingerprint(DeviceBytes range, std::uint64_t key) {
  if (range.bytes == 0) return 0;
  DeviceBuffer<unsigned long long> fingerprint(1);
  fingerprint.fill_bytes(0);
  const bool aligned = reinterpret_cast<std::uintptr_t>(range.data) % 4 == 0 && range.bytes % 4 == 0;
  const std::size_t n = aligned ? range.bytes / 4 : range.bytes;
  const auto blocks =
      static_cast<unsigned>(std::min<std::size_t>((n + kCheckThreads - 1) / kCheckThreads, kMaxCheckBlocks));
  if (aligned) {
    add_word_hashes<<<blocks, kCheckThreads>>>(static_cast<const std::uint32_t*>(range.data), n, key,
                                               fingerprint.data());
  } else {
    add_word_hashes<<<blocks, kCheckThreads>>>(static_cast<const std::uint8_t*>(range.data), n, key,
                                               fingerprint.data());
  }
  CUDA_CHECK_LAUNCH("add_word_hashes");
  return fingerprint.to_host()[0];
}

}  // namespace workbook
