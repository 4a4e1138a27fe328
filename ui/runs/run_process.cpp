// The summary in the `end` event is trusted over the exit code: the engine
// exits 1 for oom and interrupted too, and only the event says which. Without
// an `end` event the exit status is all there is, and stderr says why.
#include "ui/runs/run_process.h"

#include <QTimer>

#include "ui/qt_text.h"

namespace tb::ui {

using tb::runs::RunState;

RunProcess::RunProcess(QObject* parent)
    : QObject(parent), process_(new QProcess(this)), killTimer_(new QTimer(this)) {
  killTimer_->setSingleShot(true);
  connect(killTimer_, &QTimer::timeout, process_, &QProcess::kill);
  connect(process_, &QProcess::readyReadStandardOutput, this, &RunProcess::readStdout);
  connect(process_, &QProcess::readyReadStandardError, this, &RunProcess::readStderr);
  connect(process_, &QProcess::finished, this, &RunProcess::onFinished);
  connect(process_, &QProcess::errorOccurred, this, &RunProcess::onError);
}

RunProcess::~RunProcess() {
  // A window closed mid-run must not leave a training process behind.
  if (process_->state() != QProcess::NotRunning) {
    process_->disconnect(this);
    process_->kill();
    process_->waitForFinished(2000);
  }
}

void RunProcess::start(const QString& program, const QStringList& arguments) {
  if (isRunning()) return;
  stdoutBuffer_.clear();
  stderrBuffer_.clear();
  stderrTail_.clear();
  runDir_.clear();
  summary_.reset();
  stopRequested_ = false;
  reported_ = false;
  program_ = program;
  process_->start(program, arguments);
}

void RunProcess::stop() {
  if (!isRunning()) return;
  stopRequested_ = true;
  process_->terminate();
  killTimer_->start(stopGrace_);
}

bool RunProcess::isRunning() const { return process_->state() != QProcess::NotRunning; }

qint64 RunProcess::processId() const { return process_->processId(); }

void RunProcess::readStdout() {
  stdoutBuffer_.append(process_->readAllStandardOutput());
  qsizetype newline = 0;
  while ((newline = stdoutBuffer_.indexOf('\n')) >= 0) {
    const QByteArray line = stdoutBuffer_.left(newline);
    stdoutBuffer_.remove(0, newline + 1);
    if (!line.trimmed().isEmpty()) handleLine(line);
  }
}

void RunProcess::readStderr() {
  stderrBuffer_.append(process_->readAllStandardError());
  qsizetype newline = 0;
  while ((newline = stderrBuffer_.indexOf('\n')) >= 0) {
    appendStderr(QString::fromUtf8(stderrBuffer_.left(newline)));
    stderrBuffer_.remove(0, newline + 1);
  }
}

void RunProcess::appendStderr(const QString& line) {
  stderrTail_.append(line);
  if (stderrTail_.size() > kStderrTailLines) stderrTail_.removeFirst();
  Q_EMIT logLine(line);
}

void RunProcess::handleLine(const QByteArray& line) {
  auto event = tb::runs::parseEventLine(std::string_view(line.constData(),
                                                         static_cast<std::size_t>(line.size())));
  if (!event) {
    Q_EMIT logLine(tr("unreadable output (%1): %2")
                       .arg(toQString(event.error().message), QString::fromUtf8(line.left(200))));
    return;
  }
  if (event->kind == tb::runs::EventKind::Start) runDir_ = toQString(event->runDir);
  if (event->kind == tb::runs::EventKind::End) summary_ = event->summary;
  Q_EMIT eventReceived(*event);
}

void RunProcess::onFinished(int exitCode, QProcess::ExitStatus status) {
  killTimer_->stop();
  // Output still buffered when the pipe closed, including a last line without '\n'.
  readStdout();
  readStderr();
  if (!stdoutBuffer_.trimmed().isEmpty()) handleLine(stdoutBuffer_);
  if (!stderrBuffer_.isEmpty()) appendStderr(QString::fromUtf8(stderrBuffer_));
  stdoutBuffer_.clear();
  stderrBuffer_.clear();

  RunOutcome outcome;
  outcome.exitCode = exitCode;
  if (summary_) {
    outcome.state = summary_->state;
    outcome.message = toQString(summary_->message);
  } else if (stopRequested_) {
    outcome.state = RunState::Interrupted;
    outcome.message = tr("stopped; the engine did not end within the grace period and was killed");
  } else if (status == QProcess::CrashExit) {
    outcome.state = RunState::Failed;
    outcome.message = tr("the run process crashed (%1)").arg(process_->errorString());
  } else {
    outcome.state = RunState::Failed;
    outcome.message = tr("trainbench exited with code %1 without a summary").arg(exitCode);
  }
  finish(std::move(outcome));
}

void RunProcess::onError(QProcess::ProcessError error) {
  // Every other error is followed by finished(); a failed start is not.
  if (error != QProcess::FailedToStart) return;
  RunOutcome outcome;
  outcome.state = RunState::Failed;
  outcome.message = tr("cannot start %1: %2").arg(program_, process_->errorString());
  finish(std::move(outcome));
}

void RunProcess::finish(RunOutcome outcome) {
  if (reported_) return;
  reported_ = true;
  outcome.stderrTail = stderrTail_.join(QLatin1Char('\n'));
  outcome.runDir = runDir_;
  Q_EMIT finished(outcome);
}

}  // namespace tb::ui
