// The Runs page's form without starting a run (the page tests with real runs
// are in runs_page_test.cpp): the data, device, runtime and compiled-step
// choices reach the `trainbench run` arguments, a missing data file is
// refused naming it, and every choice survives re-creating the page.
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "ui/application_identity.h"
#include "ui/runs/run_form.h"
#include "ui/runs/runs_page.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

using tb::ui::RunForm;

namespace {

void selectData(QComboBox* combo, const char* value) {
  combo->setCurrentIndex(combo->findData(QString::fromLatin1(value)));
}

QString joined(const RunForm& form) {
  auto args = form.arguments();
  return args ? args->join(QLatin1Char(' ')) : QString();
}

}  // namespace

class RunsFormTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  QTemporaryDir files_;
  std::unique_ptr<tb::ui::StudioSettings> settings_;
  std::unique_ptr<tb::ui::RunsPage> page_;

  template <class T>
  T* find(const char* name) {
    return tb::ui::test::child<T>(page_.get(), name);
  }
  RunForm& form() { return *find<RunForm>("runForm"); }

  void makePage() {
    page_.reset();
    page_ = std::make_unique<tb::ui::RunsPage>(*settings_);
  }

 private Q_SLOTS:
  void initTestCase() {
    qputenv("XDG_DATA_HOME", QDir(sandbox_.home()).filePath(QStringLiteral("data")).toLocal8Bit());
  }

  void init() {
    tb::ui::test::clearStudioSettings();
    settings_ = std::make_unique<tb::ui::StudioSettings>();
    makePage();
  }

  void cleanup() {
    page_.reset();
    settings_.reset();
  }

  void engineSwitchesAreAlwaysPassedAndDefaultsLeftOut() {
    const QString args = joined(form());
    QVERIFY2(args.contains(QStringLiteral("--runtime tuned --compile off")), qPrintable(args));
    QVERIFY2(!args.contains(QStringLiteral("--device")), qPrintable(args));
    QVERIFY2(!args.contains(QStringLiteral("--data")), qPrintable(args));
  }

  void dataDeviceRuntimeAndCompileReachTheArguments() {
    selectData(find<QComboBox>("runRuntime"), "stock");
    find<QCheckBox>("runCompile")->setChecked(true);
    selectData(find<QComboBox>("runDevice"), "cuda");
    selectData(find<QComboBox>("runData"), "synthetic");
    const QString args = joined(form());
    QVERIFY2(args.contains(QStringLiteral("--runtime stock --compile on")), qPrintable(args));
    QVERIFY2(args.contains(QStringLiteral("--device cuda")), qPrintable(args));
    QVERIFY2(args.contains(QStringLiteral("--data synthetic")), qPrintable(args));
    QVERIFY(find<QPushButton>("runStart")->isEnabled());
  }

  void aTextFileIsRequiredAndNamedWhenMissing() {
    QVERIFY(!find<QLineEdit>("runDataFile")->isEnabled());  // random data needs no file
    selectData(find<QComboBox>("runData"), "file");
    QVERIFY(find<QLineEdit>("runDataFile")->isEnabled());
    QVERIFY(!form().arguments());
    QVERIFY(!find<QPushButton>("runStart")->isEnabled());

    const QString missing = files_.filePath(QStringLiteral("no-such.txt"));
    find<QLineEdit>("runDataFile")->setText(missing);
    QVERIFY(!form().arguments());
    const QString why = tb::ui::toQString(form().arguments().error().message);
    QVERIFY2(why.contains(missing), qPrintable(why));
    QVERIFY(find<QLabel>("runFormSummary")->text().contains(missing));

    QFile text(files_.filePath(QStringLiteral("corpus.txt")));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("to be or not to be\n");
    text.close();
    find<QLineEdit>("runDataFile")->setText(text.fileName());
    QVERIFY2(joined(form()).contains(QStringLiteral("--data ") + text.fileName()),
             qPrintable(joined(form())));
    QVERIFY(find<QPushButton>("runStart")->isEnabled());
  }

  void everyChoiceSurvivesRecreatingThePage() {
    form().setPreset(QStringLiteral("small"));
    find<QSpinBox>("runShape2")->setValue(3);  // layers: an override of the preset
    form().setSteps(77);
    form().setThreads(2);
    form().setRecomputePolicy(QStringLiteral("layers:2"));
    form().setMemoryBudgetMiB(512);
    selectData(find<QComboBox>("runData"), "file");
    find<QLineEdit>("runDataFile")->setText(QStringLiteral("/data/corpus.txt"));
    selectData(find<QComboBox>("runDevice"), "cuda");
    selectData(find<QComboBox>("runRuntime"), "stock");
    find<QCheckBox>("runCompile")->setChecked(true);
    const tb::ui::RunFormChoices before = form().choices();

    makePage();
    QCOMPARE(find<QComboBox>("runPreset")->currentText(), QStringLiteral("small"));
    QCOMPARE(find<QSpinBox>("runShape2")->value(), 3);
    QCOMPARE(find<QSpinBox>("runSteps")->value(), 77);
    QCOMPARE(form().recomputePolicy(), QStringLiteral("layers:2"));
    QCOMPARE(form().memoryBudgetBytes(), std::uint64_t{512} * 1024 * 1024);
    QCOMPARE(find<QComboBox>("runData")->currentData().toString(), QStringLiteral("file"));
    QCOMPARE(find<QLineEdit>("runDataFile")->text(), QStringLiteral("/data/corpus.txt"));
    QCOMPARE(find<QComboBox>("runDevice")->currentData().toString(), QStringLiteral("cuda"));
    QCOMPARE(find<QComboBox>("runRuntime")->currentData().toString(), QStringLiteral("stock"));
    QVERIFY(find<QCheckBox>("runCompile")->isChecked());
    const tb::ui::RunFormChoices after = form().choices();
    QVERIFY(after.shape == before.shape);
    QCOMPARE(after.threads, 2);
  }

  void unknownStoredNamesKeepTheDefaults() {
    {
      QSettings settings(tb::ui::organizationName(), tb::ui::applicationName());
      settings.setValue(QStringLiteral("runs/device"), QStringLiteral("tpu"));
      settings.setValue(QStringLiteral("runs/runtime"), QStringLiteral("turbo"));
      settings.setValue(QStringLiteral("runs/data"), QStringLiteral("imagenet"));
      settings.setValue(QStringLiteral("runs/shape"), QVariantList{1, 2, 3});
      settings.setValue(QStringLiteral("runs/steps"), -5);
    }
    makePage();
    QCOMPARE(find<QComboBox>("runDevice")->currentData().toString(), QStringLiteral("cpu"));
    QCOMPARE(find<QComboBox>("runRuntime")->currentData().toString(), QStringLiteral("tuned"));
    QCOMPARE(find<QComboBox>("runData")->currentData().toString(), QStringLiteral("random"));
    QCOMPARE(find<QSpinBox>("runSteps")->value(), find<QSpinBox>("runSteps")->minimum());
    QVERIFY(form().arguments());  // the tiny preset, untouched
    QVERIFY(!joined(form()).contains(QStringLiteral("--dim")));
  }

  void readOnlySettingsAreNotWritten() {
    settings_ = std::make_unique<tb::ui::StudioSettings>(tb::ui::SettingsAccess::ReadOnly);
    makePage();
    form().setSteps(999);
    settings_ = std::make_unique<tb::ui::StudioSettings>();
    makePage();
    QCOMPARE(find<QSpinBox>("runSteps")->value(), 200);
  }
};

TB_UI_TEST_MAIN(RunsFormTest)
#include "runs_form_test.moc"
