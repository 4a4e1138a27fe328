// One timed run of either side of the engine-vs-eager benchmark (and of the
// data-parallel one, ddp_scaling), each in its own child process so that
// neither inherits the other's warm caches, thread pools or allocator state,
// exactly as a user would run them.
#pragma once

#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/common/statistics.hpp"
#include "tb/model/model_config.hpp"

namespace tb::perf {

/// What both sides are asked to run.
struct BenchSetup {
  std::string trainbench;             ///< the `trainbench` binary
  std::string python;                 ///< Debian's python with python3-torch
  std::string eagerScript;            ///< engine_vs_eager.py
  std::string torchrun = "torchrun";  ///< launches the eager side's DDP workers
  std::string presetName;             ///< passed to `trainbench run --model`
  model::ModelConfig model;           ///< the preset's shape, passed field by field to Python
  int steps = 30;
  int warmupSteps = 5;  ///< leading steps left out of the median
  int threads = 1;
  std::string scratchDir;  ///< run directories and event files
};

/// The measured steps of one run, warm-up already dropped.
struct SideRun {
  std::vector<double> stepSeconds;
  double loadBefore = 0.0;    ///< 1-minute load average when it started
  double matmulGflops = 0.0;  ///< engine only: its in-process probe
  double lossFirst = 0.0;
  /// Data-parallel engine runs: each measured step's wait on collectives
  /// after backward (`comm_wait_s` of rank 0's step events).
  std::vector<double> commWaitSeconds;
  /// Each measured step's CPU time, every thread of rank 0's process
  /// (`cpu_s` of the engine's step events; time.process_time() in Python).
  std::vector<double> cpuSeconds;
};

/// How one side runs: its processes (1: one, else data-parallel workers of
/// `threads` threads each) and, for the engine, extra `trainbench run` flags.
struct SideShape {
  int processes = 1;
  std::vector<std::string> engineFlags;
};

/// `trainbench run --model NAME --json --events FILE` (with `--nproc-per-node`
/// for several processes); step times from rank 0's events.
[[nodiscard]] Expected<SideRun> runEngine(const BenchSetup& setup, const std::string& tag,
                                          const SideShape& shape = {});

/// engine_vs_eager.py with the same shape, steps, threads; several processes
/// run it under torchrun as PyTorch DDP on Gloo.
[[nodiscard]] Expected<SideRun> runEager(const BenchSetup& setup, const SideShape& shape = {});

using tb::median;  // the project's one median (tb/common/statistics.hpp)

/// The 1-minute load average from /proc/loadavg (0 where unreadable).
[[nodiscard]] double loadAverage();

}  // namespace tb::perf
