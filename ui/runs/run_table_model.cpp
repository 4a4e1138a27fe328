// Failed and unreadable runs stay in the table (with their reason as the
// tooltip): a run that went wrong is exactly the one a user wants to look at.
#include "ui/runs/run_table_model.h"

#include <QDateTime>
#include <QLocale>

#include "ui/data_size.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

using tb::runs::RunRecord;
using tb::runs::RunState;

QDateTime startedTime(const RunRecord& run) {
  const auto msecs =
      std::chrono::duration_cast<std::chrono::milliseconds>(run.startedAt.time_since_epoch());
  return QDateTime::fromMSecsSinceEpoch(msecs.count());
}

bool hasMeasurements(const RunRecord& run) {
  return run.state != RunState::Running && run.state != RunState::Unreadable;
}

}  // namespace

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunTableModel::setRecords(std::vector<RunRecord> records) {
  beginResetModel();
  records_ = std::move(records);
  endResetModel();
}

const RunRecord* RunTableModel::record(int row) const {
  if (row < 0 || static_cast<std::size_t>(row) >= records_.size()) return nullptr;
  return &records_[static_cast<std::size_t>(row)];
}

int RunTableModel::rowOfDirectory(const QString& dir) const {
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (toQString(records_[i].dir.string()) == dir) return static_cast<int>(i);
  }
  return -1;
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(records_.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  const RunRecord* run = record(index.row());
  if (run == nullptr) return {};
  switch (role) {
    case Qt::DisplayRole: return display(*run, index.column());
    case kSortRole: return sortValue(*run, index.column());
    case kDirectoryRole: return toQString(run->dir.string());
    case Qt::ToolTipRole:
      return run->message.empty()
                 ? toQString(run->id)
                 : toQString(run->id) + QLatin1Char('\n') + toQString(run->message);
    case Qt::TextAlignmentRole:
      if (index.column() >= Steps && index.column() <= LossLast) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      }
      return {};
    default: return {};
  }
}

QVariant RunTableModel::display(const RunRecord& run, int column) const {
  const QLocale locale;
  switch (column) {
    case Started: return locale.toString(startedTime(run), QLocale::ShortFormat);
    case Model: return toQString(run.model);
    case State: return toQString(tb::runs::toString(run.state));
    case Steps:
      if (!hasMeasurements(run))
        return run.totalSteps > 0 ? tr("of %1").arg(run.totalSteps) : QString();
      return tr("%1 / %2").arg(locale.toString(run.steps), locale.toString(run.totalSteps));
    case TokensPerSecond:
      return run.tokensPerSecond > 0 ? locale.toString(run.tokensPerSecond, 'f', 0) : QString();
    case PeakMemory:
      return run.peakBytes > 0 ? formatDataSize(static_cast<double>(run.peakBytes)) : QString();
    case LossFirst: return run.lossFirst ? locale.toString(*run.lossFirst, 'f', 3) : QString();
    case LossLast: return run.lossLast ? locale.toString(*run.lossLast, 'f', 3) : QString();
    case Recompute: return toQString(run.recompute);
    default: return {};
  }
}

QVariant RunTableModel::sortValue(const RunRecord& run, int column) {
  switch (column) {
    case Started: return QVariant::fromValue(startedTime(run).toMSecsSinceEpoch());
    case Model: return toQString(run.model);
    case State: return toQString(tb::runs::toString(run.state));
    case Steps: return QVariant::fromValue(static_cast<double>(run.steps));
    case TokensPerSecond: return run.tokensPerSecond;
    case PeakMemory: return QVariant::fromValue(static_cast<double>(run.peakBytes));
    case LossFirst: return run.lossFirst ? QVariant(*run.lossFirst) : QVariant();
    case LossLast: return run.lossLast ? QVariant(*run.lossLast) : QVariant();
    case Recompute: return toQString(run.recompute);
    default: return {};
  }
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Started: return tr("Started");
    case Model: return tr("Model");
    case State: return tr("State");
    case Steps: return tr("Steps");
    case TokensPerSecond: return tr("Tokens/s");
    case PeakMemory: return tr("Peak memory");
    case LossFirst: return tr("First loss");
    case LossLast: return tr("Last loss");
    case Recompute: return tr("Recompute");
    default: return {};
  }
}

}  // namespace tb::ui
