#pragma once
// How one sample of a measurement is timed (timing.hpp gives the methods and the loop):
//   CallCycle  the runs of a measurement, called in turn: call i enqueues runs[i % R].run();
//   Sampler    times one sample of calls and waits for it: steady clock for host runs, CUDA
//              events (stream, single) or a captured CUDA graph (graph) for GPU runs;
//   StreamBinding  binds runs 1..R-1 of a GPU measurement to run 0's stream for its lifetime.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "bench/timing.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm {

class CallCycle {
 public:
  explicit CallCycle(std::span<GemmRun* const> runs);
  void call();                        // enqueue the next run's GEMM
  GemmRun& first() const { return *runs_.front(); }
  int size() const { return int(runs_.size()); }

 private:
  std::span<GemmRun* const> runs_;
  std::size_t next_ = 0;
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual double sample_seconds() = 0;  // time of one sample (all its calls), after they finished
};

struct SamplerChoice {
  std::unique_ptr<Sampler> sampler;
  TimingMethod method = TimingMethod::stream;  // what it times with (graph may fall back)
  std::string timer;                           // "cuda-events" or "steady-clock"
  std::string note;                            // why `method` is not the one asked for
};

// A sampler of `calls_per_sample` calls of `cycle` by `method` (host runs: stream, steady clock).
SamplerChoice make_sampler(TimingMethod method, CallCycle& cycle, int calls_per_sample);

class StreamBinding {
 public:
  // Binds every run after the first to the first's stream (GPU runs; nothing for host runs).
  explicit StreamBinding(std::span<GemmRun* const> runs);
  // Unbinds. The samplers wait for their work, so nothing is in flight on the shared stream.
  ~StreamBinding();
  StreamBinding(const StreamBinding&) = delete;
  StreamBinding& operator=(const StreamBinding&) = delete;

 private:
  std::span<GemmRun* const> bound_;
};

#if defined(FP4GEMM_HAVE_CUDA)
// src/cuda/cuda_samplers.cpp: the GPU samplers on `stream`; graph capture failing falls back to
// stream with the reason in `note`.
SamplerChoice make_cuda_sampler(TimingMethod method, CallCycle& cycle, int calls_per_sample, void* stream);
// src/cuda/empty_launch.cu: a run whose run() launches an empty kernel (launch overhead).
std::unique_ptr<GemmRun> make_empty_launch_run();
#endif

}  // namespace fp4gemm
