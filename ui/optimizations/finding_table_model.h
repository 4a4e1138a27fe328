// Findings of the validation panel as a flat table: one row per finding,
// across every file, so the user can sort all errors to the top at once.
// Sorting and filtering live in FindingFilterProxy (qBittorrent's split);
// the model only turns core Findings into cells and roles.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <vector>

#include "tb/config/validation.hpp"

namespace tb::ui {

/// One finding with the file it came from as the panel knows it.
struct FindingRow {
  tb::config::Finding finding;
  QString filePath;  ///< absolute path, for the viewer
  tb::config::FileKind kind = tb::config::FileKind::Auto;
};

/// Severity, file, place, message and fix of each finding.
class FindingTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { SeverityColumn, FileColumn, PlaceColumn, MessageColumn, FixColumn, ColumnCount };
  enum Role {
    SortRole = Qt::UserRole + 1,  ///< severity rank, file name, line, text
    FilePathRole,                 ///< QString, absolute
    LineRole,                     ///< int, 0 when the finding has no line
    SeverityRole,                 ///< int of tb::config::Severity
    RuleRole,                     ///< QString, the finding's stable rule id
    FileKindRole,                 ///< int of tb::config::FileKind
  };

  explicit FindingTableModel(QObject* parent = nullptr);

  void setRows(std::vector<FindingRow> rows);
  [[nodiscard]] const std::vector<FindingRow>& rows() const noexcept { return rows_; }
  [[nodiscard]] int count(tb::config::Severity severity) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  std::vector<FindingRow> rows_;
};

/// "Error", "Warning", "Info" for the table.
[[nodiscard]] QString severityTitle(tb::config::Severity severity);

}  // namespace tb::ui
