// The files the Ablation page shows, as one list: engine results.json files,
// imported cluster files and training frameworks' own logs side by side,
// each switchable on and off, each log under an ablation label that can be
// changed. The merge lives here, not in the page, so the Reports page and
// the tests get exactly the document the charts draw.
#pragma once

#include <QAbstractTableModel>
#include <QString>

#include <optional>
#include <vector>

#include "tb/bench/results.hpp"
#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"
#include "ui/ablation/log_follow_set.h"

namespace tb::ui {

/// What kind of file a source is; decides how it is parsed.
enum class AblationSourceKind { EngineResults, ClusterImport, TrainingLog };

/// One loaded file.
struct AblationSource {
  QString path;
  AblationSourceKind kind = AblationSourceKind::EngineResults;
  bool included = true;
  tb::bench::AblationResults results;  ///< cluster imports and logs fill configurations only
  QString label;                       ///< a training log's ablation label
  int gpusGiven = 0;                   ///< a training log's GPU count as given (0: the file's)
  QString lossPattern;                 ///< a training log's --loss-pattern as given
  std::optional<tb::logs::ImportedLog> log;  ///< a training log as read, to relabel it
  FollowStatus follow;                       ///< a training log's following, as last said
};

/// Sources as a table (file, kind, configurations); the check box of the
/// first column includes or leaves out a source.
class AblationSourceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { File, Kind, Label, Follow, Configurations, ColumnCount };

  explicit AblationSourceModel(QObject* parent = nullptr);

  /// Loads `path` as `kind` and appends it (a path already listed is
  /// reloaded in place). A file that does not parse is not listed; the
  /// error names the file and the line, field or JSON path at fault.
  [[nodiscard]] tb::Status addFile(const QString& path, AblationSourceKind kind);
  /// Appends (or replaces) a training log read by tb::logs::importLog as
  /// one cluster configuration under `label`; refused, naming the file,
  /// when the log gives no GPU count or no throughput per GPU.
  [[nodiscard]] tb::Status addLog(const QString& path, tb::logs::ImportedLog log,
                                  const QString& label, int gpusGiven = 0,
                                  const QString& lossPattern = {});
  /// What the Follow cell of the log at `path` shows.
  void setFollowStatus(const QString& path, const FollowStatus& status);
  /// Redraws every Follow cell (the time since the last record moves on).
  void refreshFollowCells();
  /// Moves a training log to another ablation label (its Label cell is
  /// editable too); false for other sources or an unknown label.
  bool setLabel(int row, const QString& label);
  void removeSource(int row);
  void clear();

  [[nodiscard]] const std::vector<AblationSource>& sources() const { return sources_; }
  /// The source listed for `path` (made absolute), or null.
  [[nodiscard]] const AblationSource* source(const QString& path) const;
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
  /// The user switched following the log at `path` on or off (its Follow
  /// check box); the page starts or stops it and says so back.
  void followToggled(const QString& path, bool follow);

 private:
  [[nodiscard]] QVariant followData(const AblationSource& source, int role) const;

  std::vector<AblationSource> sources_;
};

/// The kind a file is probably meant as: a cluster file declares the cluster
/// schema (JSON) or has its header (CSV), an engine results.json has its
/// schema_version; anything else, and any folder, is a training log (which
/// the import then detects, or refuses naming what it expected).
[[nodiscard]] AblationSourceKind guessSourceKind(const QString& path);

/// "megatron log · 5 records, steps 10–50 · read: loss, … · not in the
/// file: mfu, …": what was read from a training log and what it lacked.
[[nodiscard]] QString logDetails(const tb::logs::ImportedLog& log);

}  // namespace tb::ui
