#include "workbook/cuda_check.hpp"
#include "workbook/device_inputs.hpp"
#include "workbook/random.hpp"

namespace workbook {
namespace {

constexpr int kFillThreads = 256;
// Enough blocks to fill every SM several times over; a grid-stride loop does the rest.
constexpr unsigned kMaxFillBlocks = 4096;

unsigned fill_blocks(std::size_t n) {
  const std::size_t blocks = (n + kFillThreads - 1) / kFillThreads;
  return static_cast<unsigned>(blocks < kMaxFillBlocks ? blocks : kMaxFillBlocks);
}

// One kernel for every element type: `Draw` turns an index into a value.
template <typename T, typename Draw>
__global__ void fill_from_index(T* out, std::size_t n, Draw draw) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = draw(i);
}

template <typename T, typename Draw>
void fill(T* out, std::size_t n, Draw draw, cudaStream_t stream) {
  if (n == 0) return;
  fill_from_index<<<fill_blocks(n), kFillThreads, 0, stream>>>(out, n, draw);
  CUDA_CHECK_LAUNCH("fill_from_index");
}

struct DrawU32 {
  std::uint64_t seed;
  __device__ std::uint32_t operator()(std::size_t i) const { return random_u32_at(seed, i); }
};
struct DrawInt {
  std::uint64_t seed;
  std::int32_t lo, hi;
  __device__ std::int32_t operator()(std::size_t i) const { return random_int_at(seed, i, lo, hi); }
};
struct DrawFloat {
  std::uint64_t seed;
  float lo, hi;
  __device__ float operator()(std::size_t i) const { return random_float_at(seed, i, lo, hi); }
};
struct DrawByte {
  std::uint64_t seed;
  __device__ std::uint8_t operator()(std::size_t i) const { return random_byte_at(seed, i); }
};

}  // namespace

void fill_random_u32(std::uint32_t* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill(out, n, DrawU32{seed}, stream);
}

void fill_random_ints(std::int32_t* out, std::size_t n, std::uint64_t seed, std::int32_t lo, std::int32_t hi,
                      cudaStream_t stream) {
  fill(out, n, DrawInt{seed, lo, hi}, stream);
}

void fill_random_floats(float* out, std::size_t n, std::uint64_t seed, float lo, float hi,
                        cudaStream_t stream) {
  fill(out, n, DrawFloat{seed, lo, hi}, stream);
}

void fill_random_bytes(std::uint8_t* out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill(out, n, DrawByte{seed}, stream);
}

}  // namespace workbook
