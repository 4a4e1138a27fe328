// Loading results and cluster files is synchronous on purpose: such a file
// is a few kilobytes and parsing it takes well under a millisecond, far less
// than the round trip of a worker thread. A training log can be gigabytes:
// the page reads it on a worker (tb::logs::importLog) and hands the result
// to addLog. Anything long (running a benchmark) is a child process.
#include "ui/ablation/ablation_source_model.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>

#include <algorithm>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/imported_logs.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString kindName(const AblationSource& source) {
  switch (source.kind) {
    case AblationSourceKind::EngineResults:
      return QCoreApplication::translate("tb::ui::AblationSourceModel", "engine results");
    case AblationSourceKind::ClusterImport:
      return QCoreApplication::translate("tb::ui::AblationSourceModel", "cluster import");
    case AblationSourceKind::TrainingLog:
      return QCoreApplication::translate("tb::ui::AblationSourceModel", "%1 log")
          .arg(source.log ? toQString(source.log->run.format) : QString());
  }
  return {};
}

/// A log's configuration under `label`: the same conversion as `trainbench import`.
tb::Expected<tb::bench::AblationResults> logResults(const tb::logs::ImportedLog& log,
                                                    const QString& label) {
  auto run = tb::bench::clusterRunFromLog(log, toStdString(label), "unknown");
  if (!run) return run.error();
  auto configurations = tb::bench::configurationsFromClusterRuns({*run}, log.run.source);
  if (!configurations) return configurations.error();
  tb::bench::AblationResults results;
  results.configurations = std::move(*configurations);
  return results;
}

tb::Expected<tb::bench::AblationResults> load(const QString& path, AblationSourceKind kind) {
  const std::filesystem::path file(toStdString(path));
  if (kind == AblationSourceKind::EngineResults) return tb::bench::loadResults(file);
  auto imported = tb::bench::importClusterResults(file);
  if (!imported) return imported.error();
  tb::bench::AblationResults results;
  results.configurations = std::move(*imported);
  return results;
}

}  // namespace

AblationSourceModel::AblationSourceModel(QObject* parent) : QAbstractTableModel(parent) {}

tb::Status AblationSourceModel::addFile(const QString& path, AblationSourceKind kind) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  auto results = load(absolute, kind);
  if (!results) return results.error();
  const auto existing = std::find_if(sources_.begin(), sources_.end(),
                                     [&](const AblationSource& s) { return s.path == absolute; });
  if (existing != sources_.end()) {
    existing->kind = kind;
    existing->results = std::move(*results);
    existing->included = true;
    const int row = static_cast<int>(existing - sources_.begin());
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
  } else {
    const int row = static_cast<int>(sources_.size());
    beginInsertRows({}, row, row);
    sources_.push_back({absolute, kind, true, std::move(*results), {}, 0, {}, std::nullopt, {}});
    endInsertRows();
  }
  Q_EMIT mergedChanged();
  return {};
}

tb::Status AblationSourceModel::addLog(const QString& path, tb::logs::ImportedLog log,
                                       const QString& label, int gpusGiven,
                                       const QString& lossPattern) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  auto results = logResults(log, label);
  if (!results) return results.error();
  // The label as the conversion spelled it (any case in, the canonical out).
  const QString canonical = toQString(results->configurations.front().label);
  AblationSource source{absolute,      AblationSourceKind::TrainingLog,
                        true,          std::move(*results),
                        canonical,     gpusGiven,
                        lossPattern,   std::move(log),
                        FollowStatus{}};
  const auto existing = std::find_if(sources_.begin(), sources_.end(),
                                     [&](const AblationSource& s) { return s.path == absolute; });
  if (existing != sources_.end()) {
    // A followed log's update: the user's switch and the following stay.
    source.included = existing->included;
    source.follow = existing->follow;
    *existing = std::move(source);
    const int row = static_cast<int>(existing - sources_.begin());
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
  } else {
    const int row = static_cast<int>(sources_.size());
    beginInsertRows({}, row, row);
    sources_.push_back(std::move(source));
    endInsertRows();
  }
  Q_EMIT mergedChanged();
  return {};
}

const AblationSource* AblationSourceModel::source(const QString& path) const {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  const auto found = std::find_if(sources_.begin(), sources_.end(),
                                  [&](const AblationSource& s) { return s.path == absolute; });
  return found == sources_.end() ? nullptr : &*found;
}

void AblationSourceModel::setFollowStatus(const QString& path, const FollowStatus& status) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  for (std::size_t row = 0; row < sources_.size(); ++row) {
    if (sources_[row].path != absolute || sources_[row].kind != AblationSourceKind::TrainingLog)
      continue;
    sources_[row].follow = status;
    const QModelIndex cell = index(static_cast<int>(row), Follow);
    Q_EMIT dataChanged(cell, cell);
  }
}

void AblationSourceModel::refreshFollowCells() {
  if (sources_.empty()) return;
  Q_EMIT dataChanged(index(0, Follow), index(rowCount() - 1, Follow));
}

bool AblationSourceModel::setLabel(int row, const QString& label) {
  if (row < 0 || row >= rowCount()) return false;
  AblationSource& source = sources_[static_cast<std::size_t>(row)];
  if (source.kind != AblationSourceKind::TrainingLog || !source.log) return false;
  auto results = logResults(*source.log, label);
  if (!results) return false;
  source.results = std::move(*results);
  source.label = toQString(source.results.configurations.front().label);
  Q_EMIT dataChanged(index(row, Label), index(row, Label));
  Q_EMIT mergedChanged();
  return true;
}

void AblationSourceModel::removeSource(int row) {
  if (row < 0 || row >= rowCount()) return;
  beginRemoveRows({}, row, row);
  sources_.erase(sources_.begin() + row);
  endRemoveRows();
  Q_EMIT mergedChanged();
}

void AblationSourceModel::clear() {
  if (sources_.empty()) return;
  beginResetModel();
  sources_.clear();
  endResetModel();
  Q_EMIT mergedChanged();
}

QStringList AblationSourceModel::paths(AblationSourceKind kind) const {
  QStringList list;
  for (const AblationSource& source : sources_) {
    if (source.kind == kind) list.append(source.path);
  }
  return list;
}

tb::bench::AblationResults AblationSourceModel::merged() const {
  tb::bench::AblationResults merged;
  bool haveEngine = false;
  for (const AblationSource& source : sources_) {
    if (!source.included) continue;
    if (source.kind == AblationSourceKind::EngineResults && !haveEngine) {
      // The document's header (machine, steps, image) is the first engine
      // file's, wherever it sits in the list: a log restored from the last
      // session is read on a worker and can be listed before it, and its
      // configurations, gathered already, must stay.
      std::vector<tb::bench::ConfigurationResult> gathered = std::move(merged.configurations);
      merged = source.results;
      merged.configurations = std::move(gathered);
      haveEngine = true;
    }
    merged.configurations.insert(merged.configurations.end(), source.results.configurations.begin(),
                                 source.results.configurations.end());
  }
  merged.configurations = tb::bench::inChainOrder(std::move(merged.configurations));
  return merged;
}

int AblationSourceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(sources_.size());
}

int AblationSourceModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

// A training log's Follow cell: its check box, what the following says, and
// a stalled one in bold, so it stands out in a long list.
QVariant AblationSourceModel::followData(const AblationSource& source, int role) const {
  if (source.kind != AblationSourceKind::TrainingLog) {
    return role == Qt::DisplayRole ? QVariant(QStringLiteral("\u2014")) : QVariant();
  }
  const FollowStatus& follow = source.follow;
  const QDateTime now = QDateTime::currentDateTimeUtc();
  switch (role) {
    case Qt::CheckStateRole:
      return static_cast<int>(follow.following ? Qt::Checked : Qt::Unchecked);
    case Qt::DisplayRole: return followText(follow, now);
    case Qt::ToolTipRole: return followDetails(follow, now);
    case Qt::FontRole: {
      if (!follow.following || !follow.lastRecordAt.isValid() ||
          follow.lastRecordAt.secsTo(now) < kStalledAfter.count())
        return {};
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    default: return {};
  }
}

QVariant AblationSourceModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const AblationSource& source = sources_[static_cast<std::size_t>(index.row())];
  if (role == Qt::CheckStateRole && index.column() == File) {
    return static_cast<int>(source.included ? Qt::Checked : Qt::Unchecked);
  }
  if (index.column() == Follow) return followData(source, role);
  if (role == Qt::ToolTipRole) {
    return source.log ? source.path + QLatin1Char('\n') + logDetails(*source.log) : source.path;
  }
  if (role == Qt::EditRole && index.column() == Label) return source.label;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case File: {
      // results.json files all share a name; their folder tells them apart.
      const QFileInfo info(source.path);
      return info.fileName() == QLatin1String("results.json")
                 ? info.dir().dirName() + QLatin1Char('/') + info.fileName()
                 : info.fileName();
    }
    case Kind: return kindName(source);
    case Label:
      return source.kind == AblationSourceKind::TrainingLog ? source.label
                                                            : QStringLiteral("\u2014");
    case Configurations: return static_cast<int>(source.results.configurations.size());
    default: return {};
  }
}

bool AblationSourceModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (index.isValid() && index.column() == Label && role == Qt::EditRole) {
    return setLabel(index.row(), value.toString());
  }
  if (index.isValid() && index.column() == Follow && role == Qt::CheckStateRole) {
    const AblationSource& source = sources_[static_cast<std::size_t>(index.row())];
    if (source.kind != AblationSourceKind::TrainingLog) return false;
    Q_EMIT followToggled(source.path, value.toInt() == Qt::Checked);
    return true;
  }
  if (!index.isValid() || index.column() != File || role != Qt::CheckStateRole) return false;
  AblationSource& source = sources_[static_cast<std::size_t>(index.row())];
  const bool included = value.toInt() == Qt::Checked;
  if (source.included == included) return true;
  source.included = included;
  Q_EMIT dataChanged(index, index, {Qt::CheckStateRole});
  Q_EMIT mergedChanged();
  return true;
}

Qt::ItemFlags AblationSourceModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags flags = QAbstractTableModel::flags(index);
  if (index.isValid() && index.column() == File) flags |= Qt::ItemIsUserCheckable;
  if (index.isValid() && index.column() == Follow &&
      sources_[static_cast<std::size_t>(index.row())].kind == AblationSourceKind::TrainingLog) {
    flags |= Qt::ItemIsUserCheckable;
  }
  if (index.isValid() && index.column() == Label &&
      sources_[static_cast<std::size_t>(index.row())].kind == AblationSourceKind::TrainingLog) {
    flags |= Qt::ItemIsEditable;
  }
  return flags;
}

QVariant AblationSourceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case File: return tr("File");
    case Kind: return tr("Kind");
    case Label: return tr("Label");
    case Follow: return tr("Follow");
    case Configurations: return tr("Rows");
    default: return {};
  }
}

AblationSourceKind guessSourceKind(const QString& path) {
  QFile file(path);
  if (QFileInfo(path).isDir() || !file.open(QIODevice::ReadOnly)) {
    return AblationSourceKind::TrainingLog;
  }
  // Both of our own formats say what they are in their first lines: the
  // cluster schema's name or its CSV header, results.json's schema_version.
  const QByteArray head = file.read(4096);
  if (head.contains("trainbench-cluster-results")) return AblationSourceKind::ClusterImport;
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
    for (const QByteArray& line : head.split('\n')) {
      if (line.startsWith('#') || line.trimmed().isEmpty()) continue;
      return line.startsWith("label,") ? AblationSourceKind::ClusterImport
                                       : AblationSourceKind::TrainingLog;
    }
  }
  if (head.contains("\"schema_version\"")) return AblationSourceKind::EngineResults;
  return AblationSourceKind::TrainingLog;
}

QString logDetails(const tb::logs::ImportedLog& log) {
  const tb::runs::ImportedRun& run = log.run;
  QString text =
      QCoreApplication::translate("tb::ui::AblationSourceModel", "%1 log \u00b7 %2 records")
          .arg(toQString(run.format))
          .arg(run.records);
  if (run.firstStep && run.lastStep) {
    text += QCoreApplication::translate("tb::ui::AblationSourceModel", ", steps %1\u2013%2")
                .arg(*run.firstStep)
                .arg(*run.lastStep);
  }
  if (run.partial) {
    text += QCoreApplication::translate("tb::ui::AblationSourceModel", " \u00b7 partial: %1")
                .arg(toQString(run.partialReason));
  }
  if (log.excludedSeconds) {
    QStringList kinds;
    for (const std::string& kind : log.excludedKinds) kinds << toQString(kind);
    text += QCoreApplication::translate("tb::ui::AblationSourceModel",
                                        " \u00b7 %1 s of %2 left out of the throughput")
                .arg(*log.excludedSeconds, 0, 'f', 1)
                .arg(kinds.join(QStringLiteral(", ")));
  }
  if (!log.found.empty()) {
    QStringList found;
    for (const std::string& field : log.found) found << toQString(field);
    text += QCoreApplication::translate("tb::ui::AblationSourceModel", " \u00b7 read: %1")
                .arg(found.join(QStringLiteral(", ")));
  }
  if (!log.missing.empty()) {
    QStringList missing;
    for (const std::string& field : log.missing) missing << toQString(field);
    text +=
        QCoreApplication::translate("tb::ui::AblationSourceModel", " \u00b7 not in the file: %1")
            .arg(missing.join(QStringLiteral(", ")));
  }
  return text;
}

}  // namespace tb::ui
