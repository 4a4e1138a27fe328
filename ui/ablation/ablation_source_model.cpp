// Loading is synchronous on purpose: a results file is a few kilobytes and
// parsing it takes well under a millisecond, far less than the round trip
// of a worker thread. Anything long (running a benchmark) is a child process.
#include "ui/ablation/ablation_source_model.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

#include "tb/bench/cluster_import.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString kindName(AblationSourceKind kind) {
  return kind == AblationSourceKind::EngineResults
             ? QCoreApplication::translate("tb::ui::AblationSourceModel", "engine results")
             : QCoreApplication::translate("tb::ui::AblationSourceModel", "cluster import");
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
    sources_.push_back({absolute, kind, true, std::move(*results)});
    endInsertRows();
  }
  Q_EMIT mergedChanged();
  return {};
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
      // file's; configurations of every file are appended below.
      merged = source.results;
      merged.configurations.clear();
      haveEngine = true;
    }
    merged.configurations.insert(merged.configurations.end(),
                                 source.results.configurations.begin(),
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

QVariant AblationSourceModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const AblationSource& source = sources_[static_cast<std::size_t>(index.row())];
  if (role == Qt::CheckStateRole && index.column() == File) {
    return static_cast<int>(source.included ? Qt::Checked : Qt::Unchecked);
  }
  if (role == Qt::ToolTipRole) return source.path;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case File: {
      // results.json files all share a name; their folder tells them apart.
      const QFileInfo info(source.path);
      return info.fileName() == QLatin1String("results.json")
                 ? info.dir().dirName() + QLatin1Char('/') + info.fileName()
                 : info.fileName();
    }
    case Kind: return kindName(source.kind);
    case Configurations: return static_cast<int>(source.results.configurations.size());
    default: return {};
  }
}

bool AblationSourceModel::setData(const QModelIndex& index, const QVariant& value, int role) {
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
  return flags;
}

QVariant AblationSourceModel::headerData(int section, Qt::Orientation orientation,
                                         int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case File: return tr("File");
    case Kind: return tr("Kind");
    case Configurations: return tr("Configurations");
    default: return {};
  }
}

AblationSourceKind guessSourceKind(const QString& path) {
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
    return AblationSourceKind::ClusterImport;
  }
  QFile file(path);
  if (file.open(QIODevice::ReadOnly)) {
    // The cluster schema's name sits in the first lines of any such file.
    const QByteArray head = file.read(4096);
    if (head.contains("trainbench-cluster-results")) return AblationSourceKind::ClusterImport;
  }
  return AblationSourceKind::EngineResults;
}

}  // namespace tb::ui
