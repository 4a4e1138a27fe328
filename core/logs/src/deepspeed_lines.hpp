// The lines of the DeepSpeed engine's console log, each read on its own:
// the ThroughputTimer line, the progress line, the wall-clock breakdowns,
// the pipeline engine's line and the flops profiler's values. deepspeed.cpp
// gathers them into one record per optimizer step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tb/common/expected.hpp"

namespace tb::logs::detail::deepspeed {

/// A value the file printed as a number, unless it is inf or nan.
std::optional<double> finite(std::optional<double> value);

/// `epoch=0/micro_step=10/global_step=10, RunningAvgSamplesPerSec=…,
/// CurrSamplesPerSec=…, MemAllocated=…GB, MaxMemAllocated=…GB` (v0.8+),
/// `0/20, RunningAvgSamplesPerSec=…, CurrSamplesPerSec=…, …` (v0.7),
/// `0/10, SamplesPerSec=…, MemAllocated=…GB, MaxMemAllocated=…GB` (≤ v0.6).
struct TimerLine {
  std::int64_t step = 0;
  bool labelled =
      false;  ///< global_step= printed (v0.8+); before, the step printed is not said to be global
  std::optional<double> running;
  std::optional<double> current;
  std::optional<double> maxAllocatedGiB;
};

std::size_t timerAnchor(std::string_view line);

/// The line's values, or an error for a timer line that cannot be read.
std::optional<Error> readTimer(std::string_view line, std::size_t anchor, TimerLine& timer,
                               std::string_view origin, std::uint64_t lineNumber);

/// `[Rank 0] step=10, skipped=10, lr=[0.0001], mom=[(0.9, 0.999)]`
/// (engine._report_progress; one lr per parameter group, group 0 is taken).
struct ProgressLine {
  std::int64_t step = 0;
  std::int64_t skipped = 0;
  std::optional<double> learningRate;
};

std::size_t progressAnchor(std::string_view line);

/// The first number of a Python list repr: `[0.0001, 0.0002]`; entries
/// such as `np.float64(0.0001)` or `tensor(1.0e-04, device='cuda:0')` are
/// unwrapped.
std::optional<double> firstListNumber(std::string_view text);

std::optional<Error> readProgress(std::string_view line, std::size_t anchor, ProgressLine& progress,
                                  std::string_view origin, std::uint64_t lineNumber);

/// `time (ms) | fwd: … | bwd: … | bwd_inner: … | bwd_allreduce: … | step: …`
/// (SynchronizedWallClockTimer.log; `forward`, `backward`, … before v0.10.1;
/// `_microstep` names for the micro-step line).
enum class BreakdownKind : std::uint8_t { NotDeepSpeed, Micro, Global, Other };

struct Breakdown {
  BreakdownKind kind = BreakdownKind::NotDeepSpeed;
  double milliseconds = 0.0;  ///< fwd + bwd + step of a global line
};

bool isMicroTimer(std::string_view name);

bool isForward(std::string_view name);

bool isBackward(std::string_view name);

/// Names only DeepSpeed's engine timers have: Megatron-LM's own old timers
/// also print `time (ms) | forward: … | backward: …`.
bool isDeepSpeedOnlyTimer(std::string_view name);

std::size_t breakdownAnchor(std::string_view line);

std::optional<Error> readBreakdown(std::string_view line, std::size_t anchor, Breakdown& breakdown,
                                   std::string_view origin, std::uint64_t lineNumber);

/// `steps: 10 loss: 7.1234 [name: v ]iter time (s): 1.234 samples/sec: 207.456`
/// (PipelineEngine.train_batch, printed every steps_per_print steps; the time
/// is the window's average).
struct PipelineLine {
  std::int64_t step = 0;
  std::optional<double> loss;
  std::optional<double> iterSeconds;
  std::optional<double> samplesPerSecond;
};

std::size_t pipelineAnchor(std::string_view line);

std::optional<double> numberAfter(std::string_view text, std::string_view label);

std::optional<Error> readPipeline(std::string_view line, std::size_t anchor, PipelineLine& pipe,
                                  std::string_view origin, std::uint64_t lineNumber);

/// A profiler value with its unit, `102.0 TFLOPS` / `184.73 ms`, counted in
/// `unitSize` base units (1e12 for TFLOPS, 1 for seconds); nothing for a
/// unit other than `base` with a metric prefix.
std::optional<double> scaledValue(std::string_view text, std::string_view base, double unitSize);

}  // namespace tb::logs::detail::deepspeed
