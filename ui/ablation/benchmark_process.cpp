// The results file decides success, not the exit code alone: a cancelled
// benchmark exits non-zero yet leaves the runs that finished, and those are
// worth loading. A missing results file is a failure whatever the exit code.
#include "ui/ablation/benchmark_process.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

namespace tb::ui {

QStringList benchmarkArguments(const BenchmarkRequest& request) {
  return {QStringLiteral("benchmark"),   QStringLiteral("--model"),
          request.model,                 QStringLiteral("--ablation"),
          QStringLiteral("--repeats"),   QString::number(request.repeats),
          QStringLiteral("--steps"),     QString::number(request.steps),
          QStringLiteral("--out"),       request.outDir};
}

BenchmarkProcess::BenchmarkProcess(QObject* parent)
    : QObject(parent), process_(new QProcess(this)), killTimer_(new QTimer(this)) {
  killTimer_->setSingleShot(true);
  connect(killTimer_, &QTimer::timeout, process_, &QProcess::kill);
  connect(process_, &QProcess::readyReadStandardOutput, this,
          [this] { readChannel(QProcess::StandardOutput); });
  connect(process_, &QProcess::readyReadStandardError, this,
          [this] { readChannel(QProcess::StandardError); });
  connect(process_, &QProcess::finished, this, &BenchmarkProcess::onFinished);
  connect(process_, &QProcess::errorOccurred, this, &BenchmarkProcess::onError);
}

BenchmarkProcess::~BenchmarkProcess() {
  // A closed window must not leave a benchmark (and its engine runs) behind;
  // SIGTERM lets the command stop its own child run first.
  if (process_->state() != QProcess::NotRunning) {
    process_->disconnect(this);
    process_->terminate();
    if (!process_->waitForFinished(3000)) {
      process_->kill();
      process_->waitForFinished(2000);
    }
  }
}

void BenchmarkProcess::start(const QString& program, const BenchmarkRequest& request) {
  if (isRunning()) return;
  for (QByteArray& buffer : buffers_) buffer.clear();
  stderrTail_.clear();
  cancelRequested_ = false;
  reported_ = false;
  program_ = program;
  outDir_ = request.outDir;
  QDir().mkpath(outDir_);
  process_->start(program, benchmarkArguments(request));
}

void BenchmarkProcess::cancel() {
  if (!isRunning()) return;
  cancelRequested_ = true;
  process_->terminate();
  killTimer_->start(cancelGrace_);
}

bool BenchmarkProcess::isRunning() const { return process_->state() != QProcess::NotRunning; }

void BenchmarkProcess::readChannel(QProcess::ProcessChannel channel) {
  process_->setReadChannel(channel);
  QByteArray& buffer = buffers_[channel == QProcess::StandardOutput ? 0 : 1];
  buffer.append(process_->readAll());
  // A progress bar redraws with '\r'; each redraw counts as a line.
  buffer.replace('\r', '\n');
  qsizetype newline = 0;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const QString line = QString::fromUtf8(buffer.left(newline));
    buffer.remove(0, newline + 1);
    if (!line.trimmed().isEmpty()) handleLine(channel, line);
  }
}

void BenchmarkProcess::handleLine(QProcess::ProcessChannel channel, const QString& line) {
  Q_EMIT logLine(line);
  if (channel != QProcess::StandardError) return;  // stdout is the final table or JSON
  stderrTail_.append(line);
  if (stderrTail_.size() > kStderrTailLines) stderrTail_.removeFirst();
  if (auto parsed = parseBenchmarkProgress(line)) Q_EMIT progress(*parsed);
}

void BenchmarkProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  killTimer_->stop();
  readChannel(QProcess::StandardOutput);
  readChannel(QProcess::StandardError);
  for (int channel = 0; channel < 2; ++channel) {
    QByteArray& rest = buffers_[channel];
    if (!rest.trimmed().isEmpty()) {
      handleLine(channel == 0 ? QProcess::StandardOutput : QProcess::StandardError,
                 QString::fromUtf8(rest));
    }
    rest.clear();
  }
  BenchmarkOutcome outcome;
  outcome.exitCode = exitCode;
  outcome.cancelled = cancelRequested_;
  const QString results = QDir(outDir_).filePath(QStringLiteral("results.json"));
  if (QFileInfo::exists(results)) outcome.resultsPath = results;
  if (outcome.resultsPath.isEmpty()) {
    if (cancelRequested_) {
      outcome.message = tr("cancelled before any run finished");
    } else if (status == QProcess::CrashExit) {
      outcome.message = tr("the benchmark process crashed (%1)").arg(process_->errorString());
    } else {
      outcome.message =
          tr("trainbench benchmark exited with code %1 and wrote no results.json in %2")
              .arg(exitCode)
              .arg(outDir_);
    }
  } else if (exitCode != 0 && !cancelRequested_) {
    outcome.message = tr("trainbench benchmark exited with code %1; the runs that finished "
                         "were kept").arg(exitCode);
  }
  finish(std::move(outcome));
}

void BenchmarkProcess::onError(QProcess::ProcessError error) {
  if (error != QProcess::FailedToStart) return;  // the others are followed by finished()
  BenchmarkOutcome outcome;
  outcome.message = tr("cannot start %1: %2").arg(program_, process_->errorString());
  finish(std::move(outcome));
}

void BenchmarkProcess::finish(BenchmarkOutcome outcome) {
  if (reported_) return;
  reported_ = true;
  outcome.stderrTail = stderrTail_.join(QLatin1Char('\n'));
  Q_EMIT finished(outcome);
}

}  // namespace tb::ui
