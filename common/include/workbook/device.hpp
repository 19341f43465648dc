/// @file device.hpp
/// @brief What GPU we run on, and the yardstick of memory-bound labs: the
/// measured device-to-device copy bandwidth.
#pragma once

#include <cstddef>
#include <string>

namespace workbook {

/// @brief The properties of a GPU that the labs use.
struct DeviceInfo {
  int id = 0;                        ///< CUDA device ordinal.
  std::string name;                  ///< e.g. "NVIDIA H100 80GB HBM3".
  int compute_major = 0;             ///< Compute capability, major part.
  int compute_minor = 0;             ///< Compute capability, minor part.
  int sm_count = 0;                  ///< Number of streaming multiprocessors.
  std::size_t l2_bytes = 0;          ///< L2 cache size in bytes.
  std::size_t global_bytes = 0;      ///< Global memory in bytes.
  int max_threads_per_block = 0;     ///< Largest block the GPU accepts.
  std::size_t shared_per_block = 0;  ///< Default shared memory per block, bytes.
};

/// @brief Whether a usable CUDA device is present.
/// @param[out] reason When there is none, why (may be nullptr): "no NVIDIA GPU
/// or driver found (...)" where no NVIDIA driver is installed at all, else
/// "no CUDA device: " and the CUDA error (a driver too old for the runtime, say).
/// @return true when cudaGetDeviceCount reports at least one device.
bool cuda_device_available(std::string* reason = nullptr);

/// @brief Whether an NVIDIA driver is installed: its kernel module
/// (/proc/driver/nvidia) or its library (libcuda.so.1) is there.
/// @return false on a machine without any NVIDIA driver.
bool nvidia_driver_installed();

/// @brief Properties of the current device.
/// @return The current device's DeviceInfo.
/// @throws CudaError when there is no device.
DeviceInfo current_device_info();

/// @brief One line describing a GPU for experiment output, e.g. "NVIDIA H100
/// 80GB HBM3, compute capability 9.0, 132 SMs, L2 52.4 MB, 85.0 GB of memory".
/// @param[in] info The device.
/// @return The description.
std::string describe(const DeviceInfo& info);

/// @brief The start of every lab experiment: whether there is a GPU to
/// measure. Without one it prints the reason and what to do on stderr.
/// @return true when a CUDA device is present.
bool have_device_for_experiment();

/// @brief Bandwidth of cudaMemcpyAsync device-to-device on a buffer far above
/// L2, counting bytes read plus bytes written, in GB/s (10^9 bytes/s). Measured
/// once per process (median of repeated samples) and cached. When
/// $WORKBOOK_BENCH_CSV is set, that measurement is also recorded there
/// (workbook::record: lab "", table "roof", n the bytes copied), the roof of
/// the lab's GB/s charts.
/// @return The measured copy bandwidth in GB/s (2966 to 2978 on an H100 80GB HBM3 in the
/// experiments of 2026-11-25).
/// @throws std::runtime_error when $WORKBOOK_BENCH_CSV cannot be written.
double copy_bandwidth_gbps();

}  // namespace workbook
