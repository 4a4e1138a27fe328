// Pages are looked up by id through studio_pages.h, so the sidebar, the
// command line and the saved "last page" all use the same names.
#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>

#include <memory>

#include "ui/ablation/ablation_page.h"
#include "ui/application_identity.h"
#include "ui/catalog_session.h"
#include "ui/open_files.h"
#include "ui/image/image_page.h"
#include "ui/memory/memory_page.h"
#include "ui/optimizations/optimizations_page.h"
#include "ui/qt_text.h"
#include "ui/reports/reports_page.h"
#include "ui/runs/runs_page.h"
#include "ui/runs/trainbench_binary.h"
#include "ui/studio_pages.h"
#include "ui/studio_resources.h"
#include "ui/theme.h"
#include "ui/widgets/child_process.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {

namespace {

constexpr int kSidebarWidth = 168;
constexpr int kStatusMessageMs = 6000;

}  // namespace

MainWindow::MainWindow(tb::catalog::Catalog catalog, MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent),
      settings_(options.settingsAccess),
      session_(new CatalogSession(std::move(catalog), this)) {
  initStudioResources();
  setWindowTitle(applicationName());
  setWindowIcon(QIcon(QStringLiteral(":/icons/trainbench-studio.svg")));

  sidebar_ = new QListWidget(this);
  sidebar_->setObjectName(QStringLiteral("pageSidebar"));
  sidebar_->setFixedWidth(kSidebarWidth);
  sidebar_->setIconSize(QSize(24, 24));
  sidebar_->setFrameShape(QFrame::NoFrame);
  sidebar_->setSpacing(2);
  sidebar_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  shadeSidebar();

  stack_ = new QStackedWidget(this);
  stack_->setObjectName(QStringLiteral("pageStack"));

  auto* divider = new QFrame(this);
  divider->setFrameShape(QFrame::VLine);
  divider->setFrameShadow(QFrame::Plain);
  divider->setForegroundRole(QPalette::Mid);

  auto* central = new QWidget(this);
  auto* layout = new QHBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(sidebar_);
  layout->addWidget(divider);
  layout->addWidget(stack_, 1);
  setCentralWidget(central);

  imagePage_ = new ImagePage(*session_, settings_, stack_);
  addPage(QStringLiteral("image"), imagePage_);
  optimizationsPage_ = new OptimizationsPage(*session_, settings_, stack_);
  addPage(QStringLiteral("optimizations"), optimizationsPage_);
  memoryPage_ = new MemoryPage(settings_, stack_);
  addPage(QStringLiteral("memory"), memoryPage_);
  runsPage_ = new RunsPage(settings_, stack_);
  addPage(QStringLiteral("runs"), runsPage_);
  ablationPage_ = new AblationPage(settings_, stack_);
  addPage(QStringLiteral("ablation"), ablationPage_);
  reportsPage_ = new ReportsPage(stack_);
  addPage(QStringLiteral("reports"), reportsPage_);
  connectPages();

  connect(sidebar_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0) return;
    stack_->setCurrentIndex(row);
    saveWindowState();
  });

  buildMenus();
  catalogStatus_ = new QLabel(this);
  statusBar()->addPermanentWidget(catalogStatus_);
  connect(session_, &CatalogSession::catalogChanged, this, &MainWindow::updateStatusBar);
  updateStatusBar();

  // A theme chosen in View > Theme; following the system changes nothing.
  if (const ThemeChoice theme = themeFromName(keys::kTheme.get()); theme != ThemeChoice::System) {
    applyThemeChoice(theme);
  }
  setAcceptDrops(true);  // files dropped anywhere on the window open as from the command line
  if (!restoreGeometry(settings_.windowGeometry())) resize(kDefaultSize);
  restoreState(settings_.windowState());
  restoreSplitters(settings_.splitterStates());
  const QString lastPage = settings_.lastPage();
  if (!showPage(options.initialPage) && !showPage(lastPage)) sidebar_->setCurrentRow(0);
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(const QString& id, QWidget* page) {
  const std::optional<StudioPage> info = findStudioPage(id);
  auto* item = new QListWidgetItem(inkIcon(info->iconPath), info->title, sidebar_);
  item->setData(Qt::UserRole, id);
  item->setSizeHint(QSize(kSidebarWidth - 8, 40));
  item->setToolTip(tr("%1 page (--page %2)").arg(info->title, id));
  // Each page scrolls inside its slot, so the page with the widest form does
  // not set the whole window's minimum size (small laptop screens).
  auto* scroll = new QScrollArea(stack_);
  scroll->setObjectName(id + QStringLiteral("PageScroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(page);
  stack_->addWidget(scroll);
  pageIds_.append(id);
}

void MainWindow::connectPages() {
  connect(imagePage_, &ImagePage::busyChanged, this, &MainWindow::onPageBusyChanged);
  connect(optimizationsPage_, &OptimizationsPage::busyChanged, this,
          &MainWindow::onPageBusyChanged);
  connect(memoryPage_, &MemoryPage::busyChanged, this, &MainWindow::onPageBusyChanged);
  // Logs read for the Ablation page count as work a screenshot waits for.
  connect(ablationPage_->logImport(), &AblationLogImport::batchFinished, this,
          [this] { onPageBusyChanged(false); });
  connect(memoryPage_, &MemoryPage::recomputeRecommended, this, &MainWindow::applyRecommendation);
  // Reports are made of what the Ablation page shows, about the image release
  // the Optimizations page configures (it has updated its tag by the time the
  // session's signal reaches this window).
  connect(ablationPage_, &AblationPage::resultsChanged, this,
          [this] { reportsPage_->setAblationResults(ablationPage_->results()); });
  reportsPage_->setAblationResults(ablationPage_->results());
  connect(session_, &CatalogSession::selectedReleaseChanged, this,
          [this] { reportsPage_->setImageTag(optimizationsPage_->releaseTag()); });
  reportsPage_->setImageTag(optimizationsPage_->releaseTag());
}

void MainWindow::onPageBusyChanged(bool busy) {
  if (!busy && !isBusy()) Q_EMIT settled();
}

void MainWindow::applyRecommendation(const QString& policy, const QString& runtime) {
  // The planner's answer feeds both places a user acts on it: the engine run
  // form (with the runtime it was planned for, which moves the peak), and the
  // image's checkpointing switches for cluster jobs.
  const bool runs = runsPage_->applyRecomputePolicy(policy, runtime);
  optimizationsPage_->applyCheckpointRecommendation(policy != QLatin1String("none"));
  statusBar()->showMessage(
      runs ? tr("Recommendation --recompute %1 applied to the Runs and Optimizations pages")
                 .arg(policy)
           : tr("Recommendation --recompute %1 applied to the Optimizations page; the engine "
                "on the Runs page does not run it")
                 .arg(policy),
      8000);
}

bool MainWindow::showPage(const QString& id) {
  const auto index = pageIds_.indexOf(id);
  if (index < 0) return false;
  sidebar_->setCurrentRow(static_cast<int>(index));
  return true;
}

QString MainWindow::currentPageId() const {
  const int index = stack_->currentIndex();
  return index >= 0 ? pageIds_.value(index) : QString();
}

QStringList MainWindow::sidebarPageIds() const {
  QStringList ids;
  for (int row = 0; row < sidebar_->count(); ++row) {
    ids.append(sidebar_->item(row)->data(Qt::UserRole).toString());
  }
  return ids;
}

bool MainWindow::isBusy() const {
  return imagePage_->isBusy() || optimizationsPage_->isBusy() || memoryPage_->isBusy() ||
         ablationPage_->logImport()->isBusy();
}

void MainWindow::openFiles(const QStringList& paths) {
  rememberRecent(paths);
  QStringList ablation;
  QStringList validator;
  QString lastPage;
  for (const QString& path : paths) {
    switch (openTargetFor(path)) {
      case OpenTarget::Catalog: (void)loadCatalogInteractively(path); break;
      case OpenTarget::Ablation:
        ablation << path;
        lastPage = QStringLiteral("ablation");
        break;
      case OpenTarget::Validator:
        validator << path;
        lastPage = QStringLiteral("optimizations");
        break;
    }
  }
  if (!validator.isEmpty()) optimizationsPage_->validateFiles(validator);
  if (!ablation.isEmpty()) ablationPage_->openPaths(ablation);
  if (!lastPage.isEmpty()) showPage(lastPage);
}

void MainWindow::chooseCatalogFile() {
  const QString start = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  const QString path = QFileDialog::getOpenFileName(this, tr("Load Catalog"), start,
                                                    tr("Catalog files (*.json);;All files (*)"));
  if (!path.isEmpty()) (void)loadCatalogInteractively(path);
}

tb::Status MainWindow::loadCatalogInteractively(const QString& path) {
  const std::size_t before = session_->catalog().releases.size();
  tb::Status status = session_->loadExtraCatalog(path);
  if (!status) {
    auto* box = new QMessageBox(
        QMessageBox::Warning, tr("Catalog not loaded"),
        tr("%1 was not loaded; the catalog is unchanged.").arg(QFileInfo(path).fileName()),
        QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("catalogErrorBox"));
    box->setInformativeText(toQString(status.error().message));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    return status;
  }
  const std::size_t added = session_->catalog().releases.size() - before;
  statusBar()->showMessage(
      tr("Loaded %1: %2 new release(s)").arg(QFileInfo(path).fileName()).arg(added),
      kStatusMessageMs);
  return status;
}

void MainWindow::showAbout() {
  // The engine's libraries are trainbench's (the Studio links no LibTorch):
  // the box opens at once and fills them in when `trainbench --version`
  // answers, within a few seconds, or says why it did not.
  const QString catalog = toQString(session_->catalog().catalogVersion);
  auto* box =
      new QMessageBox(QMessageBox::Information, tr("About %1").arg(applicationName()),
                      aboutText(catalog, tr("asking trainbench\u2026")), QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("aboutBox"));
  box->setTextFormat(Qt::RichText);
  box->setAttribute(Qt::WA_DeleteOnClose);
  auto* probe = new ChildProcess(box);
  const auto answer = std::make_shared<QStringList>();  // what --version printed
  connect(probe, &ChildProcess::stdoutLine, box,
          [answer](const QByteArray& line) { answer->append(QString::fromUtf8(line)); });
  connect(
      probe, &ChildProcess::finished, box, [box, probe, answer, catalog](const ChildExit& ended) {
        QString engine;
        if (ended.failedToStart) {
          engine = tr("%1 could not be started: %2").arg(probe->program(), ended.errorString);
        } else if (ended.stopRequested) {
          engine = tr("%1 --version did not answer within 10 s").arg(probe->program());
        } else if (ended.crashed || ended.exitCode != 0) {
          engine = tr("%1 --version failed (exit %2)").arg(probe->program()).arg(ended.exitCode);
        } else {
          engine = answer->join(QLatin1Char('\n'));
        }
        box->setText(aboutText(catalog, engine));
      });
  QTimer::singleShot(10'000, probe, [probe] { probe->stop(); });  // never waits forever
  probe->start(trainbenchBinary(), {QStringLiteral("--version")});
  box->open();
}

void MainWindow::updateStatusBar() {
  const tb::catalog::Catalog& catalog = session_->catalog();
  QStringList sources;
  for (const std::string& source : catalog.sources) {
    sources.append(QFileInfo(toQString(source)).fileName());
  }
  catalogStatus_->setText(tr("Catalog %1 \u00b7 %2 releases \u00b7 %3")
                              .arg(toQString(catalog.catalogVersion))
                              .arg(catalog.releases.size())
                              .arg(sources.join(QStringLiteral(" + "))));
  catalogStatus_->setToolTip(toQStringList(catalog.sources).join(QLatin1Char('\n')));
}

void MainWindow::saveWindowState() {
  QVariantMap splitters;
  for (const QSplitter* splitter : findChildren<QSplitter*>()) {
    if (!splitter->objectName().isEmpty())
      splitters.insert(splitter->objectName(), splitter->saveState());
  }
  settings_.saveWindow(saveGeometry(), saveState(), currentPageId(), splitters);
}

void MainWindow::restoreSplitters(const QVariantMap& states) {
  // By name, so a splitter added or renamed since keeps its own default;
  // a state that does not fit (a pane count changed) is refused by Qt.
  for (QSplitter* splitter : findChildren<QSplitter*>()) {
    const auto stored = states.constFind(splitter->objectName());
    if (stored != states.constEnd()) splitter->restoreState(stored->toByteArray());
  }
}

void MainWindow::shadeSidebar() {
  // A shade off the window's own colour, taken again when the theme changes
  // (the sidebar's Base is set, so it would not follow by itself).
  QPalette sidebarPalette = sidebar_->palette();
  const QColor window = palette().color(QPalette::Window);
  sidebarPalette.setColor(QPalette::Base,
                          window.lightness() < 128 ? window.lighter(112) : window.darker(104));
  sidebar_->setPalette(sidebarPalette);
}

void MainWindow::changeEvent(QEvent* event) {
  QMainWindow::changeEvent(event);
  if (event->type() == QEvent::PaletteChange && sidebar_ != nullptr) shadeSidebar();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveWindowState();
  QMainWindow::closeEvent(event);
}

}  // namespace tb::ui
