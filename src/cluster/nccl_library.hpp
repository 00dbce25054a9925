#pragma once
// NCCL loaded at run time (dlopen, as bench/nvml_library.hpp loads NVML): no link-time dependency,
// so fp4gemm starts where NCCL is missing and says so in words. The path comes from the
// environment variable FP4GEMM_NCCL_LIBRARY, else "libnccl.so.2" (the dynamic loader's search).
// On the GPU machines of this project NCCL exists only inside the PyPI wheel nvidia-nccl-cu13:
// <site-packages>/nvidia/nccl/lib/libnccl.so.2 (README, "fp4gemm collectives").
//
// NVLink multicast (NVLS) is never used: before NCCL is loaded, open_nccl_from_environment() sets
// NCCL_NVLS_ENABLE=0 (overwriting any value), because on the shared multi-GPU hosts a program
// that uses multicast can take the host's GPUs out of service. Nothing here calls cuMulticastCreate.
#include <cstddef>
#include <memory>
#include <string>

namespace fp4gemm {

// The few declarations of NCCL's public API (nccl.h, checked against NCCL 2.28's header) that
// fp4gemm uses. The stream is cudaStream_t, passed as void* so that this header needs no CUDA.
namespace nccl {
using Result = int;                 // ncclResult_t; ncclSuccess = 0
using Comm = struct OpaqueComm*;    // ncclComm_t, an opaque pointer
using DataType = int;               // ncclDataType_t
using RedOp = int;                  // ncclRedOp_t
inline constexpr Result kSuccess = 0;
inline constexpr DataType kFloat32 = 7;  // ncclFloat32
inline constexpr DataType kBfloat16 = 9; // ncclBfloat16
inline constexpr RedOp kSum = 0;         // ncclSum
inline constexpr std::size_t kUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct UniqueId {                   // ncclUniqueId
  char internal[kUniqueIdBytes];
};
}  // namespace nccl

// The NCCL functions fp4gemm calls, resolved when the library is opened.
struct NcclApi {
  nccl::Result (*get_version)(int* version);
  nccl::Result (*get_unique_id)(nccl::UniqueId* id);
  nccl::Result (*comm_init_rank)(nccl::Comm* comm, int ranks, nccl::UniqueId id, int rank);
  nccl::Result (*comm_destroy)(nccl::Comm comm);
  // ncclCommSplit (NCCL 2.18): the ranks of `comm` that pass the same color form a new
  // communicator, ordered by key; config may be null (the parent's settings).
  nccl::Result (*comm_split)(nccl::Comm comm, int color, int key, nccl::Comm* new_comm, void* config);
  nccl::Result (*all_reduce)(const void* send, void* receive, std::size_t count, nccl::DataType type,
                             nccl::RedOp op, nccl::Comm comm, void* stream);
  nccl::Result (*all_gather)(const void* send, void* receive, std::size_t send_count, nccl::DataType type,
                             nccl::Comm comm, void* stream);
  nccl::Result (*send)(const void* send, std::size_t count, nccl::DataType type, int peer, nccl::Comm comm,
                       void* stream);
  nccl::Result (*recv)(void* receive, std::size_t count, nccl::DataType type, int peer, nccl::Comm comm,
                       void* stream);
  nccl::Result (*group_start)();
  nccl::Result (*group_end)();
  const char* (*get_error_string)(nccl::Result result);
};

class NcclLibrary {
 public:
  // The library at `path` with every function of NcclApi, or an Error naming the path, the
  // loader's reason or the missing function, and the variable FP4GEMM_NCCL_LIBRARY.
  static std::unique_ptr<NcclLibrary> open(const std::string& path);
  ~NcclLibrary();
  NcclLibrary(const NcclLibrary&) = delete;
  NcclLibrary& operator=(const NcclLibrary&) = delete;

  const NcclApi& api() const { return api_; }
  const std::string& path() const { return path_; }
  // NCCL's version code (22809 for 2.28.9), from ncclGetVersion.
  int version() const;
  // Throws Error "<call> failed: <ncclGetErrorString(rc)>" unless rc is ncclSuccess.
  void check(nccl::Result rc, const char* call) const;

 private:
  NcclLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}

  void* handle_;
  std::string path_;
  NcclApi api_{};
};

// A communicator, destroyed with its owner (ncclCommDestroy). Created from a ncclUniqueId
// (ncclCommInitRank: every rank of world_size calls it with the same id) or split from another.
class Communicator {
 public:
  Communicator(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int world_size);
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator();
  nccl::Comm get() const { return comm_; }
  // ncclCommSplit: every rank of this communicator calls it; those with the same `color` form
  // the new one, ranked by `key`.
  std::unique_ptr<Communicator> split(int color, int key) const;

 private:
  Communicator(const NcclLibrary& nccl, nccl::Comm comm) : nccl_(nccl), comm_(comm) {}
  const NcclLibrary& nccl_;
  nccl::Comm comm_ = nullptr;
};

// Where NCCL is loaded from: $FP4GEMM_NCCL_LIBRARY when set and not empty, else "libnccl.so.2".
std::string nccl_library_path();
// Sets NCCL_NVLS_ENABLE=0 (overwrite: NVLink multicast stays off), then opens nccl_library_path().
std::unique_ptr<NcclLibrary> open_nccl_from_environment();

}  // namespace fp4gemm
