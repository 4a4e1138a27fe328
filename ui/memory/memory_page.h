// The Memory page: will this model fit on this card, and how many layers
// should be recomputed? The form on the left is the one input of record;
// a debounced worker turns it into a prediction and a plan, which the
// breakdown bar, the trade-off curve and their tables on the right show.
#pragma once

#include <QFutureWatcher>
#include <QString>
#include <QTimer>
#include <QWidget>

#include "ui/memory/memory_settings.h"
#include "ui/memory/memory_view.h"

class QLabel;
class QPushButton;
class QTableView;

namespace tb::plotting {
class BreakdownBarChart;
class TradeoffChart;
}  // namespace tb::plotting

namespace tb::ui {

class BreakdownTableModel;
class CurveTableModel;
class MemoryInputsForm;
class MemorySummaryBanner;
class StudioSettings;

/// Inputs, breakdown and recompute plan on one page.
class MemoryPage : public QWidget {
  Q_OBJECT

 public:
  /// `settings` says whether inputs may be written back; it must outlive the page.
  explicit MemoryPage(const StudioSettings& settings, QWidget* parent = nullptr);
  ~MemoryPage() override;

  /// True while a change waits for its debounce or a worker computes.
  [[nodiscard]] bool isBusy() const;
  /// What the page shows now.
  [[nodiscard]] const MemoryView& view() const { return view_; }

  [[nodiscard]] MemoryInputsForm* form() const { return form_; }
  [[nodiscard]] MemorySummaryBanner* summary() const { return summary_; }
  [[nodiscard]] tb::plotting::BreakdownBarChart* breakdownChart() const { return breakdownChart_; }
  [[nodiscard]] tb::plotting::TradeoffChart* tradeoffChart() const { return tradeoffChart_; }
  [[nodiscard]] BreakdownTableModel* breakdownModel() const { return breakdownModel_; }
  [[nodiscard]] CurveTableModel* curveModel() const { return curveModel_; }
  [[nodiscard]] QPushButton* useRecommendationButton() const { return useButton_; }

 Q_SIGNALS:
  /// The planner's policy as --recompute spells it ("none", "selective",
  /// "layers:12", "full"), for the Runs and Optimizations pages, with the
  /// engine runtime it was planned for (empty for the cluster profiles).
  void recomputeRecommended(const QString& policy, const QString& runtime);
  void busyChanged(bool busy);

 private:
  QWidget* buildResults();
  void onInputsChanged();
  void startWorker();
  void onWorkerFinished();
  void present(const MemoryView& view);
  void setBusy(bool busy);

  MemorySettings settings_;
  MemoryInputsForm* form_ = nullptr;
  MemorySummaryBanner* summary_ = nullptr;
  tb::plotting::BreakdownBarChart* breakdownChart_ = nullptr;
  tb::plotting::TradeoffChart* tradeoffChart_ = nullptr;
  BreakdownTableModel* breakdownModel_ = nullptr;
  CurveTableModel* curveModel_ = nullptr;
  QTableView* breakdownTable_ = nullptr;
  QTableView* curveTable_ = nullptr;
  QLabel* recommendation_ = nullptr;
  QPushButton* useButton_ = nullptr;
  QTimer debounce_;
  QFutureWatcher<MemoryView> watcher_;
  quint64 requested_ = 0;  ///< generation of the latest inputs
  bool busy_ = false;
  MemoryView view_;
};

}  // namespace tb::ui
