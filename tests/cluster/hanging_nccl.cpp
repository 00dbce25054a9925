// A stand-in for libnccl.so.2 whose ncclGetUniqueId never returns (it sleeps far past any test's
// --timeout): the launcher test loads it through FP4GEMM_NCCL_LIBRARY to see a hung rank ended.
// The other functions exist (the loader resolves them all) and fail.
#include <unistd.h>

#include <cstddef>

extern "C" {
int ncclGetVersion(int* version) {
  *version = 22809;
  return 0;
}
int ncclGetUniqueId(void*) {
  sleep(300);
  return 1;
}
int ncclCommInitRank(void*, int, ...) { return 1; }
int ncclCommDestroy(void*) { return 1; }
int ncclAllReduce(const void*, void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclSend(const void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclRecv(void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclGroupStart() { return 1; }
int ncclGroupEnd() { return 1; }
const char* ncclGetErrorString(int) { return "the hanging test stand-in fails every call"; }
}
