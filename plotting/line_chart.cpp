// Axes rescale on every append because a training curve's range is unknown in
// advance (the loss starts near log V and falls; tokens/s settles after
// warm-up); QCustomPlot's queued replot keeps that cheap.
#include "plotting/line_chart.h"

#include <QEvent>
#include <QTimer>
#include <QVBoxLayout>

#include "plotting/chart_theme.h"
#include "plotting/plot_message.h"
#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

LineChart::LineChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), redraw_(new QTimer(this)) {
  redraw_->setSingleShot(true);
  redraw_->setInterval(100);
  connect(redraw_, &QTimer::timeout, this, &LineChart::rescaleAndReplot);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(140);
  plot_->legend->setVisible(false);
  plot_->setNoAntialiasingOnDrag(true);
  applyTheme(*plot_, themeForPalette(palette()));
}

void LineChart::setTitle(const QString& title) {
  if (plot_->plotLayout()->rowCount() == 1) {
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, new QCPTextElement(plot_, title));
  } else if (auto* text = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    text->setText(title);
  }
  const ChartTheme theme = themeForPalette(palette());
  if (auto* text = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) {
    text->setTextColor(theme.foreground);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LineChart::setAxisLabels(const QString& x, const QString& y) {
  plot_->xAxis->setLabel(x);
  plot_->yAxis->setLabel(y);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int LineChart::addSeries(const QString& name) {
  QCPGraph* graph = plot_->addGraph();
  graph->setName(name);
  const int index = plot_->graphCount() - 1;
  graph->setPen(QPen(seriesColor(themeForPalette(palette()), index), 1.6));
  plot_->legend->setVisible(plot_->graphCount() > 1);
  return index;
}

void LineChart::append(int series, double x, double y) {
  QCPGraph* graph = plot_->graph(series);
  if (graph == nullptr) return;
  graph->addData(x, y);
  const auto points = graph->data();
  if (points->size() > capacity_) {
    const int excess = points->size() - capacity_;
    points->removeBefore((points->constBegin() + excess)->key);
  }
  if (!redraw_->isActive()) redraw_->start();
}

void LineChart::setSeriesData(int series, const QVector<double>& x, const QVector<double>& y) {
  QCPGraph* graph = plot_->graph(series);
  if (graph == nullptr) return;
  graph->setData(x, y, true);
  rescaleAndReplot();
}

void LineChart::clearData() {
  for (int i = 0; i < plot_->graphCount(); ++i) plot_->graph(i)->data()->clear();
  updateEmptyState();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LineChart::setEmptyMessage(const QString& text) {
  if (emptyMessage_ == nullptr) {
    emptyMessage_ = addPlotMessage(*plot_, text, themeForPalette(palette()).foreground);
  } else {
    emptyMessage_->setText(text);
  }
  updateEmptyState();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString LineChart::emptyMessage() const {
  return emptyMessage_ != nullptr ? emptyMessage_->text() : QString();
}

bool LineChart::showsEmptyMessage() const {
  return emptyMessage_ != nullptr && emptyMessage_->visible();
}

void LineChart::updateEmptyState() {
  if (emptyMessage_ == nullptr) return;
  bool empty = true;
  for (int i = 0; i < plot_->graphCount() && empty; ++i) empty = plot_->graph(i)->data()->isEmpty();
  emptyMessage_->setVisible(empty);
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setTickLabels(!empty);
    axis->setTicks(!empty);
  }
}

int LineChart::pointCount(int series) const {
  const QCPGraph* graph = plot_->graph(series);
  return graph == nullptr ? 0 : graph->data()->size();
}

int LineChart::seriesCount() const { return plot_->graphCount(); }

void LineChart::setCapacity(int points) { capacity_ = points > 1 ? points : 2; }

void LineChart::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange) return;
  const ChartTheme theme = themeForPalette(palette());
  applyTheme(*plot_, theme);
  for (int i = 0; i < plot_->graphCount(); ++i) {
    plot_->graph(i)->setPen(QPen(seriesColor(theme, i), 1.6));
  }
  if (emptyMessage_ != nullptr) emptyMessage_->setColor(theme.foreground);
}

void LineChart::rescaleAndReplot() {
  updateEmptyState();
  plot_->rescaleAxes();
  // A flat curve (one point, or a constant) gets a visible band instead of
  // QCustomPlot's zero-height range.
  const QCPRange y = plot_->yAxis->range();
  if (y.size() <= 0.0) plot_->yAxis->setRange(y.lower - 1.0, y.upper + 1.0);
  else plot_->yAxis->scaleRange(1.1, y.center());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tb::plotting
