// The Runs page: configure a run, start and stop it, watch it live, and look
// back at past runs. The engine runs as a `trainbench run` child process (see
// ARCHITECTURE.md): a crash or an out-of-memory error ends the child, never
// the window, and the page only parses the child's event lines.
#pragma once

#include <QString>
#include <QWidget>

#include <optional>

#include "ui/runs/run_process.h"
#include "ui/runs/run_settings.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace tb::ui {

class RunCharts;
class RunForm;
class RunHistoryPanel;
class StudioSettings;

/// Run form, live charts and log, and the history of runs.
class RunsPage : public QWidget {
  Q_OBJECT

 public:
  /// `settings` says whether the form's choices may be written back; it
  /// must outlive the page.
  explicit RunsPage(const StudioSettings& settings, QWidget* parent = nullptr);

  [[nodiscard]] bool isRunning() const;
  /// How the last run ended; none before the first one ends.
  [[nodiscard]] const std::optional<RunOutcome>& lastOutcome() const { return lastOutcome_; }

 public Q_SLOTS:
  void startRun();
  void stopRun();
  /// Sets the form's recompute field (the Memory page's recommendation).
  /// Sets --recompute, and --runtime too when `runtime` is given: a plan holds
  /// only for the runtime it was made for. A policy the engine does not run
  /// is refused (said in the status line, the form unchanged): false.
  bool applyRecomputePolicy(const QString& policy, const QString& runtime = {});

 Q_SIGNALS:
  void runningChanged(bool running);
  void runFinished();

 private:
  QWidget* buildControls();
  QWidget* buildLiveTab();
  void onEvent(const tb::runs::RunEvent& event);
  void onFinished(const RunOutcome& outcome);
  void updateButtons();
  void appendLog(const QString& line);

  RunSettings settings_;
  RunForm* form_ = nullptr;
  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* outcome_ = nullptr;
  RunCharts* live_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  RunHistoryPanel* history_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  RunProcess* process_ = nullptr;
  std::optional<RunOutcome> lastOutcome_;
  std::int64_t totalSteps_ = 0;
  std::int64_t lastLoggedStep_ = 0;
};

}  // namespace tb::ui
