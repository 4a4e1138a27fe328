// The merged ablation as a table, one row per configuration and source, in
// chain order. Rows come from tb::report::reportRows, so the speedup shown
// here is computed exactly as the exported reports compute it.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "tb/bench/results.hpp"
#include "tb/report/report.hpp"

namespace tb::ui {

/// Configuration, source, throughput median [min–max], speedup, step time,
/// peak and MFU; raw numbers under kSortRole for the proxy.
class AblationTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Configuration,
    Source,
    Model,
    Throughput,
    Speedup,
    StepTime,
    Peak,
    Mfu,
    ColumnCount
  };
  /// Raw value for sorting; the configuration column sorts in chain order.
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit AblationTableModel(QObject* parent = nullptr);

  void setResults(const tb::bench::AblationResults& results);
  [[nodiscard]] const tb::report::ReportRow* row(int index) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  [[nodiscard]] QVariant display(const tb::report::ReportRow& row, int column) const;
  [[nodiscard]] QVariant sortValue(int rowIndex, int column) const;

  std::vector<tb::report::ReportRow> rows_;
};

}  // namespace tb::ui
