#pragma once
// PTX wrappers of Hopper's asynchronous machinery (sm_90 / sm_90a), used by cuda-wgmma:
//   mbarrier    init, arrive (plain, and with an expected transaction count), parity wait;
//   TMA         cp.async.bulk.tensor 2-D tile loads and plain bulk copies completing on an mbarrier;
//   wgmma       fence / commit / wait, the bf16 m64n{32,64,128,256}k16 MMA with A in registers and B in
//               shared memory, and the matrix descriptor of a 128-byte-swizzled K-major operand;
//   barriers    named barriers among a subset of the CTA's warps.
// Facts and their PTX ISA sections: notes_wgmma.md. Only code compiled for sm_90a may call the
// wgmma wrappers (the caller guards with __CUDA_ARCH_FEAT_SM90_ALL); being inline and unused
// elsewhere, they emit nothing for other architectures.
#include <cuda.h>  // CUtensorMap (a type only: the driver library is not linked)
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/mma_primitives.cuh"

namespace fp4gemm::cuda::sm90 {

using mma::smem_address;

// ------------------------------------------------------------------ mbarrier
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count)
               : "memory");
}
// Makes initialized barriers visible to the other threads and to the async proxy (TMA).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
// One arrival that also expects `bytes` more of asynchronous transactions (TMA) this phase.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
}
// Waits until the phase of parity `parity` has completed (a fresh barrier is in phase 0, so
// waiting for parity 1 returns at once).
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  const std::uint32_t address = smem_address(bar);
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(address), "r"(parity)
        : "memory");
  } while (!done);
}

// ------------------------------------------------------------------ TMA
// The box of `map` at coordinates (x: innermost, y) into shared memory at `dst`, completing
// `bar`'s transactions with the box's full size (parts outside the tensor are zero-filled).
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar,
                                            int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(smem_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(smem_address(bar)), "r"(x), "r"(y)
      : "memory");
}

// `bytes` contiguous bytes (a multiple of 16; both addresses 16-byte aligned) from global into
// shared memory by the bulk copy engine, completing `bar`'s transactions (non-tensor
// cp.async.bulk; used by bench/decode_stream_probe.cu).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   smem_address(dst)),
               "l"(src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
}

// ------------------------------------------------------------------ barriers
// Barrier `id` (1..15; 0 is __syncthreads) among `threads` threads (a multiple of 32) of the CTA.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// Moves registers between warpgroups (PTX ISA, setmaxnreg; sm_90a): every thread of a warpgroup
// executes it, and the per-thread count (a multiple of 8, 24..256) must fit the CTA's budget.
// Producer warpgroups give registers back, MMA warpgroups take them.
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}

// ------------------------------------------------------------------ wgmma
// Descriptor of a K-major bf16 operand tile in shared memory, 128-byte swizzled as TMA writes it
// (rows of 64 elements = 128 bytes; 8-row groups 1024 bytes apart), starting at `tile` + `k_byte`
// (k_byte = 32 * k16 step). The tile must be 1024-byte aligned (matrix base offset 0).
//   bits  0-13 start address >> 4     bits 16-29 leading byte offset >> 4 (unused when K-major
//   bits 32-45 stride byte offset >> 4            and swizzled; 1 by convention)
//   bits 62-63 swizzle: 1 = 128-byte
__device__ __forceinline__ std::uint64_t sw128_kmajor_desc(const void* tile, int k_byte) {
  const std::uint64_t start = ((smem_address(tile) + std::uint32_t(k_byte)) & 0x3FFFF) >> 4;
  return start | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) |
         (std::uint64_t(1) << 62);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Keeps the compiler from moving accesses of `r` across the asynchronous MMAs (after a wait).
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// One wgmma with A in registers (RS): acc (64 x N, fp32) += A (64 x 16 bf16, this thread's
// fragment a0..a3: notes_wgmma.md, fact 1) * B (16 x N bf16, descriptor `b`, K-major:
// imm-trans-b = 0), scale-d = 1 (accumulate); the form has no imm-trans-a (fact 3).
// acc[4j + 2h + e] of thread (warp w, lane 4g + t) is element (16w + g + 8h, 8j + 2t + e) (fact 2).
// The fragment registers must not change until the wgmma is waited for. N = 32, 64, 128 or 256:
// the accumulator list of the asm is spelled out per N (an asm operand list cannot be generated).
#define FP4GEMM_ACC8(d, i)                                                                \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define FP4GEMM_ACC32(d, i) \
  FP4GEMM_ACC8(d, i), FP4GEMM_ACC8(d, i + 8), FP4GEMM_ACC8(d, i + 16), FP4GEMM_ACC8(d, i + 24)
#define FP4GEMM_ACC64(d, i) FP4GEMM_ACC32(d, i), FP4GEMM_ACC32(d, i + 32)

template <int N>
__device__ __forceinline__ void wgmma_m64k16_rs(float (&d)[N / 2], const std::uint32_t (&a)[4],
                                                std::uint64_t b) {
  static_assert(N == 32 || N == 64 || N == 128 || N == 256,
                "the wrapped wgmma shapes are m64n{32,64,128,256}k16");
  if constexpr (N == 32) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
        "{%16, %17, %18, %19}, %20, 1, 1, 1, 0;\n"
        : FP4GEMM_ACC8(d, 0), FP4GEMM_ACC8(d, 8)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  } else if constexpr (N == 64) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "{%32, %33, %34, %35}, %36, 1, 1, 1, 0;\n"
        : FP4GEMM_ACC32(d, 0)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  } else if constexpr (N == 128) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, "
        "1, 1, 1, 0;\n"
        : FP4GEMM_ACC64(d, 0)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  } else {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "
        "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "
        "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "
        "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "
        "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "
        "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "
        "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, "
        "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, 1, 1, 1, 0;\n"
        : FP4GEMM_ACC64(d, 0), FP4GEMM_ACC64(d, 64)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
}
#undef FP4GEMM_ACC64
#undef FP4GEMM_ACC32
#undef FP4GEMM_ACC8

// ------------------------------------------------------------------ wgmma, FP8 (cuda-fp8-lossy)
// acc (64 x 128, fp32) = (accumulate ? acc : 0) + A (64 x 32 E4M3, shared memory, descriptor `a`)
// * B (32 x 128 E4M3, shared memory, descriptor `b`), both K-major (the only form for 8-bit
// types: PTX ISA, wgmma.mma_async, "imm-trans ... only supported for .f16/.bf16"), e.g. each a
// 128-byte-swizzled tile of rows of 128 codes (sw128_kmajor_desc; a k32 step is 32 bytes, as a
// bf16 k16 step). Form: `wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 d, a-desc, b-desc,
// scale-d, imm-scale-a, imm-scale-b;` (scale-d false: D = A B). The accumulators are laid out as
// in wgmma_m64k16_rs: acc[4j + 2h + e] of (warp w, lane 4g + t) is (16w + g + 8h, 8j + 2t + e).
__device__ __forceinline__ void wgmma_m64n128k32_e4m3_ss(float (&d)[64], std::uint64_t a,
                                                         std::uint64_t b, bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(a), "l"(b), "r"(int(accumulate)));
}

}  // namespace fp4gemm::cuda::sm90
