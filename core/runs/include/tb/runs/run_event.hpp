// One line of a run's event stream (`trainbench run --events`, events.jsonl) as
// a plain struct. The GUI reads the same lines live from a child's stdout and
// later from the file, the benchmark reads its children's files, and all go
// through parseEventLine; the engine writes them through RunEventLog.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::runs {

/// Where a live reader gets each event line (the CLI's --events, a GUI's pipe).
using EventSink = std::function<void(const std::string& jsonLine)>;

/// Which event a line is; Other keeps newer engines' events from being errors.
/// RankStep: one local rank's own step of a data-parallel run, which the
/// launcher adds to the stream it forwards (rank 0's events) so that a live
/// reader sees every rank's memory, not only rank 0's.
enum class EventKind { Start, Step, RankStep, End, Error, Other };

/// One step's numbers.
struct StepSample {
  std::int64_t step = 0;
  double loss = 0.0;
  std::int64_t seq = 0;  ///< the step's sequence length (varies under --seq-min/--seq-max)
  double stepTimeSeconds = 0.0;
  double tokensPerSecond = 0.0;
  std::uint64_t liveBytes = 0;
  std::uint64_t peakBytes = 0;
  double gradNorm = 0.0;
  double learningRate = 0.0;
  /// Data parallelism: how long the step waited on its collectives after
  /// backward (the gradient buckets still in flight, the stop agreement);
  /// absent for one process.
  std::optional<double> commWaitSeconds;
  /// CPU time the process spent during the step, all its threads (compute,
  /// and under data parallelism communication): beside stepTimeSeconds it
  /// says how busy the step kept the cores. Absent in older event files.
  std::optional<double> cpuSeconds;

  friend bool operator==(const StepSample&, const StepSample&) = default;
};

/// The fields of a `step` event (without "event" and "elapsed_s").
[[nodiscard]] nlohmann::json toJson(const StepSample& sample);

/// A parsed event; only the members of its kind are filled.
struct RunEvent {
  EventKind kind = EventKind::Other;
  std::string name;  ///< the `event` field as written
  double elapsedSeconds = 0.0;
  StepSample sample;                       ///< Step, RankStep
  int rank = 0;                            ///< RankStep
  std::int64_t totalSteps = 0;             ///< Start: the configured steps
  std::int64_t params = 0;                 ///< Start
  std::uint64_t memoryBudget = 0;          ///< Start: 0 when unlimited
  std::string model;                       ///< Start
  std::string recompute;                   ///< Start: the policy chosen
  std::string runDir;                      ///< Start
  std::string matmulPath;                  ///< Start: the matrix-product path the probe chose
  double flopsPerToken = 0.0;              ///< Start
  double matmulGflops = 0.0;               ///< Start: the probe's best rate
  int threads = 0;                         ///< Start: the config's intra-op threads
  std::string torchVersion;                ///< Start
  RunState errorState = RunState::Failed;  ///< Error
  std::string message;                     ///< Error
  std::optional<RunSummary> summary;       ///< End
};

/// A `rank_step` line: rank `rank`'s own `step` event (its memory is its own;
/// its loss and tokens/s are the group's), at the launcher's `elapsedSeconds`.
[[nodiscard]] std::string rankStepLine(int rank, const StepSample& sample, double elapsedSeconds);

/// Parses one JSON line; the error says what is missing or malformed.
[[nodiscard]] Expected<RunEvent> parseEventLine(std::string_view line);

/// The events of a file, with the lines that could not be parsed (a run killed
/// mid-write leaves a partial last line) reported instead of failing the file.
struct EventFile {
  std::vector<RunEvent> events;
  std::vector<std::string> problems;  ///< "line N: reason"
};

/// The events of JSON-lines text (a file's content, a child's output so far).
[[nodiscard]] EventFile parseEvents(std::string_view text);

/// Reads `runDir`/events.jsonl; an error only when the file cannot be read.
[[nodiscard]] Expected<EventFile> readEvents(const std::filesystem::path& runDir);

/// The highest step number among the complete `step` events, 0 when none:
/// how far a run still in progress has got. Parses from the end, so a reader
/// polling a long run does not parse every line again.
[[nodiscard]] std::int64_t lastStep(std::string_view eventsJsonl);

/// lastStep of the run directory's events; 0 while they cannot be read.
[[nodiscard]] std::int64_t lastStepOfRun(const std::filesystem::path& runDir);

/// The step samples of `events`, in order.
[[nodiscard]] std::vector<StepSample> stepSamples(const std::vector<RunEvent>& events);

}  // namespace tb::runs
