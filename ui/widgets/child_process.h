// A child process read as lines: what the Runs and Ablation pages both need
// from the `trainbench` they run as a child (ARCHITECTURE.md: a crash or an
// out-of-memory run ends the child, never the window). The pages give the
// lines their meaning; this class owns what is the same for every child: the
// splitting of output that arrives in arbitrary pieces, the stderr tail a
// failure message quotes, a stop that asks first and insists later, exactly
// one report of the end however the child ends, and no child outliving its
// owner.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <chrono>

class QTimer;

namespace tb::ui {

/// How a started child ended; finished() carries one per start().
struct ChildExit {
  bool failedToStart = false;  ///< it never ran; errorString says why
  bool crashed = false;        ///< ended by a signal (the grace's SIGKILL included)
  bool killed = false;         ///< stop()'s grace ran out and SIGKILL was sent
  bool stopRequested = false;  ///< stop() was called during this start
  int exitCode = -1;           ///< as QProcess reports it; -1 when it never ran
  QString errorString;         ///< QProcess's words for a failed start or a crash
  QString stderrTail;          ///< the last stderr lines with text, joined by '\n'
};

/// A line is cut at this many bytes, and the rest of it dropped up to its
/// end: a child printing an endless line must not take the window's memory.
inline constexpr qsizetype kMaxChildLineBytes = qsizetype{1} << 20;

/// One stream's bytes not yet cut into lines (ChildProcess's own state).
struct ChildLineBuffer {
  QByteArray bytes;
  bool skipping = false;  ///< dropping the rest of a line cut at kMaxChildLineBytes
};

/// One child at a time, its stdout and stderr as complete lines.
class ChildProcess : public QObject {
  Q_OBJECT

 public:
  explicit ChildProcess(QObject* parent = nullptr);
  /// Kills a child still running (after the shutdown grace, if one is set)
  /// and waits for it; nothing is reported from here.
  ~ChildProcess() override;

  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Starts `program` with `arguments`; false (and nothing done) while a
  /// child is running. A failed start is reported through finished().
  bool start(const QString& program, const QStringList& arguments);
  /// SIGTERM now, SIGKILL when the child is still running after the stop grace.
  void stop();
  [[nodiscard]] bool isRunning() const;
  /// The running child's pid; 0 when none.
  [[nodiscard]] qint64 processId() const;
  /// The program of the last start().
  [[nodiscard]] QString program() const;

  /// How long stop() waits between SIGTERM and SIGKILL (default 5 s).
  void setStopGrace(std::chrono::milliseconds grace) { stopGrace_ = grace; }
  [[nodiscard]] std::chrono::milliseconds stopGrace() const { return stopGrace_; }
  /// How long the destructor lets the child end on SIGTERM before SIGKILL;
  /// zero (the default) sends SIGKILL at once.
  void setShutdownGrace(std::chrono::milliseconds grace) { shutdownGrace_ = grace; }
  /// How many stderr lines the tail keeps (default 20, at least 1).
  void setStderrTailLines(int lines);
  /// The tail so far, as finished() will carry it.
  [[nodiscard]] QString stderrTail() const;

 Q_SIGNALS:
  /// One line without its terminator ("\n", "\r\n" or a lone "\r"). Blank
  /// lines are passed on too; a last line without a terminator comes when
  /// the child ends, before finished().
  void stdoutLine(const QByteArray& line);
  void stderrLine(const QByteArray& line);
  void finished(const tb::ui::ChildExit& ended);

 private:
  void readStdout(bool atEnd);
  void readStderr(bool atEnd);
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);
  void finish(ChildExit ended);

  QProcess* process_;
  QTimer* killTimer_;
  ChildLineBuffer stdoutBuffer_;
  ChildLineBuffer stderrBuffer_;
  QStringList stderrTail_;
  int stderrTailLines_ = 20;
  std::chrono::milliseconds stopGrace_{5000};
  std::chrono::milliseconds shutdownGrace_{0};
  bool stopRequested_ = false;
  bool killed_ = false;
  bool reported_ = true;
};

}  // namespace tb::ui
