// Fork, pipes and reports of the one-process-per-GPU commands: one child process per GPU, the
// ncclUniqueId relayed from rank 0 to the others, and every rank's report or error gathered with poll.
#include "cluster/rank_launcher.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

static_assert(sizeof(nccl::UniqueId) == nccl::kUniqueIdBytes);

// What a child sends up its pipe: a header, then `length` bytes.
// gpu_count's payload: "<count>\n<why none>".
enum class MessageKind : std::uint32_t { unique_id, report, error, gpu_count };
struct MessageHeader {
  MessageKind kind;
  std::uint64_t length;
};
struct Message {
  MessageKind kind;
  std::string payload;
};

void write_all(int fd, const void* data, std::size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw Error(fmt::format("write to a pipe failed: {}", std::strerror(errno)));
    bytes += written;
    size -= std::size_t(written);
  }
}

// False at end of file before `size` bytes.
bool read_all(int fd, void* data, std::size_t size) {
  char* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = read(fd, bytes, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    bytes += got;
    size -= std::size_t(got);
  }
  return true;
}

void send_message(int fd, MessageKind kind, const void* payload, std::size_t length) {
  const MessageHeader header{kind, length};
  write_all(fd, &header, sizeof header);
  write_all(fd, payload, length);
}

// The next message, or nothing at end of file.
std::optional<Message> receive_message(int fd) {
  MessageHeader header{};
  if (!read_all(fd, &header, sizeof header)) return std::nullopt;
  Message message{header.kind, std::string(header.length, '\0')};
  if (!read_all(fd, message.payload.data(), header.length)) return std::nullopt;
  return message;
}

// How a child ended, in words: "exit status 1", "signal 9".
std::string reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("signal {}", WTERMSIG(status));
  return "unknown end";
}

// One forked rank, as the parent sees it.
struct Child {
  pid_t pid = -1;
  int from_child = -1;  // read end of the child's pipe up
  int to_child = -1;    // write end of the child's pipe down
  bool reported = false;
};

// The body of rank `rank`'s process; never returns. `_exit` skips the parent's atexit handlers and
// static destructors, which belong to the parent, and leaves NCCL loaded to the end (the body
// destroys its communicators before it returns).
[[noreturn]] void rank_process(int rank, int world_size, const RankBody& body, int to_parent, int from_parent) {
  try {
    const std::unique_ptr<NcclLibrary> nccl = open_nccl_from_environment();
    nccl::UniqueId id{};
    if (rank == 0) {
      nccl->check(nccl->api().get_unique_id(&id), "ncclGetUniqueId");
      send_message(to_parent, MessageKind::unique_id, &id, sizeof id);
    } else if (!read_all(from_parent, &id, sizeof id)) {
      throw Error("the parent closed the pipe before sending the ncclUniqueId");
    }
    const std::string report = body(*nccl, id, rank, world_size);
    send_message(to_parent, MessageKind::report, report.data(), report.size());
    _exit(0);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    try {
      send_message(to_parent, MessageKind::error, what.data(), what.size());
    } catch (const Error&) {
      // The parent is gone; nobody is left to tell.
    }
  }
  _exit(1);
}

// Ends every child still running (by pid) and reaps them all.
void end_children(std::vector<Child>& children) {
  for (Child& child : children) {
    kill(child.pid, SIGKILL);
    reap(child.pid);
    close(child.from_child);
    close(child.to_child);
  }
}

// The children, forked; rank r's pipes in children[r].
std::vector<Child> fork_ranks(const RankBody& body, int world_size) {
  std::fflush(nullptr);  // nothing buffered is written twice by a child
  std::vector<Child> children;
  for (int rank = 0; rank < world_size; ++rank) {
    int up[2], down[2];
    if (pipe(up) != 0 || pipe(down) != 0) {
      end_children(children);
      throw Error(fmt::format("pipe for rank {} failed: {}", rank, std::strerror(errno)));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      end_children(children);
      throw Error(fmt::format("fork of rank {} failed: {}", rank, std::strerror(errno)));
    }
    if (pid == 0) {
      for (const Child& earlier : children) {
        close(earlier.from_child);
        close(earlier.to_child);
      }
      close(up[0]);
      close(down[1]);
      rank_process(rank, world_size, body, up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    children.push_back({pid, up[0], down[1]});
  }
  return children;
}

// Waits until one of `fds` is readable or `deadline` passes; false at the deadline. Throws Error
// (after ending the children) when poll itself fails.
bool poll_until(std::vector<pollfd>& fds, std::chrono::steady_clock::time_point deadline,
                std::vector<Child>& children) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = poll(fds.data(), fds.size(), int(std::min<std::int64_t>(left.count(), INT32_MAX)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) {
      end_children(children);
      throw Error(fmt::format("poll on the ranks' pipes failed: {}", std::strerror(errno)));
    }
  }
}

// Ends all children and throws: ranks `ranks` had not reported within --timeout.
[[noreturn]] void time_out(std::string_view label, std::vector<Child>& children, const std::vector<int>& ranks,
                           int timeout_seconds) {
  end_children(children);
  throw Error(fmt::format("{}: rank(s) {} had not reported after --timeout {} s; every rank was ended", label,
                          fmt::join(ranks, ", "), timeout_seconds));
}

// Ends all children and throws: rank `rank` reported `message`, or ended without a report.
[[noreturn]] void fail(std::string_view label, std::vector<Child>& children, int rank,
                       const std::optional<Message>& message) {
  const std::string why =
      message && message->kind == MessageKind::error ? message->payload : std::string("it ended without a report");
  end_children(children);
  throw Error(fmt::format("{}: rank {} (GPU {}) failed: {}", label, rank, rank, why));
}

}  // namespace

int count_gpus_in_child(std::string& why_none) {
  int up[2];
  if (pipe(up) != 0) throw Error(fmt::format("pipe failed: {}", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw Error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    close(up[0]);
    std::string why;
    const std::string answer = fmt::format("{}\n{}", query_gpus(&why).size(), why);
    try {
      send_message(up[1], MessageKind::gpu_count, answer.data(), answer.size());
    } catch (const Error&) {
      _exit(1);
    }
    _exit(0);
  }
  close(up[1]);
  const std::optional<Message> answer = receive_message(up[0]);
  close(up[0]);
  const std::string end = reap(pid);
  if (!answer || answer->kind != MessageKind::gpu_count)
    throw Error(fmt::format("the process counting the GPUs ended without an answer ({})", end));
  const std::size_t newline = answer->payload.find('\n');
  why_none = answer->payload.substr(newline + 1);
  return std::stoi(answer->payload.substr(0, newline));
}

std::vector<std::string> run_ranks(std::string_view label, int world_size, int timeout_seconds, const RankBody& body) {
  require(world_size >= 1, "{}: world size {} must be at least 1", label, world_size);
  // A rank that died closes its pipe: writing to it must fail with EPIPE, not kill this process.
  signal(SIGPIPE, SIG_IGN);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  std::vector<Child> children = fork_ranks(body, world_size);

  // Rank 0's ncclUniqueId, relayed to every other rank.
  std::vector<pollfd> rank0{{children[0].from_child, POLLIN, 0}};
  if (!poll_until(rank0, deadline, children)) time_out(label, children, {0}, timeout_seconds);
  const std::optional<Message> id = receive_message(children[0].from_child);
  if (!id || id->kind != MessageKind::unique_id || id->payload.size() != nccl::kUniqueIdBytes) fail(label, children, 0, id);
  for (int rank = 1; rank < world_size; ++rank) {
    try {
      write_all(children[std::size_t(rank)].to_child, id->payload.data(), id->payload.size());
    } catch (const Error&) {
      fail(label, children, rank, receive_message(children[std::size_t(rank)].from_child));
    }
  }

  // Every rank's report, in the order they come: a failing rank must not wait behind a hung one.
  std::vector<std::string> reports(static_cast<std::size_t>(world_size));
  for (int pending = world_size; pending > 0;) {
    std::vector<pollfd> fds;
    std::vector<int> ranks;
    for (int rank = 0; rank < world_size; ++rank) {
      if (children[std::size_t(rank)].reported) continue;
      fds.push_back({children[std::size_t(rank)].from_child, POLLIN, 0});
      ranks.push_back(rank);
    }
    if (!poll_until(fds, deadline, children)) time_out(label, children, ranks, timeout_seconds);
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const int rank = ranks[i];
      std::optional<Message> report = receive_message(fds[i].fd);
      if (!report || report->kind != MessageKind::report) fail(label, children, rank, report);
      reports[std::size_t(rank)] = std::move(report->payload);
      children[std::size_t(rank)].reported = true;
      --pending;
    }
  }
  std::string bad_ends;
  for (int rank = 0; rank < world_size; ++rank) {
    Child& child = children[std::size_t(rank)];
    close(child.from_child);
    close(child.to_child);
    if (const std::string end = reap(child.pid); end != "exit status 0")
      bad_ends += fmt::format("{}rank {} reported, then ended with {}", bad_ends.empty() ? "" : "; ", rank, end);
  }
  if (!bad_ends.empty()) throw Error(fmt::format("{}: {}", label, bad_ends));
  return reports;
}

}  // namespace fp4gemm
