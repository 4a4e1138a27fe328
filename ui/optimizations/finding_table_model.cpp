// Icons come from the style (the platform's own error/warning/information
// icons) so severities look the way the user's desktop shows them elsewhere.
#include "ui/optimizations/finding_table_model.h"

#include <QApplication>
#include <QFileInfo>
#include <QStyle>

#include <algorithm>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

using tb::config::Severity;

int severityRank(Severity severity) {
  switch (severity) {
    case Severity::Error: return 0;
    case Severity::Warning: return 1;
    case Severity::Info: return 2;
  }
  return 3;
}

QIcon severityIcon(Severity severity) {
  const QStyle* style = QApplication::style();
  switch (severity) {
    case Severity::Error: return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case Severity::Warning: return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case Severity::Info: return style->standardIcon(QStyle::SP_MessageBoxInformation);
  }
  return {};
}

QString placeText(const tb::config::Finding& finding) {
  const QString path = toQString(finding.path);
  if (finding.line <= 0) return path;
  const QString line = FindingTableModel::tr("line %1").arg(finding.line);
  return path.isEmpty() ? line : line + QStringLiteral(" \u00b7 ") + path;
}

}  // namespace

QString severityTitle(Severity severity) {
  switch (severity) {
    case Severity::Error: return FindingTableModel::tr("Error");
    case Severity::Warning: return FindingTableModel::tr("Warning");
    case Severity::Info: return FindingTableModel::tr("Info");
  }
  return {};
}

FindingTableModel::FindingTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FindingTableModel::setRows(std::vector<FindingRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int FindingTableModel::count(Severity severity) const {
  return static_cast<int>(std::count_if(rows_.begin(), rows_.end(), [severity](const auto& row) {
    return row.finding.severity == severity;
  }));
}

int FindingTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FindingTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant FindingTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const FindingRow& row = rows_[static_cast<std::size_t>(index.row())];
  const tb::config::Finding& finding = row.finding;
  switch (role) {
    case FilePathRole: return row.filePath;
    case LineRole: return finding.line;
    case SeverityRole: return static_cast<int>(finding.severity);
    case RuleRole: return toQString(finding.rule);
    case FileKindRole: return static_cast<int>(row.kind);
    default: break;
  }
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::DecorationRole && column == SeverityColumn) {
    return severityIcon(finding.severity);
  }
  if (role == Qt::ToolTipRole) {
    if (column == FileColumn) return row.filePath;
    if (column == MessageColumn || column == FixColumn) {
      return toQString(column == MessageColumn ? finding.message : finding.fix);
    }
    return tr("Rule %1; double-click to open the file at this place").arg(toQString(finding.rule));
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (column) {
    case SeverityColumn:
      return role == SortRole ? QVariant(severityRank(finding.severity))
                              : QVariant(severityTitle(finding.severity));
    case FileColumn: return QFileInfo(row.filePath).fileName();
    case PlaceColumn:
      return role == SortRole ? QVariant(finding.line) : QVariant(placeText(finding));
    case MessageColumn: return toQString(finding.message);
    case FixColumn: return toQString(finding.fix);
    case ColumnCount: break;
  }
  return {};
}

QVariant FindingTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (static_cast<Column>(section)) {
    case SeverityColumn: return tr("Severity");
    case FileColumn: return tr("File");
    case PlaceColumn: return tr("Line / path");
    case MessageColumn: return tr("What is wrong");
    case FixColumn: return tr("Fix");
    case ColumnCount: break;
  }
  return {};
}

}  // namespace tb::ui
