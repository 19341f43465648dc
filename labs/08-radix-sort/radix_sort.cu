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
  // TODO(1): One thread per key, i = blockIdx.x * blockDim.x + threadIdx.x (a std::size_t);
  //          when i < n: flags[i] = 1 when bit `bit` of keys[i] is 0, else 0.
}

__global__ void split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                              const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                              std::uint32_t* keys_out) {
  // TODO(2): One thread per key i < n, f = zero_offsets[i] (the keys with bit 0 before it):
  //          a key whose bit is 0 goes to keys_out[f]; a key whose bit is 1 goes after all
  //          *zero_count keys with bit 0 and after the i - f keys with bit 1 before it.
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
  // TODO(3): Three steps on `stream`, nothing allocated, nothing waited for:
  //          1. launch_flag_zero_bits() into scratch.flags();
  //          2. scratch.count_scan().exclusive() of the n flags in place, with scratch.zero_count()
  //             as its total (the sum of the flags is the number of keys whose bit is 0);
  //          3. launch_split_scatter() with those offsets and that count.
}

void split_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, SplitScratch& scratch,
                cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "split_sort", "SplitScratch");
  check_pointer(keys_in, n, "split_sort", "keys_in");
  check_pointer(keys_out, n, "split_sort", "keys_out");
  // TODO(4): 32 splits, bit 0 first. Pass b reads the previous pass's output (pass 0 reads
  //          keys_in) and writes scratch.keys_temp() when b is even, keys_out when b is odd, so
  //          that pass 31 ends in keys_out. (In place works too: pass 0 reads keys_in = keys_out
  //          and writes the temporary.)
}

// ---------------------------------------------------------------------------
// Part 2: eight bits per pass. Block b handles tile b; warp w of it owns the
// kWarpTileSize keys from b * kTileSize + w * kWarpTileSize, and lane l's
// item k is the key k * kWarpSize + l of its warp's share ("warp-striped"):
// each load instruction of a warp reads 32 neighbouring keys (one 128-byte
// line), and a warp's items, taken k by k and lane by lane, are in input order.

// Blocks of kThreadsPerBlock that each SM should hold at once, which caps the
// sort kernels at 80 registers per thread (65536 / 768): without the cap nvcc
// gives the scatter kernels about 100, and an SM then holds only 2 blocks (16
// warps), few to keep loads in flight while the other blocks rank their
// tiles. A cap of 64 (4 blocks) made nvcc spill registers to local memory.
// 3 x 256 threads fit every GPU of the course (sm_75 holds 1024 threads).
constexpr int kMinBlocksPerSm = 3;

__host__ __device__ std::uint32_t digit_of(std::uint32_t key, int shift) {
  // TODO(5): The eight bits of key from bit `shift` up, as a number 0..255: shift right, mask.
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
  // TODO(6): For item k the key is keys[tile_start() + item_in_tile(k)] (helpers above): load it
  //          when item_in_tile(k) < keys_in_tile(n), else use kKeyPastEnd. #pragma unroll, so
  //          that items[] stays in registers and all 16 loads are in flight at once.
}

}  // namespace

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts) {
  // TODO(7): 1. A __shared__ array of kWarpsPerBlock x kRadix counters (one set per warp, so
  //             that warps do not contend for the same counter), zeroed by the block; barrier.
  //          2. load_tile(); each item that is below n (item_in_tile(k) < keys_in_tile(n))
  //             adds 1 to its warp's counter of digit_of(item, shift) with a shared atomicAdd.
  //          3. Barrier. Thread d adds up the kWarpsPerBlock counters of digit d and writes the
  //             sum to digit_counts[d * tiles_for(n) + blockIdx.x] (digit-major).
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
  // TODO(8): Either __match_any_sync(kFullMask, digit), or one vote per bit of the digit: start
  //          from kFullMask and, for each of the kRadixBits bits, keep the lanes that agree with
  //          this lane on it: vote = __ballot_sync(kFullMask, bit set); keep vote if this lane's
  //          bit is set, ~vote if not.
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
  // TODO(9): 1. A __shared__ kWarpsPerBlock x kRadix array of counters, zeroed; barrier.
  //          2. Each warp walks its items k = 0, 1, ... (its keys in input order): digit d,
  //             peers = same_digit_lanes(d); rank = counter[warp][d] + the number of peers below
  //             this lane; keep rank and d for step 4 in positions[k], e.g. (rank << 8) | d.
  //             __syncwarp(); the lowest lane of the peers adds popcount(peers) to
  //             counter[warp][d]; __syncwarp() before the next item.
  //          3. Barrier. Thread t owns digit t: its total over the warps, the exclusive scan of the
  //             256 totals (block_exclusive_sum) = the digit's first position in the sorted tile;
  //             replace counter[w][t] by that plus the counts of digit t in warps before w.
  //          4. Barrier. positions[k] = counter[warp][d] + rank. Return digit t's start.
  return 0u;
}

}  // namespace

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                     const std::uint32_t* digit_offsets, std::uint32_t* keys_out) {
  // TODO(10): 1. Thread t reads this tile's offset of digit t, digit_offsets[t * tiles_for(n) +
  //             blockIdx.x], first (the load overlaps the rest). load_tile(); rank_tile_by_digit()
  //             gives each item's position in the sorted tile and digit t's start in it.
  //          2. Write each item into a __shared__ array of kTileSize keys at its position (the
  //             tile sorted by digit), and base[t] = offset - start into a __shared__ array of
  //             kRadix; barrier.
  //          3. For j = k * kThreadsPerBlock + threadIdx.x below keys_in_tile(n): key = sorted[j],
  //             keys_out[base[digit of key] + j] = key. Neighbouring threads write neighbouring
  //             addresses of the same digit: the stores coalesce.
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
  // TODO(11): kPasses passes, shift = 8 * pass. Pass p reads the previous pass's output (pass 0:
  //          keys_in) and writes scratch.keys_temp() when p is even, keys_out when p is odd.
  //          Each pass: launch_count_digits() into scratch.digit_counts(); the exclusive scan of
  //          the digit_counts_for(n) counts in place (scratch.count_scan(), no total needed);
  //          launch_scatter_by_digit() with those offsets. Everything on `stream`.
}

// ---------------------------------------------------------------------------
// Part 3: key-value pairs

__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::size_t n,
                           int shift, const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                           std::uint32_t* values_out) {
  // TODO(12): As scatter_by_digit, with the values along: load each item's value (same index as
  //          its key; 0 past n) right after the keys, so that those loads are in flight while
  //          the tile is ranked; write keys AND values into two __shared__ tiles at their
  //          positions; then for each j below keys_in_tile(n) write key j and value j to the
  //          same place, base[digit of key j] + j.
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
  // TODO(13): The passes of sort_keys(), with launch_scatter_pairs_by_digit() as phase (c): keys
  //          ping-pong between scratch.keys_temp() and keys_out, values between
  //          scratch.values_temp() and values_out, in step.
}

// ---------------------------------------------------------------------------
// Part 4: int32 and float keys

__host__ __device__ std::uint32_t encode_int(std::int32_t value) {
  // TODO(14): Two's complement puts the negative ints above the positive ones as unsigned
  //          numbers; flipping the sign bit (XOR 0x80000000) moves them below.
  return 0u;
}

__host__ __device__ std::int32_t decode_int(std::uint32_t key) {
  // TODO(15): Flip the sign bit back.
  return 0;
}

__host__ __device__ std::uint32_t encode_float_bits(std::uint32_t bits) {
  // TODO(16): A float is sign, exponent, mantissa: for two non-negative floats the larger one
  //          has the larger bits, for two negative ones the smaller bits. So: a negative float
  //          (sign bit set) gets all its bits inverted (~bits: larger magnitudes now smaller);
  //          a non-negative one gets the sign bit set (above every negative one).
  return 0u;
}

__host__ __device__ std::uint32_t decode_float_bits(std::uint32_t key) {
  // TODO(17): The inverse: a key with the top bit set came from a non-negative float (clear that
  //          bit); a key with the top bit clear from a negative one (invert every bit).
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
  // TODO(18): keys = out seen as std::uint32_t* (reinterpret_cast). launch_encode_int_keys(in ->
  //          keys); sort_keys(keys, keys, ...) in place; launch_decode_int_keys(keys -> out).
}

void sort_floats(const float* in, float* out, std::size_t n, RadixSortScratch& scratch, cudaStream_t stream) {
  check_capacity(n, scratch.max_n(), "sort_floats", "RadixSortScratch");
  check_pointer(in, n, "sort_floats", "in");
  check_pointer(out, n, "sort_floats", "out");
  // TODO(19): As sort_ints, with the float arrays seen as their bits (reinterpret_cast to
  //          const std::uint32_t* and std::uint32_t*) and the float maps.
}

}  // namespace radix_sort
