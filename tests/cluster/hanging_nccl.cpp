// Stand-ins for libnccl.so.2, for the launcher tests (no GPU, no NCCL needed). Built twice:
//   hanging_nccl: ncclGetUniqueId never returns (it sleeps far past any test's --timeout), to see
//     a hung rank ended;
//   echo_nccl (FP4GEMM_STAND_IN_ANSWERS): ncclGetUniqueId answers an id of 'E' bytes, to see the id
//     relayed to every rank and the ranks' reports returned.
// The other functions exist (the loader resolves them all) and fail.
#include <unistd.h>

#include <cstddef>
#include <cstring>

extern "C" {
int ncclGetVersion(int* version) {
  *version = 22809;
  return 0;
}
int ncclGetUniqueId(void* id) {
#ifdef FP4GEMM_STAND_IN_ANSWERS
  std::memset(id, 'E', 128);
  return 0;
#else
  (void)id;
  sleep(300);
  return 1;
#endif
}
int ncclCommInitRank(void*, int, ...) { return 1; }
int ncclCommDestroy(void*) { return 1; }
int ncclCommSplit(void*, int, int, void*, void*) { return 1; }
int ncclAllReduce(const void*, void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclAllGather(const void*, void*, std::size_t, int, void*, void*) { return 1; }
int ncclSend(const void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclRecv(void*, std::size_t, int, int, void*, void*) { return 1; }
int ncclGroupStart() { return 1; }
int ncclGroupEnd() { return 1; }
const char* ncclGetErrorString(int) { return "the test stand-in fails every call"; }
}
