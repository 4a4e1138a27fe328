// The results file decides success, not the exit code alone: a cancelled
// benchmark exits non-zero yet leaves the runs that finished, and those are
// worth loading. A missing results file is a failure whatever the exit code.
#include "ui/ablation/benchmark_process.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>

#include <string_view>

#include "ui/qt_text.h"
#include "ui/widgets/child_process.h"

namespace tb::ui {
namespace {

// On close, SIGTERM first: the command then stops its own `trainbench run`
// child, which a SIGKILL of the command alone would leave running.
constexpr std::chrono::milliseconds kShutdownGrace{3000};

}  // namespace

QStringList benchmarkArguments(const BenchmarkRequest& request) {
  return {QStringLiteral("benchmark"),
          QStringLiteral("--model"),
          request.model,
          QStringLiteral("--ablation"),
          QStringLiteral("--repeats"),
          QString::number(request.repeats),
          QStringLiteral("--steps"),
          QString::number(request.steps),
          QStringLiteral("--out"),
          request.outDir,
          QStringLiteral("--events"),
          QStringLiteral("-")};
}

BenchmarkProcess::BenchmarkProcess(QObject* parent)
    : QObject(parent), child_(new ChildProcess(this)) {
  child_->setStderrTailLines(kStderrTailLines);
  child_->setStopGrace(kCancelGrace);
  child_->setShutdownGrace(kShutdownGrace);
  connect(child_, &ChildProcess::stdoutLine, this, &BenchmarkProcess::handleStdout);
  connect(child_, &ChildProcess::stderrLine, this, &BenchmarkProcess::handleStderr);
  connect(child_, &ChildProcess::finished, this, &BenchmarkProcess::onFinished);
}

void BenchmarkProcess::start(const QString& program, const BenchmarkRequest& request) {
  if (isRunning()) return;
  outDir_ = request.outDir;
  resultsFromPlan_.clear();
  resultsFromSummary_.clear();
  QDir().mkpath(outDir_);
  child_->start(program, benchmarkArguments(request));
}

void BenchmarkProcess::cancel() { child_->stop(); }

bool BenchmarkProcess::isRunning() const { return child_->isRunning(); }

void BenchmarkProcess::setCancelGrace(std::chrono::milliseconds grace) {
  child_->setStopGrace(grace);
}

void BenchmarkProcess::handleStdout(const QByteArray& line) {
  if (line.trimmed().isEmpty()) return;
  auto event = tb::runs::parseBenchmarkEventLine(
      std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
  if (!event) {
    Q_EMIT logLine(tr("unreadable output (%1): %2")
                       .arg(toQString(event.error().message), QString::fromUtf8(line.left(200))));
    return;
  }
  if (event->kind == tb::runs::BenchmarkEventKind::Plan) {
    resultsFromPlan_ = toQString(event->plan.resultsFile);
  } else if (event->kind == tb::runs::BenchmarkEventKind::Summary) {
    resultsFromSummary_ = toQString(event->summary.resultsFile);
  }
  Q_EMIT progress(*event);
}

void BenchmarkProcess::handleStderr(const QByteArray& line) {
  if (!line.trimmed().isEmpty()) Q_EMIT logLine(QString::fromUtf8(line));
}

QString BenchmarkProcess::existingResultsFile() const {
  for (const QString& path : {resultsFromSummary_, resultsFromPlan_,
                              QDir(outDir_).filePath(QStringLiteral("results.json"))}) {
    if (!path.isEmpty() && QFileInfo::exists(path)) return path;
  }
  return {};
}

void BenchmarkProcess::onFinished(const ChildExit& ended) {
  BenchmarkOutcome outcome;
  outcome.stderrTail = ended.stderrTail;
  if (ended.failedToStart) {
    outcome.message = tr("cannot start %1: %2").arg(child_->program(), ended.errorString);
    Q_EMIT finished(outcome);
    return;
  }
  outcome.exitCode = ended.exitCode;
  outcome.cancelled = ended.stopRequested;
  outcome.resultsPath = existingResultsFile();
  if (outcome.resultsPath.isEmpty()) {
    if (outcome.cancelled) {
      outcome.message = tr("cancelled before any run finished");
    } else if (ended.crashed) {
      outcome.message = tr("the benchmark process crashed (%1)").arg(ended.errorString);
    } else {
      outcome.message =
          tr("trainbench benchmark exited with code %1 and wrote no results.json in %2")
              .arg(ended.exitCode)
              .arg(outDir_);
    }
  } else if (ended.exitCode != 0 && !outcome.cancelled) {
    outcome.message = tr("trainbench benchmark exited with code %1; the runs that finished "
                         "were kept")
                          .arg(ended.exitCode);
  }
  Q_EMIT finished(outcome);
}

}  // namespace tb::ui
