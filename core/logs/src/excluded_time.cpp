// See excluded_time.hpp.
#include "excluded_time.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace tb::logs::detail {

std::optional<std::string> nonTrainingRuntimeKind(std::string_view key) {
  constexpr std::string_view kSuffix = "_runtime";
  if (!key.ends_with(kSuffix) || key.size() == kSuffix.size()) return std::nullopt;
  const std::string_view kind = key.substr(0, key.size() - kSuffix.size());
  if (kind == "train") return std::nullopt;
  return std::string(kind);
}

std::optional<std::string> nonTrainingRuntimeTagKind(std::string_view tag) {
  for (const std::string_view split : {"eval", "test"}) {
    if (tag.starts_with(split) && tag.size() > split.size() && tag[split.size()] == '/') {
      const std::string_view rest = tag.substr(split.size() + 1);
      if (rest == "runtime") return std::string(split);
      return nonTrainingRuntimeKind(std::string(split) + "_" + std::string(rest));
    }
  }
  constexpr std::string_view kTrain = "train/";
  if (tag.starts_with(kTrain)) return nonTrainingRuntimeKind(tag.substr(kTrain.size()));
  return std::nullopt;
}

void ExcludedTimeTally::add(const std::string& kind, double seconds) {
  // A runtime that is no time (NaN, negative) says nothing about the span.
  if (!std::isfinite(seconds) || seconds < 0.0) return;
  const auto it = std::find_if(pending_.begin(), pending_.end(),
                               [&](const runs::ExcludedTime& entry) { return entry.kind == kind; });
  if (it == pending_.end()) {
    pending_.push_back(runs::ExcludedTime{kind, seconds, 1});
    return;
  }
  it->seconds += seconds;
  ++it->entries;
}

std::vector<runs::ExcludedTime> ExcludedTimeTally::takeForSummary() {
  return std::exchange(pending_, {});
}

double totalSeconds(const std::vector<runs::ExcludedTime>& excluded) {
  double total = 0.0;
  for (const runs::ExcludedTime& entry : excluded) total += entry.seconds;
  return total;
}

}  // namespace tb::logs::detail
