// MLPerf Training's `:::MLLOG {json}` lines (mlcommons/logging
// mlperf_logging/mllog/mllog.py: keys namespace, time_ms, event_type, key,
// value, metadata), in a result file or in any stdout, also behind `srun -l`'s
// `0: ` (cleanLine takes that off). docs/LOG_FORMATS.md, "MLPerf Training",
// says what is read.
//
//   :::MLLOG {"namespace": "", "time_ms": 1696565401886, "event_type": "POINT_IN_TIME",
//             "key": "tracked_stats", "value": {"throughput": 5154997.26}, "metadata": {…, "step":
//             1211105280}}
//
// Time to train is run_stop's time_ms minus run_start's. Throughput is not a
// standard key: NVIDIA's submissions log `tracked_stats` with
// {"throughput": x} (sometimes with train_step_time), whose units the
// reference gives as benchmark-specific. The throughput is imported as what
// it is, benchmark_throughput in the benchmark's own unit, and never turned
// into samples/s or tokens/s (that would be a guess); notes() says so, and
// the importer lists those rates as missing. train_step_time has no
// documented unit and is not imported. What a tracked_stats line carries in
// a unit its name states — NeMo's `train_step_timing in s`, the loss — joins
// the same record, at the callback's own step (NVIDIA: samples or tokens
// consumed).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "format_parser.hpp"
#include "log_text.hpp"
#include "python_json.hpp"

namespace tb::logs::detail {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kMarker = ":::MLLOG ";

/// The JSON text after the marker, or nothing for a line without one (or
/// with text that is not a record, as NVIDIA's `:::MLLOG Weight
/// initialization: …` print).
std::optional<std::string_view> recordText(std::string_view line) {
  const auto at = line.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view text = line.substr(at + kMarker.size());
  if (!text.starts_with('{')) return std::nullopt;
  return text;
}

class MlperfFormat final : public LineFormat {
 public:
  explicit MlperfFormat(std::string_view origin) : origin_(origin) {}

  [[nodiscard]] std::unique_ptr<LineFormat> clone() const override {
    return std::make_unique<MlperfFormat>(*this);
  }

  // Every line fed is whole (the importer never feeds a cut last line), so
  // a record is applied as soon as it is read.
  Status feed(std::string_view line, std::uint64_t lineNumber, StepSink& sink) override {
    sink_ = &sink;
    const auto text = recordText(line);
    if (!text) return {};  // another logger's line: the framework's own output
    JsonTextError problem;
    const auto record = parsePythonJson(*text, problem);
    if (!record) {
      return lineError(origin_, lineNumber,
                       "expected a JSON record after ':::MLLOG ', found '" +
                           std::string(text->substr(0, 60)) + "' (byte " +
                           std::to_string(problem.byte) + " of the record: " + problem.reason +
                           ")");
    }
    return apply(*record, lineNumber);
  }

  Status finish(runs::ImportedRun& run, bool endedMidLine, StepSink& sink) override {
    sink_ = &sink;  // a copy finishing hands its held records to its own sink
    std::string reason;
    // The importer never feeds a cut last line: it was being written.
    if (endedMidLine) reason = "the last line is cut off";
    emitPending();

    if (globalBatch_) run.globalBatch = globalBatch_;
    if (sequenceLength_) run.sequenceLength = sequenceLength_;
    if (runStartMs_ && runStopMs_) {
      runs::ImportedSummary summary;
      summary.runtimeSeconds = (*runStopMs_ - *runStartMs_) / 1000.0;
      // An aborted run never reached the quality target: it has a duration,
      // not a time to train.
      if (stopStatus_.empty() || stopStatus_ == "success")
        summary.timeToTrainSeconds = summary.runtimeSeconds;
      run.summary = summary;
    }
    if (!runStopMs_) {
      const std::string missing = runStartMs_ ? "run_start without run_stop: the run did not finish"
                                              : "no run_start or run_stop";
      reason = reason.empty() ? missing : reason + "; " + missing;
    }
    if (!reason.empty()) {
      run.partial = true;
      run.partialReason = reason;
    }
    return {};
  }

  [[nodiscard]] std::vector<std::string> notes() const override {
    std::vector<std::string> out;
    if (sawThroughput_) {
      out.emplace_back(
          "tracked_stats throughput is kept as benchmark_throughput, in the benchmark's own unit: "
          "MLPerf throughput "
          "units are benchmark-specific, so no samples/s or tokens/s is derived from it");
    }
    if (sawTrainStepTime_) {
      out.emplace_back("tracked_stats train_step_time is not imported: its unit is not documented");
    }
    if (fractionalSteps_ > 0) {
      out.emplace_back(std::to_string(fractionalSteps_) +
                       (fractionalSteps_ == 1 ? " tracked_stats line gives its"
                                              : " tracked_stats lines give their") +
                       " step as a fraction of an epoch: such records are numbered in file order");
    }
    return out;
  }

 private:
  /// One tracked_stats step being gathered (a callback may log timing and
  /// loss for the same step on separate lines).
  struct Tracked {
    std::int64_t step = 0;
    std::optional<double> stepTimeSeconds;  ///< "train_step_timing in s"
    std::optional<double> loss;
    std::optional<double> benchmarkThroughput;  ///< "throughput", the benchmark's unit
  };

  Status apply(const Json& record, std::uint64_t line) {
    const auto fail = [&](const std::string& what) { return lineError(origin_, line, what); };
    if (!record.is_object()) return fail("expected an MLLOG object, found " + jsonFound(record));
    const auto keyIt = record.find("key");
    if (keyIt == record.end() || !keyIt->is_string()) {
      return fail("expected a string \"key\" in the MLLOG record, found " +
                  (keyIt == record.end() ? std::string("none") : jsonFound(*keyIt)));
    }
    const std::string& key = keyIt->get_ref<const std::string&>();
    const Json none;
    const auto valueIt = record.find("value");
    const Json& value = valueIt == record.end() ? none : *valueIt;
    const auto metadataIt = record.find("metadata");
    const Json& metadata = metadataIt == record.end() ? none : *metadataIt;

    if (key == "run_start" || key == "run_stop") {
      std::optional<double> timeMs;
      const auto timeIt = record.find("time_ms");
      if (timeIt == record.end() || !jsonNumber(*timeIt, timeMs) || !timeMs) {
        return fail("expected a number for \"time_ms\" of " + key + ", found " +
                    (timeIt == record.end() ? std::string("nothing") : jsonFound(*timeIt)));
      }
      // A file with several runs (seeds one after another) gives the first.
      if (key == "run_start" && !runStartMs_) runStartMs_ = timeMs;
      if (key == "run_stop" && !runStopMs_) {
        runStopMs_ = timeMs;
        if (metadata.is_object()) {
          const auto status = metadata.find("status");
          if (status != metadata.end() && status->is_string())
            stopStatus_ = status->get<std::string>();
        }
      }
    } else if (key == "global_batch_size") {
      const auto batch = jsonCount(value);
      if (!batch || *batch <= 0) {
        return fail("expected a whole number for global_batch_size, found " + jsonFound(value));
      }
      globalBatch_ = batch;
    } else if (key == "max_sequence_length") {
      // Logged by the LLM benchmarks (GPT-3: encoder_seq_length): tokens per sample.
      const auto length = jsonCount(value);
      if (!length || *length <= 0) {
        return fail("expected a whole number for max_sequence_length, found " + jsonFound(value));
      }
      sequenceLength_ = length;
    } else if (key == "tracked_stats") {
      return track(value, metadata, fail);
    }
    return {};  // init_*, block_*, epoch_*, eval_*, hyper-parameters, cache_clear, …
  }

  template <class Fail>
  Status track(const Json& value, const Json& metadata, const Fail& fail) {
    if (!value.is_object())
      return fail("expected an object for the tracked_stats value, found " + jsonFound(value));
    sawThroughput_ = sawThroughput_ || value.contains("throughput");
    sawTrainStepTime_ = sawTrainStepTime_ || value.contains("train_step_time");
    Tracked tracked;
    bool any = false;
    for (const auto& [name, target] : {std::pair<std::string_view, std::optional<double>*>{
                                           "train_step_timing in s", &tracked.stepTimeSeconds},
                                       {"reduced_train_loss", &tracked.loss},
                                       {"throughput", &tracked.benchmarkThroughput}}) {
      const auto it = value.find(name);
      if (it == value.end()) continue;
      if (!jsonNumber(*it, *target)) {
        return fail("expected a number for tracked_stats \"" + std::string(name) + "\", found " +
                    jsonFound(*it));
      }
      any = any || target->has_value();
    }
    ++trackedLines_;
    if (!any) return {};  // other tracked figures only (staging_duration, train_step_time, …)
    // The step as the callback logged it (NVIDIA: samples consumed); an
    // epoch where that is what the benchmark counts; else the line's rank.
    std::optional<std::int64_t> step;
    if (metadata.is_object()) {
      for (const char* name : {"step", "epoch_num"}) {
        const auto it = metadata.find(name);
        if (it == metadata.end() || !it->is_number()) continue;
        step = jsonCount(*it);
        // DLRM logs where it is in the one epoch it trains as a fraction of
        // it (0.6999…): no step to number a record by, so the file's order is.
        if (!step && it->get<double>() > 0.0 && it->get<double>() < 1e9) {
          ++fractionalSteps_;
          break;
        }
        if (!step) {
          return fail("expected a whole, non-negative step number for metadata \"" +
                      std::string(name) + "\", found " + jsonFound(*it));
        }
        break;
      }
    }
    tracked.step = step ? *step : trackedLines_;
    if (pending_ && pending_->step == tracked.step) {
      if (tracked.stepTimeSeconds) pending_->stepTimeSeconds = tracked.stepTimeSeconds;
      if (tracked.loss) pending_->loss = tracked.loss;
      if (tracked.benchmarkThroughput) pending_->benchmarkThroughput = tracked.benchmarkThroughput;
      return {};
    }
    emitPending();
    pending_ = tracked;
    return {};
  }

  void emitPending() {
    if (!pending_ || sink_ == nullptr) return;
    runs::ImportedStep record;
    record.step = pending_->step;
    record.loss = pending_->loss;
    record.stepTimeSeconds = pending_->stepTimeSeconds;
    record.benchmarkThroughput = pending_->benchmarkThroughput;
    sink_->add(record);
    pending_.reset();
  }

  std::string origin_;
  // finish() has no sink; the step still gathering then goes to the one
  // feed() was given (the importer passes the same sink to every call).
  StepSink* sink_ = nullptr;
  std::optional<Tracked> pending_;
  std::int64_t trackedLines_ = 0;
  std::optional<double> runStartMs_;
  std::optional<double> runStopMs_;
  std::string stopStatus_;
  std::optional<std::int64_t> globalBatch_;
  std::optional<std::int64_t> sequenceLength_;
  bool sawThroughput_ = false;
  bool sawTrainStepTime_ = false;
  std::int64_t fractionalSteps_ = 0;
};

}  // namespace

bool mlperfClaimsLine(std::string_view line) {
  return line.find(":::MLLOG {") != std::string_view::npos;
}

std::unique_ptr<LineFormat> makeMlperfFormat(std::string_view origin) {
  return std::make_unique<MlperfFormat>(origin);
}

}  // namespace tb::logs::detail
