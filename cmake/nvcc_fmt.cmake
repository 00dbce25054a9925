# fmt in nvcc-compiled files of `target`: nvcc's front end turns fmt's constexpr off (it tests
# __NVCC__), which breaks fmt's C++20 consteval format strings; and fmt's constexpr functions,
# made host+device by --expt-relaxed-constexpr, mention long double (warning 20208; never run
# there).
function(fp4gemm_nvcc_takes_fmt target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>
                                           $<$<COMPILE_LANGUAGE:CUDA>:-diag-suppress=20208>)
  target_compile_definitions(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:FMT_USE_CONSTEXPR=1>)
endfunction()
