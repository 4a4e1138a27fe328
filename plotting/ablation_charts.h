// The four charts of an ablation (throughput against Base, peak memory,
// step-time distribution, loss curves). They share one base that holds the
// results and lays engine and cluster series side by side on the four chain
// positions, so every chart reads the same configurations in the same order
// and a cluster run never hides behind an engine bar. Each chart keeps what
// it drew as plain values (bars(), boxes()) so pages and tests read numbers
// instead of poking at QCustomPlot's plottables.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include <utility>

#include "plotting/themed_chart.h"
#include "tb/bench/results.hpp"

namespace tb::plotting {

/// One bar as drawn: a configuration of one series at one chain position.
struct AblationBar {
  QString series;        ///< e.g. "engine · small" or "cluster · llama-8b (8 GPUs)"
  QString label;         ///< the configuration's full ablation label
  int chainIndex = 0;    ///< 0 = Base … 3 = +CkptOpt (the bar's x position)
  double value = 0.0;    ///< bar height in the chart's current unit
  double low = 0.0;      ///< lower end of the error bar (equals value when none)
  double high = 0.0;     ///< upper end of the error bar
  double speedup = 0.0;  ///< over the series' own Base; 0 when it has none
};

/// The results an ablation chart draws, and the pieces all four charts share:
/// the category axis of the chain, the series grouping (one per source, model,
/// GPU count and unit), the empty-state message and the export menu.
class AblationChart : public ThemedChart {
  Q_OBJECT

 public:
  /// Replaces the results shown (an empty set shows "No results").
  void setResults(const tb::bench::AblationResults& results);
  [[nodiscard]] const tb::bench::AblationResults& results() const { return results_; }
  [[nodiscard]] bool hasResults() const { return !results_.configurations.empty(); }
  /// The names of the series drawn, in legend order.
  [[nodiscard]] QStringList seriesNames() const { return seriesNames_; }
  /// Whether the step names on the x axis take two lines (too narrow for one).
  [[nodiscard]] bool chainLabelsWrapped() const;

 protected:
  /// `exportName` is the file name the export dialog proposes.
  AblationChart(const QString& exportName, QWidget* parent);

  void rebuild() final;
  /// Draws the current results; called with plottables and items cleared.
  virtual void drawResults() = 0;
  /// Drops what the last drawResults() recorded for hit-testing and tests; called by
  /// every rebuild, so an emptied chart reports nothing stale.
  virtual void forget() {}
  /// Sets the x axis to the four chain positions with short labels.
  void useChainAxis();
  /// Shows `text` in the middle of the plot (used when there is nothing to draw).
  void showMessage(const QString& text);
  /// Records the names of the series drawn, in legend order.
  void setSeriesNames(QStringList names) { seriesNames_ = std::move(names); }
  /// The entry of `bars` whose QCPBars rectangle is under `position`, or nullptr.
  [[nodiscard]] const AblationBar* barAt(const QVector<AblationBar>& bars,
                                         const QPointF& position) const;

 private:
  /// After each layout: two-line step names where one line does not fit.
  void fitChainLabels();

  tb::bench::AblationResults results_;
  QStringList seriesNames_;
  bool chainLabelsWrapped_ = false;
};

/// Throughput per configuration: bars normalised to Base (Base = 1.0) with
/// min–max error bars and the speedup written on each bar, or absolute
/// throughput (tokens/s; a second unit such as TFLOP/s/GPU goes on the right
/// axis). Engine and cluster series stand side by side.
class AblationThroughputChart : public AblationChart {
  Q_OBJECT

 public:
  explicit AblationThroughputChart(QWidget* parent = nullptr);

  /// true (the default): normalised to each series' Base; false: absolute.
  void setNormalised(bool normalised);
  [[nodiscard]] bool isNormalised() const { return normalised_; }
  /// The bars drawn, series by series, in chain order within a series.
  [[nodiscard]] const QVector<AblationBar>& bars() const { return bars_; }
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

 Q_SIGNALS:
  void normalisedChanged(bool normalised);

 private:
  void drawResults() override;
  void forget() override;

  bool normalised_ = true;
  QVector<AblationBar> bars_;
};

/// Peak memory per configuration (GiB; per GPU for cluster runs), with the
/// engine's memory budget as a line when the results record one.
class PeakMemoryChart : public AblationChart {
  Q_OBJECT

 public:
  explicit PeakMemoryChart(QWidget* parent = nullptr);

  /// The bars drawn; value, low and high are in GiB, speedup is unused (0).
  [[nodiscard]] const QVector<AblationBar>& bars() const { return bars_; }
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

 private:
  void drawResults() override;
  void forget() override;

  QVector<AblationBar> bars_;
};

/// The five numbers of one step-time box, in seconds.
struct StepTimeBox {
  QString series;
  QString label;
  int chainIndex = 0;
  double minimum = 0.0;
  double lowerQuartile = 0.0;
  double median = 0.0;
  double upperQuartile = 0.0;
  double maximum = 0.0;
  int samples = 0;  ///< step times behind the box (0 when only a summary was given)
};

/// Step-time distribution per configuration: a box (quartiles, whiskers to
/// min and max) with every measured step drawn as a dot beside it.
/// Configurations that only report a median, min and max get a box of those.
class StepTimeChart : public AblationChart {
  Q_OBJECT

 public:
  explicit StepTimeChart(QWidget* parent = nullptr);

  [[nodiscard]] const QVector<StepTimeBox>& boxes() const { return boxes_; }
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

 private:
  void drawResults() override;
  void forget() override;

  QVector<StepTimeBox> boxes_;
};

/// The loss curve of every configuration that recorded one, overlaid against
/// the step, so a configuration that changed the math stands out. The legend
/// has one key per configuration (colour) and one per series (dash); hover
/// over a curve or a key names it in full.
class LossCurvesChart : public AblationChart {
  Q_OBJECT

 public:
  explicit LossCurvesChart(QWidget* parent = nullptr);

  /// One name per curve drawn ("AC2 (engine)").
  [[nodiscard]] QStringList curveNames() const;
  [[nodiscard]] QString toolTipAt(const QPointF& position) const override;

 private:
  void drawResults() override;
};

}  // namespace tb::plotting
