// Time inside a Trainer's train_runtime that was not training. The Trainer's
// speed_metrics("train", …) divides by the wall time of the whole train()
// call, and every in-loop evaluation (and any prediction pass a callback
// runs) happens inside it, each timed by its own `<split>_runtime` entry.
// The tally sums those entries between one summary and the one before it,
// so an evaluation logged after train() returned is never subtracted.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

/// The kind of a non-training runtime key: "eval_runtime" is "eval",
/// "eval_squad_runtime" (one of several eval sets) "eval_squad",
/// "predict_runtime" "predict". train_runtime and every other key: none.
[[nodiscard]] std::optional<std::string> nonTrainingRuntimeKind(std::string_view key);

/// The same for a tag of the Trainer's TensorBoardCallback, which rewrites
/// "eval_x" to "eval/x", "test_x" to "test/x" and any other key to
/// "train/<key>" ("train/predict_runtime").
[[nodiscard]] std::optional<std::string> nonTrainingRuntimeTagKind(std::string_view tag);

class ExcludedTimeTally {
 public:
  /// A non-training runtime, in file order.
  void add(const std::string& kind, double seconds);
  /// At a summary: what was added since the previous summary lies inside
  /// this one's runtime. The tally starts again.
  [[nodiscard]] std::vector<runs::ExcludedTime> takeForSummary();

 private:
  std::vector<runs::ExcludedTime> pending_;
};

/// Seconds over every kind.
[[nodiscard]] double totalSeconds(const std::vector<runs::ExcludedTime>& excluded);

}  // namespace tb::logs::detail
