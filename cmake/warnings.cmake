# fp4gemm_warnings: -Wall -Wextra for C++ and for the host side of CUDA files.
add_library(fp4gemm_warnings INTERFACE)
target_compile_options(fp4gemm_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=cross-execution-space-call>)
