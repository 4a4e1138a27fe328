// Live and peak bytes of a run against its memory budget, as two horizontal
// bars and a budget line: the question it answers is "how close to OOM", so
// the scale always includes the budget when there is one.
#pragma once

#include <QWidget>

#include <cstdint>

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
  void clear();

  [[nodiscard]] std::uint64_t liveBytes() const noexcept { return live_; }
  [[nodiscard]] std::uint64_t peakBytes() const noexcept { return peak_; }
  [[nodiscard]] std::uint64_t budget() const noexcept { return budget_; }
  [[nodiscard]] QCustomPlot& plot() noexcept { return *plot_; }
  /// No memory reported yet: the gauge says so instead of a scale of nothing.
  [[nodiscard]] bool showsEmptyMessage() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void redraw();
  void restyle();

  QCustomPlot* plot_;
  QCPBars* bars_;
  QCPItemStraightLine* budgetLine_;
  QCPItemText* emptyMessage_;  ///< shown until a run reports memory
  std::uint64_t live_ = 0;
  std::uint64_t peak_ = 0;
  std::uint64_t budget_ = 0;
};

}  // namespace tb::plotting
