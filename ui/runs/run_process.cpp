// The summary in the `end` event is trusted over the exit code: the engine
// exits 1 for oom and interrupted too, and only the event says which. Without
// an `end` event the exit status is all there is, and stderr says why.
#include "ui/runs/run_process.h"

#include <QByteArray>

#include <string_view>
#include <utility>

#include "ui/qt_text.h"
#include "ui/widgets/child_process.h"

namespace tb::ui {

using tb::runs::RunState;

RunProcess::RunProcess(QObject* parent) : QObject(parent), child_(new ChildProcess(this)) {
  child_->setStderrTailLines(kStderrTailLines);
  child_->setStopGrace(kStopGrace);
  // Closing the window mid-run: SIGTERM first, so the run ends `interrupted`
  // with its summary written, as a Stop would leave it.
  child_->setShutdownGrace(kShutdownGrace);
  connect(child_, &ChildProcess::stdoutLine, this, &RunProcess::handleLine);
  connect(child_, &ChildProcess::stderrLine, this,
          [this](const QByteArray& line) { Q_EMIT logLine(QString::fromUtf8(line)); });
  connect(child_, &ChildProcess::finished, this, &RunProcess::onFinished);
}

void RunProcess::start(const QString& program, const QStringList& arguments) {
  if (isRunning()) return;
  runDir_.clear();
  summary_.reset();
  child_->start(program, arguments);
}

void RunProcess::stop() { child_->stop(); }

bool RunProcess::isRunning() const { return child_->isRunning(); }

qint64 RunProcess::processId() const { return child_->processId(); }

void RunProcess::setStopGrace(std::chrono::milliseconds grace) { child_->setStopGrace(grace); }

void RunProcess::handleLine(const QByteArray& line) {
  if (line.trimmed().isEmpty()) return;
  auto event = tb::runs::parseEventLine(
      std::string_view(line.constData(), static_cast<std::size_t>(line.size())));
  if (!event) {
    Q_EMIT logLine(tr("unreadable output (%1): %2")
                       .arg(toQString(event.error().message), QString::fromUtf8(line.left(200))));
    return;
  }
  if (event->kind == tb::runs::EventKind::Start) runDir_ = toQString(event->runDir);
  if (event->kind == tb::runs::EventKind::End) summary_ = event->summary;
  Q_EMIT eventReceived(*event);
}

void RunProcess::onFinished(const ChildExit& ended) {
  RunOutcome outcome;
  outcome.exitCode = ended.exitCode;
  outcome.stderrTail = ended.stderrTail;
  outcome.runDir = runDir_;
  if (ended.failedToStart) {
    outcome.state = RunState::Failed;
    outcome.message = tr("cannot start %1: %2").arg(child_->program(), ended.errorString);
  } else if (summary_) {
    outcome.state = summary_->state;
    outcome.message = toQString(summary_->message);
  } else if (ended.stopRequested) {
    outcome.state = RunState::Interrupted;
    outcome.message = tr("stopped; the engine did not end within the grace period and was killed");
  } else if (ended.crashed) {
    outcome.state = RunState::Failed;
    outcome.message = tr("the run process crashed (%1)").arg(ended.errorString);
  } else {
    outcome.state = RunState::Failed;
    outcome.message = tr("trainbench exited with code %1 without a summary").arg(ended.exitCode);
  }
  Q_EMIT finished(outcome);
}

}  // namespace tb::ui
