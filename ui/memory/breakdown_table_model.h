// The breakdown's numbers beside its chart: one row per predictor term plus
// the total, with each term's share of the card so the table answers the
// same question as the bar ("what takes the room").
#pragma once

#include <QAbstractTableModel>
#include <QColor>
#include <QVector>

#include "plotting/breakdown_bar_chart.h"

namespace tb::ui {

/// Rows: the terms, then "Total". Columns: term, size, share of the card.
class BreakdownTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Term, Size, Share, ColumnCount };
  /// The raw number behind a cell (bytes, or a fraction), for sorting and tests.
  static constexpr int ValueRole = Qt::UserRole;

  explicit BreakdownTableModel(QObject* parent = nullptr);

  /// `colors[i]` is the chart colour of term i (a swatch in the first column).
  void setBreakdown(const QVector<tb::plotting::BreakdownTerm>& terms, double capacityBytes,
                    const QVector<QColor>& colors);
  /// Sum of the terms, in bytes.
  [[nodiscard]] double totalBytes() const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  QVector<tb::plotting::BreakdownTerm> terms_;
  QVector<QColor> colors_;
  double capacity_ = 0.0;
};

}  // namespace tb::ui
