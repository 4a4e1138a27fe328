// A prediction plus a plan walks the step once per candidate K (about 15 ms
// for an 80-layer model in a debug build, measured), too slow to redo on the
// GUI thread for every keystroke. Changes are debounced and computed on a
// worker; a change supersedes the computation of older inputs, whose result
// is dropped. The very first view is computed inline so the page (and a
// --screenshot of it) never shows an empty state.
#include <algorithm>

#include "ui/memory/memory_page.h"

#include <QStyle>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <chrono>

#include "plotting/breakdown_bar_chart.h"
#include "plotting/chart_theme.h"
#include "plotting/tradeoff_chart.h"
#include "ui/data_size.h"
#include "ui/memory/breakdown_table_model.h"
#include "ui/memory/curve_table_model.h"
#include "ui/memory/memory_inputs_form.h"
#include "ui/memory/memory_summary_banner.h"
#include "ui/studio_settings.h"

namespace tb::ui {
namespace {

constexpr std::chrono::milliseconds kDebounce{150};
// Wide enough for a term or policy and its numbers; the window's default
// width (with the form and the charts' legends) leaves no more.
constexpr int kTableMinimumWidth = 310;

QTableView* numbersTable(QAbstractItemModel* model, const char* name, int minimumWidth,
                         QWidget* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(Qt::UserRole);
  auto* table = new QTableView(parent);
  table->setObjectName(QString::fromLatin1(name));
  table->setModel(proxy);
  table->setSortingEnabled(true);
  table->sortByColumn(-1, Qt::AscendingOrder);  // the model's order until the user sorts
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setAlternatingRowColors(true);
  table->verticalHeader()->setVisible(false);
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->setMinimumWidth(minimumWidth);
  return table;
}

/// `name`: the splitter's object name, under which the window keeps its sizes.
QWidget* side(QWidget* chart, QWidget* table, QWidget* parent, const QString& name) {
  auto* splitter = new QSplitter(Qt::Horizontal, parent);
  splitter->setObjectName(name);
  splitter->setChildrenCollapsible(false);
  splitter->addWidget(chart);
  splitter->addWidget(table);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  return splitter;
}

}  // namespace

MemoryPage::MemoryPage(const StudioSettings& settings, QWidget* parent)
    : QWidget(parent), settings_(settings.access()) {
  setObjectName(QStringLiteral("memoryPage"));
  form_ = new MemoryInputsForm(this);
  auto* formScroll = new QScrollArea(this);
  formScroll->setWidget(form_);
  formScroll->setWidgetResizable(true);
  formScroll->setFrameShape(QFrame::NoFrame);
  // The form's own width beside a vertical scroll bar: without the bar's
  // room its last column (the reset button) was cut by the bar.
  formScroll->setMinimumWidth(
      std::max(form_->sizeHint().width(), form_->minimumSizeHint().width()) +
      formScroll->verticalScrollBar()->sizeHint().width() +
      formScroll->style()->pixelMetric(QStyle::PM_ScrollView_ScrollBarSpacing) + 8);
  formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  auto* columns = new QSplitter(Qt::Horizontal, this);
  columns->setObjectName(QStringLiteral("memoryColumnsSplitter"));
  columns->setChildrenCollapsible(false);
  columns->addWidget(formScroll);
  columns->addWidget(buildResults());
  columns->setStretchFactor(0, 0);
  columns->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 12, 12, 12);
  layout->addWidget(columns);

  planning_.setDebounceInterval(kDebounce);

  form_->setInputs(settings_.load());
  present(computeMemoryView(form_->inputs()));
  connect(form_, &MemoryInputsForm::inputsChanged, this, &MemoryPage::onInputsChanged);
  connect(useButton_, &QPushButton::clicked, this, [this] {
    const QString policy = recommendedPolicy(view_.plan);
    if (view_.ok() && !policy.isEmpty()) Q_EMIT recomputeRecommended(policy, view_.runtime);
  });
}

QWidget* MemoryPage::buildResults() {
  auto* results = new QWidget(this);
  summary_ = new MemorySummaryBanner(results);

  breakdownChart_ = new tb::plotting::BreakdownBarChart(results);
  breakdownModel_ = new BreakdownTableModel(this);
  breakdownTable_ = numbersTable(breakdownModel_, "breakdownTable", kTableMinimumWidth, results);
  auto* breakdownBox = new QGroupBox(tr("What one GPU holds at the peak"), results);
  auto* breakdownLayout = new QVBoxLayout(breakdownBox);
  breakdownLayout->addWidget(side(breakdownChart_, breakdownTable_, breakdownBox,
                                  QStringLiteral("memoryBreakdownSplitter")));

  tradeoffChart_ = new tb::plotting::TradeoffChart(results);
  curveModel_ = new CurveTableModel(this);
  curveTable_ = numbersTable(curveModel_, "curveTable", kTableMinimumWidth, results);
  auto* curveBox = new QGroupBox(tr("Recompute trade-off: memory against step time"), results);
  auto* curveLayout = new QVBoxLayout(curveBox);
  curveLayout->addWidget(
      side(tradeoffChart_, curveTable_, curveBox, QStringLiteral("memoryCurveSplitter")));

  recommendation_ = new QLabel(results);
  recommendation_->setObjectName(QStringLiteral("recommendationLabel"));
  recommendation_->setWordWrap(true);
  recommendation_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  useButton_ = new QPushButton(tr("Use this recommendation"), results);
  useButton_->setObjectName(QStringLiteral("useRecommendationButton"));
  useButton_->setToolTip(
      tr("Carry the recommended --recompute policy into the run "
         "configuration and the image's optimizations"));
  auto* actions = new QHBoxLayout;
  actions->addWidget(recommendation_, 1);
  actions->addWidget(useButton_);

  auto* charts = new QSplitter(Qt::Vertical, results);
  charts->setObjectName(QStringLiteral("memoryChartsSplitter"));
  charts->setChildrenCollapsible(false);
  charts->addWidget(breakdownBox);
  charts->addWidget(curveBox);
  charts->setStretchFactor(0, 2);
  charts->setStretchFactor(1, 3);

  auto* layout = new QVBoxLayout(results);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(summary_);
  layout->addWidget(charts, 1);
  layout->addLayout(actions);
  return results;
}

bool MemoryPage::isBusy() const { return busy_; }

void MemoryPage::setBusy(bool busy) {
  if (busy == busy_) return;
  busy_ = busy;
  Q_EMIT busyChanged(busy);
}

void MemoryPage::onInputsChanged() {
  const MemoryPageInputs inputs = form_->inputs();
  settings_.save(inputs);
  setBusy(true);
  // Only the latest inputs' view arrives, so the page is idle once it does.
  planning_.start([inputs] { return computeMemoryView(inputs); },
                  [this](const MemoryView& view) {
                    present(view);
                    setBusy(false);
                  });
}

void MemoryPage::present(const MemoryView& view) {
  view_ = view;
  summary_->showView(view);
  const tb::plotting::ChartTheme theme = tb::plotting::themeForPalette(breakdownChart_->palette());
  QVector<tb::plotting::BreakdownTerm> terms;
  if (view.ok()) terms = breakdownTerms(view.prediction.breakdown);
  QVector<QColor> colors;
  for (int index = 0; index < terms.size(); ++index) {
    colors.append(tb::plotting::breakdownTermColor(theme, index, terms[index]));
  }
  const auto budget = static_cast<double>(view.budgetBytes);
  breakdownChart_->setBreakdown(terms, budget,
                                tr("%1: %2").arg(view.cardLabel, formatDataSize(budget)));
  breakdownModel_->setBreakdown(terms, budget, colors);
  tradeoffChart_->setData(view.ok() ? tradeoffData(view) : tb::plotting::TradeoffData{});
  curveModel_->setPlan(view.ok() ? view.plan : tb::memory::RecomputePlan{});
  if (const int row = curveModel_->recommendedRow(); row >= 0) {
    const auto* proxy = qobject_cast<QSortFilterProxyModel*>(curveTable_->model());
    curveTable_->scrollTo(proxy->mapFromSource(curveModel_->index(row, 0)),
                          QAbstractItemView::PositionAtCenter);
  }

  const QString policy = view.ok() ? recommendedPolicy(view.plan) : QString();
  useButton_->setEnabled(!policy.isEmpty());
  if (!view.ok()) {
    recommendation_->setText(tr("Fix the inputs to see a plan."));
  } else if (policy.isEmpty()) {
    const auto smallest = static_cast<double>(view.plan.smallestBudgetBytes);
    recommendation_->setText(tr("No recompute policy fits; the smallest budget that would is %1.")
                                 .arg(formatDataSize(smallest)));
  } else {
    recommendation_->setText(
        tr("Recommended: <b>--recompute %1</b> \u2014 peak %2 of %3, step time %4 "
           "<span style='color:gray'>(planned in %5 ms)</span>")
            .arg(policy, formatDataSize(static_cast<double>(view.plan.predictedPeakBytes)),
                 formatDataSize(budget), formatTimeRatio(1.0 + view.plan.timeOverheadRatio),
                 QString::number(view.computeMs, 'f', 0)));
  }
}

}  // namespace tb::ui
