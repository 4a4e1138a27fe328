// One `trainbench run` child process and its event stream. The child owns the
// training; this object only reads: stdout line by line (a line may arrive in
// pieces), stderr kept as a tail for the failure message. Every way a child
// can end (summary, crash, kill, failure to start) becomes one RunOutcome.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

#include "tb/runs/run_event.hpp"

class QTimer;

namespace tb::ui {

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
  explicit RunProcess(QObject* parent = nullptr);
  ~RunProcess() override;

  /// Starts `program` with `arguments`; ignored while a run is going.
  void start(const QString& program, const QStringList& arguments);
  /// SIGTERM (the engine ends cleanly as interrupted), then SIGKILL after the grace.
  void stop();
  [[nodiscard]] bool isRunning() const;
  [[nodiscard]] qint64 processId() const;
  void setStopGrace(std::chrono::milliseconds grace) { stopGrace_ = grace; }

  /// Lines of stderr kept for the failure message.
  static constexpr int kStderrTailLines = 30;

 Q_SIGNALS:
  void eventReceived(const tb::runs::RunEvent& event);
  /// A stderr line, or a stdout line that is not an event (with the reason).
  void logLine(const QString& line);
  void finished(const tb::ui::RunOutcome& outcome);

 private:
  void readStdout();
  void readStderr();
  void handleLine(const QByteArray& line);
  void appendStderr(const QString& line);
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);
  void finish(RunOutcome outcome);

  QProcess* process_;
  QTimer* killTimer_;
  QByteArray stdoutBuffer_;
  QByteArray stderrBuffer_;
  QStringList stderrTail_;
  QString program_;
  QString runDir_;
  std::optional<tb::runs::SummaryFields> summary_;
  std::chrono::milliseconds stopGrace_{5000};
  bool stopRequested_ = false;
  bool reported_ = true;
};

}  // namespace tb::ui
