// Unknown numbers (a cluster file without memory, a Base missing for the
// speedup) show as a dash, never as a zero that reads like a measurement.
#include "ui/ablation/ablation_table_model.h"

#include <QLocale>

#include "ui/data_size.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

const QString kUnknown = QStringLiteral("\u2014");

}  // namespace

AblationTableModel::AblationTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void AblationTableModel::setResults(const tb::bench::AblationResults& results) {
  beginResetModel();
  rows_ = tb::report::reportRows(results);
  endResetModel();
}

const tb::report::ReportRow* AblationTableModel::row(int index) const {
  return index >= 0 && index < rowCount() ? &rows_[static_cast<std::size_t>(index)] : nullptr;
}

int AblationTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int AblationTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AblationTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const tb::report::ReportRow& row = rows_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: return display(row, index.column());
    case kSortRole: return sortValue(index.row(), index.column());
    case Qt::TextAlignmentRole:
      return (index.column() >= Throughput ? Qt::AlignRight | Qt::AlignVCenter
                                           : Qt::AlignLeft | Qt::AlignVCenter)
          .toInt();
    case Qt::ToolTipRole:
      if (row.failedRuns > 0) {
        return tr(
            "%n run(s) of this configuration did not finish (oom, failed or "
            "interrupted) and are left out of the statistics.",
            nullptr, row.failedRuns);
      }
      return {};
    default: return {};
  }
}

QVariant AblationTableModel::display(const tb::report::ReportRow& row, int column) const {
  const QLocale locale;
  switch (column) {
    case Configuration: return toQString(row.label);
    case Source:
      return row.gpus > 0 ? tr("%1 (%n GPUs)", nullptr, row.gpus).arg(toQString(row.source))
                          : toQString(row.source);
    case Model: return toQString(row.model);
    case Throughput: {
      const int decimals = row.throughput.median < 100.0 ? 1 : 0;
      return tr("%1 [%2\u2013%3] %4")
          .arg(locale.toString(row.throughput.median, 'f', decimals),
               locale.toString(row.throughput.min, 'f', decimals),
               locale.toString(row.throughput.max, 'f', decimals), toQString(row.throughputUnit));
    }
    case Speedup:
      return row.speedupOverBase > 0.0
                 ? locale.toString(row.speedupOverBase, 'f', 2) + QStringLiteral("\u00d7")
                 : kUnknown;
    case StepTime:
      return row.stepTimeMedianS > 0.0
                 ? tr("%1 s").arg(locale.toString(row.stepTimeMedianS, 'f', 3))
                 : kUnknown;
    case Peak:
      return row.peakBytes > 0 ? formatDataSize(static_cast<double>(row.peakBytes)) : kUnknown;
    case Mfu:
      return row.mfu > 0.0 ? tr("%1 %").arg(locale.toString(row.mfu * 100.0, 'f', 1)) : kUnknown;
    default: return {};
  }
}

QVariant AblationTableModel::sortValue(int rowIndex, int column) const {
  const tb::report::ReportRow& row = rows_[static_cast<std::size_t>(rowIndex)];
  switch (column) {
    case Configuration: return rowIndex;  // rows arrive in chain order
    case Source: return toQString(row.source);
    case Model: return toQString(row.model);
    case Throughput: return row.throughput.median;
    case Speedup: return row.speedupOverBase;
    case StepTime: return row.stepTimeMedianS;
    case Peak: return static_cast<qulonglong>(row.peakBytes);
    case Mfu: return row.mfu;
    default: return {};
  }
}

QVariant AblationTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Configuration: return tr("Configuration");
    case Source: return tr("Source");
    case Model: return tr("Model");
    case Throughput: return tr("Throughput median [min\u2013max]");
    case Speedup: return tr("Speedup vs Base");
    case StepTime: return tr("Step time");
    case Peak: return tr("Peak memory");
    case Mfu: return tr("MFU");
    default: return {};
  }
}

}  // namespace tb::ui
