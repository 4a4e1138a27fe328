// The trade-off curve's numbers beside its chart: every candidate the
// planner weighed (K = 0..L and selective) with its peak, its step time and
// whether it fits, the planner's choice in bold.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <optional>

#include "memory_view.h"
#include "tb/memory/planner.hpp"

namespace tb::ui {

/// Rows: K = 0..L, then selective (or the planner's off-curve choice).
/// Columns: policy, peak, step time, fits.
class CurveTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Policy, Peak, StepTime, Fits, ColumnCount };
  /// The raw number behind a cell (bytes, ratio, K), for sorting and tests.
  static constexpr int ValueRole = Qt::UserRole;

  explicit CurveTableModel(QObject* parent = nullptr);

  void setPlan(const tb::memory::RecomputePlan& plan);
  /// Row of the planner's choice, or -1 when nothing fits.
  [[nodiscard]] int recommendedRow() const { return recommendedRow_; }
  /// The policy of a row as --recompute spells it.
  [[nodiscard]] QString policyAt(int row) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  [[nodiscard]] const tb::memory::CurvePoint& pointAt(int row) const;

  tb::memory::RecomputePlan plan_;
  int recommendedRow_ = -1;
  std::optional<OffCurveChoice> offCurve_;  ///< the last row shows it instead of selective
};

}  // namespace tb::ui
