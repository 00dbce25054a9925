#pragma once
// GPU quantization to NVFP4 / MXFP4, bit-identical to the CPU quantizer (fp4gemm/quantize.hpp):
// both call the rules of format/quantize_rules.hpp. Kernels: quantize_kernel.cuh.
//
//   quantize_on_gpu            HostMatrix -> Fp4Tensor: upload, amax pass if scale_2 is measured,
//                              quantize, reject NaN/inf like the CPU, download. Tests and the CLI.
//   measure_scale_2_on_device  the amax pass; synchronizes once.
//   quantize_on_device         the quantization pass alone: no allocation, no synchronization,
//                              so it can sit in a timed region or a CUDA graph (w4a4
//                              activations). It records NaN/inf in a QuantizeStatus that the
//                              caller checks later.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/device_buffer.hpp"
#include "cuda/device_gemm_run.hpp"
#include "cuda/quantize_status.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/matrix.hpp"
#include "fp4gemm/quantize.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::cuda {

// Caller-owned device words the kernels report into (quantize_status.hpp). The NaN/inf record is
// sticky: it holds the first bad element of everything quantized since the last clear().
class QuantizeStatus {
 public:
  explicit QuantizeStatus(cudaStream_t stream) { clear(stream); }
  QuantizeStatusWords* device_words() const { return words_.get(); }
  // Resets the words, asynchronously on `stream` (capturable into a graph).
  void clear(cudaStream_t stream);
  // Waits for `stream`, then returns the words.
  QuantizeStatusWords read(cudaStream_t stream) const;
  // Waits for `stream`; throws InvalidArgument naming the first NaN/inf recorded, in the CPU
  // quantizer's words ("input has NaN at row 3, column 17").
  void throw_if_non_finite(cudaStream_t stream) const;

 private:
  DeviceBuffer<QuantizeStatusWords> words_{1};
};

// x's elements on the device (rows x cols of x.dtype, row-major), copied on `stream`.
DeviceBuffer<std::uint8_t> upload_matrix(const HostMatrix& x, cudaStream_t stream);

// A device tensor of `format`/`layout` for rows x cols elements, buffers sized (padding included)
// but not initialized: quantize_on_device writes every byte.
DeviceFp4Tensor make_device_fp4_tensor(Fp4Format format, ScaleLayout layout, std::int64_t rows,
                                       std::int64_t cols);
// Copies `t` to the host. Synchronous (the caller has waited for the stream that wrote it).
Fp4Tensor download_fp4_tensor(const DeviceFp4Tensor& t);

// NVFP4 tensor scale of x (rows x cols of `dtype` on the device, 16-byte aligned; cols a multiple
// of 16): nvfp4_scale_2_from_amax(max |x|). Synchronizes `stream` once; throws InvalidArgument like
// the CPU quantizer if x holds NaN/inf (or if `status` already recorded one).
float measure_scale_2_on_device(const void* x, DType dtype, std::int64_t rows, std::int64_t cols,
                                QuantizeStatus& status, cudaStream_t stream);

// Quantizes x (rows x cols of `dtype` on the device, 16-byte aligned) into `out`, whose format,
// layout and shape must match (make_device_fp4_tensor); scale_2 is already resolved (given, or
// measure_scale_2_on_device; 1 for MXFP4) and is stored in out.scale_2. Enqueued on `stream`
// only: no allocation, no synchronization. NaN/inf in x is recorded in `status`; until the caller
// has checked it (QuantizeStatus::throw_if_non_finite), `out` must not be trusted.
// `block_values`, if not null (rows x cols bf16 on the device): also receives every element's
// block value, code x block scale without scale_2 (Fp4Tensor::block_value, exact in bf16), for
// kernels that read A as bf16 (cuda-decode's w4a4).
// `elements_per_lane`: how many elements each GPU lane quantizes, 16 or 4 (a scale block spread
// over 4 / 8 lanes: shorter lanes for small tensors, quantize_kernel.cuh), or 0: the rule (4 where
// the spread lanes fit one wave of the GPU). The bytes written are the same; tests force each.
void quantize_on_device(const void* x, DType dtype, std::int64_t rows, std::int64_t cols,
                        const QuantizeOptions& options, float scale_2, DeviceFp4Tensor& out,
                        QuantizeStatus& status, cudaStream_t stream,
                        std::uint16_t* block_values = nullptr, int elements_per_lane = 0);

// What quantize_on_device requires of its input and tensor scale (rows and K below 2^31, the
// status keys' range, K a multiple of the block, x 16-byte aligned; NVFP4 scale_2 positive and
// finite, MXFP4's 1), also for a kernel that quantizes such an input itself (cuda-decode's
// w4a4, decode_gemm.cuh step 1q). Throws InvalidArgument naming the rule.
void require_quantizable(const void* x, std::int64_t rows, std::int64_t cols, Fp4Format format, float scale_2);

// Whether a problem's activations can be quantized on the GPU as its w4a4 run does in every
// call (M and K below 2^31, require_quantizable's range): the can_implement of the families that
// do so (cuda-mma, cuda-decode) asks it, so that such a problem is refused at admission, not by
// the first run(). Yes for w4a16.
Verdict gpu_quantizable_verdict(const GemmProblem& problem);

// quantize(x, options) computed on the GPU: the same bytes, the same scale_2, the same errors.
Fp4Tensor quantize_on_gpu(const HostMatrix& x, const QuantizeOptions& options = {});

}  // namespace fp4gemm::cuda
