/// @file abc.cuh
/// @brief Lab 02, a*b+c: the contract between your code and the tests.
///
/// D = A * B + C, element by element, on float arrays of any length n. The
/// kernel does two flops per 16 bytes moved, so its speed is set by memory
/// bandwidth alone: the lab measures it against the GPU's copy bandwidth.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace abc {

/// @brief Threads per block of both kernels. 256 is a multiple of the warp
/// size, and whole blocks of it fill an SM on every GPU the course supports:
/// an SM holds 2048 threads on sm_80, sm_90 and sm_100 (8 such blocks), 1536
/// on sm_86, sm_89 and sm_120 (6) and 1024 on sm_75 (4). Ask your GPU:
/// cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, device),
/// or cudaOccupancyMaxActiveBlocksPerMultiprocessor for a given kernel.
constexpr int kThreadsPerBlock = 256;

/// @brief Blocks per SM for the grid-stride launch. 8 blocks of 256 fill an
/// SM of 2048 threads; where an SM holds fewer, the blocks beyond what fits
/// wait for a turn. Check yourself 4 of the handout asks what that costs.
constexpr int kGridStrideBlocksPerSm = 8;

/// @brief One thread per element: thread i computes d[i] = a[i] * b[i] + c[i]
/// when i < n; threads past the end do nothing.
/// @param[in] a Device array of n floats.
/// @param[in] b Device array of n floats.
/// @param[in] c Device array of n floats.
/// @param[out] d Device array of n floats.
/// @param[in] n Number of elements.
__global__ void abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n);

/// @brief Grid-stride loop: a grid of any size covers all n elements, each
/// thread stepping by the total number of threads in the grid.
/// @param[in] a Device array of n floats.
/// @param[in] b Device array of n floats.
/// @param[in] c Device array of n floats.
/// @param[out] d Device array of n floats.
/// @param[in] n Number of elements.
__global__ void abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n);

/// @brief Launches abc_one_per_element with kThreadsPerBlock threads per block
/// and one thread per element; checks the launch. n = 0 launches nothing.
/// @param[in] a Device array of n floats.
/// @param[in] b Device array of n floats.
/// @param[in] c Device array of n floats.
/// @param[out] d Device array of n floats.
/// @param[in] n Number of elements.
/// @throws workbook::CudaError when the launch fails.
void launch_abc_one_per_element(const float* a, const float* b, const float* c, float* d, std::size_t n);

/// @brief Launches abc_grid_stride with kGridStrideBlocksPerSm blocks per SM
/// (fewer when n is small); checks the launch. n = 0 launches nothing.
/// @param[in] a Device array of n floats.
/// @param[in] b Device array of n floats.
/// @param[in] c Device array of n floats.
/// @param[out] d Device array of n floats.
/// @param[in] n Number of elements.
/// @throws workbook::CudaError when the launch fails.
void launch_abc_grid_stride(const float* a, const float* b, const float* c, float* d, std::size_t n);

/// @brief The whole round trip from host vectors: allocate device memory,
/// copy a, b and c to the GPU, run the grid-stride kernel, copy d back.
/// @param[in] a Host vector.
/// @param[in] b Host vector of the same size.
/// @param[in] c Host vector of the same size.
/// @return d with d[i] = a[i] * b[i] + c[i].
/// @throws std::invalid_argument when the sizes differ.
/// @throws workbook::CudaError when a CUDA call fails.
std::vector<float> abc_on_gpu(const std::vector<float>& a, const std::vector<float>& b,
                              const std::vector<float>& c);

}  // namespace abc
