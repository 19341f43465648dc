// Lab 08: radix sort. This is your file: fill in each TODO, then run
//   ./workbook grade radix-sort
// The handout is labs/08-radix-sort/README.md. Write the sort yourself: the
// grader refuses a file that uses CUB or Thrust (cub::DeviceRadixSort is the
// yardstick you are timed against). workbook::CountScan is yours to use.
#include <limits>
#include <stdexcept>
#include <string>

#include "radix_sort.cuh"
#include "workbook/cuda_check.hpp"

namespace radix_sort {

namespace {

// The calling thread's lane in its warp, and its warp in the block: blocks
// are whole warps, so both follow from threadIdx.x alone.
[[maybe_unused]] __device__ int lane_index() {
  return static_cast<int>(threadIdx.x) % kWarpSize;
}
[[maybe_unused]] __device__ int warp_index() {
  return static_cast<int>(threadIdx.x) / kWarpSize;
}

// Grids: one thread per key for part 1, one block per tile for the rest.
unsigned blocks_for_keys(std::size_t n) {
  return static_cast<unsigned>((n + kThreadsPerBlock - 1) / kThreadsPerBlock);
}
unsigned blocks_for_tiles(std::size_t n) {
  return static_cast<unsigned>(tiles_for(n));
}

// Positions are 32-bit: a larger input could not be addressed by them.
std::size_t checked_max_n(std::size_t max_n, const char* scratch) {
  if (max_n > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument(std::string(scratch) + ": max_n = " + std::to_string(max_n) +
                                ", but positions are 32-bit: build it for at most 2^32 - 1 keys");
  }
  return max_n;
}

void check_capacity(std::size_t n, std::size_t max_n, const char* caller, const char* scratch) {
  if (n > max_n) {
    throw std::invalid_argument(std::string(caller) + ": n = " + std::to_string(n) +
                                " keys, but the scratch was built for at most " + std::to_string(max_n) +
                                "; construct the " + scratch + " with a larger max_n");
  }
}

void check_pointer(const void* pointer, std::size_t n, const char* caller, const char* name) {
  if (n > 0 && pointer == nullptr) {
    throw std::invalid_argument(std::string(caller) + ": " + name + " is nullptr but n = " +
                                std::to_string(n) + "; pass a device array of n elements");
  }
}

}  // namespace

SplitScratch::SplitScratch(std::size_t max_n)
    : max_n_(checked_max_n(max_n, "SplitScratch")),
      flags_(max_n),
      count_scan_(max_n),
      // A scratch for 0 keys allocates nothing at all (a split of 0 keys needs
      // no count), so that the argument checks can be tested without a GPU.
      zero_count_(max_n > 0 ? 1 : 0),
      keys_temp_(max_n) {}

RadixSortScratch::RadixSortScratch(std::size_t max_n, bool with_values)
    : max_n_(checked_max_n(max_n, "RadixSortScratch")),
      has_values_(with_values),
      keys_temp_(max_n),
      values_temp_(with_values ? max_n : 0),
      digit_counts_(digit_counts_for(max_n)),
      count_scan_(digit_counts_for(max_n)) {}

// ---------------------------------------------------------------------------
// Part 1: split by one bit. One thread per key, kernels as plain as lab 02's.

__global__ void flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags) {
  // TODO(1): flags[i] = 1 for every key i < n whose bit `bit` is 0, 0 for every other key i < n; nothing
  //          at or past n is read or written. One thread per key, in a grid that may have more threads than
  //          keys; indices are std::size_t.
}

__global__ void split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                              const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                              std::uint32_t* keys_out) {
  // TODO(2): Write every key i < n once to keys_out, at its place in the stable split: all keys with bit
  //          `bit` 0, then all keys with bit 1, each group in input order. zero_offsets[i] is the number
  //          of keys with bit 0 before key i, *zero_count their total. One thread per key.
}

void launch_flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags,
                           cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid configuration
  flag_zero_bits<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(keys, n, bit, flags);
  CUDA_CHECK_LAUNCH("flag_zero_bits");
}

void launch_split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                          const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                          std::uint32_t* keys_out, cudaStream_t stream) {
  if (n == 0) return;
  split_scatter<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(keys_in, n, bit, zero_offsets,
                                                                     zero_count, keys_out);
  CUDA_CHECK_LAUNCH("split_scatter");
}

void split_by_bit(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, int bit,
                  SplitScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "split_by_bit", "SplitScratch");
  check_pointer(keys_in, n, "split_by_bit", "keys_in");
  check_pointer(keys_out, n, "split_by_bit", "keys_out");
  if (bit < 0 || bit >= kKeyBits) {
    throw std::invalid_argument("split_by_bit: bit = " + std::to_string(bit) +
                                ", but a key has bits 0 to 31; pass a bit in that range");
  }
  if (n > 0 && keys_in == keys_out) {
    throw std::invalid_argument(
        "split_by_bit: keys_out is keys_in, but a split cannot work in place (a key may be written over "
        "another before that one is read); pass a second array");
  }
  // TODO(3): keys_out = the stable split of keys_in on bit `bit`, with the two launchers above and
  //          scratch.count_scan() on the scratch's arrays. Everything on `stream`: nothing allocated,
  //          nothing waited for.
}

void split_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, SplitScratch& scratch,
                cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "split_sort", "SplitScratch");
  check_pointer(keys_in, n, "split_sort", "keys_in");
  check_pointer(keys_out, n, "split_sort", "keys_out");
  // TODO(4): keys_out = keys_in in ascending order, by 32 split_by_bit() calls, bit 0 first. No array but
  //          the scratch's keys_temp() and keys_out; keys_in is never written unless it is keys_out
  //          (keys_in == keys_out, in place, must work).
}

// ---------------------------------------------------------------------------
// Part 2: eight bits per pass. Block b handles tile b; warp w of it owns the
// kWarpTileSize keys from b * kTileSize + w * kWarpTileSize, and lane l's
// item k is the key k * kWarpSize + l of its warp's share ("warp-striped"):
// each load instruction of a warp reads 32 neighbouring keys (one 128-byte
// line), and a warp's items, taken k by k and lane by lane, are in input order.

// Blocks of kThreadsPerBlock that each SM should hold at once, which caps the
// sort kernels at 80 registers per thread: 65536 registers over 768 threads
// is 85.3, and registers are allocated in units of 8 per thread (256 per
// warp), so 80. Without the cap nvcc gives the scatter kernels about 100, and
// an SM then holds only 2 blocks (16 warps), few to keep loads in flight while
// the other blocks rank their tiles. A cap of 64 (4 blocks) made nvcc spill
// registers to local memory.
// 3 x 256 threads fit every GPU of the course (sm_75 holds 1024 threads). The
// bound only sets the register budget: where shared memory holds fewer blocks
// (a T4's 64 KB per SM holds 2 of scatter_by_digit's 25 KB blocks and 1 of
// scatter_pairs_by_digit's 41 KB), fewer run at once; nothing fails.
constexpr int kMinBlocksPerSm = 3;

__host__ __device__ std::uint32_t digit_of(std::uint32_t key, int shift) {
  // TODO(5): Return the digit of key for the pass with this shift: its kRadixBits bits from bit `shift` up,
  //          as a number 0 to kRadix - 1. It runs on the host and on the device.
  return 0;
}

namespace {

// The key past the end of the input: every digit of it is 255, the last
// digit, so in every pass such keys rank after all real keys of their tile.
[[maybe_unused]] constexpr std::uint32_t kKeyPastEnd = 0xFFFFFFFFu;

// The first key of this block's tile, and the number of keys of the tile
// that are below n (kTileSize except in the last tile).
[[maybe_unused]] __device__ std::size_t tile_start() {
  return static_cast<std::size_t>(blockIdx.x) * kTileSize;
}
[[maybe_unused]] __device__ int keys_in_tile(std::size_t n) {
  const std::size_t left = n - tile_start();
  return left < static_cast<std::size_t>(kTileSize) ? static_cast<int>(left) : kTileSize;
}

// The position inside the tile of the calling thread's item k.
[[maybe_unused]] __device__ int item_in_tile(int k) {
  return warp_index() * kWarpTileSize + k * kWarpSize + lane_index();
}

// Loads the calling thread's items of this block's tile; items at or past n
// get kKeyPastEnd.
[[maybe_unused]] __device__ void load_tile(const std::uint32_t* keys, std::size_t n,
                                           std::uint32_t (&items)[kItemsPerThread]) {
  // TODO(6): items[k] = the key at position item_in_tile(k) of this block's tile (the helpers above), or
  //          kKeyPastEnd where that position holds no real key. Nothing at or past n is read. items[] stays
  //          in registers, and all kItemsPerThread loads of a thread are in flight together.
}

}  // namespace

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts) {
  // TODO(7): digit_counts[d * tiles_for(n) + blockIdx.x] = the number of this tile's keys below n whose
  //          digit at `shift` is d, for every d (digit-major). Count in shared memory with a set of
  //          counters per warp, so that warps never wait for each other; zero them all, then a barrier,
  //          before any warp counts. Every thread reaches every barrier. Load with load_tile; its
  //          0xFFFFFFFF fillers past n are not keys, so do not count them.
}

void launch_count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts,
                         cudaStream_t stream) {
  if (n == 0) return;
  count_digits<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(keys, n, shift, digit_counts);
  CUDA_CHECK_LAUNCH("count_digits");
}

namespace {

// The exclusive prefix sum of one value per thread of the block, in thread
// order (lab 07's block scan from warp scans). Every thread of the block must
// call it, once per kernel: it uses a shared array and a barrier.
[[maybe_unused]] __device__ std::uint32_t block_exclusive_sum(std::uint32_t value) {
  __shared__ std::uint32_t warp_totals[kWarpsPerBlock];
  const int lane = lane_index();
  const int warp = warp_index();
  std::uint32_t inclusive = value;
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const std::uint32_t below = __shfl_up_sync(kFullMask, inclusive, offset);
    if (lane >= offset) inclusive += below;
  }
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  std::uint32_t warps_before = 0;
  for (int w = 0; w < warp; ++w) warps_before += warp_totals[w];
  return warps_before + inclusive - value;
}

// The lanes of the calling warp whose digit equals this lane's: bit l is set
// when lane l has the same digit (this lane's own bit included). Every lane
// of the warp must call it.
[[maybe_unused]] __device__ unsigned same_digit_lanes(std::uint32_t digit) {
  // TODO(8): Return the mask of the lanes of this warp whose digit equals this lane's (bit l for lane l,
  //          this lane's own bit included). All 32 lanes call it: every warp vote uses kFullMask.
  return 0u;
}

// Ranks the tile stably by digit: positions[k] = where item k goes when the
// tile is sorted by digit_of(item, shift), equal digits in input order.
// Returns the first position of digit threadIdx.x in the sorted tile (the
// number of the tile's keys with a smaller digit). Every thread of the block
// must call it, once per kernel: it uses shared arrays and barriers.
[[maybe_unused]] __device__ std::uint32_t rank_tile_by_digit(const std::uint32_t (&items)[kItemsPerThread],
                                                             int shift,
                                                             std::uint32_t (&positions)[kItemsPerThread]) {
  // TODO(9): positions[k] = item k's position in this tile sorted stably by digit: after every key of a
  //          smaller digit and after the tile's earlier keys (smaller item_in_tile) of the same digit.
  //          Return the number of the tile's keys whose digit is below threadIdx.x. The result must not
  //          depend on the order in which threads run. Use same_digit_lanes and block_exclusive_sum;
  //          every thread reaches every barrier and every vote.
  return 0u;
}

}  // namespace

// A hook for the tests: whole tiles ranked by rank_tile_by_digit alone, so
// that the ranking is graded apart from the scatter. The items come in thread
// order (thread t's item k at (b * kThreadsPerBlock + t) * kItemsPerThread + k),
// laid out by the test as load_tile would hold them; positions[k] starts at
// 0xFFFFFFFF, what a ranking that writes nothing leaves.
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    rank_tiles_by_digit(const std::uint32_t* items, int shift, std::uint32_t* positions,
                        std::uint32_t* digit_starts) {
  const std::size_t first =
      (static_cast<std::size_t>(blockIdx.x) * kThreadsPerBlock + threadIdx.x) * kItemsPerThread;
  std::uint32_t mine[kItemsPerThread];
  std::uint32_t ranked[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    mine[k] = items[first + k];
    ranked[k] = 0xFFFFFFFFu;
  }
  const std::uint32_t digit_start = rank_tile_by_digit(mine, shift, ranked);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) positions[first + k] = ranked[k];
  digit_starts[static_cast<std::size_t>(blockIdx.x) * kRadix + threadIdx.x] = digit_start;
}

void launch_rank_tiles_by_digit(const std::uint32_t* items, std::size_t tiles, int shift,
                                std::uint32_t* positions, std::uint32_t* digit_starts, cudaStream_t stream) {
  if (tiles == 0) return;
  rank_tiles_by_digit<<<static_cast<unsigned>(tiles), kThreadsPerBlock, 0, stream>>>(items, shift, positions,
                                                                                     digit_starts);
  CUDA_CHECK_LAUNCH("rank_tiles_by_digit");
}

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                     const std::uint32_t* digit_offsets, std::uint32_t* keys_out) {
  // TODO(10): Write each of the tile's keys below n to keys_out at digit_offsets[d * tiles_for(n) +
  //           blockIdx.x] + r, d being its digit and r the number of the tile's earlier keys of digit d.
  //           Rank with rank_tile_by_digit and sort the tile in shared memory first, so that neighbouring
  //           threads store neighbouring addresses. Every thread reaches every barrier. Static shared memory
  //           is at most 48 KB per block: the sorted tile (16 KB), one base per digit (its offset minus its
  //           start in the sorted tile, 1 KB) and rank_tile_by_digit's counters (8 KB) make 25 KB.
}

void launch_scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                             const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                             cudaStream_t stream) {
  if (n == 0) return;
  scatter_by_digit<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(keys_in, n, shift, digit_offsets,
                                                                         keys_out);
  CUDA_CHECK_LAUNCH("scatter_by_digit");
}

void sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
               RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_keys", "RadixSortScratch");
  check_pointer(keys_in, n, "sort_keys", "keys_in");
  check_pointer(keys_out, n, "sort_keys", "keys_out");
  // TODO(11): keys_out = keys_in in ascending order: kPasses stable passes, lowest digit first, built from
  //           launch_count_digits, scratch.count_scan() and launch_scatter_by_digit. No array but the
  //           scratch's and keys_out; keys_in is never written unless it is keys_out (in place must work).
  //           Everything on `stream`.
}

// ---------------------------------------------------------------------------
// Part 3: key-value pairs

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n,
                           int shift, const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                           std::uint32_t* values_out) {
  // TODO(12): As scatter_by_digit, and values_out gets each key's value (values_in at the key's input
  //           index) at the same position as the key. The value loads are in flight while the tile is
  //           ranked, and the stores of both arrays stay coalesced. Of the 48 KB of static shared memory a
  //           block may have, the scatter of keys takes 25 KB and a second tile for the values 16 KB: 41 KB,
  //           so nothing else of that size fits.
}

void launch_scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                   std::size_t n, int shift, const std::uint32_t* digit_offsets,
                                   std::uint32_t* keys_out, std::uint32_t* values_out, cudaStream_t stream) {
  if (n == 0) return;
  scatter_pairs_by_digit<<<blocks_for_tiles(n), kThreadsPerBlock, 0, stream>>>(
      keys_in, values_in, n, shift, digit_offsets, keys_out, values_out);
  CUDA_CHECK_LAUNCH("scatter_pairs_by_digit");
}

void sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                std::uint32_t* values_out, std::size_t n, RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_pairs", "RadixSortScratch");
  if (!scratch.has_values()) {
    throw std::invalid_argument(
        "sort_pairs: the scratch has no value array; construct it as RadixSortScratch(max_n, true)");
  }
  check_pointer(keys_in, n, "sort_pairs", "keys_in");
  check_pointer(values_in, n, "sort_pairs", "values_in");
  check_pointer(keys_out, n, "sort_pairs", "keys_out");
  check_pointer(values_out, n, "sort_pairs", "values_out");
  // TODO(13): The passes of sort_keys(), each value moving with its key (launch_scatter_pairs_by_digit):
  //           keys_out ascending, values_out beside them, equal keys in input order. No array but the
  //           scratch's (keys_temp(), values_temp()) and the outputs; in place must work.
}

// ---------------------------------------------------------------------------
// Part 4: int32 and float keys

__host__ __device__ std::uint32_t encode_int(std::int32_t value) {
  // TODO(14): Return the key of value: for any two ints, a < b exactly when encode_int(a) < encode_int(b)
  //           as unsigned numbers, and every int gets a different key (decode_int undoes it).
  return 0u;
}

__host__ __device__ std::int32_t decode_int(std::uint32_t key) {
  // TODO(15): Return the int that encode_int maps to key: decode_int(encode_int(v)) == v for every v.
  return 0;
}

__host__ __device__ std::uint32_t encode_float_bits(std::uint32_t bits) {
  // TODO(16): Return the key of the float with these bits: unsigned order of the keys is IEEE 754
  //           totalOrder of the floats (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), and every
  //           bit pattern, NaNs included, gets a different key.
  return 0u;
}

__host__ __device__ std::uint32_t decode_float_bits(std::uint32_t key) {
  // TODO(17): The inverse: decode_float_bits(encode_float_bits(b)) == b for every bit pattern b, NaN
  //           payloads included.
  return 0u;
}

namespace {

// The maps of a whole array, one thread per element; `out` may be `in`
// (each thread reads its element before it writes it). The floats travel as
// their bits, so no kernel reads memory as one type that it writes as another.
__global__ void encode_int_keys(const std::int32_t* in, std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = encode_int(in[i]);
}
__global__ void decode_int_keys(const std::uint32_t* in, std::size_t n, std::int32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = decode_int(in[i]);
}
__global__ void encode_float_keys(const std::uint32_t* bits, std::size_t n, std::uint32_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = encode_float_bits(bits[i]);
}
__global__ void decode_float_keys(const std::uint32_t* in, std::size_t n, std::uint32_t* bits) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) bits[i] = decode_float_bits(in[i]);
}

// The launches of the maps: nothing for n = 0.
[[maybe_unused]] void launch_encode_int_keys(const std::int32_t* in, std::size_t n, std::uint32_t* out,
                                             cudaStream_t stream) {
  if (n == 0) return;
  encode_int_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, out);
  CUDA_CHECK_LAUNCH("encode_int_keys");
}
[[maybe_unused]] void launch_decode_int_keys(const std::uint32_t* in, std::size_t n, std::int32_t* out,
                                             cudaStream_t stream) {
  if (n == 0) return;
  decode_int_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, out);
  CUDA_CHECK_LAUNCH("decode_int_keys");
}
[[maybe_unused]] void launch_encode_float_keys(const std::uint32_t* bits, std::size_t n, std::uint32_t* out,
                                               cudaStream_t stream) {
  if (n == 0) return;
  encode_float_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(bits, n, out);
  CUDA_CHECK_LAUNCH("encode_float_keys");
}
[[maybe_unused]] void launch_decode_float_keys(const std::uint32_t* in, std::size_t n, std::uint32_t* bits,
                                               cudaStream_t stream) {
  if (n == 0) return;
  decode_float_keys<<<blocks_for_keys(n), kThreadsPerBlock, 0, stream>>>(in, n, bits);
  CUDA_CHECK_LAUNCH("decode_float_keys");
}

}  // namespace

void sort_ints(const std::int32_t* in, std::int32_t* out, std::size_t n, RadixSortScratch& scratch,
               cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_ints", "RadixSortScratch");
  check_pointer(in, n, "sort_ints", "in");
  check_pointer(out, n, "sort_ints", "out");
  // TODO(18): out = in in ascending int order, with the int maps (launch_encode_int_keys,
  //           launch_decode_int_keys) and sort_keys(). No array but out and the scratch's; in is never
  //           written unless it is out.
}

void sort_floats(const float* in, float* out, std::size_t n, RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_floats", "RadixSortScratch");
  check_pointer(in, n, "sort_floats", "in");
  check_pointer(out, n, "sort_floats", "out");
  // TODO(19): As sort_ints, for floats in the order of encode_float_bits, with the float maps
  //           (launch_encode_float_keys, launch_decode_float_keys); the float arrays travel as their
  //           bits (std::uint32_t).
}

}  // namespace radix_sort
