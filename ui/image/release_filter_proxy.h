// Sorting and filtering of ReleaseTableModel, kept out of the model so the
// model stays a plain view of the catalog (qBittorrent's sort-model split).
#pragma once

#include <QSortFilterProxyModel>
#include <QString>

namespace tb::ui {

/// Keeps releases whose cells or components contain every word of the
/// filter text, case-insensitively; sorts versions numerically.
class ReleaseFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit ReleaseFilterProxy(QObject* parent = nullptr);

  /// "arm64", "vllm 0.10", "575": each space-separated word must match.
  void setFilterText(const QString& text);
  [[nodiscard]] QString filterText() const { return filterText_; }

 protected:
  [[nodiscard]] bool filterAcceptsRow(int sourceRow,
                                      const QModelIndex& sourceParent) const override;

 private:
  QString filterText_;
  QStringList words_;
};

}  // namespace tb::ui
