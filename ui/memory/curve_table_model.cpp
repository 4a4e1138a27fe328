// Fit is judged as the planner judges it (the budget less its margin), so a
// row marked as fitting is one the planner could have chosen.
#include "ui/memory/curve_table_model.h"

#include <QFont>

#include "ui/data_size.h"
#include "ui/memory/memory_view.h"

namespace tb::ui {

CurveTableModel::CurveTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void CurveTableModel::setPlan(const tb::memory::RecomputePlan& plan) {
  beginResetModel();
  plan_ = plan;
  recommendedRow_ = -1;
  offCurve_ = offCurveChoice(plan);
  if (const auto k = tb::memory::curveK(plan)) {
    recommendedRow_ = static_cast<int>(*k);
  } else if (offCurve_) {
    recommendedRow_ = static_cast<int>(plan.curve.size());
  }
  endResetModel();
}

const tb::memory::CurvePoint& CurveTableModel::pointAt(int row) const {
  if (row < static_cast<int>(plan_.curve.size())) {
    return plan_.curve.at(static_cast<std::size_t>(row));
  }
  return offCurve_ ? offCurve_->point : plan_.selective;
}

QString CurveTableModel::policyAt(int row) const {
  const auto last = static_cast<int>(plan_.curve.size()) - 1;
  if (row > last) return offCurve_ ? offCurve_->policy : QStringLiteral("selective");
  if (row == 0) return QStringLiteral("none");
  if (row == last) return QStringLiteral("full");
  return QStringLiteral("layers:%1").arg(row);
}

int CurveTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || plan_.curve.empty() ? 0 : static_cast<int>(plan_.curve.size()) + 1;
}

int CurveTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CurveTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const tb::memory::CurvePoint& point = pointAt(index.row());
  const double usable = static_cast<double>(plan_.budgetBytes) * (1.0 - plan_.margin);
  const bool fits = static_cast<double>(point.peakBytes) <= usable;
  const auto peak = static_cast<double>(point.peakBytes);
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Policy: return policyAt(index.row());
        case Peak: return formatDataSize(peak);
        case StepTime: return formatTimeRatio(point.timeRatio);
        case Fits: return fits ? tr("fits") : tr("over");
        default: return {};
      }
    case ValueRole:
      switch (index.column()) {
        case Policy: return index.row();
        case Peak: return peak;
        case StepTime: return point.timeRatio;
        case Fits: return fits;
        default: return {};
      }
    case Qt::TextAlignmentRole:
      return index.column() == Policy ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
      if (index.row() == recommendedRow_) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return {};
    case Qt::ToolTipRole:
      return index.row() == recommendedRow_ ? tr("The planner's choice: the least step time "
                                                 "that fits the budget less its margin")
                                            : QVariant();
    default: return {};
  }
}

QVariant CurveTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Policy: return tr("Recompute");
    case Peak: return tr("Peak");
    case StepTime: return tr("Step time");
    case Fits: return tr("Budget");
    default: return {};
  }
}

}  // namespace tb::ui
