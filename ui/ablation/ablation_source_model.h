// The files the Ablation page shows, as one list: engine results.json files
// and imported cluster files side by side, each switchable on and off. The
// merge lives here, not in the page, so the Reports page and the tests get
// exactly the document the charts draw.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"

namespace tb::ui {

/// What kind of file a source is; decides how it is parsed.
enum class AblationSourceKind { EngineResults, ClusterImport };

/// One loaded file.
struct AblationSource {
  QString path;
  AblationSourceKind kind = AblationSourceKind::EngineResults;
  bool included = true;
  tb::bench::AblationResults results;  ///< cluster imports fill configurations only
};

/// Sources as a table (file, kind, configurations); the check box of the
/// first column includes or leaves out a source.
class AblationSourceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { File, Kind, Configurations, ColumnCount };

  explicit AblationSourceModel(QObject* parent = nullptr);

  /// Loads `path` as `kind` and appends it (a path already listed is
  /// reloaded in place). A file that does not parse is not listed; the
  /// error names the file and the line, field or JSON path at fault.
  [[nodiscard]] tb::Status addFile(const QString& path, AblationSourceKind kind);
  void removeSource(int row);
  void clear();

  [[nodiscard]] const std::vector<AblationSource>& sources() const { return sources_; }
  /// Paths of the sources of one kind, in list order (for the settings).
  [[nodiscard]] QStringList paths(AblationSourceKind kind) const;

  /// The included sources as one document: the first engine file's
  /// machine, model and settings, every included configuration.
  [[nodiscard]] tb::bench::AblationResults merged() const;

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role) const override;
  [[nodiscard]] bool setData(const QModelIndex& index, const QVariant& value, int role) override;
  [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation,
                                    int role) const override;

 Q_SIGNALS:
  /// The merged document changed (a source added, removed or switched).
  void mergedChanged();

 private:
  std::vector<AblationSource> sources_;
};

/// The kind a file is probably meant as: a .csv is always a cluster import;
/// a .json is one when it declares the cluster schema.
[[nodiscard]] AblationSourceKind guessSourceKind(const QString& path);

}  // namespace tb::ui
