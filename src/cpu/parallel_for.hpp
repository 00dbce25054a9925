#pragma once
// parallel_for(count, body): runs body(begin, end) over contiguous chunks of [0, count) on the
// machine's hardware threads (std::thread; no pool, since every caller does milliseconds of
// work or more per call). Exceptions thrown by body are rethrown on the calling thread.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fp4gemm::cpu {

inline unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Threads for `work` elements when a thread is worth starting only for at least `grain` of them:
// small work stays on one thread (a std::thread costs tens of microseconds to start).
inline unsigned threads_for(std::int64_t work, std::int64_t grain) {
  return unsigned(std::clamp<std::int64_t>(work / grain, 1, hardware_threads()));
}
// The grain of a loop of a few instructions per element (decoding, converting): 2^16 elements.
inline constexpr std::int64_t kElementwiseGrain = std::int64_t(1) << 16;

template <typename Body>
void parallel_for(std::int64_t count, Body&& body, unsigned threads = hardware_threads()) {
  threads = unsigned(std::clamp<std::int64_t>(count, 1, threads));
  if (threads == 1) {
    body(std::int64_t{0}, count);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> workers;
  const std::int64_t chunk = (count + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    const std::int64_t begin = t * chunk, end = std::min(count, begin + chunk);
    if (begin >= end) break;
    workers.emplace_back([&, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& w : workers) w.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace fp4gemm::cpu
