// fp4gemm's own CUDA kernel backends, in the order the registry lists them.
#include "cuda/cuda_backends.hpp"

#include "cuda/auto_backend.hpp"
#include "cuda/decode_backend.hpp"
#include "cuda/dequant_cublas_backend.hpp"
#include "cuda/fp8_backend.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/mma_backend.hpp"
#include "cuda/wgmma_backend.hpp"

namespace fp4gemm {

void add_cuda_backends(std::vector<std::unique_ptr<Backend>>& list) {
  list.push_back(cuda::make_mma_backend());
  list.push_back(cuda::make_decode_backend());
  list.push_back(cuda::make_wgmma_backend());
  list.push_back(cuda::make_dequant_cublas_backend());
  list.push_back(cuda::make_auto_backend());  // dispatches to the four above
  list.push_back(cuda::make_fp8_lossy_backend());  // lossy: only when named, never by auto
}

void add_cuda_grouped_backends(std::vector<std::unique_ptr<GroupedBackend>>& list) {
  list.push_back(cuda::make_grouped_backend());
}

}  // namespace fp4gemm
