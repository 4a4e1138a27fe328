// One `trainbench benchmark --ablation` child process. The command runs the
// four configurations as its own children and writes results.json into the
// folder it is given; this object starts it with `--events -`, turns each
// stdout line into a typed event (docs/CLI.md), passes stderr, which is for
// people, to the log only, and on the end says where the results are. Cancel
// is SIGTERM: the command stops its current run and still writes the runs
// that finished.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <chrono>

#include "tb/common/stop_signals.hpp"
#include "tb/runs/benchmark_event.hpp"

class QByteArray;

namespace tb::ui {

class ChildProcess;
struct ChildExit;

/// What to benchmark.
struct BenchmarkRequest {
  QString model = QStringLiteral("tiny");
  int repeats = 1;
  int steps = 10;
  QString outDir;  ///< results.json lands here
};

/// The `trainbench` arguments for `request`, events on stdout.
[[nodiscard]] QStringList benchmarkArguments(const BenchmarkRequest& request);

/// How a benchmark ended.
struct BenchmarkOutcome {
  bool cancelled = false;
  int exitCode = -1;
  /// The results file the events named, else <outDir>/results.json; empty
  /// when neither exists.
  QString resultsPath;
  QString message;  ///< why it failed; empty on success
  QString stderrTail;
};

/// Runs one benchmark at a time as a child process.
class BenchmarkProcess : public QObject {
  Q_OBJECT

 public:
  /// A benchmark still running when this object goes is stopped, and so are
  /// its engine runs.
  explicit BenchmarkProcess(QObject* parent = nullptr);

  /// Starts `program benchmark …`; ignored while one is running.
  void start(const QString& program, const BenchmarkRequest& request);
  /// SIGTERM, then SIGKILL after the grace period.
  void cancel();
  [[nodiscard]] bool isRunning() const;
  /// Between SIGTERM and SIGKILL (default kCancelGrace).
  void setCancelGrace(std::chrono::milliseconds grace);

  static constexpr int kStderrTailLines = 20;
  /// Longer than the command's own grace for its run (kRunStopGrace), so the
  /// command always gets to stop its child and write the file before this
  /// kills it; killed first, it would orphan the run and lose the summary.
  static constexpr std::chrono::milliseconds kCancelGrace =
      tb::kRunStopGrace + std::chrono::seconds(10);

 Q_SIGNALS:
  /// One event of the benchmark's stdout, in the order written.
  void progress(const tb::runs::BenchmarkEvent& event);
  /// A stderr line, or a stdout line that is not an event (with the reason).
  void logLine(const QString& line);
  void finished(const tb::ui::BenchmarkOutcome& outcome);

 private:
  void handleStdout(const QByteArray& line);
  void handleStderr(const QByteArray& line);
  void onFinished(const ChildExit& ended);
  [[nodiscard]] QString existingResultsFile() const;

  ChildProcess* child_;
  QString outDir_;
  QString resultsFromPlan_;
  QString resultsFromSummary_;
};

}  // namespace tb::ui
