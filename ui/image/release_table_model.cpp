// Reads straight from the session's catalog instead of copying rows, so the
// only state to keep in step is a model reset when the catalog changes.
#include "ui/image/release_table_model.h"

#include <QStringList>

#include "tb/catalog/catalog.hpp"
#include "ui/catalog_session.h"
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QString architectures(const tb::catalog::Release& release) {
  QStringList names;
  for (tb::catalog::CpuArch arch : release.architectures) {
    names.append(toQString(tb::catalog::toString(arch)));
  }
  return names.join(QStringLiteral(", "));
}

QString torchVersion(const tb::catalog::Release& release) {
  return toQString(release.componentVersion("torch").value_or(std::string()));
}

// "12.8.1" -> 12008001 so that 12.10 sorts after 12.9.
qlonglong versionSortKey(const QString& version) {
  qlonglong key = 0;
  const QStringList parts = version.split(QLatin1Char('.'));
  for (int i = 0; i < 3; ++i) {
    key *= 1000;
    if (i < parts.size()) key += parts.at(i).toLongLong();
  }
  return key;
}

QString searchText(const tb::catalog::Release& release) {
  QStringList words{toQString(release.tag),
                    toQString(release.cudaVersion),
                    QString::number(release.requiredDriverMajor),
                    architectures(release),
                    toQString(release.image),
                    toQString(release.baseImage)};
  for (const tb::catalog::Component& component : release.components) {
    words.append(toQString(component.name) + QLatin1Char(' ') + toQString(component.version));
  }
  return words.join(QLatin1Char('\n'));
}

}  // namespace

ReleaseTableModel::ReleaseTableModel(const CatalogSession& session, QObject* parent)
    : QAbstractTableModel(parent), session_(session) {
  connect(&session, &CatalogSession::catalogChanged, this, [this] {
    beginResetModel();
    endResetModel();
  });
}

int ReleaseTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return static_cast<int>(session_.catalog().releases.size());
}

int ReleaseTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReleaseTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const tb::catalog::Release& release =
      session_.catalog().releases.at(static_cast<std::size_t>(index.row()));
  const auto column = static_cast<Column>(index.column());

  if (role == TagRole) return toQString(release.tag);
  if (role == SearchTextRole) return searchText(release);
  if (role == Qt::DisplayRole) {
    switch (column) {
      case TagColumn: return toQString(release.tag);
      case CudaColumn: return toQString(release.cudaVersion);
      case DriverColumn: return tr("\u2265 %1").arg(release.requiredDriverMajor);
      case ArchColumn: return architectures(release);
      case TorchColumn: return torchVersion(release);
      case ColumnCount: break;
    }
  }
  if (role == SortRole) {
    switch (column) {
      case TagColumn: return versionSortKey(toQString(release.tag));
      case CudaColumn: return versionSortKey(toQString(release.cudaVersion));
      case DriverColumn: return release.requiredDriverMajor;
      case ArchColumn: return architectures(release);
      case TorchColumn: return versionSortKey(torchVersion(release));
      case ColumnCount: break;
    }
  }
  if (role == Qt::ToolTipRole) {
    if (column == DriverColumn) {
      return tr("Needs NVIDIA driver %1 or newer, or forward compatibility on a data-center GPU")
          .arg(release.requiredDriverMajor);
    }
    if (column == TagColumn) return toQString(release.image);
  }
  return {};
}

QVariant ReleaseTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  switch (static_cast<Column>(section)) {
    case TagColumn: return tr("Tag");
    case CudaColumn: return tr("CUDA");
    case DriverColumn: return tr("Required driver");
    case ArchColumn: return tr("Architectures");
    case TorchColumn: return tr("torch");
    case ColumnCount: break;
  }
  return {};
}

int ReleaseTableModel::rowOf(const QString& tag) const {
  const auto& releases = session_.catalog().releases;
  for (std::size_t i = 0; i < releases.size(); ++i) {
    if (toQString(releases[i].tag) == tag) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace tb::ui
