// A refresh asked for while one is running supersedes it rather than being
// dropped: the run that just ended must appear in the list, and only a
// listing started after it ended is sure to hold it.
#include "ui/runs/run_history_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/qt_text.h"
#include "ui/runs/run_detail_view.h"
#include "ui/runs/run_sort_proxy.h"
#include "ui/runs/run_table_model.h"

namespace tb::ui {

RunHistoryPanel::RunHistoryPanel(QWidget* parent)
    : QWidget(parent),
      model_(new RunTableModel(this)),
      proxy_(new RunSortProxy(this)),
      table_(new QTableView),
      filter_(new QLineEdit),
      refresh_(new QPushButton(tr("Refresh"))),
      status_(new QLabel),
      detail_(new RunDetailView) {
  proxy_->setSourceModel(model_);
  table_->setObjectName(QStringLiteral("runsTable"));
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunTableModel::Started, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  filter_->setObjectName(QStringLiteral("runsFilter"));
  filter_->setPlaceholderText(tr("Filter by model, state or run id"));
  filter_->setClearButtonEnabled(true);
  refresh_->setObjectName(QStringLiteral("runsRefresh"));
  status_->setObjectName(QStringLiteral("runsStoreStatus"));
  detail_->setObjectName(QStringLiteral("runDetail"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(refresh_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName(QStringLiteral("runHistorySplitter"));
  splitter->addWidget(table_);
  splitter->addWidget(detail_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(splitter, 1);

  connect(filter_, &QLineEdit::textChanged, proxy_, [this](const QString& text) {
    proxy_->setFilterRegularExpression(QRegularExpression(
        QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption));
  });
  connect(refresh_, &QPushButton::clicked, this, [this] { refresh(); });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunHistoryPanel::onSelectionChanged);
}

void RunHistoryPanel::refresh(const QString& selectDirectory) {
  if (!selectDirectory.isEmpty()) selectAfterRefresh_ = selectDirectory;
  // The store is resolved here, on the GUI thread, so the worker reads no environment.
  const std::filesystem::path store = tb::runs::runStoreDirectory();
  refresh_->setEnabled(false);
  status_->setText(tr("Reading %1 …").arg(toQString(store.string())));
  listing_.start([store] { return tb::runs::listRuns(store); },
                 [this](tb::Expected<std::vector<tb::runs::RunRecord>> listed) {
                   onListed(std::move(listed));
                 });
}

void RunHistoryPanel::onListed(tb::Expected<std::vector<tb::runs::RunRecord>> listed) {
  refresh_->setEnabled(true);
  const QString store = toQString(tb::runs::runStoreDirectory().string());
  if (!listed) {
    status_->setText(toQString(listed.error().message));
  } else {
    const QString keep =
        selectAfterRefresh_.isEmpty() ? detail_->shownDirectory() : selectAfterRefresh_;
    selectAfterRefresh_.clear();
    status_->setText(tr("%n run(s) in %1", nullptr, static_cast<int>(listed->size())).arg(store));
    model_->setRecords(std::move(*listed));
    const int row = model_->rowOfDirectory(keep);
    if (row >= 0) {
      table_->selectRow(proxy_->mapFromSource(model_->index(row, 0)).row());
    }
  }
  Q_EMIT refreshed();
}

void RunHistoryPanel::onSelectionChanged() {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const tb::runs::RunRecord* run = model_->record(proxy_->mapToSource(rows.front()).row());
  if (run != nullptr) detail_->showRun(*run);
}

}  // namespace tb::ui
