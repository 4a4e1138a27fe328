// Loss and throughput side by side with the gauge underneath: at a glance a
// user sees whether the run learns, how fast, and how close to the budget.
#include "ui/runs/run_charts.h"

#include <QGridLayout>
#include <QVector>

#include <algorithm>

#include "plotting/line_chart.h"
#include "plotting/memory_gauge.h"

namespace tb::ui {

RunCharts::RunCharts(QWidget* parent)
    : QWidget(parent),
      loss_(new tb::plotting::LineChart),
      throughput_(new tb::plotting::LineChart),
      memory_(new tb::plotting::MemoryGauge) {
  loss_->setObjectName(QStringLiteral("lossChart"));
  loss_->setTitle(tr("Loss"));
  loss_->setAxisLabels(tr("step"), tr("cross-entropy"));
  loss_->addSeries(tr("loss"));
  loss_->setEmptyMessage(tr("Start a run to see its loss here"));
  throughput_->setObjectName(QStringLiteral("throughputChart"));
  throughput_->setTitle(tr("Throughput"));
  throughput_->setAxisLabels(tr("step"), tr("tokens/s"));
  throughput_->addSeries(tr("tokens/s"));
  throughput_->setEmptyMessage(tr("Tokens per second appear once a run starts"));
  memory_->setObjectName(QStringLiteral("memoryGauge"));

  auto* layout = new QGridLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(loss_, 0, 0);
  layout->addWidget(throughput_, 0, 1);
  layout->addWidget(memory_, 1, 0, 1, 2);
  layout->setRowStretch(0, 1);
}

void RunCharts::clear() {
  loss_->clearData();
  throughput_->clearData();
  memory_->clear();
}

void RunCharts::setBudget(std::uint64_t bytes) { memory_->setBudget(bytes); }

void RunCharts::appendSample(const tb::runs::StepSample& sample) {
  const auto step = static_cast<double>(sample.step);
  loss_->append(0, step, sample.loss);
  throughput_->append(0, step, sample.tokensPerSecond);
  memory_->setUsage(sample.liveBytes, sample.peakBytes);
}

void RunCharts::setRankMemory(int rank, std::uint64_t liveBytes, std::uint64_t peakBytes) {
  memory_->setRankUsage(rank, liveBytes, peakBytes);
}

void RunCharts::setSamples(const std::vector<tb::runs::StepSample>& samples) {
  QVector<double> steps;
  QVector<double> losses;
  QVector<double> rates;
  steps.reserve(static_cast<qsizetype>(samples.size()));
  std::uint64_t peak = 0;
  for (const tb::runs::StepSample& sample : samples) {
    steps.append(static_cast<double>(sample.step));
    losses.append(sample.loss);
    rates.append(sample.tokensPerSecond);
    peak = std::max(peak, sample.peakBytes);
  }
  loss_->setSeriesData(0, steps, losses);
  throughput_->setSeriesData(0, steps, rates);
  memory_->setUsage(samples.empty() ? 0 : samples.back().liveBytes, peak);
}

}  // namespace tb::ui
