// NCCL loaded at run time: where it is looked for, the error when it is missing (naming the
// variable FP4GEMM_NCCL_LIBRARY and the path), and NCCL_NVLS_ENABLE=0 set before the load.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cluster/nccl_library.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using test::expect_error;

TEST(NcclLibrary, PathComesFromTheEnvironmentElseTheSoname) {
  unsetenv("FP4GEMM_NCCL_LIBRARY");
  EXPECT_EQ(nccl_library_path(), "libnccl.so.2");
  setenv("FP4GEMM_NCCL_LIBRARY", "", 1);
  EXPECT_EQ(nccl_library_path(), "libnccl.so.2");
  setenv("FP4GEMM_NCCL_LIBRARY", "/opt/nccl/lib/libnccl.so.2", 1);
  EXPECT_EQ(nccl_library_path(), "/opt/nccl/lib/libnccl.so.2");
  unsetenv("FP4GEMM_NCCL_LIBRARY");
}

TEST(NcclLibrary, MissingLibraryNamesTheVariableAndThePath) {
  setenv("FP4GEMM_NCCL_LIBRARY", "/nonexistent", 1);
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  expect_error<Error>([] { open_nccl_from_environment(); }, "NCCL could not be loaded from '/nonexistent'");
  expect_error<Error>([] { open_nccl_from_environment(); }, "set FP4GEMM_NCCL_LIBRARY to the path of libnccl.so.2");
  // NVLink multicast is turned off before the load is even tried, overwriting what was there.
  ASSERT_NE(std::getenv("NCCL_NVLS_ENABLE"), nullptr);
  EXPECT_STREQ(std::getenv("NCCL_NVLS_ENABLE"), "0");
  unsetenv("FP4GEMM_NCCL_LIBRARY");
}

TEST(NcclLibrary, LibraryWithoutNcclNamesTheMissingFunction) {
  // libc loads but has no NCCL in it.
  expect_error<Error>([] { NcclLibrary::open("libc.so.6"); }, "NCCL library 'libc.so.6' lacks ncclGetVersion");
}

}  // namespace
}  // namespace fp4gemm
