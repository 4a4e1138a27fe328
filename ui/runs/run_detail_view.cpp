// Only the newest request's result is drawn: a newer selection supersedes
// the load in flight, and a run cleared while loading draws nothing.
#include "ui/runs/run_detail_view.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include "ui/qt_text.h"
#include "ui/runs/run_charts.h"

namespace tb::ui {

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
  loading_.start([dir] { return tb::runs::readEvents(dir); },
                 [this, shown = directory_](const tb::Expected<tb::runs::EventFile>& result) {
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

void RunDetailView::onLoaded(const tb::Expected<tb::runs::EventFile>& result) {
  if (!result) {
    problems_->setText(toQString(result.error().message));
    problems_->setVisible(true);
  } else {
    charts_->setSamples(tb::runs::stepSamples(result->events));
    for (const tb::runs::RunEvent& event : result->events) {
      if (event.kind == tb::runs::EventKind::Start) charts_->setBudget(event.memoryBudget);
    }
    if (!result->problems.empty()) {
      problems_->setText(tr("%n line(s) of events.jsonl skipped; first: %1", nullptr,
                            static_cast<int>(result->problems.size()))
                             .arg(toQString(result->problems.front())));
      problems_->setVisible(true);
    }
  }
  Q_EMIT loaded();
}

}  // namespace tb::ui
