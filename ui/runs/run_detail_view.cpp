// Only the newest request's result is drawn: a newer selection supersedes
// the load in flight, and a run cleared while loading draws nothing.
#include "ui/runs/run_detail_view.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <algorithm>

#include "tb/runs/run_directory.hpp"
#include "ui/qt_text.h"
#include "ui/runs/run_charts.h"

namespace tb::ui {
namespace {

StoredRunEvents::RankMemory memoryOf(int rank, const std::vector<tb::runs::RunEvent>& events) {
  StoredRunEvents::RankMemory memory{rank, 0, 0};
  for (const tb::runs::StepSample& sample : tb::runs::stepSamples(events)) {
    memory.liveBytes = sample.liveBytes;
    memory.peakBytes = std::max(memory.peakBytes, sample.peakBytes);
  }
  return memory;
}

/// The run's events and, for a data-parallel run, every rank's memory: rank
/// 0's from the run's own events, the others' from ranks/<r>/events.jsonl
/// (a rank whose file cannot be read is left out rather than shown as 0).
StoredRunEvents readStoredRun(const std::filesystem::path& dir) {
  StoredRunEvents stored{tb::runs::readEvents(dir), {}};
  const auto config = tb::runs::readRunConfig(dir);
  if (!stored.events || !config || config->worldSize <= 1) return stored;
  stored.ranks.push_back(memoryOf(0, stored.events->events));
  for (int rank = 1; rank < config->worldSize; ++rank) {
    if (auto events = tb::runs::readEvents(tb::runs::rankDirectory(dir, rank)); events) {
      stored.ranks.push_back(memoryOf(rank, events->events));
    }
  }
  return stored;
}

}  // namespace

RunDetailView::RunDetailView(QWidget* parent)
    : QWidget(parent), header_(new QLabel), problems_(new QLabel), charts_(new RunCharts) {
  header_->setObjectName(QStringLiteral("runDetailHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_->setObjectName(QStringLiteral("runDetailProblems"));
  charts_->setObjectName(QStringLiteral("runDetailCharts"));
  problems_->setWordWrap(true);
  problems_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(header_);
  layout->addWidget(problems_);
  layout->addWidget(charts_, 1);
  clearRun();
}

void RunDetailView::showRun(const tb::runs::RunRecord& run) {
  directory_ = toQString(run.dir.string());
  const QLocale locale;
  QString text = QStringLiteral("<b>%1</b> · %2 · %3")
                     .arg(toQString(run.id).toHtmlEscaped(), toQString(run.model).toHtmlEscaped(),
                          toQString(tb::runs::toString(run.state)));
  if (run.tokensPerSecond > 0) {
    text += tr(" · %1 tokens/s").arg(locale.toString(run.tokensPerSecond, 'f', 0));
  }
  if (!run.message.empty()) text += QStringLiteral("<br>") + toQString(run.message).toHtmlEscaped();
  header_->setText(text);
  charts_->clear();
  problems_->setVisible(false);
  const std::filesystem::path dir = run.dir;
  loading_.start([dir] { return readStoredRun(dir); },
                 [this, shown = directory_](const StoredRunEvents& result) {
                   // Cleared, or showing another run, since: not this view's answer.
                   if (shown == directory_) onLoaded(result);
                 });
}

void RunDetailView::clearRun() {
  directory_.clear();
  header_->setText(tr("Select a run to see its curves."));
  problems_->setVisible(false);
  charts_->clear();
}

QString RunDetailView::headerText() const { return header_->text(); }

void RunDetailView::onLoaded(const StoredRunEvents& result) {
  if (!result.events) {
    problems_->setText(toQString(result.events.error().message));
    problems_->setVisible(true);
  } else {
    const tb::runs::EventFile& file = *result.events;
    charts_->setSamples(tb::runs::stepSamples(file.events));
    for (const tb::runs::RunEvent& event : file.events) {
      if (event.kind == tb::runs::EventKind::Start) charts_->setBudget(event.memoryBudget);
    }
    for (const StoredRunEvents::RankMemory& rank : result.ranks) {
      charts_->setRankMemory(rank.rank, rank.liveBytes, rank.peakBytes);
    }
    if (!file.problems.empty()) {
      problems_->setText(tr("%n line(s) of events.jsonl skipped; first: %1", nullptr,
                            static_cast<int>(file.problems.size()))
                             .arg(toQString(file.problems.front())));
      problems_->setVisible(true);
    }
  }
  Q_EMIT loaded();
}

}  // namespace tb::ui
