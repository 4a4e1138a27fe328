// Only the newest request's result is drawn: if the user clicks through the
// list faster than files load, older results arrive and are dropped.
#include "ui/runs/run_detail_view.h"

#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "ui/qt_text.h"
#include "ui/runs/run_charts.h"

namespace tb::ui {

RunDetailView::RunDetailView(QWidget* parent)
    : QWidget(parent), header_(new QLabel), problems_(new QLabel), charts_(new RunCharts) {
  header_->setObjectName(QStringLiteral("runDetailHeader"));
  header_->setWordWrap(true);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problems_->setObjectName(QStringLiteral("runDetailProblems"));
  problems_->setWordWrap(true);
  problems_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(header_);
  layout->addWidget(problems_);
  layout->addWidget(charts_, 1);
  connect(&watcher_, &QFutureWatcherBase::finished, this, &RunDetailView::onLoaded);
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
  if (!watcher_.isRunning()) startLoading();  // else onLoaded() starts it
}

void RunDetailView::startLoading() {
  loadingDirectory_ = directory_;
  const std::filesystem::path dir = toStdString(directory_);
  watcher_.setFuture(QtConcurrent::run([dir] { return tb::runs::readEvents(dir); }));
}

void RunDetailView::clearRun() {
  directory_.clear();
  header_->setText(tr("Select a run to see its curves."));
  problems_->setVisible(false);
  charts_->clear();
}

QString RunDetailView::headerText() const { return header_->text(); }

void RunDetailView::onLoaded() {
  // The selection moved on while loading: drop this result, load the newest.
  if (loadingDirectory_ != directory_) {
    if (!directory_.isEmpty()) startLoading();
    return;
  }
  const auto result = watcher_.result();
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
