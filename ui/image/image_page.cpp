// The page owns the wiring and nothing else: each signal handler translates
// one event into calls on the pieces, and the verdict is recomputed from
// scratch on every change (it is a handful of comparisons), so no state can
// drift out of step with what the user sees.
#include "ui/image/image_page.h"

#include <QGroupBox>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QScrollArea>
#include <QShowEvent>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "tb/compat/verdict.hpp"
#include "tb/compat/verdict_matrix.hpp"
#include "ui/catalog_session.h"
#include "ui/image/fleet_matrix_panel.h"
#include "ui/image/host_panel.h"
#include "ui/image/registry_panel.h"
#include "ui/image/release_details_view.h"
#include "ui/image/release_filter_proxy.h"
#include "ui/image/release_table_model.h"
#include "ui/image/verdict_banner.h"
#include "ui/qt_text.h"
#include "ui/studio_settings.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {

ImagePage::ImagePage(CatalogSession& session, StudioSettings& settings, QWidget* parent)
    : QWidget(parent), session_(session), settings_(settings) {
  setObjectName(QStringLiteral("imagePage"));
  hostPanel_ = new HostPanel(this);
  banner_ = new VerdictBanner(this);
  details_ = new ReleaseDetailsView(this);
  matrixPanel_ = new FleetMatrixPanel(session_, this);
  registryPanel_ = new RegistryPanel(session_, settings_.access(), this);

  auto* releases = new QSplitter(Qt::Horizontal, this);
  releases->setObjectName(QStringLiteral("imageReleasesSplitter"));
  releases->setChildrenCollapsible(false);
  releases->addWidget(buildReleaseBox());
  // Long notes scroll instead of squeezing the matrix on small screens.
  auto* detailsScroll = new QScrollArea(this);
  detailsScroll->setWidget(details_);
  detailsScroll->setWidgetResizable(true);
  detailsScroll->setFrameShape(QFrame::NoFrame);
  releases->addWidget(detailsScroll);
  releases->addWidget(registryPanel_);
  releases->setStretchFactor(0, 5);
  releases->setStretchFactor(1, 6);
  releases->setStretchFactor(2, 5);

  // The matrix keeps the height of its rows (it never grows past them); the
  // release table and details take the rest.
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 12, 12, 12);
  layout->setSpacing(10);
  layout->addWidget(hostPanel_);
  layout->addWidget(banner_);
  layout->addWidget(releases, 1);
  layout->addWidget(matrixPanel_);

  restoreChoices();

  connect(&session_, &CatalogSession::selectedReleaseChanged, this, &ImagePage::onReleaseChanged);
  connect(&session_, &CatalogSession::catalogChanged, this, &ImagePage::onCatalogChanged);
  connect(releaseView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) {
              session_.selectRelease(current.data(ReleaseTableModel::TagRole).toString());
            }
          });
  connect(filterEdit_, &QLineEdit::textChanged, proxy_, &ReleaseFilterProxy::setFilterText);
  connect(hostPanel_, &HostPanel::inputChanged, this, &ImagePage::onHostInputChanged);
  connect(hostPanel_, &HostPanel::detectionStarted, this, [this] { Q_EMIT busyChanged(true); });
  connect(hostPanel_, &HostPanel::detectionFinished, this, [this] { Q_EMIT busyChanged(false); });
  connect(matrixPanel_, &FleetMatrixPanel::cellChosen, this, &ImagePage::onMatrixCellChosen);
  connect(registryPanel_, &RegistryPanel::declarationChanged, this, &ImagePage::updateVerdict);

  onHostInputChanged();
  onReleaseChanged(session_.selectedReleaseTag());
}

QWidget* ImagePage::buildReleaseBox() {
  auto* box = new QGroupBox(tr("Releases"), this);
  model_ = new ReleaseTableModel(session_, this);
  proxy_ = new ReleaseFilterProxy(this);
  proxy_->setSourceModel(model_);

  filterEdit_ = new QLineEdit(box);
  filterEdit_->setObjectName(QStringLiteral("releaseFilter"));
  filterEdit_->setPlaceholderText(tr("Filter by tag, CUDA, driver, architecture or component"));
  filterEdit_->setClearButtonEnabled(true);
  filterEdit_->addAction(inkIcon(QStringLiteral(":/icons/filter.svg")), QLineEdit::LeadingPosition);

  releaseView_ = new QTableView(box);
  releaseView_->setObjectName(QStringLiteral("releaseView"));
  releaseView_->setModel(proxy_);
  releaseView_->setSortingEnabled(true);
  releaseView_->sortByColumn(ReleaseTableModel::TagColumn, Qt::DescendingOrder);
  releaseView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  releaseView_->setSelectionMode(QAbstractItemView::SingleSelection);
  releaseView_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  releaseView_->setAlternatingRowColors(true);
  releaseView_->setShowGrid(false);
  releaseView_->setWordWrap(false);
  releaseView_->verticalHeader()->setVisible(false);
  releaseView_->verticalHeader()->setDefaultSectionSize(releaseView_->fontMetrics().height() + 8);
  QHeaderView* header = releaseView_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(ReleaseTableModel::TorchColumn, QHeaderView::Stretch);
  header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);

  auto* layout = new QVBoxLayout(box);
  layout->addWidget(filterEdit_);
  layout->addWidget(releaseView_, 1);
  return box;
}

bool ImagePage::isBusy() const { return hostPanel_->isDetecting(); }

void ImagePage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (detectedOnce_) return;
  detectedOnce_ = true;
  hostPanel_->startDetection(DetectionFill::UnlessTyped);
}

void ImagePage::restoreChoices() {
  restoring_ = true;
  const ImagePageChoices choices = settings_.imagePageChoices();
  hostPanel_->setDriverText(choices.driver);
  hostPanel_->setGpuName(choices.gpuName);
  hostPanel_->setGpuCount(choices.gpuCount);
  if (const auto arch = tb::catalog::parseCpuArch(toStdString(choices.arch))) {
    hostPanel_->setArch(*arch);
  } else if (const auto here = tb::compat::detectCpuArch()) {
    hostPanel_->setArch(*here);
  }
  hostPanel_->setHostFromDetection(choices.hostFromDetection);

  QString tag = choices.releaseTag;
  const auto& releases = session_.catalog().releases;
  if (!session_.catalog().findRelease(toStdString(tag)) && !releases.empty()) {
    tag = toQString(releases.back().tag);  // the newest: releases are sorted by tag
  }
  session_.selectRelease(tag);
  restoring_ = false;
}

void ImagePage::saveChoices() {
  if (restoring_) return;
  const HostInput in = hostPanel_->input();
  ImagePageChoices choices;
  choices.releaseTag = session_.selectedReleaseTag();
  choices.driver = in.driverText;
  choices.hostFromDetection = hostPanel_->hostFromDetection();
  choices.gpuName = in.gpuName;
  choices.gpuCount = in.gpuCount;
  choices.arch = toQString(tb::catalog::toString(in.arch));
  settings_.saveImagePageChoices(choices);
}

void ImagePage::onReleaseChanged(const QString& tag) {
  registryPanel_->releaseChosen(tag);
  selectTagInView(tag);
  details_->showRelease(session_.selectedRelease());
  updateVerdict();
  saveChoices();
}

void ImagePage::onCatalogChanged() {
  // A model reset drops the view's selection; put it back on the same tag.
  onReleaseChanged(session_.selectedReleaseTag());
}

void ImagePage::onHostInputChanged() {
  const HostInput in = hostPanel_->input();
  if (in.gpuName != lastGpuName_) {
    lastGpuName_ = in.gpuName;
    // An empty GPU says nothing about the fleet; keep the class shown.
    if (!in.gpuName.isEmpty()) {
      matrixPanel_->setGpuClass(tb::compat::classifyGpu(toStdString(in.gpuName)));
    }
  }
  matrixPanel_->setArch(in.arch);
  updateVerdict();
  saveChoices();
}

void ImagePage::onMatrixCellChosen(const QString& tag, const tb::catalog::DriverVersion& driver,
                                   tb::compat::GpuClass gpuClass) {
  // So the banner explains the clicked cell, the GPU must be of the cell's class.
  const QString gpu = hostPanel_->input().gpuName;
  if (gpu.isEmpty() || tb::compat::classifyGpu(toStdString(gpu)) != gpuClass) {
    hostPanel_->setGpuName(toQString(tb::compat::representativeGpuName(gpuClass)));
  }
  hostPanel_->setDriverText(toQString(driver.text()));
  hostPanel_->setHostFromDetection(false);
  session_.selectRelease(tag);
  saveChoices();
}

void ImagePage::selectTagInView(const QString& tag) {
  const QModelIndex current = releaseView_->currentIndex();
  if (current.isValid() && current.data(ReleaseTableModel::TagRole).toString() == tag) return;
  const int sourceRow = model_->rowOf(tag);
  const QModelIndex proxyIndex = proxy_->mapFromSource(model_->index(sourceRow, 0));
  if (!proxyIndex.isValid()) {
    releaseView_->selectionModel()->clearSelection();
    return;
  }
  releaseView_->selectionModel()->setCurrentIndex(
      proxyIndex, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  releaseView_->scrollTo(proxyIndex);
}

void ImagePage::updateVerdict() {
  const HostInput in = hostPanel_->input();
  // A checked registry tag is judged on what its image declares.
  const auto declared = registryPanel_->declaredRelease(in.arch);
  const tb::catalog::Release* release = declared ? &declared->release : session_.selectedRelease();
  const bool sameClass =
      !in.gpuName.isEmpty() &&
      tb::compat::classifyGpu(toStdString(in.gpuName)) == matrixPanel_->gpuClass();
  matrixPanel_->setHostCell(sameClass && release ? session_.selectedReleaseTag() : QString(),
                            in.driver ? std::optional<int>(in.driver->major()) : std::nullopt);

  if (!release) {
    banner_->showIncomplete(tr("Choose a release"),
                            tr("Pick a release in the table to check it against the host."));
    return;
  }
  if (in.driverText.isEmpty()) {
    banner_->showIncomplete(
        tr("Driver needed"),
        tr("Type the host's driver version (nvidia-smi prints it) or press Detect this host."));
    return;
  }
  if (!in.driver) {
    banner_->showIncomplete(tr("Invalid driver version"), in.driverError);
    return;
  }

  tb::compat::CompatQuery query;
  query.driver = in.driver;
  query.gpuName = toStdString(in.gpuName);
  query.gpuCount = in.gpuCount;
  query.arch = in.arch;
  query.today = tb::compat::todayUtc();
  tb::compat::CompatVerdict verdict =
      tb::compat::evaluateCompat(*release, session_.catalog(), query);
  if (declared) {
    verdict.reasons.insert(verdict.reasons.begin(), declared->notes.begin(), declared->notes.end());
  }
  banner_->showVerdict(*release, query, verdict, session_.catalog().releases);
}

}  // namespace tb::ui
