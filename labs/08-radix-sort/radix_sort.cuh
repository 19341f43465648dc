/// @file radix_sort.cuh
/// @brief Lab 08, radix sort: the contract between your code and the tests.
///
/// A radix sort orders 32-bit keys without comparing them: it looks at a few
/// bits of every key at a time (a **digit**) and moves each key to the place
/// its digit gives it, keeping keys with equal digits in their input order
/// (**stable**). Starting from the lowest digit and ending with the highest
/// (LSD, least significant digit first), the keys end up sorted: after the
/// pass over digit p they are sorted by digits 0..p, because the pass sorts by
/// digit p and, being stable, keeps the order of the earlier passes among
/// keys whose digit p is equal.
///
/// The lab builds it twice:
/// 1. One bit per pass (after Billeter, Olsson and Assarsson): a **split**
///    puts the keys whose bit b is 0 first and those whose bit b is 1 after
///    them, each group in input order. The position of a key comes from an
///    exclusive scan of 0/1 flags over all n keys (workbook::CountScan), as in
///    lab 06's naive compaction. 32 splits sort the keys; each one moves every
///    key through DRAM several times, so this is correct and slow.
/// 2. Eight bits per pass, four passes, over tiles of kTileSize keys (one
///    block per tile):
///    (a) count_digits: every tile counts its keys per digit (256 counts) and
///        writes them **digit-major**: counts[digit * tiles + tile];
///    (b) one exclusive scan of those counts (workbook::CountScan) gives every
///        (digit, tile) the output position of its first key: all keys with
///        smaller digits, then the keys with the same digit in earlier tiles;
///    (c) scatter_by_digit: every tile ranks its keys stably by digit in
///        shared memory and writes key r of digit d to
///        offset[d][tile] + (its rank among the tile's keys of digit d).
/// 3. Key-value pairs: the same passes, each value travelling with its key.
/// 4. int32 and float keys: an order-preserving map to uint32 keys, the
///    uint32 sort, and the map back.
///
/// Conventions of the whole lab:
/// - Keys are std::uint32_t (part 4: std::int32_t and float), values are
///   std::uint32_t; n must stay below 2^32 (positions are 32-bit).
/// - Outputs hold n elements; nothing past them is written.
/// - Inputs are never written unless the caller passes the same array as
///   input and output (a sort in place, allowed where a function says so).
/// - Every host function is asynchronous on the stream it is given and
///   allocates nothing: the scratch objects hold all the temporary memory,
///   allocated once. One sort at a time per scratch object.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "workbook/buffers.hpp"
#include "workbook/count_scan.cuh"

namespace radix_sort {

/// @brief Threads in a warp.
constexpr int kWarpSize = 32;

/// @brief The mask naming all 32 lanes of a warp, for the *_sync intrinsics.
constexpr unsigned kFullMask = 0xFFFFFFFFu;

/// @brief Bits in a key.
constexpr int kKeyBits = 32;

/// @brief Bits of one digit of the multi-bit sort: 8, so four passes sort a
/// 32-bit key and a tile has 256 digit counts, one per thread of a block.
constexpr int kRadixBits = 8;

/// @brief Distinct digits: 2^kRadixBits = 256.
constexpr int kRadix = 1 << kRadixBits;

/// @brief The mask of one digit's bits: the low kRadixBits bits set (255).
constexpr std::uint32_t kDigitMask = kRadix - 1;

/// @brief Passes of the multi-bit sort: 32 / 8 = 4, shifts 0, 8, 16 and 24.
constexpr int kPasses = kKeyBits / kRadixBits;

/// @brief Threads per block of every kernel of the lab: 8 whole warps, and
/// exactly one thread per digit, so that thread d can own digit d's counts.
constexpr int kThreadsPerBlock = 256;

/// @brief Warps per block.
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

/// @brief Keys each thread holds per tile. Sixteen loads per thread are in
/// flight at once, and the per-tile work (256 counts written, scanned and read
/// back, two barriers, a scan of 256 totals) is paid once per 4096 keys.
constexpr int kItemsPerThread = 16;

/// @brief Keys per tile: one block of kThreadsPerBlock threads handles one
/// tile in count_digits() and scatter_by_digit().
constexpr int kTileSize = kThreadsPerBlock * kItemsPerThread;

/// @brief Keys of a tile owned by one warp: warp w owns tile keys
/// w * kWarpTileSize .. (w + 1) * kWarpTileSize - 1, and lane l's item k is
/// tile key w * kWarpTileSize + k * kWarpSize + l ("warp-striped"): each load
/// of a warp reads 32 neighbouring keys, and a warp's items, taken k by k and
/// lane by lane, are its keys in input order.
constexpr int kWarpTileSize = kWarpSize * kItemsPerThread;

static_assert(kThreadsPerBlock == kRadix, "one thread per digit: thread d owns the counts of digit d");
static_assert(kKeyBits % kRadixBits == 0, "whole digits per key");
static_assert(kThreadsPerBlock % kWarpSize == 0, "blocks are whole warps");

/// @brief The number of tiles that cover @p n keys: the grid of
/// count_digits() and scatter_by_digit(), and the number of counts per digit.
/// @param[in] n Number of keys.
/// @return ceil(n / kTileSize); 0 for n = 0.
__host__ __device__ constexpr std::size_t tiles_for(std::size_t n) {
  return (n + kTileSize - 1) / kTileSize;
}

/// @brief The number of digit counts of a pass over @p n keys: kRadix per tile.
/// @param[in] n Number of keys.
/// @return kRadix * tiles_for(n).
__host__ __device__ constexpr std::size_t digit_counts_for(std::size_t n) {
  return static_cast<std::size_t>(kRadix) * tiles_for(n);
}

/// @brief The number of 1 bits of @p bits: __popc on the device, the
/// compiler's builtin on the host.
/// @param[in] bits A 32-bit mask.
/// @return 0 to 32.
__host__ __device__ inline int popcount(unsigned bits) {
#if defined(__CUDA_ARCH__)
  return __popc(bits);
#else
  return __builtin_popcount(bits);
#endif
}

// ---------------------------------------------------------------------------
// Part 1: split by one bit

/// @brief Scratch memory of the one-bit sort, allocated once for inputs of up
/// to max_n() keys: one flag per key (scanned in place into offsets), the
/// scanner, the count of keys whose bit is 0, and a second key array for the
/// passes to ping-pong through. Move-only.
class SplitScratch {
 public:
  /// @brief Allocates the scratch for inputs of up to @p max_n keys.
  /// @param[in] max_n The largest n the splits will be given, below 2^32.
  /// @throws std::invalid_argument when max_n is 2^32 or more.
  /// @throws workbook::CudaError when an allocation fails.
  explicit SplitScratch(std::size_t max_n);

  /// @brief The largest n this scratch was built for.
  /// @return max_n as given at construction.
  std::size_t max_n() const noexcept { return max_n_; }

  /// @brief Device array of max_n() flags, then their exclusive prefix sums.
  /// @return The device pointer.
  std::uint32_t* flags() noexcept { return flags_.data(); }

  /// @brief The scanner of the flags, built for max_n() counts.
  /// @return The scanner.
  workbook::CountScan& count_scan() noexcept { return count_scan_; }

  /// @brief Device pointer to one count: the scan's total, the number of
  /// keys whose bit is 0.
  /// @return The device pointer.
  std::uint32_t* zero_count() noexcept { return zero_count_.data(); }

  /// @brief Device array of max_n() keys: where split_sort() puts every other pass.
  /// @return The device pointer.
  std::uint32_t* keys_temp() noexcept { return keys_temp_.data(); }

 private:
  std::size_t max_n_;
  workbook::DeviceBuffer<std::uint32_t> flags_;
  workbook::CountScan count_scan_;
  workbook::DeviceBuffer<std::uint32_t> zero_count_;
  workbook::DeviceBuffer<std::uint32_t> keys_temp_;
};

/// @brief One thread per key: flags[i] = 1 when bit @p bit of keys[i] is 0,
/// else 0. The exclusive scan of these flags is, for each key whose bit is 0,
/// its position in the split's output.
/// @param[in] keys Device array of n keys.
/// @param[in] n Number of keys.
/// @param[in] bit The bit tested, 0 (lowest) to 31.
/// @param[out] flags Device array of n flags.
__global__ void flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags);

/// @brief Launches flag_zero_bits with one thread per key, kThreadsPerBlock
/// threads per block; checks the launch.
/// @param[in] keys Device array of n keys.
/// @param[in] n Number of keys; 0 launches nothing.
/// @param[in] bit The bit tested, 0 to 31.
/// @param[out] flags Device array of n flags.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_flag_zero_bits(const std::uint32_t* keys, std::size_t n, int bit, std::uint32_t* flags,
                           cudaStream_t stream = nullptr);

/// @brief One thread per key: the stable split. Keys whose bit is 0 come
/// first, then those whose bit is 1, each group in input order; *zero_count
/// is the number of keys whose bit is 0 and zero_offsets[i] the number of
/// them before key i.
/// @param[in] keys_in Device array of n keys.
/// @param[in] n Number of keys.
/// @param[in] bit The bit tested, 0 to 31.
/// @param[in] zero_offsets Device array of n offsets: the exclusive scan of
///            the flags of flag_zero_bits().
/// @param[in] zero_count Device pointer to the number of keys whose bit is 0.
/// @param[out] keys_out Device array of n keys, not overlapping @p keys_in.
__global__ void split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                              const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                              std::uint32_t* keys_out);

/// @brief Launches split_scatter with one thread per key, kThreadsPerBlock
/// threads per block; checks the launch.
/// @param[in] keys_in Device array of n keys.
/// @param[in] n Number of keys; 0 launches nothing.
/// @param[in] bit The bit tested, 0 to 31.
/// @param[in] zero_offsets Device array of n offsets.
/// @param[in] zero_count Device pointer to the number of keys whose bit is 0.
/// @param[out] keys_out Device array of n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_split_scatter(const std::uint32_t* keys_in, std::size_t n, int bit,
                          const std::uint32_t* zero_offsets, const std::uint32_t* zero_count,
                          std::uint32_t* keys_out, cudaStream_t stream = nullptr);

/// @brief The stable split of n keys on bit @p bit: keys_out holds first the
/// keys whose bit is 0, then those whose bit is 1, each group in input order.
/// flag_zero_bits into scratch.flags(), their exclusive scan in place with
/// the total in scratch.zero_count(), split_scatter.
/// @param[in] keys_in Device array of n keys (not written).
/// @param[out] keys_out Device array of n keys; must not be @p keys_in.
/// @param[in] n Number of keys, at most scratch.max_n(); 0 does nothing.
/// @param[in] bit The bit, 0 to 31.
/// @param[in,out] scratch Scratch built for at least n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n(), bit
///         is outside 0..31, a pointer is null while n > 0, or keys_out is keys_in.
/// @throws workbook::CudaError when a launch fails.
void split_by_bit(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, int bit,
                  SplitScratch& scratch, cudaStream_t stream = nullptr);

/// @brief Sorts n keys with 32 stable splits, bits 0 to 31, ping-ponging
/// between scratch.keys_temp() and @p keys_out (an even number of passes ends
/// in keys_out). Correct and slow on purpose: the handout measures it.
/// @param[in] keys_in Device array of n keys; not written unless it is @p keys_out.
/// @param[out] keys_out Device array of n keys: the keys in ascending order.
///             May be @p keys_in (in place).
/// @param[in] n Number of keys, at most scratch.max_n(); 0 does nothing.
/// @param[in,out] scratch Scratch built for at least n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n() or a
///         pointer is null while n > 0.
/// @throws workbook::CudaError when a launch fails.
void split_sort(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, SplitScratch& scratch,
                cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 2: eight bits per pass

/// @brief The digit of @p key in the pass with shift @p shift: its bits
/// shift .. shift + 7, as a number 0 to 255.
/// @param[in] key A key.
/// @param[in] shift 0, 8, 16 or 24.
/// @return Bits shift to shift + kRadixBits - 1 of @p key, moved down to bits 0 to 7.
__host__ __device__ std::uint32_t digit_of(std::uint32_t key, int shift);

/// @brief Scratch memory of the multi-bit sorts, allocated once for inputs of
/// up to max_n() keys: a second key array (and, for pairs, a second value
/// array) for the passes to ping-pong through, the digit counts of one pass
/// (scanned in place into offsets), and their scanner. Move-only.
class RadixSortScratch {
 public:
  /// @brief Allocates the scratch for inputs of up to @p max_n keys.
  /// @param[in] max_n The largest n the sorts will be given, below 2^32.
  /// @param[in] with_values Whether to allocate the value array that
  ///            sort_pairs() needs (4 bytes per key more).
  /// @throws std::invalid_argument when max_n is 2^32 or more.
  /// @throws workbook::CudaError when an allocation fails.
  explicit RadixSortScratch(std::size_t max_n, bool with_values = false);

  /// @brief The largest n this scratch was built for.
  /// @return max_n as given at construction.
  std::size_t max_n() const noexcept { return max_n_; }

  /// @brief Whether the scratch has the value array of sort_pairs().
  /// @return with_values as given at construction.
  bool has_values() const noexcept { return has_values_; }

  /// @brief Device array of max_n() keys for the ping-pong.
  /// @return The device pointer.
  std::uint32_t* keys_temp() noexcept { return keys_temp_.data(); }

  /// @brief Device array of max_n() values for the ping-pong (nullptr without values).
  /// @return The device pointer.
  std::uint32_t* values_temp() noexcept { return values_temp_.data(); }

  /// @brief Device array of digit_counts_for(max_n()) counts: count_digits()
  /// writes one pass's counts, the scan turns them into offsets in place.
  /// @return The device pointer.
  std::uint32_t* digit_counts() noexcept { return digit_counts_.data(); }

  /// @brief The scanner of the digit counts, built for digit_counts_for(max_n()) counts.
  /// @return The scanner.
  workbook::CountScan& count_scan() noexcept { return count_scan_; }

 private:
  std::size_t max_n_;
  bool has_values_;
  workbook::DeviceBuffer<std::uint32_t> keys_temp_;
  workbook::DeviceBuffer<std::uint32_t> values_temp_;
  workbook::DeviceBuffer<std::uint32_t> digit_counts_;
  workbook::CountScan count_scan_;
};

/// @brief Phase (a): block b counts the keys of tile b (keys b * kTileSize to
/// (b + 1) * kTileSize - 1, the last tile stopping at n) per digit, and
/// writes the count of digit d to digit_counts[d * tiles_for(n) + b]:
/// digit-major, so that one exclusive scan of the whole array gives every
/// (digit, tile) its output offset.
/// @param[in] keys Device array of n keys.
/// @param[in] n Number of keys.
/// @param[in] shift The pass's shift: 0, 8, 16 or 24.
/// @param[out] digit_counts Device array of digit_counts_for(n) counts.
__global__ void count_digits(const std::uint32_t* keys, std::size_t n, int shift,
                             std::uint32_t* digit_counts);

/// @brief Launches count_digits with tiles_for(n) blocks of kThreadsPerBlock
/// threads; checks the launch.
/// @param[in] keys Device array of n keys.
/// @param[in] n Number of keys; 0 launches nothing.
/// @param[in] shift The pass's shift.
/// @param[out] digit_counts Device array of digit_counts_for(n) counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_count_digits(const std::uint32_t* keys, std::size_t n, int shift, std::uint32_t* digit_counts,
                         cudaStream_t stream = nullptr);

/// @brief A hook for the tests, written for you: block b ranks tile b of
/// @p items with rank_tile_by_digit() of radix_sort.cu, the ranking that
/// phase (c) uses, so that the ranking is tested on its own. Thread t's item k
/// is items[(b * kThreadsPerBlock + t) * kItemsPerThread + k]; the tests lay
/// the tile out as load_tile() holds it (lane l of warp w: tile key
/// w * kWarpTileSize + k * kWarpSize + l), a short last tile padded with 0xFFFFFFFF.
/// @param[in] items Device array of tiles * kTileSize keys, in thread order.
/// @param[in] shift The pass's shift: 0, 8, 16 or 24.
/// @param[out] positions Device array of tiles * kTileSize positions, in the
///             order of @p items: where each key goes in its tile sorted
///             stably by digit (0 to kTileSize - 1).
/// @param[out] digit_starts Device array of tiles * kRadix counts:
///             digit_starts[b * kRadix + d] = the keys of tile b whose digit is below d.
__global__ void rank_tiles_by_digit(const std::uint32_t* items, int shift, std::uint32_t* positions,
                                    std::uint32_t* digit_starts);

/// @brief Launches rank_tiles_by_digit with @p tiles blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] items Device array of tiles * kTileSize keys, in thread order.
/// @param[in] tiles Number of tiles; 0 launches nothing.
/// @param[in] shift The pass's shift.
/// @param[out] positions Device array of tiles * kTileSize positions.
/// @param[out] digit_starts Device array of tiles * kRadix counts.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_rank_tiles_by_digit(const std::uint32_t* items, std::size_t tiles, int shift,
                                std::uint32_t* positions, std::uint32_t* digit_starts,
                                cudaStream_t stream = nullptr);

/// @brief Phase (c): block b ranks the keys of tile b stably by digit (rank r
/// of digit d: r keys of digit d come before it in the tile) and writes each
/// key to keys_out[digit_offsets[d * tiles_for(n) + b] + r].
/// @param[in] keys_in Device array of n keys.
/// @param[in] n Number of keys.
/// @param[in] shift The pass's shift: 0, 8, 16 or 24.
/// @param[in] digit_offsets Device array of digit_counts_for(n) offsets: the
///            exclusive scan of count_digits()'s counts.
/// @param[out] keys_out Device array of n keys, not overlapping @p keys_in.
__global__ void scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                                 const std::uint32_t* digit_offsets, std::uint32_t* keys_out);

/// @brief Launches scatter_by_digit with tiles_for(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] keys_in Device array of n keys.
/// @param[in] n Number of keys; 0 launches nothing.
/// @param[in] shift The pass's shift.
/// @param[in] digit_offsets Device array of digit_counts_for(n) offsets.
/// @param[out] keys_out Device array of n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_scatter_by_digit(const std::uint32_t* keys_in, std::size_t n, int shift,
                             const std::uint32_t* digit_offsets, std::uint32_t* keys_out,
                             cudaStream_t stream = nullptr);

/// @brief LSD radix sort of n keys, ascending: kPasses passes of phases (a),
/// (b) and (c), shifts 0, 8, 16, 24, ping-ponging between
/// scratch.keys_temp() and @p keys_out (passes 0 and 2 write the temporary,
/// passes 1 and 3 write keys_out). Stable (equal keys keep their order;
/// see sort_pairs()).
/// @param[in] keys_in Device array of n keys; not written unless it is @p keys_out.
/// @param[out] keys_out Device array of n keys: the keys in ascending order.
///             May be @p keys_in (in place); no other overlap.
/// @param[in] n Number of keys, at most scratch.max_n(); 0 does nothing.
/// @param[in,out] scratch Scratch built for at least n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n() or a
///         pointer is null while n > 0.
/// @throws workbook::CudaError when a launch fails.
void sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n,
               RadixSortScratch& scratch, cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 3: key-value pairs

/// @brief Phase (c) for pairs: as scatter_by_digit, and the value of each
/// key goes to the same position in values_out.
/// @param[in] keys_in Device array of n keys.
/// @param[in] values_in Device array of n values.
/// @param[in] n Number of pairs.
/// @param[in] shift The pass's shift: 0, 8, 16 or 24.
/// @param[in] digit_offsets Device array of digit_counts_for(n) offsets.
/// @param[out] keys_out Device array of n keys, not overlapping @p keys_in.
/// @param[out] values_out Device array of n values, not overlapping @p values_in.
__global__ void scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                       std::size_t n, int shift, const std::uint32_t* digit_offsets,
                                       std::uint32_t* keys_out, std::uint32_t* values_out);

/// @brief Launches scatter_pairs_by_digit with tiles_for(n) blocks of
/// kThreadsPerBlock threads; checks the launch.
/// @param[in] keys_in Device array of n keys.
/// @param[in] values_in Device array of n values.
/// @param[in] n Number of pairs; 0 launches nothing.
/// @param[in] shift The pass's shift.
/// @param[in] digit_offsets Device array of digit_counts_for(n) offsets.
/// @param[out] keys_out Device array of n keys.
/// @param[out] values_out Device array of n values.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws workbook::CudaError when the launch fails.
void launch_scatter_pairs_by_digit(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                   std::size_t n, int shift, const std::uint32_t* digit_offsets,
                                   std::uint32_t* keys_out, std::uint32_t* values_out,
                                   cudaStream_t stream = nullptr);

/// @brief Stable LSD radix sort of n key-value pairs by key: the passes of
/// sort_keys(), every value moving with its key, pairs with equal keys in
/// their input order.
/// @param[in] keys_in Device array of n keys; not written unless it is @p keys_out.
/// @param[in] values_in Device array of n values; not written unless it is @p values_out.
/// @param[out] keys_out Device array of n keys, ascending; may be @p keys_in.
/// @param[out] values_out Device array of n values, each beside its key; may be @p values_in.
/// @param[in] n Number of pairs, at most scratch.max_n(); 0 does nothing.
/// @param[in,out] scratch Scratch built for at least n keys, with values.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n(), the
///         scratch has no value array, or a pointer is null while n > 0.
/// @throws workbook::CudaError when a launch fails.
void sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                std::uint32_t* values_out, std::size_t n, RadixSortScratch& scratch,
                cudaStream_t stream = nullptr);

// ---------------------------------------------------------------------------
// Part 4: int32 and float keys

/// @brief The uint32 key of an int32 whose unsigned order is the int32's
/// order: INT_MIN -> 0, -1 -> 0x7FFFFFFF, 0 -> 0x80000000, INT_MAX -> 0xFFFFFFFF.
/// @param[in] value Any int32.
/// @return Its key.
__host__ __device__ std::uint32_t encode_int(std::int32_t value);

/// @brief The inverse of encode_int(): decode_int(encode_int(x)) == x.
/// @param[in] key A key made by encode_int().
/// @return The int32.
__host__ __device__ std::int32_t decode_int(std::uint32_t key);

/// @brief The uint32 key of a float, given as its bit pattern, whose unsigned
/// order is the IEEE 754 totalOrder of floats: negative NaNs (larger payloads
/// first), -inf, negative numbers, denormals, -0.0, +0.0, positive denormals
/// and numbers, +inf, positive NaNs (smaller payloads first). So -0.0 sorts
/// before +0.0, a NaN with the sign bit clear after +inf, and one with the
/// sign bit set before -inf. A bijection: every bit pattern keeps its bits.
/// @param[in] bits The float's bits (float_bits()).
/// @return Its key.
__host__ __device__ std::uint32_t encode_float_bits(std::uint32_t bits);

/// @brief The inverse of encode_float_bits().
/// @param[in] key A key made by encode_float_bits().
/// @return The float's bits.
__host__ __device__ std::uint32_t decode_float_bits(std::uint32_t key);

/// @brief The bit pattern of a float (__float_as_uint on the device, memcpy on the host).
/// @param[in] value A float.
/// @return Its 32 bits.
__host__ __device__ inline std::uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
#endif
}

/// @brief The float with bit pattern @p bits: the inverse of float_bits().
/// @param[in] bits 32 bits.
/// @return The float.
__host__ __device__ inline float float_from_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
#endif
}

/// @brief Sorts n int32 ascending: every value mapped by encode_int() into
/// @p out (as uint32 keys), sort_keys() in place, every key mapped back by
/// decode_int().
/// @param[in] in Device array of n ints; not written unless it is @p out.
/// @param[out] out Device array of n ints, ascending; may be @p in.
/// @param[in] n Number of ints, at most scratch.max_n(); 0 does nothing.
/// @param[in,out] scratch Scratch built for at least n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n() or a
///         pointer is null while n > 0.
/// @throws workbook::CudaError when a launch fails.
void sort_ints(const std::int32_t* in, std::int32_t* out, std::size_t n, RadixSortScratch& scratch,
               cudaStream_t stream = nullptr);

/// @brief Sorts n floats in the order of encode_float_bits() (IEEE 754
/// totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN), keeping
/// every bit pattern (NaN payloads included): encode into @p out, sort_keys()
/// in place, decode.
/// @param[in] in Device array of n floats; not written unless it is @p out.
/// @param[out] out Device array of n floats, in that order; may be @p in.
/// @param[in] n Number of floats, at most scratch.max_n(); 0 does nothing.
/// @param[in,out] scratch Scratch built for at least n keys.
/// @param[in] stream The stream to launch on (default: the default stream).
/// @throws std::invalid_argument when n is larger than scratch.max_n() or a
///         pointer is null while n > 0.
/// @throws workbook::CudaError when a launch fails.
void sort_floats(const float* in, float* out, std::size_t n, RadixSortScratch& scratch,
                 cudaStream_t stream = nullptr);

}  // namespace radix_sort
