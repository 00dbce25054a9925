// NCCL through dlopen/dlsym: the library's path, its functions, its errors in words, and the
// NCCL_NVLS_ENABLE=0 rule applied before it is loaded.
#include "cluster/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

constexpr const char* kPathVariable = "FP4GEMM_NCCL_LIBRARY";
constexpr const char* kDefaultPath = "libnccl.so.2";

// The symbol `name` of `handle` as the type of `target`; throws naming the library when missing.
template <typename Fn>
void resolve(void* handle, const std::string& path, const char* name, Fn& target) {
  target = reinterpret_cast<Fn>(dlsym(handle, name));
  if (!target)
    throw Error(fmt::format("NCCL library '{}' lacks {} (set {} to a libnccl.so.2 of NCCL 2.18 or later)", path, name,
                            kPathVariable));
}

}  // namespace

std::unique_ptr<NcclLibrary> NcclLibrary::open(const std::string& path) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* reason = dlerror();
    throw Error(fmt::format("NCCL could not be loaded from '{}' ({}); set {} to the path of libnccl.so.2 "
                            "(on the GPU machines: the PyPI wheel nvidia-nccl-cu13, "
                            "<site-packages>/nvidia/nccl/lib/libnccl.so.2)",
                            path, reason ? reason : "no reason given", kPathVariable));
  }
  std::unique_ptr<NcclLibrary> library(new NcclLibrary(handle, path));
  NcclApi& api = library->api_;
  resolve(handle, path, "ncclGetVersion", api.get_version);
  resolve(handle, path, "ncclGetUniqueId", api.get_unique_id);
  resolve(handle, path, "ncclCommInitRank", api.comm_init_rank);
  resolve(handle, path, "ncclCommDestroy", api.comm_destroy);
  resolve(handle, path, "ncclCommSplit", api.comm_split);
  resolve(handle, path, "ncclAllGather", api.all_gather);
  resolve(handle, path, "ncclAllReduce", api.all_reduce);
  resolve(handle, path, "ncclSend", api.send);
  resolve(handle, path, "ncclRecv", api.recv);
  resolve(handle, path, "ncclGroupStart", api.group_start);
  resolve(handle, path, "ncclGroupEnd", api.group_end);
  resolve(handle, path, "ncclGetErrorString", api.get_error_string);
  return library;
}

NcclLibrary::~NcclLibrary() { dlclose(handle_); }

int NcclLibrary::version() const {
  int version = 0;
  check(api_.get_version(&version), "ncclGetVersion");
  return version;
}

void NcclLibrary::check(nccl::Result rc, const char* call) const {
  if (rc == nccl::kSuccess) return;
  const char* text = api_.get_error_string(rc);
  throw Error(fmt::format("{} failed: {} (NCCL error {})", call, text ? text : "no description", rc));
}

Communicator::Communicator(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int world_size)
    : nccl_(nccl) {
  nccl_.check(nccl_.api().comm_init_rank(&comm_, world_size, id, rank), "ncclCommInitRank");
}

Communicator::~Communicator() { nccl_.api().comm_destroy(comm_); }

std::unique_ptr<Communicator> Communicator::split(int color, int key) const {
  nccl::Comm comm = nullptr;
  nccl_.check(nccl_.api().comm_split(comm_, color, key, &comm, nullptr), "ncclCommSplit");
  return std::unique_ptr<Communicator>(new Communicator(nccl_, comm));
}

std::string nccl_library_path() {
  const char* path = std::getenv(kPathVariable);
  return path && *path ? std::string(path) : std::string(kDefaultPath);
}

std::unique_ptr<NcclLibrary> open_nccl_from_environment() {
  // Never NVLink multicast: on the shared multi-GPU hosts it can take the host's GPUs out of
  // service (README, "collectives"). Overwrite, so that no inherited value turns it on.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  return NcclLibrary::open(nccl_library_path());
}

}  // namespace fp4gemm
