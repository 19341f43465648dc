// Maintainers' sweep of single-pass scan shapes against CUB (lab 07), measured on the H100 on
// 2026-11-23: nvcc -O3 -arch=sm_90 -std=c++17 -o sweep tools/sweeps/single_pass_scan_sweep.cu && ./sweep 28
// 31 16-byte groups with the tile parked in shared memory: 256x24 98%, 256x28 100%, 384x24 101% of CUB.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <vector>
#define CK(x)                                        \
  do {                                               \
    cudaError_t e = (x);                             \
    if (e != cudaSuccess) {                          \
      printf("%s: %s\n", #x, cudaGetErrorString(e)); \
      exit(1);                                       \
    }                                                \
  } while (0)
typedef unsigned long long ull;
__device__ __forceinline__ int wscan(int v) {
  int lane = threadIdx.x & 31;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    int o = __shfl_up_sync(~0u, v, d);
    if (lane >= d) v += o;
  }
  return v;
}
__device__ __forceinline__ ull rd(const ull* p) {
  return *(const volatile ull*)p;
}
__device__ __forceinline__ void wr(ull* p, unsigned st, int v) {
  *(volatile ull*)p = ((ull)st << 32) | (unsigned)v;
}
__device__ int look_back(const ull* status, long long tile) {
  int lane = threadIdx.x & 31;
  int ex = 0;
  for (long long we = tile;; we -= 32) {
    long long p = we - 32 + lane;
    ull w = p >= 0 ? rd(&status[p]) : ((ull)2 << 32);
    while (__any_sync(~0u, (w >> 32) == 0)) {
      if ((w >> 32) == 0) w = rd(&status[p]);
    }
    unsigned pl = __ballot_sync(~0u, (w >> 32) == 2);
    if (pl) {
      int nearest = 31 - __clz(pl);
      int v = lane >= nearest ? (int)(unsigned)w : 0;
      v = wscan(v);
      return ex + __shfl_sync(~0u, v, 31);
    }
    int v = wscan((int)(unsigned)w);
    ex += __shfl_sync(~0u, v, 31);
  }
}
template <int T>
struct MinB {
  static constexpr int v = 1;
};
template <int THREADS, int ITEMS, bool PARK, bool TICKET, int MINB>
__global__ void __launch_bounds__(THREADS, MINB)
    k(const int* in, int* out, size_t n, ull* status, unsigned* counter) {
  constexpr int WARPS = THREADS / 32, CH = ITEMS / 4, WT = 32 * ITEMS, TILE = THREADS * ITEMS;
  __shared__ int wt[WARPS];
  __shared__ unsigned tid_s;
  __shared__ int tp;
  __shared__ int4 park[PARK ? THREADS * CH : 1];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned tile;
  if (TICKET) {
    if (threadIdx.x == 0) tid_s = atomicAdd(counter, 1u);
    __syncthreads();
    tile = tid_s;
  } else
    tile = blockIdx.x;
  const size_t tb = (size_t)tile * TILE;
  const size_t wb = tb + (size_t)warp * WT;
  const bool full = tb + TILE <= n;
  int4 v[CH];
  int e[CH];
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    size_t i = wb + c * 128 + 4 * lane;
    if (full)
      v[c] = *reinterpret_cast<const int4*>(in + i);
    else {
      v[c].x = i < n ? in[i] : 0;
      v[c].y = i + 1 < n ? in[i + 1] : 0;
      v[c].z = i + 2 < n ? in[i + 2] : 0;
      v[c].w = i + 3 < n ? in[i + 3] : 0;
    }
  }
  int run = 0;
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    int s = v[c].x + v[c].y + v[c].z + v[c].w;
    if (PARK) park[(warp * CH + c) * 32 + lane] = v[c];
    int inc = wscan(s);
    e[c] = run + inc - s;
    run += __shfl_sync(~0u, inc, 31);
  }
  if (lane == 0) wt[warp] = run;
  __syncthreads();
  if (warp == 0) {
    int t = lane < WARPS ? wt[lane] : 0;
    int inc = wscan(t);
    if (lane < WARPS) wt[lane] = inc - t;
    int total = __shfl_sync(~0u, inc, 31);
    if (tile == 0) {
      if (lane == 0) {
        wr(&status[0], 2, total);
        tp = 0;
      }
    } else {
      if (lane == 0) wr(&status[tile], 1, total);
      int before = look_back(status, tile);
      if (lane == 0) {
        tp = before;
        wr(&status[tile], 2, before + total);
      }
    }
  }
  __syncthreads();
  const int pre = tp + wt[warp];
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    int4 x = PARK ? park[(warp * CH + c) * 32 + lane] : v[c];
    int4 o;
    o.x = pre + e[c];
    o.y = o.x + x.x;
    o.z = o.y + x.y;
    o.w = o.z + x.z;
    size_t i = wb + c * 128 + 4 * lane;
    if (full)
      *reinterpret_cast<int4*>(out + i) = o;
    else {
      if (i < n) out[i] = o.x;
      if (i + 1 < n) out[i + 1] = o.y;
      if (i + 2 < n) out[i + 2] = o.z;
      if (i + 3 < n) out[i + 3] = o.w;
    }
  }
}
__global__ void cmp(const int* a, const int* b, size_t n, unsigned long long* bad) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    if (a[i] != b[i]) atomicAdd(bad, 1ull);
}
int *din, *dout, *dref;
ull* dstatus;
unsigned* dctr;
ull* dbad;
size_t N;
cudaEvent_t e0, e1;
template <int THREADS, int ITEMS, bool PARK, bool TICKET, int MINB>
void run(const char* name, double cub_ms, int reps) {
  constexpr int TILE = THREADS * ITEMS;
  size_t tiles = (N + TILE - 1) / TILE;
  cudaFuncAttributes a;
  CK(cudaFuncGetAttributes(&a, k<THREADS, ITEMS, PARK, TICKET, MINB>));
  int occ;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k<THREADS, ITEMS, PARK, TICKET, MINB>, THREADS, 0));
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(e0));
    CK(cudaMemsetAsync(dstatus, 0, tiles * 8));
    CK(cudaMemsetAsync(dctr, 0, 4));
    k<THREADS, ITEMS, PARK, TICKET, MINB><<<tiles, THREADS>>>(din, dout, N, dstatus, dctr);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaMemset(dbad, 0, 8));
  cmp<<<1024, 256>>>(dout, dref, N, dbad);
  ull bad;
  CK(cudaMemcpy(&bad, dbad, 8, cudaMemcpyDeviceToHost));
  std::sort(t.begin(), t.end());
  printf(
      "%-28s thr %4d items %2d park %d ticket %d minb %d regs %3d spill %3zu occ %2d  %.4f ms  %.1f%% of CUB "
      " bad %llu\n",
      name, THREADS, ITEMS, PARK, TICKET, MINB, a.numRegs, a.localSizeBytes, occ, t[reps / 2],
      100 * cub_ms / t[reps / 2], bad);
}
int main(int argc, char** argv) {
  N = (size_t)1 << (argc > 1 ? atoi(argv[1]) : 28);
  int reps = argc > 2 ? atoi(argv[2]) : 21;
  CK(cudaMalloc(&din, N * 4));
  CK(cudaMalloc(&dout, N * 4));
  CK(cudaMalloc(&dref, N * 4));
  CK(cudaMalloc(&dstatus, (N / 256 + 2) * 8));
  CK(cudaMalloc(&dctr, 4));
  CK(cudaMalloc(&dbad, 8));
  std::vector<int> h(N);
  for (size_t i = 0; i < N; ++i) h[i] = (int)((i * 2654435761u) >> 28) - 7;
  CK(cudaMemcpy(din, h.data(), N * 4, cudaMemcpyHostToDevice));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  size_t tb = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, tb, din, dref, (int)N);
  void* tmp;
  CK(cudaMalloc(&tmp, tb));
  // The median of reps timings of CUB's scan: the yardstick, before and after the variants.
  const auto time_cub = [&] {
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
      CK(cudaEventRecord(e0));
      cub::DeviceScan::ExclusiveSum(tmp, tb, din, dref, (int)N);
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[reps / 2];
  };
  double cub = time_cub();
  printf("N = %zu  CUB %.4f ms (%.1f GB/s)\n", N, cub, N * 8 / cub / 1e6);
  run<256, 24, true, true, 6>("park 256x24 ticket", cub, reps);
  run<256, 24, true, true, 8>("park 256x24 minb8", cub, reps);
  run<256, 32, true, true, 6>("park 256x32", cub, reps);
  run<256, 28, true, true, 6>("park 256x28", cub, reps);
  run<256, 20, true, true, 8>("park 256x20", cub, reps);
  run<384, 24, true, true, 5>("park 384x24", cub, reps);
  run<384, 24, true, true, 4>("park 384x24 minb4", cub, reps);
  run<128, 32, true, true, 12>("park 128x32", cub, reps);
  run<256, 24, true, false, 6>("park 256x24 blockIdx", cub, reps);
  run<256, 24, false, true, 4>("reg 256x24 minb4", cub, reps);
  printf("cub again:\n");
  printf("CUB %.4f ms\n", time_cub());
}
