// The training logs the Ablation page follows while their runs write them.
// Each followed log has its own tb::logs::LogFollower, which reads only what
// was appended since its last look; all of them are polled together on a
// worker (BackgroundTask), never on the GUI thread, once per interval and
// whenever QFileSystemWatcher reports a change. The watcher alone is not
// enough: a file written on another node of a shared filesystem (NFS,
// Lustre, GPFS) raises no event here, so the timer is what guarantees a
// look. A run whose end has been read is no longer followed.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "tb/logs/log_follow.hpp"
#include "ui/ablation/ablation_log_import.h"

class QFileSystemWatcher;

namespace tb::ui {

class BackgroundTask;

/// What the source list shows of a followed log.
struct FollowStatus {
  bool following = false;
  bool ended = false;  ///< its run's end was read
  std::optional<std::int64_t> lastStep;
  std::int64_t records = 0;
  QDateTime lastRecordAt;  ///< when a look last found new records
  QString problem;         ///< what kept the last look from reading (the file gone, …)

  friend bool operator==(const FollowStatus&, const FollowStatus&) = default;
};

/// How long before `now` `at` was, short: "3 s ago", "5 min ago", "2 h ago".
[[nodiscard]] QString sinceText(const QDateTime& at, const QDateTime& now);
/// The Follow cell's text, short: "step 120 · 3 s ago", "ended · step 400",
/// "⚠ <problem>"; `now` for the time since.
[[nodiscard]] QString followText(const FollowStatus& status, const QDateTime& now);
/// Its tooltip: following or not and why, the last step and records, the
/// problem in full.
[[nodiscard]] QString followDetails(const FollowStatus& status, const QDateTime& now);
/// No new record for this long: the row stands out as stalled.
inline constexpr std::chrono::seconds kStalledAfter{120};

class LogFollowSet : public QObject {
  Q_OBJECT

 public:
  explicit LogFollowSet(QObject* parent = nullptr);
  ~LogFollowSet() override;

  /// Starts following the log `request` names, as it says (label, GPUs,
  /// loss pattern); a log already followed keeps its state.
  void follow(const LogImportRequest& request);
  void stop(const QString& path);
  [[nodiscard]] bool isFollowing(const QString& path) const;
  [[nodiscard]] FollowStatus status(const QString& path) const;
  /// Time between looks (default 1 s).
  void setInterval(std::chrono::milliseconds interval);
  /// Looks at every followed log now, unless a look is running.
  void pollNow();

 Q_SIGNALS:
  /// A followed log gained records: its import so far.
  void updated(const tb::ui::LogImportRequest& request, const tb::logs::ImportedLog& log);
  /// What the list shows of `path` changed (also each look, for the time since).
  void statusChanged(const QString& path, const tb::ui::FollowStatus& status);

 private:
  struct Followed {
    LogImportRequest request;
    std::shared_ptr<tb::logs::LogFollower> follower;
    FollowStatus status;
  };
  struct Look;
  void onLooked(const std::vector<Look>& looks);
  void watch(const QString& path);

  std::map<QString, Followed> followed_;  ///< by absolute path
  BackgroundTask* task_ = nullptr;
  QFileSystemWatcher* watcher_ = nullptr;
  QTimer timer_;
};

}  // namespace tb::ui
