// The panel keeps no registry state of its own beyond the last answer: the
// fields say what the next call asks, a background task makes it off the GUI
// thread, and the outcome replaces the tag list or the declaration. Credentials go
// from RegistryConnectionFields to the client and back to the fields' store
// only; no message the panel shows is built from them.
#include "ui/image/registry_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/catalog_session.h"
#include "ui/image/registry_arch_delegate.h"
#include "ui/image/registry_messages.h"
#include "ui/image/registry_tag_model.h"
#include "ui/image/registry_tag_sort_proxy.h"
#include "ui/qt_text.h"
#include "ui/widgets/background_task.h"

namespace tb::ui {
namespace {

std::vector<RegistryTagRow> toRows(const std::vector<TagPlatforms>& tags) {
  std::vector<RegistryTagRow> rows;
  rows.reserve(tags.size());
  for (const TagPlatforms& tag : tags) {
    rows.push_back({toQString(tag.tag), toQStringList(tag.architectures), tag.platformsKnown});
  }
  return rows;
}

}  // namespace

RegistryPanel::RegistryPanel(CatalogSession& session, SettingsAccess access, QWidget* parent,
                             const QString& keychainService)
    : QGroupBox(tr("Registry"), parent), session_(session) {
  setObjectName(QStringLiteral("registryPanel"));
  calls_ = new BackgroundTask(BackgroundTask::Policy::Refuse, this);
  fields_ = new RegistryConnectionFields(session_, access, keychainService, this);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(fields_);
  layout->addWidget(buildTagList(), 1);

  connect(calls_, &BackgroundTask::progressed, this, [this](qint64 done, qint64 total) {
    status_->setText(tr("Reading platforms %1 of %2").arg(done).arg(total));
  });
  setRunning(false);
}

QWidget* RegistryPanel::buildTagList() {
  auto* box = new QWidget(this);
  refresh_ = new QPushButton(tr("Refresh"), box);
  refresh_->setObjectName(QStringLiteral("registryRefresh"));
  cancel_ = new QPushButton(tr("Cancel"), box);
  cancel_->setObjectName(QStringLiteral("registryCancel"));
  busy_ = new QProgressBar(box);
  busy_->setObjectName(QStringLiteral("registryBusy"));
  busy_->setRange(0, 0);  // indeterminate: the style animates it as a busy indicator
  busy_->setTextVisible(false);
  busy_->setMaximumWidth(90);
  status_ = makeRegistryNote(box, QStringLiteral("registryStatus"));
  status_->setText(tr("Press Refresh to list the tags this registry publishes."));

  model_ = new RegistryTagModel(this);
  proxy_ = new RegistryTagSortProxy(this);
  proxy_->setSourceModel(model_);
  tagView_ = new QTableView(box);
  tagView_->setObjectName(QStringLiteral("registryTags"));
  tagView_->setModel(proxy_);
  tagView_->setItemDelegateForColumn(RegistryTagModel::ArchitecturesColumn,
                                     new RegistryArchDelegate(tagView_));
  tagView_->setSortingEnabled(true);
  tagView_->sortByColumn(RegistryTagModel::TagColumn, Qt::DescendingOrder);
  tagView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tagView_->setSelectionMode(QAbstractItemView::SingleSelection);
  tagView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  tagView_->setShowGrid(false);
  tagView_->setAlternatingRowColors(true);
  tagView_->verticalHeader()->setVisible(false);
  tagView_->verticalHeader()->setDefaultSectionSize(tagView_->fontMetrics().height() + 10);
  tagView_->horizontalHeader()->setSectionResizeMode(RegistryTagModel::TagColumn,
                                                     QHeaderView::ResizeToContents);
  tagView_->horizontalHeader()->setStretchLastSection(true);
  tagView_->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);

  check_ = new QPushButton(tr("Check this tag"), box);
  check_->setObjectName(QStringLiteral("registryCheck"));
  check_->setToolTip(
      tr("Read the tag's image configurations (no layers) and judge the "
         "verdict on what the image itself declares"));
  useCatalog_ = new QPushButton(tr("Use the catalog"), box);
  useCatalog_->setObjectName(QStringLiteral("registryUseCatalog"));
  declaration_ = makeRegistryNote(box, QStringLiteral("registryDeclaration"));

  auto* actions = new QHBoxLayout;
  actions->addWidget(refresh_);
  actions->addWidget(cancel_);
  actions->addWidget(busy_);
  actions->addStretch(1);
  auto* checkRow = new QHBoxLayout;
  checkRow->addWidget(check_);
  checkRow->addWidget(useCatalog_);
  checkRow->addStretch(1);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(actions);
  layout->addWidget(status_);
  layout->addWidget(tagView_, 1);
  layout->addLayout(checkRow);
  layout->addWidget(declaration_);

  connect(refresh_, &QPushButton::clicked, this, &RegistryPanel::refresh);
  connect(cancel_, &QPushButton::clicked, this, &RegistryPanel::cancel);
  connect(check_, &QPushButton::clicked, this, &RegistryPanel::checkSelectedTag);
  connect(useCatalog_, &QPushButton::clicked, this, &RegistryPanel::clearDeclaration);
  connect(tagView_, &QTableView::doubleClicked, this, &RegistryPanel::checkSelectedTag);
  connect(tagView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RegistryPanel::updateButtons);
  return box;
}

bool RegistryPanel::isBusy() const noexcept { return calls_->isRunning(); }

void RegistryPanel::refresh() {
  inFlight_ = target();
  if (inFlight_.repository.empty()) {
    status_->setText(tr("Type the repository to list, such as egslingjun/training-nv-pytorch."));
    return;
  }
  const bool started = calls_->start(
      [target = inFlight_](const tb::StopToken& cancel, const tb::ProgressFn& progress) {
        return listRegistryTags(target, cancel, progress);
      },
      [this](const RegistryOutcome& outcome) { onFinished(outcome); });
  if (!started) return;
  setRunning(true);
  status_->setText(tr("Listing tags of %1…").arg(toQString(inFlight_.host)));
}

void RegistryPanel::checkSelectedTag() {
  const QString tag = selectedTag();
  if (tag.isEmpty() || calls_->isRunning()) return;
  inFlight_ = target();
  const bool started = calls_->start(
      [target = inFlight_, tag](const tb::StopToken& cancel) {
        return inspectRegistryTag(target, tag, cancel);
      },
      [this](const RegistryOutcome& outcome) { onFinished(outcome); });
  if (!started) return;
  setRunning(true);
  status_->setText(tr("Reading the image configurations of %1…").arg(tag));
}

void RegistryPanel::cancel() {
  if (!calls_->isRunning()) return;
  calls_->cancel();
  status_->setText(tr("Cancelling…"));
}

void RegistryPanel::onFinished(const RegistryOutcome& outcome) {
  setRunning(false);
  if (outcome.error) {
    status_->setText(describeRegistryFailure(outcome.host, *outcome.error));
    if (outcome.kind == RegistryOutcome::Kind::Tags &&
        outcome.error->kind != tb::ErrorKind::Cancelled) {
      model_->setRows({});
    }
    updateButtons();
    return;
  }
  // The call worked, so where it went and the credentials it used are worth keeping.
  fields_->remember(inFlight_);
  if (outcome.kind == RegistryOutcome::Kind::Tags) {
    onTagsListed(outcome);
  } else {
    onTagInspected(outcome);
  }
  updateButtons();
}

void RegistryPanel::onTagsListed(const RegistryOutcome& outcome) {
  model_->setRows(toRows(outcome.tags));
  const auto known = std::count_if(outcome.tags.begin(), outcome.tags.end(),
                                   [](const TagPlatforms& tag) { return tag.platformsKnown; });
  const auto count = static_cast<int>(outcome.tags.size());
  const QString where = outcome.host + QLatin1Char('/') + toQString(inFlight_.repository);
  QString text =
      count == 1 ? tr("1 tag in %1").arg(where) : tr("%1 tags in %2").arg(count).arg(where);
  if (static_cast<std::size_t>(known) < outcome.tags.size()) {
    text += tr("; architectures read for the newest %1").arg(known);
  }
  status_->setText(text + QLatin1Char('.'));
  if (proxy_->rowCount() > 0 && !tagView_->currentIndex().isValid()) {
    tagView_->setCurrentIndex(proxy_->index(0, RegistryTagModel::TagColumn));
  }
}

void RegistryPanel::onTagInspected(const RegistryOutcome& outcome) {
  const tb::catalog::Release* release =
      tb::registry::catalogReleaseForTag(session_.catalog(), toStdString(outcome.tag));
  active_ = ActiveDeclaration{outcome.tag, release ? toQString(release->tag) : QString(),
                              *outcome.inspection};
  declaration_->setText(tr("%1 declares:\n%2\nThe verdict above now uses these values.")
                            .arg(outcome.tag, describeDeclaration(*outcome.inspection)));
  status_->setText(tr("Checked %1 on %2.").arg(outcome.tag, outcome.host));
  // Select the matching release first: the page keeps a declaration only
  // while its release is the chosen one.
  if (release != nullptr) session_.selectRelease(active_->catalogTag);
  Q_EMIT declarationChanged();
}

void RegistryPanel::releaseChosen(const QString& catalogTag) {
  if (active_ && active_->catalogTag != catalogTag) clearDeclaration();
}

void RegistryPanel::clearDeclaration() {
  if (!active_) return;
  active_.reset();
  declaration_->clear();
  updateButtons();
  Q_EMIT declarationChanged();
}

std::optional<tb::registry::DeclaredRelease> RegistryPanel::declaredRelease(
    tb::catalog::CpuArch arch) const {
  if (!active_) return std::nullopt;
  const tb::catalog::Release* release =
      active_->catalogTag.isEmpty()
          ? nullptr
          : session_.catalog().findRelease(toStdString(active_->catalogTag));
  return tb::registry::applyDeclaration(release, active_->inspection,
                                        toStdString(active_->registryTag), arch);
}

void RegistryPanel::setRunning(bool running) {
  busy_->setVisible(running);
  updateButtons();
  Q_EMIT busyChanged(running);
}

void RegistryPanel::updateButtons() {
  const bool running = calls_->isRunning();
  refresh_->setEnabled(!running);
  cancel_->setEnabled(running);
  check_->setEnabled(!running && !selectedTag().isEmpty());
  useCatalog_->setVisible(active_.has_value());
}

QString RegistryPanel::selectedTag() const {
  const QModelIndex current = tagView_->currentIndex();
  return current.isValid() ? current.data(RegistryTagModel::TagRole).toString() : QString();
}

}  // namespace tb::ui
