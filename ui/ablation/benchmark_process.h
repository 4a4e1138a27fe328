// One `trainbench benchmark --ablation` child process. The command runs the
// four configurations as its own children and writes results.json into the
// folder it is given; this object starts it, turns its stderr into progress
// signals, and on the end says where the results are. Cancel is SIGTERM: the
// command stops its current run and still writes the runs that finished.
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <chrono>

#include "ui/ablation/benchmark_progress.h"

class QTimer;

namespace tb::ui {

/// What to benchmark.
struct BenchmarkRequest {
  QString model = QStringLiteral("tiny");
  int repeats = 1;
  int steps = 10;
  QString outDir;  ///< results.json lands here
};

/// The `trainbench` arguments for `request`.
[[nodiscard]] QStringList benchmarkArguments(const BenchmarkRequest& request);

/// How a benchmark ended.
struct BenchmarkOutcome {
  bool cancelled = false;
  int exitCode = -1;
  QString resultsPath;  ///< <outDir>/results.json when it exists, else empty
  QString message;      ///< why it failed; empty on success
  QString stderrTail;
};

/// Runs one benchmark at a time as a child process.
class BenchmarkProcess : public QObject {
  Q_OBJECT

 public:
  explicit BenchmarkProcess(QObject* parent = nullptr);
  ~BenchmarkProcess() override;

  /// Starts `program benchmark …`; ignored while one is running.
  void start(const QString& program, const BenchmarkRequest& request);
  /// SIGTERM, then SIGKILL after the grace period.
  void cancel();
  [[nodiscard]] bool isRunning() const;
  void setCancelGrace(std::chrono::milliseconds grace) { cancelGrace_ = grace; }

  static constexpr int kStderrTailLines = 20;

 Q_SIGNALS:
  void progress(const tb::ui::BenchmarkProgress& progress);
  /// Every line of output, for the log.
  void logLine(const QString& line);
  void finished(const tb::ui::BenchmarkOutcome& outcome);

 private:
  void readChannel(QProcess::ProcessChannel channel);
  void handleLine(QProcess::ProcessChannel channel, const QString& line);
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onError(QProcess::ProcessError error);
  void finish(BenchmarkOutcome outcome);

  QProcess* process_;
  QTimer* killTimer_;
  QByteArray buffers_[2];
  QStringList stderrTail_;
  QString program_;
  QString outDir_;
  std::chrono::milliseconds cancelGrace_{20000};
  bool cancelRequested_ = false;
  bool reported_ = true;
};

}  // namespace tb::ui
