// A chart of live curves (loss, tokens/s) that grows one point at a time. The
// series keep at most a fixed number of points, dropping the oldest, so a long
// run costs the GUI the same per step at step 100,000 as at step 10; redraws
// are throttled to ten a second, so a fast run does not spend the GUI thread
// on frames nobody can see.
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

class QCPItemText;
class QCustomPlot;
class QTimer;

namespace tb::plotting {

/// Line series against a shared x axis, themed from the widget's palette.
class LineChart : public QWidget {
  Q_OBJECT

 public:
  explicit LineChart(QWidget* parent = nullptr);

  void setTitle(const QString& title);
  void setAxisLabels(const QString& x, const QString& y);
  /// Adds a series and returns its index (colours follow the theme's order).
  int addSeries(const QString& name);
  /// Appends one point; past capacity() points the oldest is dropped.
  void append(int series, double x, double y);
  /// Replaces a series' points (a stored run loaded at once).
  void setSeriesData(int series, const QVector<double>& x, const QVector<double>& y);
  void clearData();
  /// What the chart says while no series has a point ("Start a run to see
  /// its loss"); its axes then show no scale, which would read as data.
  void setEmptyMessage(const QString& text);
  [[nodiscard]] QString emptyMessage() const;
  /// Whether the empty message shows: no series has a point.
  [[nodiscard]] bool showsEmptyMessage() const;
  [[nodiscard]] int pointCount(int series) const;
  [[nodiscard]] int seriesCount() const;

  [[nodiscard]] int capacity() const noexcept { return capacity_; }
  void setCapacity(int points);

  /// The plot, for export (plotting/chart_export.h).
  [[nodiscard]] QCustomPlot& plot() noexcept { return *plot_; }

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void rescaleAndReplot();
  /// Shows the empty message and hides the scales while there are no
  /// points, and the other way round.
  void updateEmptyState();

  QCustomPlot* plot_;
  QCPItemText* emptyMessage_ = nullptr;
  QTimer* redraw_;  ///< at most one redraw per interval while points stream in
  int capacity_ = 20000;
};

}  // namespace tb::plotting
