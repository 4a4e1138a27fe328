#include "ui/ablation/log_follow_set.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QStringList>

#include <utility>
#include <vector>

#include "ui/qt_text.h"
#include "ui/widgets/background_task.h"

namespace tb::ui {

// One log's look, as the worker saw it. The follower is touched only by
// the worker while a look runs: BackgroundTask runs one look at a time.
struct LogFollowSet::Look {
  QString path;
  std::shared_ptr<tb::logs::LogFollower> follower;  ///< to tell a restarted follow apart
  bool failed = false;
  QString message;  ///< the error, the restart or the problem
  bool grew = false;
  bool ended = false;
  std::optional<tb::logs::ImportedLog> latest;  ///< when it grew
};

namespace {

QString tr(const char* text) { return QCoreApplication::translate("tb::ui::LogFollowSet", text); }

}  // namespace

QString sinceText(const QDateTime& at, const QDateTime& now) {
  const qint64 seconds = at.secsTo(now);
  if (seconds < 120) return tr("%1 s ago").arg(seconds);
  if (seconds < 7200) return tr("%1 min ago").arg(seconds / 60);
  return tr("%1 h ago").arg(seconds / 3600);
}

QString followText(const FollowStatus& status, const QDateTime& now) {
  if (!status.problem.isEmpty() && status.following)
    return QStringLiteral("\u26a0 ") + status.problem;
  QStringList parts;
  if (status.ended) parts << tr("ended");
  if (status.lastStep) parts << tr("step %1").arg(*status.lastStep);
  if (status.following && status.lastRecordAt.isValid())
    parts << sinceText(status.lastRecordAt, now);
  if (parts.isEmpty()) parts << (status.following ? tr("waiting") : QStringLiteral("\u2014"));
  return parts.join(QStringLiteral(" \u00b7 "));
}

QString followDetails(const FollowStatus& status, const QDateTime& now) {
  QString text = status.ended ? tr("Ended: the run's end was read.")
                 : status.following
                     ? tr("Following: read again as its run writes it.")
                     : tr("Not followed: tick to read it again as its run writes it.");
  if (status.lastStep)
    text += QLatin1Char('\n') +
            tr("Last step %1, %2 records.").arg(*status.lastStep).arg(status.records);
  if (status.lastRecordAt.isValid())
    text += QLatin1Char('\n') + tr("Last new record: %1.").arg(sinceText(status.lastRecordAt, now));
  if (!status.problem.isEmpty()) text += QLatin1Char('\n') + status.problem;
  return text;
}

LogFollowSet::LogFollowSet(QObject* parent)
    : QObject(parent),
      task_(new BackgroundTask(BackgroundTask::Policy::Refuse, this)),
      watcher_(new QFileSystemWatcher(this)) {
  timer_.setInterval(std::chrono::milliseconds(1000));
  connect(&timer_, &QTimer::timeout, this, &LogFollowSet::pollNow);
  // A local write is seen at once; the timer covers every other writer.
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, &LogFollowSet::pollNow);
  connect(watcher_, &QFileSystemWatcher::directoryChanged, this, &LogFollowSet::pollNow);
}

LogFollowSet::~LogFollowSet() = default;

void LogFollowSet::setInterval(std::chrono::milliseconds interval) { timer_.setInterval(interval); }

void LogFollowSet::follow(const LogImportRequest& request) {
  const QString path = QFileInfo(request.path).absoluteFilePath();
  if (followed_.count(path) != 0) return;
  tb::logs::ImportOptions options;
  if (request.gpus > 0) options.gpus = request.gpus;
  if (!request.lossPattern.isEmpty()) options.lossPattern = toStdString(request.lossPattern);
  auto follower = tb::logs::LogFollower::open(toStdString(path), options);
  FollowStatus status;
  if (!follower) {
    status.problem = toQString(follower.error().message);
    Q_EMIT statusChanged(path, status);
    return;
  }
  status.following = true;
  followed_[path] =
      Followed{request, std::make_shared<tb::logs::LogFollower>(std::move(*follower)), status};
  watch(path);
  if (!timer_.isActive()) timer_.start();
  Q_EMIT statusChanged(path, status);
  pollNow();
}

void LogFollowSet::stop(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  const auto found = followed_.find(absolute);
  if (found == followed_.end()) return;
  FollowStatus status = found->second.status;
  status.following = false;
  followed_.erase(found);
  watcher_->removePath(absolute);
  if (followed_.empty()) timer_.stop();
  Q_EMIT statusChanged(absolute, status);
}

bool LogFollowSet::isFollowing(const QString& path) const {
  return followed_.count(QFileInfo(path).absoluteFilePath()) != 0;
}

FollowStatus LogFollowSet::status(const QString& path) const {
  const auto found = followed_.find(QFileInfo(path).absoluteFilePath());
  return found == followed_.end() ? FollowStatus{} : found->second.status;
}

void LogFollowSet::watch(const QString& path) {
  if (!watcher_->files().contains(path) && !watcher_->directories().contains(path) &&
      QFileInfo::exists(path))
    watcher_->addPath(path);
}

void LogFollowSet::pollNow() {
  if (followed_.empty() || task_->isBusy()) return;
  std::vector<Look> looks;
  for (const auto& [path, followed] : followed_) {
    Look look;
    look.path = path;
    look.follower = followed.follower;
    looks.push_back(std::move(look));
  }
  task_->start(
      [looks]() mutable {
        for (Look& look : looks) {
          auto update = look.follower->poll();
          if (!update) {
            look.failed = true;
            look.message = toQString(update.error().message);
            continue;
          }
          look.grew = update->grew;
          look.ended = look.follower->ended();
          if (update->restarted) look.message = toQString(*update->restarted);
          else if (update->problem) look.message = toQString(*update->problem);
          if (look.grew) look.latest = look.follower->latest();
        }
        return looks;
      },
      [this](const std::vector<Look>& done) { onLooked(done); });
}

void LogFollowSet::onLooked(const std::vector<Look>& looks) {
  for (const Look& look : looks) {
    const auto found = followed_.find(look.path);
    // Stopped (or stopped and followed again) while the look ran.
    if (found == followed_.end() || found->second.follower != look.follower) continue;
    Followed& followed = found->second;
    FollowStatus& status = followed.status;
    status.problem = look.message;
    if (look.latest) {
      status.lastStep = look.latest->run.lastStep;
      status.records = look.latest->run.records;
      status.lastRecordAt = QDateTime::currentDateTimeUtc();
      Q_EMIT updated(followed.request, *look.latest);
    }
    if (look.failed || look.ended) {
      status.ended = look.ended;
      stop(look.path);  // says the status, not following any more
      continue;
    }
    watch(look.path);  // a replaced file drops out of the watcher
    Q_EMIT statusChanged(look.path, status);
  }
}

}  // namespace tb::ui
