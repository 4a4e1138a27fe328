// The Optimizations page as a user drives it: toggle options and read the
// generated files back (the DeepSpeed JSON through a JSON parser, the
// manifest through core/config's own validator, which parses it with
// yaml-cpp), take the release from the Image page, save, validate the
// fixture files in tests/data/config and click through to a finding.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <memory>

#include "tb/config/validation.hpp"
#include "ui/application_identity.h"
#include "ui/catalog_session.h"
#include "ui/optimizations/artifact_preview.h"
#include "ui/optimizations/file_viewer_dialog.h"
#include "ui/optimizations/finding_filter_proxy.h"
#include "ui/optimizations/finding_table_model.h"
#include "ui/optimizations/line_numbered_view.h"
#include "ui/optimizations/optimizations_page.h"
#include "ui/optimizations/validation_panel.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::config::ArtifactKind;
using tb::config::Severity;

namespace {

QString configData(const char* name) {
  const QDir here = QFileInfo(QStringLiteral(__FILE__)).absoluteDir();
  return QDir::cleanPath(here.filePath(QStringLiteral("../data/config/")) + QLatin1Char('/') +
                         QString::fromLatin1(name));
}

}  // namespace

class OptimizationsPageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::CatalogSession> session_;
  std::unique_ptr<tb::ui::StudioSettings> settings_;
  std::unique_ptr<tb::ui::OptimizationsPage> page_;

  void makePage() {
    page_.reset();
    page_ = std::make_unique<tb::ui::OptimizationsPage>(*session_, *settings_);
    page_->resize(1300, 860);
  }

  template <class T>
  T* find(const char* name) {
    return tb::ui::test::child<T>(page_.get(), name);
  }
  QCheckBox* toggle(const char* name) { return find<QCheckBox>(name); }
  QSpinBox* nodesSpin() { return find<QSpinBox>("nodesSpin"); }
  tb::ui::ArtifactPreview& artifactPreview() {
    return *find<tb::ui::ArtifactPreview>("artifactPreview");
  }
  tb::ui::ValidationPanel& validationPanel() {
    return *find<tb::ui::ValidationPanel>("validationPanel");
  }
  QString preview(ArtifactKind kind) { return artifactPreview().text(kind); }

  QJsonObject deepSpeed() {
    QJsonParseError error{};
    const QJsonDocument doc =
        QJsonDocument::fromJson(preview(ArtifactKind::DeepSpeed).toUtf8(), &error);
    [&] { QCOMPARE(error.error, QJsonParseError::NoError); }();
    return doc.object();
  }

  // The validator parses the manifest with yaml-cpp and checks its image tag
  // and GPU count against the catalog; the generated one must pass.
  tb::config::FileReport checkManifest() {
    return tb::config::validateContent("k8s.yaml", preview(ArtifactKind::Kubernetes).toStdString(),
                                       tb::config::FileKind::KubernetesManifest,
                                       session_->catalog());
  }

  // The value of NAME in the env preview (comments skipped), or a null string.
  QString envValue(const QString& name) {
    for (const QString& line : preview(ArtifactKind::Env).split(QLatin1Char('\n'))) {
      if (line.startsWith(name + QLatin1Char('='))) return line.mid(name.size() + 1);
    }
    return {};
  }

  static bool noProblems(const tb::config::FileReport& report) {
    for (const tb::config::Finding& finding : report.findings) {
      if (finding.severity != Severity::Info) {
        qWarning("%s", finding.message.c_str());
        return false;
      }
    }
    return true;
  }

  void validateAndWait(const QStringList& files) {
    tb::ui::ValidationPanel& panel = validationPanel();
    QSignalSpy finished(&panel, &tb::ui::ValidationPanel::validationFinished);
    panel.addFiles(files);
    // Delivered through the event loop: the call above returned before the
    // worker's result, so the GUI thread was never blocked on it.
    QVERIFY(page_->isBusy());
    QVERIFY(finished.wait(20000));
    QVERIFY(!page_->isBusy());
  }

  // The model row of the first finding with `rule` in `file`, or -1.
  int findingRow(const QString& file, const char* rule) {
    const auto& rows = validationPanel().model()->rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (QFileInfo(rows[i].filePath).fileName() == file && rows[i].finding.rule == rule) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

 private Q_SLOTS:
  void init() {
    tb::ui::test::clearStudioSettings();
    session_ = std::make_unique<tb::ui::CatalogSession>(tb::ui::test::fixtureCatalog());
    settings_ = std::make_unique<tb::ui::StudioSettings>();
    makePage();
  }

  void cleanup() {
    page_.reset();
    settings_.reset();
    session_.reset();
  }

  void usesTheNewestReleaseWhenNoneIsChosen() {
    QCOMPARE(page_->releaseTag(), QStringLiteral("30.03"));
    QVERIFY(find<QLabel>("releaseLabel")->text().contains(QStringLiteral("newest")));
    QVERIFY(preview(ArtifactKind::Docker).contains(QStringLiteral("training-nv-pytorch:30.03")));
  }

  void releaseChosenOnTheImagePageFlowsIn() {
    session_->selectRelease(QStringLiteral("30.01"));
    QCOMPARE(page_->releaseTag(), QStringLiteral("30.01"));
    QVERIFY(
        find<QLabel>("releaseLabel")->text().contains(QStringLiteral("chosen on the Image page")));
    const QString manifest = preview(ArtifactKind::Kubernetes);
    QVERIFY(manifest.contains(QStringLiteral("training-nv-pytorch:30.01-serverless")));
    QVERIFY(!manifest.contains(QStringLiteral("30.03")));
    QVERIFY(noProblems(checkManifest()));
    QVERIFY(find<QLabel>("generatedChecks")->text().contains(QStringLiteral("30.01")));
  }

  void togglingTheCompilerOptimizationChangesThePreviews() {
    const QString before = preview(ArtifactKind::TrainingArgs);
    QVERIFY(!before.contains(QStringLiteral("torch_compile=True")));
    QVERIFY(toggle("bf16Box")->isEnabled());
    toggle("bf16Box")->click();  // off: compile must turn it back on
    QVERIFY(!toggle("bf16Box")->isChecked());

    toggle("compileBox")->click();
    const QString after = preview(ArtifactKind::TrainingArgs);
    QVERIFY2(after.contains(QStringLiteral("torch_compile=True")), qPrintable(after));
    QVERIFY(toggle("bf16Box")->isChecked());
    QVERIFY(!toggle("bf16Box")->isEnabled());
    QVERIFY(toggle("gradientCheckpointingBox")->isChecked());
    QVERIFY(!toggle("gradientCheckpointingBox")->isEnabled());
    QVERIFY(deepSpeed()
                .value(QStringLiteral("bf16"))
                .toObject()
                .value(QStringLiteral("enabled"))
                .toBool());

    toggle("compileBox")->click();
    QVERIFY(!preview(ArtifactKind::TrainingArgs).contains(QStringLiteral("torch_compile=True")));
    QVERIFY(toggle("bf16Box")->isEnabled());
  }

  void checkpointOptimizationReachesEveryEnvironment() {
    QVERIFY(envValue(QStringLiteral("CHECKPOINT_OPTIMIZATION")) != QStringLiteral("true"));
    toggle("checkpointOptimizationBox")->click();
    QCOMPARE(envValue(QStringLiteral("CHECKPOINT_OPTIMIZATION")), QStringLiteral("true"));
    QVERIFY(preview(ArtifactKind::Docker).contains(QStringLiteral("CHECKPOINT_OPTIMIZATION=true")));
    QVERIFY(preview(ArtifactKind::Kubernetes).contains(QStringLiteral("CHECKPOINT_OPTIMIZATION")));
    QVERIFY(checkManifest().findings.empty());  // not even the "it is off" note
  }

  void zeroStageRewritesTheDeepSpeedJson() {
    QCOMPARE(deepSpeed()[QStringLiteral("zero_optimization")]
                 .toObject()[QStringLiteral("stage")]
                 .toInt(),
             3);
    auto* stage = find<QComboBox>("zeroStageCombo");
    stage->setCurrentIndex(stage->findData(1));
    const QJsonObject zero = deepSpeed()[QStringLiteral("zero_optimization")].toObject();
    QCOMPARE(zero[QStringLiteral("stage")].toInt(), 1);
    QVERIFY(!zero.contains(QStringLiteral("stage3_prefetch_bucket_size")));
    QVERIFY(!toggle("offloadParametersBox")->isEnabled());
  }

  void gpusAndNodesShapeTheManifest() {
    QVERIFY(preview(ArtifactKind::Env).contains(QStringLiteral("NCCL_SOCKET_IFNAME=eth0")));
    QVERIFY(preview(ArtifactKind::Kubernetes).contains(QStringLiteral("kind: Pod")));
    auto* gpus = find<QComboBox>("gpusCombo");
    gpus->setCurrentIndex(gpus->findData(16));
    nodesSpin()->setValue(2);
    QVERIFY(preview(ArtifactKind::Env).contains(QStringLiteral("NCCL_SOCKET_IFNAME=hpn0")));
    const QString manifest = preview(ArtifactKind::Kubernetes);
    QVERIFY(manifest.contains(QStringLiteral("kind: Job")));
    QVERIFY(manifest.contains(QStringLiteral("kind: Service")));
    QVERIFY(manifest.contains(QStringLiteral("nvidia.com/gpu: 16")));
    QVERIFY(noProblems(checkManifest()));
  }

  void anInvalidConfigurationKeepsTheLastFilesAndRefusesToSave() {
    const QString before = preview(ArtifactKind::Kubernetes);
    auto* jobName = find<QLineEdit>("jobNameEdit");
    jobName->selectAll();
    QTest::keyClick(jobName, Qt::Key_Delete);
    QVERIFY(artifactPreview().hasProblem());
    QVERIFY(find<QLabel>("previewProblem")->text().contains(QStringLiteral("job-name")));
    QCOMPARE(preview(ArtifactKind::Kubernetes), before);
    QTemporaryDir dir;
    QVERIFY(!artifactPreview().saveAllTo(dir.path()));
    QVERIFY(QDir(dir.path()).isEmpty());
    QTest::keyClicks(jobName, QStringLiteral("pretrain"));
    QVERIFY(!artifactPreview().hasProblem());
    QVERIFY(preview(ArtifactKind::Kubernetes).contains(QStringLiteral("pretrain-30-03")));
  }

  void saveAllWritesEveryFile() {
    toggle("compileBox")->click();
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("new/folder"));
    QVERIFY(artifactPreview().saveAllTo(folder));
    const auto& artifacts = artifactPreview().artifacts();
    QCOMPARE(artifacts.size(), tb::config::allArtifactKinds().size());
    for (const tb::config::Artifact& artifact : artifacts) {
      QFile file(QDir(folder).filePath(tb::ui::toQString(artifact.fileName)));
      QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
      QCOMPARE(file.readAll(), QByteArray::fromStdString(artifact.content));
    }
    QVERIFY(QFileInfo(QDir(folder).filePath(QStringLiteral("launch.sh"))).isExecutable());
    // The sbatch script has its own tab and file, like every kind.
    QVERIFY(QFileInfo::exists(QDir(folder).filePath(QStringLiteral("trainbench.sbatch"))));
    QVERIFY(preview(ArtifactKind::Slurm).contains(QStringLiteral("#SBATCH --exclusive")));
  }

  void saveIntoAFileNamesTheProblem() {
    QTemporaryDir dir;
    const QString blocker = dir.filePath(QStringLiteral("not-a-folder"));
    QFile file(blocker);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    const tb::Status status = artifactPreview().saveAllTo(blocker);
    QVERIFY(!status);
    QVERIFY2(status.error().message.find("not-a-folder") != std::string::npos,
             status.error().message.c_str());
  }

  void validationListsTheFindingsOfTheFixtures() {
    validateAndWait({configData("bad_ds_prefetch_number.json"), configData("bad_ifname.env"),
                     configData("bad_pip_torch.Dockerfile"), configData("good_ds_zero3.json"),
                     configData("malformed_ds.json")});
    tb::ui::FindingTableModel& model = *validationPanel().model();
    const int prefetch =
        findingRow(QStringLiteral("bad_ds_prefetch_number.json"), "stage3-prefetch-bucket-size");
    QVERIFY(prefetch >= 0);
    const tb::config::Finding& finding = model.rows()[static_cast<std::size_t>(prefetch)].finding;
    TB_COMPARE_ENUM(finding.severity, Severity::Error);
    QCOMPARE(finding.line, 6);
    QCOMPARE(tb::ui::toQString(finding.path),
             QStringLiteral("/zero_optimization/stage3_prefetch_bucket_size"));
    const QModelIndex place = model.index(prefetch, tb::ui::FindingTableModel::PlaceColumn);
    QVERIFY(place.data().toString().contains(QStringLiteral("line 6")));
    QVERIFY(
        !model.index(prefetch, tb::ui::FindingTableModel::FixColumn).data().toString().isEmpty());

    const int ifname = findingRow(QStringLiteral("bad_ifname.env"), "nccl-socket-ifname");
    QVERIFY(ifname >= 0);
    TB_COMPARE_ENUM(model.rows()[static_cast<std::size_t>(ifname)].finding.severity,
                    Severity::Warning);
    QVERIFY(findingRow(QStringLiteral("bad_pip_torch.Dockerfile"), "reinstall-framework") >= 0);
    QVERIFY(findingRow(QStringLiteral("malformed_ds.json"), "parse") >= 0);
    QCOMPARE(findingRow(QStringLiteral("good_ds_zero3.json"), "parse"), -1);
    const QString summary = find<QLabel>("validationSummary")->text();
    QVERIFY2(summary.contains(QStringLiteral("5 file(s) checked: 3 error(s), 2 warning(s)")),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("No findings in good_ds_zero3.json")),
             qPrintable(summary));
  }

  void findingsSortBySeverityAndFilter() {
    validateAndWait({configData("bad_ifname.env"), configData("bad_ds_prefetch_number.json"),
                     configData("checkpoint_off.env")});
    tb::ui::FindingFilterProxy& proxy = *validationPanel().proxy();
    QVERIFY(proxy.rowCount() >= 3);
    QCOMPARE(proxy.index(0, 0).data(tb::ui::FindingTableModel::SeverityRole).toInt(),
             static_cast<int>(Severity::Error));
    QCOMPARE(
        proxy.index(proxy.rowCount() - 1, 0).data(tb::ui::FindingTableModel::SeverityRole).toInt(),
        static_cast<int>(Severity::Info));
    auto* filter = find<QComboBox>("severityFilter");
    filter->setCurrentIndex(filter->findData(static_cast<int>(Severity::Error)));
    for (int row = 0; row < proxy.rowCount(); ++row) {
      QCOMPARE(proxy.index(row, 0).data(tb::ui::FindingTableModel::SeverityRole).toInt(),
               static_cast<int>(Severity::Error));
    }
    QVERIFY(proxy.rowCount() >= 1);
  }

  void doubleClickingAFindingOpensTheFileAtItsLine() {
    page_->show();
    validateAndWait({configData("bad_ds_prefetch_number.json")});
    auto* view = find<QTableView>("findingsView");
    int row = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r) {
      if (view->model()->index(r, 0).data(tb::ui::FindingTableModel::RuleRole).toString() ==
          QStringLiteral("stage3-prefetch-bucket-size")) {
        row = r;
      }
    }
    QVERIFY(row >= 0);
    const QModelIndex index = view->model()->index(row, tb::ui::FindingTableModel::MessageColumn);
    view->scrollTo(index);
    const QPoint centre = view->visualRect(index).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, centre);
    auto* viewer = find<tb::ui::FileViewerDialog>("fileViewer");  // made on first use
    QVERIFY(viewer->isVisible());
    QCOMPARE(viewer->highlightedLine(), 6);
    QVERIFY(viewer->highlightedText().contains(QStringLiteral("stage3_prefetch_bucket_size")));
    QVERIFY(tb::ui::test::child<tb::ui::LineNumberedView>(viewer, "fileViewerText")->isReadOnly());
    viewer->close();
  }

  void droppedFilesAreValidated() {
    tb::ui::ValidationPanel& panel = validationPanel();
    QSignalSpy finished(&panel, &tb::ui::ValidationPanel::validationFinished);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(configData("bad_checkpoint_value.env"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QApplication::sendEvent(&panel, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, {});
    QApplication::sendEvent(&panel, &drop);
    QCOMPARE(panel.files(), QStringList{configData("bad_checkpoint_value.env")});
    QVERIFY(finished.wait(20000));
    QVERIFY(findingRow(QStringLiteral("bad_checkpoint_value.env"), "checkpoint-optimization") >= 0);
  }

  void anUnreadableFileIsAFindingNotACrash() {
    validateAndWait({QDir::temp().filePath(QStringLiteral("no-such-dir-tb/ds_config.json"))});
    QCOMPARE(validationPanel().model()->rowCount(), 1);
    QVERIFY(findingRow(QStringLiteral("ds_config.json"), "unreadable") >= 0);
  }

  void checkpointRecommendationFromTheMemoryPage() {
    page_->applyCheckpointRecommendation(true);
    QVERIFY(toggle("gradientCheckpointingBox")->isChecked());
    QVERIFY(toggle("checkpointOptimizationBox")->isChecked());
    QCOMPARE(envValue(QStringLiteral("CHECKPOINT_OPTIMIZATION")), QStringLiteral("true"));
    QVERIFY(find<QLabel>("statusLine")->text().contains(QStringLiteral("are on")));

    page_->applyCheckpointRecommendation(false);
    QVERIFY(!toggle("gradientCheckpointingBox")->isChecked());
    QVERIFY(!toggle("checkpointOptimizationBox")->isChecked());
    QVERIFY(envValue(QStringLiteral("CHECKPOINT_OPTIMIZATION")) != QStringLiteral("true"));
    QVERIFY(find<QLabel>("statusLine")->text().contains(QStringLiteral("are off")));

    toggle("compileBox")->click();
    page_->applyCheckpointRecommendation(false);
    QVERIFY(toggle("gradientCheckpointingBox")->isChecked());
    QVERIFY(find<QLabel>("statusLine")->text().contains(QStringLiteral("stays on")));
    QVERIFY(!artifactPreview().hasProblem());
  }

  void choicesSurviveARestart() {
    nodesSpin()->setValue(4);
    toggle("compileBox")->click();
    validateAndWait({configData("bad_ifname.env")});
    makePage();
    QCOMPARE(nodesSpin()->value(), 4);
    QVERIFY(toggle("compileBox")->isChecked());
    QCOMPARE(validationPanel().files(), QStringList{configData("bad_ifname.env")});
    QSignalSpy finished(&validationPanel(), &tb::ui::ValidationPanel::validationFinished);
    QVERIFY(finished.wait(20000));
    QVERIFY(findingRow(QStringLiteral("bad_ifname.env"), "nccl-socket-ifname") >= 0);
  }

  void chosenPreviewTabSurvivesARestart() {
    TB_COMPARE_ENUM(artifactPreview().currentKind(), ArtifactKind::Env);  // the first start
    QTabWidget* tabs = find<QTabWidget>("artifactTabs");
    tabs->setCurrentIndex(3);  // as a click on the tab does
    QVERIFY(artifactPreview().currentKind() == ArtifactKind::DeepSpeed);
    makePage();
    QCOMPARE(find<QTabWidget>("artifactTabs")->currentIndex(), 3);
    QVERIFY(artifactPreview().currentKind() == ArtifactKind::DeepSpeed);

    // A hand-edited or older file's unknown name falls back to the first tab.
    QSettings(tb::ui::organizationName(), tb::ui::applicationName())
        .setValue(QStringLiteral("optimizations/previewTab"), QStringLiteral("helm"));
    makePage();
    QCOMPARE(find<QTabWidget>("artifactTabs")->currentIndex(), 0);
  }

  // The main window must fit a 1366x768 laptop screen, so the page may not
  // ask for more than the window leaves it.
  void pageFitsASmallLaptopScreen() {
    validateAndWait({configData("bad_ifname.env")});
    const QSize minimum = page_->minimumSizeHint();
    QVERIFY2(minimum.height() <= 640, qPrintable(QString::number(minimum.height())));
    QVERIFY2(minimum.width() <= 1100, qPrintable(QString::number(minimum.width())));
  }

  void readOnlySettingsAreNotWritten() {
    settings_ = std::make_unique<tb::ui::StudioSettings>(tb::ui::SettingsAccess::ReadOnly);
    makePage();
    nodesSpin()->setValue(3);
    settings_ = std::make_unique<tb::ui::StudioSettings>();
    makePage();
    QCOMPARE(nodesSpin()->value(), 1);
  }
};

TB_UI_TEST_MAIN(OptimizationsPageTest)
#include "optimizations_page_test.moc"
