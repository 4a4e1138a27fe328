// One `trainbench run` child process and its event stream. The child owns the
// training; this object only reads: each stdout line is an event, stderr is
// for the log and, as a tail, for the failure message. Every way a child can
// end (summary, crash, kill, failure to start) becomes one RunOutcome.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

#include "tb/runs/run_event.hpp"

class QByteArray;

namespace tb::ui {

class ChildProcess;
struct ChildExit;

/// How a child run ended, as the page reports it.
struct RunOutcome {
  tb::runs::RunState state = tb::runs::RunState::Failed;
  QString message;     ///< the engine's message, or why the process failed
  QString stderrTail;  ///< last lines of the child's stderr
  QString runDir;      ///< from the start event; empty when it never started
  int exitCode = -1;
};

/// Runs the engine as a child and turns its output into signals.
class RunProcess : public QObject {
  Q_OBJECT

 public:
  /// The child is killed when this object goes, so a window closed mid-run
  /// leaves no training process behind.
  explicit RunProcess(QObject* parent = nullptr);

  /// Starts `program` with `arguments`; ignored while a run is going.
  void start(const QString& program, const QStringList& arguments);
  /// SIGTERM (the engine ends cleanly as interrupted), then SIGKILL after the grace.
  void stop();
  [[nodiscard]] bool isRunning() const;
  [[nodiscard]] qint64 processId() const;
  /// Between SIGTERM and SIGKILL (default kStopGrace).
  void setStopGrace(std::chrono::milliseconds grace);

  /// Lines of stderr kept for the failure message.
  static constexpr int kStderrTailLines = 30;
  /// Long enough for the engine to finish its step and write the summary.
  static constexpr std::chrono::milliseconds kStopGrace{5000};
  /// What the window's close waits for a run to stop before SIGKILL.
  static constexpr std::chrono::milliseconds kShutdownGrace{3000};

 Q_SIGNALS:
  void eventReceived(const tb::runs::RunEvent& event);
  /// A stderr line, or a stdout line that is not an event (with the reason).
  void logLine(const QString& line);
  void finished(const tb::ui::RunOutcome& outcome);

 private:
  void handleLine(const QByteArray& line);
  void onFinished(const ChildExit& ended);

  ChildProcess* child_;
  QString runDir_;
  std::optional<tb::runs::RunSummary> summary_;
};

}  // namespace tb::ui
