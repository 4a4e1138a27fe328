// The three charts of a run (loss, tokens/s, memory against the budget), one
// widget used twice: live while a run streams, and for a stored run loaded
// from its events.jsonl, so both look and behave the same.
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

#include "tb/runs/run_event.hpp"

namespace tb::plotting {
class LineChart;
class MemoryGauge;
}  // namespace tb::plotting

namespace tb::ui {

/// Loss and tokens/s curves over steps, and a memory gauge.
class RunCharts : public QWidget {
  Q_OBJECT

 public:
  explicit RunCharts(QWidget* parent = nullptr);

  void clear();
  void setBudget(std::uint64_t bytes);
  void appendSample(const tb::runs::StepSample& sample);
  void setSamples(const std::vector<tb::runs::StepSample>& samples);
  /// A data-parallel run: rank `rank`'s own memory (its `rank_step` events
  /// live, or its events.jsonl for a stored run).
  void setRankMemory(int rank, std::uint64_t liveBytes, std::uint64_t peakBytes);

 private:
  tb::plotting::LineChart* loss_;
  tb::plotting::LineChart* throughput_;
  tb::plotting::MemoryGauge* memory_;
};

}  // namespace tb::ui
