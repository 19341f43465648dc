// Lab 05's then-and-now: Farber (2013) measured his packed ParallelCounter
// against one counter updated with atomicAdd(counter, 1), likely before nvcc
// merged a warp's adds to one address (the earliest source we found for the
// merge is NVIDIA's blog, updated in 2017). Here the same 2^28 adds of 1 are
// timed three ways on one GPU in one run:
//   merged    atomicAdd(counter, 1): nvcc sums the warp's adds, one request
//   unmerged  atomicAdd(counter + zeros[i], 1): an address nvcc cannot prove
//             equal across the warp, so each lane's add is its own
//   packed    atomicAdd(&slots[lane], 1): 32 counters in 128 contiguous bytes,
//             the ParallelCounter<32, 1> layout, one lane per slot
//
//   nvcc -O2 -arch=native -o build/one_address_atomics tools/probes/one_address_atomics.cu
//   build/one_address_atomics
#include <cstdint>

#include "probe_common.cuh"

__global__ void add_merged(unsigned* counter, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter, 1u);
}

__global__ void add_unmerged(unsigned* counter, const int* zeros, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter + zeros[i], 1u);
}

__global__ void add_packed(unsigned* slots, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&slots[threadIdx.x % 32], 1u);
}

int main() {
  const int n = 1 << 28;
  const int blocks = n / 256;
  unsigned* counters = nullptr;
  int* zeros = nullptr;
  PROBE_CHECK(cudaMalloc(&counters, 32 * sizeof(unsigned)));
  PROBE_CHECK(cudaMalloc(&zeros, size_t(n) * sizeof(int)));
  PROBE_CHECK(cudaMemset(zeros, 0, size_t(n) * sizeof(int)));
  cudaDeviceProp prop{};
  PROBE_CHECK(cudaGetDeviceProperties(&prop, 0));
  auto reset = [&] { PROBE_CHECK(cudaMemsetAsync(counters, 0, 32 * sizeof(unsigned))); };
  const float merged = median_ms(
      [&] {
        reset();
        add_merged<<<blocks, 256>>>(counters, n);
      },
      11);
  const float unmerged = median_ms(
      [&] {
        reset();
        add_unmerged<<<blocks, 256>>>(counters, zeros, n);
      },
      11);
  const float packed = median_ms(
      [&] {
        reset();
        add_packed<<<blocks, 256>>>(counters, n);
      },
      11);
  // Check the totals once.
  unsigned total[32];
  reset();
  add_unmerged<<<blocks, 256>>>(counters, zeros, n);
  PROBE_CHECK(cudaMemcpy(total, counters, sizeof(total), cudaMemcpyDeviceToHost));
  const bool unmerged_ok = total[0] == unsigned(n);
  reset();
  add_packed<<<blocks, 256>>>(counters, n);
  PROBE_CHECK(cudaMemcpy(total, counters, sizeof(total), cudaMemcpyDeviceToHost));
  std::uint64_t packed_sum = 0;
  for (unsigned t : total) packed_sum += t;
  const bool packed_ok = packed_sum == std::uint64_t(n);
  std::printf("GPU: %s; 2^28 adds of 1, medians of 11 (each includes a 128-byte memset)\n", prop.name);
  std::printf("merged   atomicAdd(counter, 1):          %9.3f ms\n", merged);
  std::printf("unmerged atomicAdd(counter + zeros[i], 1): %9.3f ms (total right: %s)\n", unmerged,
              unmerged_ok ? "yes" : "NO");
  std::printf("packed   atomicAdd(&slots[lane], 1):     %9.3f ms (total right: %s)\n", packed,
              packed_ok ? "yes" : "NO");
  std::printf("unmerged / packed = %.2f; merged / packed = %.3f\n", unmerged / packed, merged / packed);
  PROBE_CHECK(cudaFree(counters));
  PROBE_CHECK(cudaFree(zeros));
  return unmerged_ok && packed_ok ? 0 : 1;
}
