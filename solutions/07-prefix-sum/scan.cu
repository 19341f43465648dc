// SOLUTION-ONLY: Lab 07 reference solution. labs/07-prefix-sum/scan.cu is generated from
// SOLUTION-ONLY: this file by tools/make_skeletons.py: edit here, then regenerate.
// STUDENT-ONLY: Lab 07: prefix sum. This is your file: fill in each TODO, then run
// STUDENT-ONLY:   ./workbook grade prefix-sum
// STUDENT-ONLY: The handout is labs/07-prefix-sum/README.md. CUB, Thrust and lab 06's
// STUDENT-ONLY: workbook::CountScan are off limits here: the grader refuses a file that uses them.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "scan.cuh"
#include "workbook/cuda_check.hpp"

namespace scan {

namespace {

std::size_t ceil_div(std::size_t n, std::size_t d) {
  return (n + d - 1) / d;
}

// The number of SMs of the current GPU, read once.
int sm_count() {
  static const int count = [] {
    int device = 0;
    int value = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device));
    return value;
  }();
  return count;
}

bool is_power_of_two(int value) {
  return value > 0 && (value & (value - 1)) == 0;
}

void check_block_size(bool ok, const char* launcher, const char* rule, int threads) {
  if (!ok) {
    throw std::invalid_argument(std::string(launcher) + ": the block size must be " + rule + ", got " +
                                std::to_string(threads));
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Part 1: block scans.

// The inclusive scan of one value per lane (int or float). Every lane must call it.
// WALKTHROUGH: warp_scan
template <typename T>
__device__ T warp_scan(T value) {
  // HOLE: Return, in every lane k, the sum of the values of lanes 0..k: the warp's inclusive scan.
  // HOLE: Warp shuffles only (__shfl_up_sync with kFullWarpMask), no shared memory; all 32 lanes take
  // HOLE: part in every shuffle.
  // STUB: return value;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    // Every lane shuffles, even those that will not add: a shuffle's mask
    // promises that all 32 lanes take part.
    const T below = __shfl_up_sync(kFullWarpMask, value, offset);
    if (lane >= offset) value += below;
  }
  return value;
  // END HOLE
}
// END WALKTHROUGH: warp_scan

__device__ int warp_inclusive_scan(int value) {
  return warp_scan(value);
}

// The inclusive scan of one value per thread of the block; *block_total gets
// the sum of all of them. The block must be whole warps, and every thread must
// call it. It ends with a barrier, so that a loop may call it again at once.
// WALKTHROUGH: block_scan
template <typename T>
__device__ T block_scan(T value, T* block_total) {
  __shared__ T warp_totals[kMaxThreadsPerBlock / kWarpSize];
  // HOLE: Return thread t's inclusive scan over the block (the values of threads 0..t) and set
  // HOLE: *block_total, in every thread, to the sum of all of them, from warp_scan and warp_totals.
  // HOLE: When warp 0 scans warp_totals, its lanes past the block's last warp bring 0: those slots
  // HOLE: are never written. Every thread reaches every barrier, and the function ends with one: a
  // HOLE: second call must not overwrite warp_totals while a slow warp still reads it.
  // STUB: *block_total = value;
  // STUB: return value;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  const int warps = static_cast<int>(blockDim.x) / kWarpSize;
  T inclusive = warp_scan(value);
  if (lane == kWarpSize - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    // A scan of the warp totals turns each into "the total of warps 0..w".
    const T total = warp_scan(lane < warps ? warp_totals[lane] : T(0));
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) inclusive += warp_totals[warp - 1];
  *block_total = warp_totals[warps - 1];
  __syncthreads();
  return inclusive;
  // END HOLE
}
// END WALKTHROUGH: block_scan

__global__ void warp_scans(const int* in, int* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Threads past n still take part in the shuffles, with 0.
  const int inclusive = warp_inclusive_scan(i < n ? in[i] : 0);
  if (i < n) out[i] = inclusive;
}

// WALKTHROUGH: hillis_steele
__global__ void block_scan_hillis_steele(const int* in, int* out, std::size_t n) {
  // HOLE: out[i] = the inclusive scan of the block's slice (blockDim.x elements from blockIdx.x *
  // HOLE: blockDim.x; past n they count as 0 and are not written), Hillis-Steele, for any block size.
  // HOLE: Declare the dynamic shared array yourself (extern __shared__; the launcher gives it
  // HOLE: 2 * blockDim.x ints) and use it as two buffers; every thread reaches every __syncthreads().
  extern __shared__ int buffers[];
  const int t = static_cast<int>(threadIdx.x);
  const int size = static_cast<int>(blockDim.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int* from = buffers;
  int* to = buffers + size;
  from[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < size; d *= 2) {
    // Writing into the other buffer: element t - d must still be the old value
    // when thread t reads it, whatever order the warps run in.
    to[t] = t >= d ? from[t] + from[t - d] : from[t];
    __syncthreads();
    int* swap = from;
    from = to;
    to = swap;
  }
  if (i < n) out[i] = from[t];
  // END HOLE
}
// END WALKTHROUGH: hillis_steele

// WALKTHROUGH: blelloch
__global__ void block_scan_blelloch(const int* in, int* out, std::size_t n) {
  // HOLE: out = the EXCLUSIVE scan of the block's slice (2 * blockDim.x elements from blockIdx.x * 2 *
  // HOLE: blockDim.x; past n they count as 0 and are not written), by Blelloch's up-sweep and
  // HOLE: down-sweep in a tree of 2 * blockDim.x ints in shared memory: declare it yourself as a dynamic
  // HOLE: shared array (extern __shared__; the launcher gives it 2 * blockDim.x ints). blockDim.x is a
  // HOLE: power of two. Every thread reaches every barrier.
  extern __shared__ int tree[];
  const int t = static_cast<int>(threadIdx.x);
  const int half = static_cast<int>(blockDim.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * 2 * blockDim.x;
  tree[t] = base + t < n ? in[base + t] : 0;
  tree[t + half] = base + t + half < n ? in[base + t + half] : 0;
  // Up-sweep: after the step with `stride`, tree[k * 2 stride - 1] holds the sum
  // of the 2 stride elements that end there. 2 * blockDim.x - 1 additions in all.
  int stride = 1;
  for (int active = half; active > 0; active /= 2) {
    __syncthreads();
    if (t < active) tree[(2 * t + 2) * stride - 1] += tree[(2 * t + 1) * stride - 1];
    stride *= 2;
  }
  if (t == 0) tree[2 * half - 1] = 0;
  // Down-sweep: each node passes its prefix to its left child and the prefix
  // plus the left child's sum to its right child.
  for (int active = 1; active <= half; active *= 2) {
    stride /= 2;
    __syncthreads();
    if (t < active) {
      const int left = (2 * t + 1) * stride - 1;
      const int right = left + stride;
      const int left_sum = tree[left];
      tree[left] = tree[right];
      tree[right] += left_sum;
    }
  }
  __syncthreads();
  if (base + t < n) out[base + t] = tree[t];
  if (base + t + half < n) out[base + t + half] = tree[t + half];
  // END HOLE
}
// END WALKTHROUGH: blelloch

__global__ void block_scan_shuffle(const int* in, int* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int block_total = 0;
  const int inclusive = block_scan(i < n ? in[i] : 0, &block_total);
  if (i < n) out[i] = inclusive;
}

void launch_warp_scans(const int* in, int* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, kThreadsPerBlock));
  warp_scans<<<blocks, kThreadsPerBlock, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH("warp_scans");
}

void launch_block_scan_hillis_steele(const int* in, int* out, std::size_t n, int threads_per_block,
                                     cudaStream_t stream) {
  check_block_size(threads_per_block >= 1 && threads_per_block <= kMaxThreadsPerBlock,
                   "launch_block_scan_hillis_steele", "1 to 1024", threads_per_block);
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, static_cast<std::size_t>(threads_per_block)));
  const std::size_t shared_bytes = 2 * static_cast<std::size_t>(threads_per_block) * sizeof(int);
  block_scan_hillis_steele<<<blocks, threads_per_block, shared_bytes, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH("block_scan_hillis_steele");
}

void launch_block_scan_blelloch(const int* in, int* out, std::size_t n, int threads_per_block,
                                cudaStream_t stream) {
  check_block_size(is_power_of_two(threads_per_block) && threads_per_block <= kMaxThreadsPerBlock,
                   "launch_block_scan_blelloch", "a power of two from 1 to 1024", threads_per_block);
  if (n == 0) return;
  const std::size_t per_block = 2 * static_cast<std::size_t>(threads_per_block);
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, per_block));
  block_scan_blelloch<<<blocks, threads_per_block, per_block * sizeof(int), stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH("block_scan_blelloch");
}

void launch_block_scan_shuffle(const int* in, int* out, std::size_t n, int threads_per_block,
                               cudaStream_t stream) {
  check_block_size(threads_per_block >= kWarpSize && threads_per_block <= kMaxThreadsPerBlock &&
                       threads_per_block % kWarpSize == 0,
                   "launch_block_scan_shuffle", "a multiple of 32 from 32 to 1024", threads_per_block);
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(ceil_div(n, static_cast<std::size_t>(threads_per_block)));
  block_scan_shuffle<<<blocks, threads_per_block, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH("block_scan_shuffle");
}

// ---------------------------------------------------------------------------
// Tiles: provided. A whole-array scan wants each thread to own kItemsPerThread
// CONSECUTIVE elements (a cheap serial scan in registers), but a warp reads
// memory fastest as 32 consecutive words per instruction. So each warp loads
// its 512 elements in 32-wide rows into its own piece of shared memory and
// reads them back 16 consecutive per lane (and the reverse to store).

[[maybe_unused]] constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;
constexpr int kWarpTile = kWarpSize * kItemsPerThread;
// One padding word after every 32: lane l's 16 consecutive words would
// otherwise start 16 words apart and two lanes would share every bank.
[[maybe_unused]] constexpr int kStagingPerWarp = kWarpTile + kWarpTile / kWarpSize;

// Blocks of scan_ranges that must fit on an SM at once: 4 of 256 threads,
// 1024 threads (half of a Hopper SM's 2048), which caps their registers at
// 65536 / 1024 = 64 per thread. Without the cap nvcc 13.0 gives scan_ranges
// 80 registers for sm_90 (-Xptxas -v): 80 * 256 = 20480 per block, so only 3
// blocks fit in an SM's 65536 registers. With it, 64 and no spill.
constexpr int kMinBlocksPerSm = 1024 / kThreadsPerBlock;

__device__ int padded(int index) {
  return index + index / kWarpSize;
}

// Thread t of the block gets elements [t * kItemsPerThread, (t + 1) * kItemsPerThread)
// of the tile that starts at tile_start; elements past n read as 0. Offsets
// inside a warp's piece are 32-bit ints from one 64-bit base pointer: 16
// 64-bit addresses per thread would cost registers, and registers decide how
// many blocks fit on an SM.
template <typename T>
__device__ void load_tile(const T* in, std::size_t n, std::size_t tile_start, T (&items)[kItemsPerThread],
                          T* warp_staging) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const std::size_t warp_start = tile_start + static_cast<std::size_t>(threadIdx.x / kWarpSize) * kWarpTile;
  const T* warp_in = in + warp_start;
  if (warp_start + kWarpTile <= n) {
    // A whole piece: 16 loads in flight per thread, no bounds checks.
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      warp_staging[padded(k * kWarpSize + lane)] = warp_in[k * kWarpSize + lane];
    }
  } else {
    const int valid = warp_start < n ? static_cast<int>(n - warp_start) : 0;
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k) {
      const int j = k * kWarpSize + lane;
      warp_staging[padded(j)] = j < valid ? warp_in[j] : T(0);
    }
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) items[k] = warp_staging[padded(lane * kItemsPerThread + k)];
  __syncwarp();
}

// The reverse of load_tile: writes the elements of the tile that are below n.
template <typename T>
__device__ void store_tile(T* out, std::size_t n, std::size_t tile_start, const T (&items)[kItemsPerThread],
                           T* warp_staging) {
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const std::size_t warp_start = tile_start + static_cast<std::size_t>(threadIdx.x / kWarpSize) * kWarpTile;
  T* warp_out = out + warp_start;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) warp_staging[padded(lane * kItemsPerThread + k)] = items[k];
  __syncwarp();
  const int valid = warp_start + kWarpTile <= n ? kWarpTile
                    : warp_start < n            ? static_cast<int>(n - warp_start)
                                                : 0;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int j = k * kWarpSize + lane;
    if (j < valid) warp_out[j] = warp_staging[padded(j)];
  }
  __syncwarp();
}

// Replaces each of a thread's items with the running sum that starts at
// `running`: taken before adding the item (exclusive) or after (inclusive).
template <typename T>
__device__ void scan_items(T (&items)[kItemsPerThread], T running, ScanKind kind) {
  // HOLE: Replace items[0 .. kItemsPerThread) with their running sum from `running`, in order: without
  // HOLE: the item itself for ScanKind::exclusive, with it for ScanKind::inclusive.
  const bool exclusive = kind == ScanKind::exclusive;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    // One loop with a select, not two unrolled loops: half the code and registers.
    const T before = running;
    running += items[k];
    items[k] = exclusive ? before : running;
  }
  // END HOLE
}

// Scans one tile held as load_tile leaves it, adding carry_in to every
// element, and returns the sum of the tile's own elements.
// WALKTHROUGH: scan_tile
template <typename T>
__device__ T scan_tile(T (&items)[kItemsPerThread], T carry_in, ScanKind kind) {
  // HOLE: Scan every item of the tile in place (`kind`), as if the tile came right after a prefix of
  // HOLE: carry_in, and return the sum of the tile's own elements (in every thread). Build it from
  // HOLE: block_scan and scan_items; every thread of the block calls block_scan.
  // STUB: return T(0);
  T thread_sum = T(0);
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) thread_sum += items[k];
  T tile_total = T(0);
  const T inclusive = block_scan(thread_sum, &tile_total);
  scan_items(items, carry_in + (inclusive - thread_sum), kind);
  return tile_total;
  // END HOLE
}
// END WALKTHROUGH: scan_tile

// ---------------------------------------------------------------------------
// Part 2: reduce-then-scan. Block b owns tiles [b * tiles_per_block, (b + 1) * tiles_per_block).

// WALKTHROUGH: reduce_ranges
template <typename T>
__global__ void reduce_ranges(const T* in, std::size_t n, std::size_t tiles_per_block, T* block_sums) {
  // HOLE: block_sums[blockIdx.x] = the sum of the elements of this block's range of tiles that are below
  // HOLE: n, written once, by one thread. Each warp's loads are coalesced (32 consecutive elements per
  // HOLE: load); block_scan gives the block's total, and every thread reaches it.
  const std::size_t first_tile = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  T sum = T(0);
  for (std::size_t tile = first_tile; tile < first_tile + tiles_per_block; ++tile) {
    const std::size_t tile_start = tile * kTileSize + threadIdx.x;
    if (tile * kTileSize + kTileSize <= n) {
      // A whole tile: kItemsPerThread loads in flight at once, no bounds checks.
      T values[kItemsPerThread];
#pragma unroll
      for (int k = 0; k < kItemsPerThread; ++k) values[k] = in[tile_start + k * kThreadsPerBlock];
#pragma unroll
      for (int k = 0; k < kItemsPerThread; ++k) sum += values[k];
    } else {
      for (int k = 0; k < kItemsPerThread; ++k) {
        if (tile_start + k * kThreadsPerBlock < n) sum += in[tile_start + k * kThreadsPerBlock];
      }
    }
  }
  T total = T(0);
  block_scan(sum, &total);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = total;
  // END HOLE
}
// END WALKTHROUGH: reduce_ranges

// One block turns the block sums into exclusive offsets, in place.
template <typename T>
__global__ void scan_block_sums(T* block_sums, int count) {
  // HOLE: Replace block_sums[0 .. count) by their exclusive scan, in place. It runs as ONE block of
  // HOLE: kMaxThreadsPerBlock (1024) threads, and count may be larger than blockDim.x (up to
  // HOLE: kMaxGridBlocks, 2048). Use block_scan; every thread takes part in every call.
  T carry = T(0);
  for (int base = 0; base < count; base += static_cast<int>(blockDim.x)) {
    const int i = base + static_cast<int>(threadIdx.x);
    const T value = i < count ? block_sums[i] : T(0);
    T chunk_total = T(0);
    const T inclusive = block_scan(value, &chunk_total);
    if (i < count) block_sums[i] = carry + (inclusive - value);
    carry += chunk_total;
  }
  // END HOLE
}

// WALKTHROUGH: scan_ranges
template <typename T>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocksPerSm)
    scan_ranges(const T* in, T* out, std::size_t n, std::size_t tiles_per_block, const T* block_offsets,
                ScanKind kind) {
  __shared__ T staging[kWarpsPerBlock][kStagingPerWarp];
  T* warp_staging = staging[threadIdx.x / kWarpSize];
  // HOLE: Write the scan (`kind`) of this block's range of tiles to out, starting from the range's
  // HOLE: offset block_offsets[blockIdx.x], with load_tile, scan_tile and store_tile (warp_staging is
  // HOLE: this warp's staging area). Tiles that start at or past n are not touched.
  T carry = block_offsets[blockIdx.x];
  const std::size_t first_tile = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  for (std::size_t tile = first_tile; tile < first_tile + tiles_per_block && tile * kTileSize < n; ++tile) {
    T items[kItemsPerThread];
    load_tile(in, n, tile * kTileSize, items, warp_staging);
    carry += scan_tile(items, carry, kind);
    store_tile(out, n, tile * kTileSize, items, warp_staging);
  }
  // END HOLE
}
// END WALKTHROUGH: scan_ranges

int reduce_then_scan_blocks(std::size_t n) {
  const std::size_t wanted =
      std::min(ceil_div(n, kTileSize), static_cast<std::size_t>(sm_count()) * kBlocksPerSm);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wanted, kMaxGridBlocks)));
}

namespace {

template <typename T>
void reduce_then_scan_any(const T* in, T* out, std::size_t n, ScanKind kind, T* block_sums,
                          cudaStream_t stream) {
  if (n == 0) return;
  if (block_sums == nullptr) {
    throw std::invalid_argument(
        "reduce_then_scan: block_sums must be a device buffer of kMaxGridBlocks values");
  }
  // Whole tiles per block, and only as many blocks as have a tile to scan.
  const std::size_t tiles = ceil_div(n, kTileSize);
  const std::size_t tiles_per_block = ceil_div(tiles, static_cast<std::size_t>(reduce_then_scan_blocks(n)));
  const int blocks = static_cast<int>(ceil_div(tiles, tiles_per_block));
  // HOLE: Leave the scan of in[0, n) in out, on `stream`, with reduce_ranges<T>, scan_block_sums<T> and
  // HOLE: scan_ranges<T> over `blocks` ranges of tiles_per_block tiles, offsets passing through
  // HOLE: block_sums. reduce_ranges and scan_ranges: `blocks` blocks of kThreadsPerBlock (256) threads;
  // HOLE: scan_block_sums: ONE block of kMaxThreadsPerBlock (1024) threads over the `blocks` sums.
  // HOLE: CUDA_CHECK_LAUNCH after every launch.
  reduce_ranges<T><<<blocks, kThreadsPerBlock, 0, stream>>>(in, n, tiles_per_block, block_sums);
  CUDA_CHECK_LAUNCH("reduce_ranges");
  scan_block_sums<T><<<1, kMaxThreadsPerBlock, 0, stream>>>(block_sums, blocks);
  CUDA_CHECK_LAUNCH("scan_block_sums");
  scan_ranges<T><<<blocks, kThreadsPerBlock, 0, stream>>>(in, out, n, tiles_per_block, block_sums, kind);
  CUDA_CHECK_LAUNCH("scan_ranges");
  // END HOLE
}

}  // namespace

void reduce_then_scan(const int* in, int* out, std::size_t n, ScanKind kind, int* block_sums,
                      cudaStream_t stream) {
  reduce_then_scan_any(in, out, n, kind, block_sums, stream);
}

void reduce_then_scan(const float* in, float* out, std::size_t n, ScanKind kind, float* block_sums,
                      cudaStream_t stream) {
  reduce_then_scan_any(in, out, n, kind, block_sums, stream);
}

// ---------------------------------------------------------------------------
// Part 3: single pass with decoupled look-back.

// Status words are read and written with volatile accesses: a waiting block
// must see another block's store, not a copy its SM's L1 cached earlier. The
// state and value share one aligned 64-bit word, written by one store, so
// neither half can be seen without the other and no fence is needed.
__device__ std::uint64_t read_status(const unsigned long long* word) {
  return *reinterpret_cast<const volatile unsigned long long*>(word);
}

__device__ void publish_status(unsigned long long* word, TileState state, int value) {
  *reinterpret_cast<volatile unsigned long long*>(word) = make_tile_status(state, value);
}

// The sum of one value per lane, in every lane.
__device__ int warp_sum(int value) {
  return __shfl_sync(kFullWarpMask, warp_scan(value), kWarpSize - 1);
}

// Run by one whole warp for tile `tile`: the sum of every tile before it, read
// from their status words, 32 predecessors at a time (lane 31 looks at the
// nearest). Tiles before tile 0 count as a published prefix of 0.
// WALKTHROUGH: look_back
__device__ int look_back(const unsigned long long* tile_status, long long tile) {
  // HOLE: Return, in every lane, the sum of all tiles before `tile` (its exclusive prefix), read from
  // HOLE: their status words with read_status, 32 at a time. Wait until no word of the window is
  // HOLE: TileState::invalid, and stop at the nearest published prefix. All 32 lanes take part in every
  // HOLE: vote and shuffle.
  // STUB: return 0;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  int exclusive = 0;
  for (long long window_end = tile;; window_end -= kWarpSize) {
    const long long predecessor = window_end - kWarpSize + lane;
    std::uint64_t word =
        predecessor >= 0 ? read_status(&tile_status[predecessor]) : make_tile_status(TileState::prefix, 0);
    // Spin until every tile in the window has published at least its aggregate.
    // They all took their ids before us, so they are running and will.
    while (__any_sync(kFullWarpMask, tile_status_state(word) == TileState::invalid)) {
      if (tile_status_state(word) == TileState::invalid) word = read_status(&tile_status[predecessor]);
    }
    const unsigned prefix_lanes = __ballot_sync(kFullWarpMask, tile_status_state(word) == TileState::prefix);
    if (prefix_lanes != 0) {
      // The nearest inclusive prefix ends the look-back: add it and the aggregates after it.
      const int nearest = kWarpSize - 1 - __clz(prefix_lanes);
      return exclusive + warp_sum(lane >= nearest ? tile_status_value(word) : 0);
    }
    exclusive += warp_sum(tile_status_value(word));
  }
  // END HOLE
}
// END WALKTHROUGH: look_back

// The single pass reads its tile in groups of kVectorWidth consecutive ints,
// one 16-byte load per lane: in group g, lane l of warp w holds elements
//   tile_start + w * kSinglePassWarpTile + g * kWarpGroup + kVectorWidth * l + 0..3,
// so a warp reads 512 contiguous bytes per instruction, a quarter of the load
// instructions of part 2, and each lane's 4 elements are already consecutive:
// no transpose through shared memory. The price: a warp scan per group
// (kGroupsPerThread of them) instead of one.
[[maybe_unused]] constexpr int kGroupsPerThread = kSinglePassItems / kVectorWidth;
[[maybe_unused]] constexpr int kWarpGroup = kWarpSize * kVectorWidth;
[[maybe_unused]] constexpr int kSinglePassWarps = kSinglePassThreads / kWarpSize;
[[maybe_unused]] constexpr int kSinglePassWarpTile = kWarpSize * kSinglePassItems;
static_assert(kSinglePassItems % kVectorWidth == 0, "a thread owns whole groups");
// 6 blocks of 256 threads per SM cap the kernel at 65536 / (6 * 256) = 42.7
// registers per thread, which the hardware's allocation rounds down to 40.
// Under that cap nvcc 13.0 for sm_90 (and sm_80) reports 40 registers and 8
// bytes of spill stores and loads per thread (-Xptxas -v, an 8-byte stack
// frame); without the bound it also uses 40 and spills nothing, and with 5
// blocks (48 registers) it spills nothing either. The handout's figures were
// measured with 6. A Turing SM (sm_75) holds only 1024 threads, so 4 blocks
// there; the macro is defined only while nvcc compiles device code, once per
// target architecture. This caps registers; it does not make blocks resident:
// a block also takes 29744 bytes of shared memory (28720 static, 1024 the
// driver's), of which an H200 SM fits 7 (registers hold it to 6), a T4 SM
// (64 KB) only 2.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kMinBlocksPerSmSinglePass = 4;
#else
constexpr int kMinBlocksPerSmSinglePass = 6;
#endif

// Elements first .. first + 3 (first a multiple of kVectorWidth): one 16-byte
// load when all four are below n and `in` is 16-byte aligned (vector_ok),
// else one by one, with zeros past n.
__device__ int4 load_group(const int* in, std::size_t n, std::size_t first, bool vector_ok) {
  if (vector_ok) return *reinterpret_cast<const int4*>(in + first);
  int4 group;
  group.x = first < n ? in[first] : 0;
  group.y = first + 1 < n ? in[first + 1] : 0;
  group.z = first + 2 < n ? in[first + 2] : 0;
  group.w = first + 3 < n ? in[first + 3] : 0;
  return group;
}

// The reverse: writes the elements of the group that are below n.
__device__ void store_group(int* out, std::size_t n, std::size_t first, int4 group, bool vector_ok) {
  if (vector_ok) {
    *reinterpret_cast<int4*>(out + first) = group;
    return;
  }
  if (first < n) out[first] = group.x;
  if (first + 1 < n) out[first + 1] = group.y;
  if (first + 2 < n) out[first + 2] = group.z;
  if (first + 3 < n) out[first + 3] = group.w;
}

// The running sums of one group, starting at `running`.
__device__ int4 scan_group(int4 group, int running, ScanKind kind) {
  int4 result;
  result.x = running + (kind == ScanKind::inclusive ? group.x : 0);
  result.y = running + group.x + (kind == ScanKind::inclusive ? group.y : 0);
  result.z = running + group.x + group.y + (kind == ScanKind::inclusive ? group.z : 0);
  result.w = running + group.x + group.y + group.z + (kind == ScanKind::inclusive ? group.w : 0);
  return result;
}

// WALKTHROUGH: single_pass
__global__ void __launch_bounds__(kSinglePassThreads, kMinBlocksPerSmSinglePass)
    scan_single_pass(const int* in, int* out, std::size_t n, ScanKind kind, bool aligned,
                     unsigned long long* tile_status, unsigned* tile_counter) {
  // HOLE: Scan one tile of kSinglePassTileSize elements (`kind`, the group layout above) by decoupled
  // HOLE: look-back: tile id from tile_counter, not blockIdx.x; aggregate published before the look-back,
  // HOLE: inclusive prefix after. 16-byte accesses only if `aligned` and the tile is whole; write only
  // HOLE: below n. Every thread reaches every __syncthreads(). The tile waits in shared memory:
  // HOLE: declare __shared__ int4 parked[kSinglePassWarps][kGroupsPerThread][kWarpSize] (warp, group,
  // HOLE: lane), int warp_offsets[kSinglePassWarps], unsigned tile_id and int tile_prefix (README).
  // The tile waits out the look-back parked in shared memory, not in
  // registers: 28 values fewer per thread let 6 blocks, not 4, share an SM,
  // so more tiles are loading while others wait (H100: 99.5% of CUB in
  // ./workbook bench --all --solution on 2026-11-25; 93% with the tile in
  // registers, measured on 2026-11-23 with tools/sweeps/single_pass_scan_sweep.cu).
  __shared__ int4 parked[kSinglePassWarps][kGroupsPerThread][kWarpSize];
  __shared__ int warp_offsets[kSinglePassWarps];
  __shared__ unsigned tile_id;
  __shared__ int tile_prefix;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / kWarpSize;
  if (threadIdx.x == 0) tile_id = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_id;
  const std::size_t tile_start = static_cast<std::size_t>(tile) * kSinglePassTileSize;
  const std::size_t lane_start = tile_start + static_cast<std::size_t>(warp) * kSinglePassWarpTile +
                                 static_cast<std::size_t>(kVectorWidth * lane);
  const bool vector_ok = aligned && tile_start + kSinglePassTileSize <= n;

  // Each group is scanned across the warp as it arrives; group_offsets[g] is
  // the sum of the warp's elements before this lane's group g.
  int group_offsets[kGroupsPerThread];
  int warp_total = 0;
#pragma unroll
  for (int g = 0; g < kGroupsPerThread; ++g) {
    const int4 group = load_group(in, n, lane_start + g * kWarpGroup, vector_ok);
    parked[warp][g][lane] = group;  // 16 bytes per lane, consecutive: no bank conflicts
    const int sum = group.x + group.y + group.z + group.w;
    const int inclusive = warp_scan(sum);
    group_offsets[g] = warp_total + inclusive - sum;
    warp_total += __shfl_sync(kFullWarpMask, inclusive, kWarpSize - 1);
  }
  if (lane == 0) warp_offsets[warp] = warp_total;
  __syncthreads();

  if (warp == 0) {
    const int own = lane < kSinglePassWarps ? warp_offsets[lane] : 0;
    const int inclusive = warp_scan(own);
    if (lane < kSinglePassWarps) warp_offsets[lane] = inclusive - own;
    const int tile_total = __shfl_sync(kFullWarpMask, inclusive, kWarpSize - 1);
    // Publish the aggregate first, so that tiles after this one can look past
    // it without waiting for our own look-back: that is what "decoupled" means.
    if (lane == 0) publish_status(&tile_status[tile], TileState::aggregate, tile_total);
    const int before = look_back(tile_status, static_cast<long long>(tile));
    if (lane == 0) {
      tile_prefix = before;
      publish_status(&tile_status[tile], TileState::prefix, before + tile_total);
    }
  }
  __syncthreads();

  const int warp_prefix = tile_prefix + warp_offsets[warp];
#pragma unroll
  for (int g = 0; g < kGroupsPerThread; ++g) {
    const int4 result = scan_group(parked[warp][g][lane], warp_prefix + group_offsets[g], kind);
    store_group(out, n, lane_start + g * kWarpGroup, result, vector_ok);
  }
  // END HOLE
}
// END WALKTHROUGH: single_pass

namespace {

bool is_16_byte_aligned(const void* pointer) {
  return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0;
}

}  // namespace

void single_pass_scan(const int* in, int* out, std::size_t n, ScanKind kind, LookbackScratch& scratch,
                      cudaStream_t stream) {
  if (n > scratch.max_n) {
    throw std::invalid_argument("single_pass_scan: n = " + std::to_string(n) +
                                " elements, but the LookbackScratch was built for at most " +
                                std::to_string(scratch.max_n) + "; build it with a larger max_n");
  }
  if (n == 0) return;
  const std::size_t tiles = ceil_div(n, kSinglePassTileSize);
  // Every status word starts invalid and tile ids start at 0, for every scan.
  CUDA_CHECK(cudaMemsetAsync(scratch.tile_status.data(), 0, tiles * sizeof(unsigned long long), stream));
  CUDA_CHECK(cudaMemsetAsync(scratch.tile_counter.data(), 0, sizeof(unsigned), stream));
  const bool aligned = is_16_byte_aligned(in) && is_16_byte_aligned(out);
  scan_single_pass<<<static_cast<unsigned>(tiles), kSinglePassThreads, 0, stream>>>(
      in, out, n, kind, aligned, scratch.tile_status.data(), scratch.tile_counter.data());
  CUDA_CHECK_LAUNCH("scan_single_pass");
}

}  // namespace scan
