// One line of a run's event stream (`trainbench run --events`, events.jsonl) as
// a plain struct. The GUI reads the same lines live from a child's stdout and
// later from the file, so both go through parseEventLine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/runs/run_state.hpp"

namespace tb::runs {

/// Which event a line is; Other keeps newer engines' events from being errors.
enum class EventKind { Start, Step, End, Error, Other };

/// The measurements of a finished run (summary.json, and the `end` event).
struct SummaryFields {
  RunState state = RunState::Failed;
  std::string message;  ///< why it did not complete
  std::string model;
  std::int64_t steps = 0;
  double tokensPerSecond = 0.0;
  double stepTimeSeconds = 0.0;
  std::uint64_t peakBytes = 0;
  std::optional<double> lossFirst;  ///< none when no step ran
  std::optional<double> lossLast;
  double mfu = 0.0;
  int threads = 0;
  std::string recompute;
};

/// One step's numbers.
struct StepSample {
  std::int64_t step = 0;
  double loss = 0.0;
  double stepTimeSeconds = 0.0;
  double tokensPerSecond = 0.0;
  std::uint64_t liveBytes = 0;
  std::uint64_t peakBytes = 0;
  double gradNorm = 0.0;
  double learningRate = 0.0;
};

/// A parsed event; only the members of its kind are filled.
struct RunEvent {
  EventKind kind = EventKind::Other;
  std::string name;             ///< the `event` field as written
  double elapsedSeconds = 0.0;
  StepSample sample;            ///< Step
  std::int64_t totalSteps = 0;  ///< Start: the configured steps
  std::int64_t params = 0;      ///< Start
  std::uint64_t memoryBudget = 0;  ///< Start: 0 when unlimited
  std::string model;            ///< Start
  std::string recompute;        ///< Start: the policy chosen
  std::string runDir;           ///< Start
  std::string message;          ///< Error
  std::optional<SummaryFields> summary;  ///< End
};

/// Parses one JSON line; the error says what is missing or malformed.
[[nodiscard]] Expected<RunEvent> parseEventLine(std::string_view line);

/// The events of a file, with the lines that could not be parsed (a run killed
/// mid-write leaves a partial last line) reported instead of failing the file.
struct EventFile {
  std::vector<RunEvent> events;
  std::vector<std::string> problems;  ///< "line N: reason"
};

/// Reads `runDir`/events.jsonl; an error only when the file cannot be read.
[[nodiscard]] Expected<EventFile> readEvents(const std::filesystem::path& runDir);

/// The step samples of `events`, in order.
[[nodiscard]] std::vector<StepSample> stepSamples(const std::vector<RunEvent>& events);

}  // namespace tb::runs
