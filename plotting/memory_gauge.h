// Live and peak bytes of a run against its memory budget, as two horizontal
// bars and a budget line: the question it answers is "how close to OOM", so
// the scale always includes the budget when there is one. A data-parallel
// run's budget is per rank and any rank can be the one that runs out, so
// there the gauge has a row per rank, its peak behind its live bytes.
#pragma once

#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

class QCustomPlot;
class QCPBars;
class QCPItemStraightLine;
class QCPItemText;

namespace tb::plotting {

/// A horizontal gauge of tracked memory.
class MemoryGauge : public QWidget {
  Q_OBJECT

 public:
  explicit MemoryGauge(QWidget* parent = nullptr);

  /// 0 means no budget (the line is hidden).
  void setBudget(std::uint64_t bytes);
  void setUsage(std::uint64_t liveBytes, std::uint64_t peakBytes);
  /// One rank's own bytes; from the first, the gauge shows a row per rank.
  void setRankUsage(int rank, std::uint64_t liveBytes, std::uint64_t peakBytes);
  void clear();

  /// Live and peak bytes of one process or rank.
  struct Usage {
    std::uint64_t live = 0;
    std::uint64_t peak = 0;
  };

  [[nodiscard]] std::uint64_t liveBytes() const noexcept { return live_; }
  [[nodiscard]] std::uint64_t peakBytes() const noexcept { return peak_; }
  [[nodiscard]] std::uint64_t budget() const noexcept { return budget_; }
  /// The ranks reported through setRankUsage (0 for one process).
  [[nodiscard]] std::size_t rankCount() const noexcept { return ranks_.size(); }
  [[nodiscard]] std::optional<Usage> rankUsage(int rank) const;
  [[nodiscard]] QCustomPlot& plot() noexcept { return *plot_; }
  /// No memory reported yet: the gauge says so instead of a scale of nothing.
  [[nodiscard]] bool showsEmptyMessage() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void redraw();
  void restyle();
  /// The rows' labels and the widget's height for one process or `ranks`.
  void layoutRows(std::size_t ranks);

  QCustomPlot* plot_;
  QCPBars* peakBars_;  ///< per rank: each rank's peak, behind its live bar
  QCPBars* bars_;      ///< one process: live and peak; per rank: live
  QCPItemStraightLine* budgetLine_;
  QCPItemText* emptyMessage_;  ///< shown until a run reports memory
  std::uint64_t live_ = 0;
  std::uint64_t peak_ = 0;
  std::uint64_t budget_ = 0;
  std::map<int, Usage> ranks_;
};

}  // namespace tb::plotting
