// The runs of the store as a table. Display text is formatted here (MiB,
// grouped thousands); sorting uses raw values under kSortRole, so "9.5 MiB"
// never sorts after "10 MiB" and a run with no loss sorts apart from zero.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "tb/runs/run_store.hpp"

namespace tb::ui {

/// One row per stored run, newest first as listed.
class RunTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Started,
    Model,
    State,
    Steps,
    TokensPerSecond,
    PeakMemory,
    LossFirst,
    LossLast,
    Recompute,
    ColumnCount
  };
  /// Raw value for sorting: numbers as double, times as msecs, text as text;
  /// an unknown value (a run with no loss) is an invalid QVariant.
  static constexpr int kSortRole = Qt::UserRole + 1;
  /// The run's directory as a QString.
  static constexpr int kDirectoryRole = Qt::UserRole + 2;

  explicit RunTableModel(QObject* parent = nullptr);

  void setRecords(std::vector<tb::runs::RunRecord> records);
  [[nodiscard]] const tb::runs::RunRecord* record(int row) const;
  /// The row of the run in `dir`, or -1.
  [[nodiscard]] int rowOfDirectory(const QString& dir) const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 private:
  [[nodiscard]] QVariant display(const tb::runs::RunRecord& run, int column) const;
  [[nodiscard]] static QVariant sortValue(const tb::runs::RunRecord& run, int column);

  std::vector<tb::runs::RunRecord> records_;
};

}  // namespace tb::ui
