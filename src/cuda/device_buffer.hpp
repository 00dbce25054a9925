#pragma once
// RAII owners of CUDA resources: DeviceBuffer<T> (cudaMalloc'd array), Stream, Event.
// Move-only; destructors never throw. An allocation that fails says how many bytes it asked
// for and how many were free.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/cuda_check.hpp"

namespace fp4gemm::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t status = cudaMalloc(&ptr_, count * sizeof(T));
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // clear the sticky-free error state
      std::size_t free_bytes = 0, total_bytes = 0;
      cudaMemGetInfo(&free_bytes, &total_bytes);
      throw CudaError(status, fmt::format("out of GPU memory: asked for {} bytes, {} of {} free",
                                          count * sizeof(T), free_bytes, total_bytes));
    }
    FP4GEMM_CUDA_CHECK(status);
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      ptr_ = std::exchange(other.ptr_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    require(host.size() == count_, "upload of {} elements into a buffer of {}", host.size(), count_);
    if (count_) {
      FP4GEMM_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
      // From pageable memory cudaMemcpy may return before its DMA lands, and the kernels run on
      // non-blocking streams, which are not ordered after the legacy stream it used: wait for it.
      FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_) FP4GEMM_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Every byte set to `byte` (e.g. 0xFF: NaN in fp32, bf16 and fp16), asynchronously on `stream`.
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    if (count_) FP4GEMM_CUDA_CHECK(cudaMemsetAsync(ptr_, byte, bytes(), stream));
  }

 private:
  void release() noexcept {
    if (ptr_) FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

class Stream {
 public:
  Stream() { FP4GEMM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() { FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_)); }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { FP4GEMM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { FP4GEMM_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { FP4GEMM_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_)); }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { FP4GEMM_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_since(const Event& start) const {
    float ms = 0;
    FP4GEMM_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace fp4gemm::cuda
