// The Memory page: will this model fit on this card, and how many layers
// should be recomputed? The form on the left is the one input of record;
// a debounced worker turns it into a prediction and a plan, which the
// breakdown bar, the trade-off curve and their tables on the right show.
#pragma once

#include <QString>
#include <QWidget>

#include "ui/memory/memory_settings.h"
#include "ui/memory/memory_view.h"
#include "ui/widgets/background_task.h"

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

  /// True while a change waits for its debounce or a worker computes.
  [[nodiscard]] bool isBusy() const;
  /// What the page shows now.
  [[nodiscard]] const MemoryView& view() const { return view_; }

  /// The models behind the breakdown and curve tables (the tables sort a proxy).
  [[nodiscard]] BreakdownTableModel* breakdownModel() const { return breakdownModel_; }
  [[nodiscard]] CurveTableModel* curveModel() const { return curveModel_; }

 Q_SIGNALS:
  /// The planner's policy as --recompute spells it ("none", "selective",
  /// "layers:12", "full"), for the Runs and Optimizations pages, with the
  /// engine runtime it was planned for (empty for the cluster profiles).
  void recomputeRecommended(const QString& policy, const QString& runtime);
  void busyChanged(bool busy);

 private:
  QWidget* buildResults();
  void onInputsChanged();
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
  /// Debounce: typing recomputes once the keys pause, and only for the
  /// latest inputs.
  BackgroundTask planning_{BackgroundTask::Policy::Debounce};
  bool busy_ = false;
  MemoryView view_;
};

}  // namespace tb::ui
