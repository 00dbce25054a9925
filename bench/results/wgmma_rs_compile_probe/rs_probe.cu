// Compile-time probe (not built by CMake; RUN.md): does ptxas keep register-A (RS) wgmma
// m64n256k16 pipelined when a consumer warpgroup rebuilds its own A fragments from codes between
// its wgmmas, in cuda-wgmma's CTA shape (384 threads: 3 warpgroups, 128 fp32 accumulators per
// consumer thread)? Build one variant and read ptxas's report:
//   nvcc -gencode arch=compute_90a,code=sm_90a -c -Xptxas -v [-DSETMAXNREG] -DWAIT=W rs_probe.cu
// WAIT: pending wgmma groups allowed after each k16 step's commit (-1: no wait in the loop).
// SETMAXNREG: warpgroup 0 gives registers back (setmaxnreg.dec 40) and the two consumer
// warpgroups take 232 (setmaxnreg.inc), as warp-specialized Hopper kernels do.
// Per K-tile (4 k16 steps): convert step 0's fragment, then per step k: fence the fragment,
// wgmma.fence, wgmma(k) with fragment k, commit, convert step k + 1's fragment into its own
// registers (never one an uncompleted wgmma reads), wait<WAIT>. The conversion is a stand-in of
// the same instruction mix (shifts, masks, a bf16x2 multiply by the scale), not exact FP4 decoding:
// this file measures nothing at run time.
#include <cuda_runtime.h>

#include <cstdint>

#ifndef WAIT
#define WAIT 1
#endif

namespace {

__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
// 128-byte-swizzled K-major descriptor, as src/cuda/sm90_primitives.cuh builds it.
__device__ __forceinline__ std::uint64_t sw128_desc(const void* tile, int k_byte) {
  const std::uint64_t start = ((smem_address(tile) + std::uint32_t(k_byte)) & 0x3FFFF) >> 4;
  return start | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void fence_operand(std::uint32_t& r) { asm volatile("" : "+r"(r)::"memory"); }
__device__ __forceinline__ void named_barrier(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// acc (64 x 256 fp32) += A (64 x 16 bf16, this thread's 4 fragment registers) * B (descriptor).
__device__ __forceinline__ void wgmma_rs(float (&d)[128], const std::uint32_t (&a)[4], std::uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, 1, 1, 1, 0;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
}

// Stand-in for decoding 8 placed FP4 codes times a block scale into 4 bf16x2 registers.
__device__ __forceinline__ void convert(std::uint32_t code, std::uint32_t scale, std::uint32_t (&a)[4]) {
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::uint32_t v = ((code >> q) & 0x01010101u) * 0x3F80u ^ ((code << (q + 3)) & 0x80008000u);
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(a[q]) : "r"(v), "r"(scale));
  }
}

constexpr int kSteps = 4;  // k16 steps per K-tile of 64

}  // namespace

__global__ void __launch_bounds__(384, 1)
    rs_probe(const std::uint32_t* __restrict__ codes, const std::uint32_t* __restrict__ scales, float* out,
             int k_tiles) {
  __shared__ alignas(1024) std::uint8_t activations[2][256 * 128];
  __shared__ std::uint32_t code_tiles[2][kSteps][256];
#ifdef SETMAXNREG
  if (threadIdx.x < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#else
  if (threadIdx.x < 128) return;
#endif
  const int tid = int(threadIdx.x) - 128;  // consumer thread 0..255
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  std::uint32_t fragment[kSteps][4];
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt & 1;
    named_barrier(1, 256);
    for (int i = tid; i < kSteps * 256; i += 256) code_tiles[s][i / 256][i % 256] = codes[kt * kSteps * 256 + i];
    named_barrier(1, 256);
    const std::uint32_t scale = scales[kt];
    convert(code_tiles[s][0][tid], scale, fragment[0]);
#pragma unroll
    for (int i = 0; i < 128; ++i) fence_operand(d[i]);
#pragma unroll
    for (int k = 0; k < kSteps; ++k) {
#pragma unroll
      for (int q = 0; q < 4; ++q) fence_operand(fragment[k][q]);
      wgmma_fence();
      wgmma_rs(d, fragment[k], sw128_desc(activations[s], 32 * k));
      wgmma_commit();
      if (k + 1 < kSteps) convert(code_tiles[s][k + 1][tid], scale, fragment[k + 1]);
#if WAIT >= 0
      wgmma_wait<WAIT>();
#endif
    }
#pragma unroll
    for (int i = 0; i < 128; ++i) fence_operand(d[i]);
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < 128; ++i) out[blockIdx.x * 32768 + i * 256 + tid] = d[i];
}
