// Lab 09's "Then and now" (labs/09-histograms/README.md; measurements.md, "Then and now in depth")
// compares shares of peak bandwidth only, as Wilt's one rate, "level at about 9 billion pixels per
// second" on a GF100 (N. Wilt, "Optimizing CUDA Histograms", informit 2013), is for his per-thread
// ("Privatized (Per Thread) Histograms") kernels, and no kernel of the lab is one. This probe times
// one on the H200, like with like: the method as his article names it, not his code.
//
// The kernel (count_bytes_per_thread):
//   - each thread owns a private 256-bin histogram of 8-bit counters in shared memory (registers
//     cannot be indexed), and counts its bytes into it with plain loads and stores, no atomics;
//   - it reads 4 bytes at a time with a 32-bit load, grid-stride over the words, so a warp's loads
//     are 128 consecutive bytes; kWordsInFlight words are loaded before any is counted (1: load,
//     count, load...; 9: nine loads in flight a thread, as the lab's lane copies keep several);
//   - a counter gets at most 4 a word, so after each 63 words (252 bytes, below 255) the block
//     flushes every thread's counters into 32-bit per-block totals (also in shared memory) and
//     zeroes them;
//   - at the end each block adds its totals to the 256 global bins, one atomicAdd per bin.
// 64 threads x 256 bins x 1 byte = 16 KiB of counters, + 1 KiB of totals, a block. (On a GF100's
// 48 KiB that is 2 blocks, 128 of 1536 threads, 8.3 %: "below 10% occupancy", as Wilt says.)
//
// Rows, on the experiment's inputs (labs/09-histograms/experiment.cu's fill_bytes:
// workbook::hash_index bytes), workbook::time_gpu with a cold L2 (as the experiment times):
//   2^24 uniform bytes (4096 x 4096, his smallest), 2^30 uniform bytes, 2^30 one-bin bytes (all 255),
//   each: a cudaMemcpy device to device of the same n bytes, then the kernel with 1 and 9 words in
//   flight (each + a 1 KiB memset of the bins). Every kernel's bins are checked against a host count.
// GB/s: the kernel's n bytes read / time; the copy's 2n bytes read + written / time. Printed also:
// the kernel's GB/s as % of the copy's and % of 4800 GB/s (the H200's peak, as the handout's table).
//
// Needs the workbook library only; from the repository root:
//   WORKBOOK_BUILD_TARGET="workbook_common" ./workbook build
//   mkdir -p build/probes
//   nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Icommon/include \
//     -o build/probes/per_thread_histogram solutions/09-histograms/probes/per_thread_histogram.cu \
//     build/default/common/libworkbook_common.a
//   build/probes/per_thread_histogram
// It lives beside the solution with the lab's other probes (it is a kernel of the lab's topic).
#include <cstdint>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "workbook/buffers.hpp"
#include "workbook/cuda_check.hpp"
#include "workbook/hash.cuh"
#include "workbook/timing.hpp"

namespace {

constexpr int kBins = 256;
constexpr int kThreads = 64;  // 64 private histograms x 256 one-byte counters = 16 KiB a block
constexpr int kBytesPerWord = 4;
constexpr int kCounterWordRows = kBins / kBytesPerWord;  // 64 rows of kThreads words: see counter_index
constexpr int kWordsPerRound = 63;                       // 63 x 4 = 252: no 8-bit counter can pass 255
constexpr double kPeakGbps = 4800.0;

static_assert(kWordsPerRound * kBytesPerWord <= 255, "a round must not overflow an 8-bit counter");
static_assert(kThreads % 32 == 0, "blocks of whole warps (so each lane's counters stay in its own bank)");
static_assert(kCounterWordRows % kThreads == 0 || kThreads % kCounterWordRows == 0,
              "the flush gives each thread whole rows");

enum class Kind { uniform, one_bin };

const char* to_string(Kind kind) {
  return kind == Kind::uniform ? "uniform bytes" : "one bin (all 255)";
}

// labs/09-histograms/experiment.cu's fill_bytes (its two kinds used here).
__global__ void fill_bytes(std::uint8_t* out, std::size_t n, Kind kind) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t hash = workbook::hash_index(i);
  const std::uint32_t value = kind == Kind::uniform ? (hash & 0xFFu) : 255u;
  out[i] = static_cast<std::uint8_t>(value);
}

// The layout of the counters: thread t's counters for values 4r .. 4r+3 are the four bytes of one
// 32-bit word, word r * kThreads + t (byte v & 3 of it for value v). A word's bank is its index mod 32,
// so every counter of thread t lies in bank t % 32: the 32 lanes of a warp never share a bank,
// whatever values they count. (Byte v * kThreads + t would put four lanes in one word, and lanes of
// different words of one bank could conflict.)
__device__ int counter_index(int value, int thread) {
  return ((value >> 2) * kThreads + thread) * kBytesPerWord + (value & 3);
}

__device__ void count_word(std::uint32_t word, std::uint8_t* counters) {
#pragma unroll
  for (int k = 0; k < kBytesPerWord; ++k) {
    const int value = static_cast<int>((word >> (8 * k)) & 0xFFu);
    std::uint8_t& counter = counters[counter_index(value, static_cast<int>(threadIdx.x))];
    counter = static_cast<std::uint8_t>(counter + 1);  // this thread's own counter: no atomic
  }
}

// Adds every thread's counters to the block's 32-bit totals and zeroes them. Thread t sums row r = t
// (values 4r .. 4r+3) over the kThreads words of the row; it starts at word t of the row, so in each
// step the lanes of a warp read words in 32 different banks. Bytes are summed two to a 32-bit word
// (16-bit lanes: at most kThreads x 252 = 16128, below 65536). Call between __syncthreads().
__device__ void flush_counters(std::uint32_t* counter_words, std::uint32_t* totals) {
  for (int row = static_cast<int>(threadIdx.x); row < kCounterWordRows; row += kThreads) {
    std::uint32_t values_0_2 = 0;  // counts of values 4r (low 16 bits) and 4r + 2 (high 16 bits)
    std::uint32_t values_1_3 = 0;  // counts of values 4r + 1 and 4r + 3
    // Unrolled 8, not fully: fully unrolled, this loop's 64 addresses took 91 registers a thread,
    // and registers, not shared memory, then capped the blocks a SM (10, not 12).
#pragma unroll 8
    for (int k = 0; k < kThreads; ++k) {
      std::uint32_t& word = counter_words[row * kThreads + (k + static_cast<int>(threadIdx.x)) % kThreads];
      values_0_2 += word & 0x00FF00FFu;
      values_1_3 += (word >> 8) & 0x00FF00FFu;
      word = 0;
    }
    totals[4 * row + 0] += values_0_2 & 0xFFFFu;  // one thread a row: no atomics
    totals[4 * row + 1] += values_1_3 & 0xFFFFu;
    totals[4 * row + 2] += values_0_2 >> 16;
    totals[4 * row + 3] += values_1_3 >> 16;
  }
}

// words: the input's first word_count x 4 bytes (4-byte aligned); tail: its last tail_count (< 4) bytes.
template <int kWordsInFlight>
__global__ void __launch_bounds__(kThreads)
    count_bytes_per_thread(const std::uint32_t* __restrict__ words, std::size_t word_count,
                           const std::uint8_t* __restrict__ tail, int tail_count, std::uint32_t* bins) {
  static_assert(kWordsPerRound % kWordsInFlight == 0, "a round is whole batches");
  __shared__ std::uint32_t counter_words[kCounterWordRows * kThreads];  // 16 KiB of 8-bit counters
  __shared__ std::uint32_t totals[kBins];
  std::uint8_t* counters = reinterpret_cast<std::uint8_t*>(counter_words);
  for (int k = static_cast<int>(threadIdx.x); k < kCounterWordRows * kThreads; k += kThreads)
    counter_words[k] = 0;
  for (int k = static_cast<int>(threadIdx.x); k < kBins; k += kThreads) totals[k] = 0;
  __syncthreads();

  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  const std::size_t block_first = static_cast<std::size_t>(blockIdx.x) * kThreads;
  const std::size_t first = block_first + threadIdx.x;
  // Round r covers each thread's words r * 63 .. r * 63 + 62 (in grid-stride order). The block's
  // thread 0 has the most words, so its test is the block's: all threads reach the flush's barriers.
  for (std::size_t round_start = 0; block_first + round_start * stride < word_count;
       round_start += kWordsPerRound) {
#pragma unroll 1
    for (int batch = 0; batch < kWordsPerRound; batch += kWordsInFlight) {
      const std::size_t batch_first = first + (round_start + batch) * stride;
      if (batch_first >= word_count) break;  // this thread's words are done (no barrier inside)
      std::uint32_t data[kWordsInFlight];
#pragma unroll
      for (int k = 0; k < kWordsInFlight; ++k) {  // all loads of the batch before any counting
        const std::size_t i = batch_first + k * stride;
        data[k] = i < word_count ? words[i] : 0u;
      }
#pragma unroll
      for (int k = 0; k < kWordsInFlight; ++k) {
        if (batch_first + k * stride < word_count) count_word(data[k], counters);
      }
    }
    __syncthreads();  // every thread's counts of the round are in
    flush_counters(counter_words, totals);
    __syncthreads();  // counters zeroed before the next round counts
  }
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail_count)
    atomicAdd(&totals[tail[threadIdx.x]], 1u);
  __syncthreads();
  for (int bin = static_cast<int>(threadIdx.x); bin < kBins; bin += kThreads) {
    if (totals[bin] > 0) atomicAdd(&bins[bin], totals[bin]);
  }
}

template <int kWordsInFlight>
void launch_per_thread(const std::uint8_t* in, std::size_t n, std::uint32_t* bins, unsigned grid,
                       cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(std::uint32_t), stream));
  const std::size_t word_count = n / kBytesPerWord;
  count_bytes_per_thread<kWordsInFlight><<<grid, kThreads, 0, stream>>>(
      reinterpret_cast<const std::uint32_t*>(in), word_count, in + word_count * kBytesPerWord,
      static_cast<int>(n % kBytesPerWord), bins);
  CUDA_CHECK(cudaGetLastError());
}

struct Occupancy {
  int registers;
  int blocks_per_sm;
};

Occupancy occupancy_of(const void* kernel) {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, 0));
  return {attributes.numRegs, blocks};
}

workbook::TimingResult time_it(const std::function<void(cudaStream_t)>& work) {
  workbook::TimingOptions options;
  options.time_budget_ms = 1000.0;
  return workbook::time_gpu(work, options);
}

}  // namespace

int main() {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const Occupancy one = occupancy_of(reinterpret_cast<const void*>(count_bytes_per_thread<1>));
  const Occupancy nine = occupancy_of(reinterpret_cast<const void*>(count_bytes_per_thread<9>));
  // A grid of exactly the blocks that fit at once (the smaller of the two kernels' counts), grid-stride.
  const int blocks_per_sm = one.blocks_per_sm < nine.blocks_per_sm ? one.blocks_per_sm : nine.blocks_per_sm;
  const unsigned grid = static_cast<unsigned>(blocks_per_sm * prop.multiProcessorCount);
  const unsigned low_grid = static_cast<unsigned>(2 * prop.multiProcessorCount);  // 128 threads a SM
  std::printf("GPU: %s, %d SMs, %zu KiB shared a SM, %d threads a SM at most\n", prop.name,
              prop.multiProcessorCount, prop.sharedMemPerMultiprocessor / 1024,
              prop.maxThreadsPerMultiProcessor);
  std::printf(
      "per-thread histograms: %d threads a block, %d KiB of 8-bit counters + %d B of totals a block\n",
      kThreads, kCounterWordRows * kThreads * 4 / 1024, kBins * 4);
  for (const auto& [name, o] : {std::pair<const char*, Occupancy>{"1 word in flight ", one},
                                std::pair<const char*, Occupancy>{"9 words in flight", nine}}) {
    const int threads = o.blocks_per_sm * kThreads;
    std::printf("  %s: %d registers a thread; %d blocks a SM = %d threads, occupancy %.1f %%\n", name,
                o.registers, o.blocks_per_sm, threads, 100.0 * threads / prop.maxThreadsPerMultiProcessor);
  }
  std::printf("grid %u blocks of %d (%d a SM); workbook::time_gpu, cold L2, medians\n", grid, kThreads,
              blocks_per_sm);
  std::printf("GB/s: kernel = n / time, copy = 2n (read + written) / time\n");

  const std::size_t max_n = std::size_t{1} << 30;
  workbook::DeviceBuffer<std::uint8_t> in(max_n);
  workbook::DeviceBuffer<std::uint8_t> copy_out(max_n);
  workbook::DeviceBuffer<std::uint32_t> bins(kBins);
  bool all_right = true;

  struct Case {
    int log2_n;
    Kind kind;
  };
  for (const Case c : {Case{24, Kind::uniform}, Case{30, Kind::uniform}, Case{30, Kind::one_bin}}) {
    const std::size_t n = std::size_t{1} << c.log2_n;
    fill_bytes<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.data(), n, c.kind);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint8_t> host_bytes(n);
    CUDA_CHECK(cudaMemcpy(host_bytes.data(), in.data(), n, cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> expected(kBins, 0);
    for (const std::uint8_t b : host_bytes) ++expected[b];

    std::printf("n = 2^%d, %s\n", c.log2_n, to_string(c.kind));
    const workbook::TimingResult copy = time_it([&](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(copy_out.data(), in.data(), n, cudaMemcpyDeviceToDevice, s));
    });
    const double copy_gbps = workbook::gigabytes_per_second(2.0 * static_cast<double>(n), copy.median_ms);
    std::printf("  %-34s %9.4f ms %8.1f GB/s                              %s\n",
                "cudaMemcpy device to device", copy.median_ms, copy_gbps, copy.summary().c_str());

    struct Row {
      const char* name;
      std::function<void(cudaStream_t)> run;
    };
    const std::vector<Row> rows = {
        {"per-thread, 1 word in flight",
         [&](cudaStream_t s) { launch_per_thread<1>(in.data(), n, bins.data(), grid, s); }},
        {"per-thread, 9 words in flight",
         [&](cudaStream_t s) { launch_per_thread<9>(in.data(), n, bins.data(), grid, s); }},
        // Wilt's kernels ran "below 10% occupancy" (under 0.10 x 1536 = 153.6 threads a GF100 SM):
        // the same kernels with 2 blocks of 64 a SM, 128 threads, separate threads from bytes in flight.
        {"per-thread, 1 word, 128 threads a SM",
         [&](cudaStream_t s) { launch_per_thread<1>(in.data(), n, bins.data(), low_grid, s); }},
        {"per-thread, 9 words, 128 threads a SM",
         [&](cudaStream_t s) { launch_per_thread<9>(in.data(), n, bins.data(), low_grid, s); }},
    };
    for (const Row& row : rows) {
      const workbook::TimingResult t = time_it(row.run);
      row.run(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      const bool right = bins.to_host() == expected;
      all_right = all_right && right;
      const double gbps = workbook::gigabytes_per_second(static_cast<double>(n), t.median_ms);
      std::printf("  %-34s %9.4f ms %8.1f GB/s %6.1f %% of copy %6.1f %% of 4800  %s  %s\n", row.name,
                  t.median_ms, gbps, 100.0 * gbps / copy_gbps, 100.0 * gbps / kPeakGbps,
                  right ? "bins right" : "BINS WRONG", t.summary().c_str());
    }
  }
  std::printf("%s\n", all_right ? "all bins match the host count" : "SOME BINS WRONG");
  return all_right ? 0 : 1;
}
