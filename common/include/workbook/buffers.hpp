/// @file buffers.hpp
/// @brief Move-only owners of device memory, pinned host memory, streams and
/// events, and copy helpers. Kernels take the raw pointer from data().
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "workbook/cuda_check.hpp"

namespace workbook {

/// @brief Owns `count` elements of device memory; freed when it goes out of scope.
/// @tparam T A trivially copyable element type.
template <typename T>
class DeviceBuffer {
 public:
  /// @brief An empty buffer that owns nothing.
  DeviceBuffer() = default;

  /// @brief Allocates @p count uninitialised elements with cudaMalloc.
  /// @param[in] count Number of elements (0 allocates nothing).
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(&data_, count_ * sizeof(T)));
  }

  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// @brief Takes over @p other's memory; @p other becomes empty.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

  /// @brief Frees this buffer's memory and takes over @p other's.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// @brief The device pointer, to pass to kernels.
  /// @return nullptr for an empty buffer.
  T* data() noexcept { return data_; }
  /// @copydoc data()
  const T* data() const noexcept { return data_; }
  /// @brief Number of elements.
  /// @return The element count given at construction.
  std::size_t size() const noexcept { return count_; }
  /// @brief Size in bytes.
  /// @return size() * sizeof(T).
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// @brief Sets every byte to @p value (cudaMemset), e.g. 0xFF to poison an output.
  /// @param[in] value The byte value.
  void fill_bytes(int value) {
    if (count_ > 0) CUDA_CHECK(cudaMemset(data_, value, bytes()));
  }

  /// @brief Copies host.size() elements from the host; sizes must match.
  /// @param[in] host The source elements.
  void copy_from(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::copy_from: size mismatch");
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }

  /// @brief Copies the whole buffer to a new host vector.
  /// @return The elements, in order.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // Errors here would be from earlier work; never throw.
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// @brief A range of device memory, as the speed harness names what a call
/// reads (its inputs) and what a yardstick writes (its output and temporary
/// storage).
struct DeviceBytes {
  void* data = nullptr;   ///< The first byte.
  std::size_t bytes = 0;  ///< How many bytes.
};

/// @brief The whole of @p buffer as a DeviceBytes.
/// @tparam T The element type.
/// @param[in] buffer The buffer.
/// @return Its data() and bytes().
template <typename T>
DeviceBytes bytes_of(DeviceBuffer<T>& buffer) {
  return {buffer.data(), buffer.bytes()};
}

/// @brief Allocates a device buffer holding a copy of @p host.
/// @tparam T The element type.
/// @param[in] host The elements to upload.
/// @return A buffer of host.size() elements.
template <typename T>
DeviceBuffer<T> to_device(const std::vector<T>& host) {
  DeviceBuffer<T> buffer(host.size());
  buffer.copy_from(host);
  return buffer;
}

/// @brief Owns page-locked (pinned) host memory from cudaMallocHost, which
/// copies to and from the device faster than pageable memory.
/// @tparam T A trivially copyable element type.
template <typename T>
class PinnedBuffer {
 public:
  /// @brief An empty buffer.
  PinnedBuffer() = default;
  /// @brief Allocates @p count uninitialised elements.
  /// @param[in] count Number of elements.
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count_ * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  /// @brief Takes over @p other's memory.
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  /// @brief Frees this buffer's memory and takes over @p other's.
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      if (data_ != nullptr) cudaFreeHost(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  /// @brief The host pointer. @return nullptr for an empty buffer.
  T* data() noexcept { return data_; }
  /// @copydoc data()
  const T* data() const noexcept { return data_; }
  /// @brief Number of elements. @return The count given at construction.
  std::size_t size() const noexcept { return count_; }
  /// @brief Element access. @param[in] i Index below size(). @return The element.
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  /// @copydoc operator[]
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

/// @brief Owns a CUDA stream (cudaStreamCreate / cudaStreamDestroy).
class CudaStream {
 public:
  /// @brief Creates a stream.
  CudaStream() { CUDA_CHECK(cudaStreamCreate(&stream_)); }
  ~CudaStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  /// @brief Takes over @p other's stream.
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  /// @brief Destroys this stream and takes over @p other's.
  CudaStream& operator=(CudaStream&& other) noexcept {
    if (this != &other) {
      if (stream_ != nullptr) cudaStreamDestroy(stream_);
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }
  /// @brief The stream handle. @return The cudaStream_t to launch on.
  cudaStream_t get() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

/// @brief Owns a CUDA event (cudaEventCreate / cudaEventDestroy), for timing.
class CudaEvent {
 public:
  /// @brief Creates an event.
  CudaEvent() { CUDA_CHECK(cudaEventCreate(&event_)); }
  ~CudaEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  /// @brief Takes over @p other's event.
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  /// @brief Destroys this event and takes over @p other's.
  CudaEvent& operator=(CudaEvent&& other) noexcept {
    if (this != &other) {
      if (event_ != nullptr) cudaEventDestroy(event_);
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }
  /// @brief Records the event on @p stream.
  /// @param[in] stream The stream (default: the legacy default stream).
  void record(cudaStream_t stream = nullptr) { CUDA_CHECK(cudaEventRecord(event_, stream)); }
  /// @brief Milliseconds from @p start to this event; waits for this event.
  /// @param[in] start An event recorded earlier on the same stream.
  /// @return The elapsed time in milliseconds.
  float elapsed_ms_since(const CudaEvent& start) const {
    CUDA_CHECK(cudaEventSynchronize(event_));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace workbook
