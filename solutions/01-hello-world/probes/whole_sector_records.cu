// Lab 01's open question: does record_thread_ids trail the memset because its
// 12-byte records reach the L2 as partial sector writes? The same 2^26 records
// are written two ways: one record per thread, three 4-byte stores (the lab's kernel), and
// staged in shared memory so that each warp stores its 384 bytes as three
// 128-byte rows of whole sectors. Same bytes, same sectors; only the partial
// writes go.
//
//   nvcc -O2 -arch=native -o build/whole_sector_records
//   solutions/01-hello-world/probes/whole_sector_records.cu build/whole_sector_records
//
// Count the L2 sector writes of each with
//   ncu --metrics lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum \
//     -k regex:records build/whole_sector_records
// It copies a kernel a student writes in a TODO, so it stays out of the student release.
#include "../../../tools/probes/probe_common.cuh"

struct ThreadRecord {
  int block, thread, global;
};

__global__ void records_per_thread(ThreadRecord* records, int n) {
  const int global = blockIdx.x * blockDim.x + threadIdx.x;
  if (global < n) records[global] = ThreadRecord{int(blockIdx.x), int(threadIdx.x), global};
}

// n must be a multiple of the block size (the probe's n is 2^26).
__global__ void records_whole_sectors(ThreadRecord* records, int n) {
  __shared__ int staged[256 * 3];
  const int global = blockIdx.x * blockDim.x + threadIdx.x;
  staged[3 * threadIdx.x + 0] = blockIdx.x;
  staged[3 * threadIdx.x + 1] = threadIdx.x;
  staged[3 * threadIdx.x + 2] = global;
  __syncwarp();
  // Each warp's 96 ints are contiguous in shared memory and in the output: three
  // stores of 32 consecutive ints, 128 bytes each, whole sectors.
  const int warp_first = (threadIdx.x / 32) * 96;
  int* out = reinterpret_cast<int*>(records + static_cast<size_t>(blockIdx.x) * blockDim.x);
  for (int k = 0; k < 3; ++k)
    out[warp_first + 32 * k + threadIdx.x % 32] = staged[warp_first + 32 * k + threadIdx.x % 32];
}

int main() {
  const int n = 1 << 26;
  const size_t bytes = size_t(n) * sizeof(ThreadRecord);
  ThreadRecord *a = nullptr, *b = nullptr;
  PROBE_CHECK(cudaMalloc(&a, bytes));
  PROBE_CHECK(cudaMalloc(&b, bytes));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = n / 256;
  const float per_thread = median_ms([&] { records_per_thread<<<blocks, 256>>>(a, n); });
  const float whole = median_ms([&] { records_whole_sectors<<<blocks, 256>>>(b, n); });
  const float memset_ms = median_ms([&] { PROBE_CHECK(cudaMemset(a, 0x5A, bytes)); });
  // The two kernels must write the same bytes.
  std::vector<int> ha(size_t(n) * 3), hb(size_t(n) * 3);
  records_per_thread<<<blocks, 256>>>(a, n);
  PROBE_CHECK(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost));
  PROBE_CHECK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
  const bool same = ha == hb;
  std::printf("GPU: %s; 2^26 records of 12 bytes, %.1f MB, medians of 21\n", prop.name, bytes / 1e6);
  std::printf("a record per thread (3 stores):   %.4f ms, %.1f GB/s\n", per_thread,
              bytes / (per_thread * 1e6));
  std::printf("whole sectors via shared memory: %.4f ms, %.1f GB/s (same bytes: %s)\n", whole,
              bytes / (whole * 1e6), same ? "yes" : "NO");
  std::printf("cudaMemset of the same bytes:    %.4f ms, %.1f GB/s\n", memset_ms, bytes / (memset_ms * 1e6));
  PROBE_CHECK(cudaFree(a));
  PROBE_CHECK(cudaFree(b));
  return same ? 0 : 1;
}
