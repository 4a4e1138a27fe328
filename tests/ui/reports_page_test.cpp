// The Reports page: the results fixture exported as HTML, Markdown, CSV,
// JSON and PDF into files that exist and parse, the preview with the charts
// decoded as images, the image release from the Optimizations page (and a
// typed one that stays), a results file chosen instead of the Ablation page,
// a bad file refused by name, and the main window carrying the Ablation
// page's results to this page.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QXmlStreamReader>

#include <memory>

#include "ui/ablation/ablation_page.h"
#include "ui/main_window.h"
#include "ui/optimizations/optimizations_page.h"
#include "ui/reports/reports_page.h"
#include "ui_test_support.h"

using tb::ui::ReportExportFormat;

namespace {

QString benchData(const char* name) {
  return QDir(QStringLiteral(TB_BENCH_TEST_DATA)).filePath(QString::fromLatin1(name));
}

tb::bench::AblationResults fixtureResults() {
  auto results = tb::bench::loadResults(tb::ui::toStdString(benchData("results-fixture.json")));
  if (!results) qFatal("%s", results.error().message.c_str());
  return *results;
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

}  // namespace

class ReportsPageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::ReportsPage> page_;
  QTemporaryDir out_;

  tb::ui::ReportsPage& page() { return *page_; }
  template <class T>
  T* find(const char* name) {
    return tb::ui::test::child<T>(page_.get(), name);
  }

  QString exportAs(ReportExportFormat format, const char* name) {
    page().setFormat(format);
    const QString path = out_.filePath(QString::fromLatin1(name));
    const tb::Status written = page().exportTo(path);
    if (!written) qWarning("%s", written.error().message.c_str());
    return written ? path : QString();
  }

 private Q_SLOTS:
  void init() {
    tb::ui::test::clearStudioSettings();
    page_ = std::make_unique<tb::ui::ReportsPage>();
    page_->resize(1230, 860);
    page_->show();
  }

  void cleanup() { page_.reset(); }

  void emptyPageCannotExport() {
    QVERIFY(!find<QPushButton>("reportExport")->isEnabled());
    QVERIFY(!page().exportTo(out_.filePath(QStringLiteral("nothing.html"))).ok());
    QVERIFY(!QFile::exists(out_.filePath(QStringLiteral("nothing.html"))));
  }

  void htmlReportEmbedsTheFourCharts() {
    page().setAblationResults(fixtureResults());
    QVERIFY(find<QPushButton>("reportExport")->isEnabled());
    QCOMPARE(page().charts().size(), std::size_t{4});
    const QString path = exportAs(ReportExportFormat::Html, "report.html");
    QVERIFY(!path.isEmpty());
    const QString html = QString::fromUtf8(readAll(path));
    QVERIFY(html.startsWith(QStringLiteral("<!DOCTYPE html>"), Qt::CaseInsensitive));
    QVERIFY(html.trimmed().endsWith(QStringLiteral("</html>")));
    QCOMPARE(html.count(QStringLiteral("src=\"data:image/svg+xml;base64,")), 4);
    for (const char* label : {"Base", "AC2+CompilerOpt+CkptOpt"}) {
      QVERIFY(html.contains(QString::fromLatin1(label)));
    }
    // Each embedded chart decodes to well-formed SVG.
    const qsizetype start = html.indexOf(QStringLiteral("base64,")) + 7;
    const QByteArray svg = QByteArray::fromBase64(
        html.mid(start, html.indexOf(QLatin1Char('"'), start) - start).toLatin1());
    QXmlStreamReader reader(svg);
    while (!reader.atEnd()) reader.readNext();
    QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    // The preview draws the charts as images, not as broken links.
    const QVariant image =
        find<QTextBrowser>("reportPreview")
            ->document()
            ->resource(QTextDocument::ImageResource, QUrl(QStringLiteral("tb-chart-1")));
    QVERIFY(image.canConvert<QImage>());
    QVERIFY(!image.value<QImage>().isNull());
  }

  void textFormatsExportAndParse() {
    page().setAblationResults(fixtureResults());

    const QString markdown =
        QString::fromUtf8(readAll(exportAs(ReportExportFormat::Markdown, "report.md")));
    QVERIFY(markdown.startsWith(QStringLiteral("# ")));
    QVERIFY(markdown.contains(QStringLiteral("| Configuration |")));
    QCOMPARE(markdown.count(QStringLiteral("| engine |")), 4);

    const QStringList csv =
        QString::fromUtf8(readAll(exportAs(ReportExportFormat::Csv, "report.csv")))
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(csv.size(), 5);
    const QStringList header = csv.first().split(QLatin1Char(','));
    for (const char* column :
         {"label", "source", "throughput_median", "speedup_vs_base", "peak_bytes", "mfu"}) {
      QVERIFY2(header.contains(QString::fromLatin1(column)), column);
    }
    const qsizetype speedup = header.indexOf(QStringLiteral("speedup_vs_base"));
    QCOMPARE(csv[1].split(QLatin1Char(','))[speedup].toDouble(), 1.0);

    QJsonParseError error;
    const QJsonDocument json =
        QJsonDocument::fromJson(readAll(exportAs(ReportExportFormat::Json, "report.json")), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(json.object().value(QStringLiteral("table")).toArray().size(), 4);
    QCOMPARE(json.object()
                 .value(QStringLiteral("results"))
                 .toObject()
                 .value(QStringLiteral("model"))
                 .toString(),
             QStringLiteral("small"));
  }

  void pdfExportIsAPdfWithTheCharts() {
    page().setAblationResults(fixtureResults());
    const QString path = exportAs(ReportExportFormat::Pdf, "report.pdf");
    QVERIFY(!path.isEmpty());
    const QByteArray pdf = readAll(path);
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY(pdf.trimmed().endsWith("%%EOF"));
    QVERIFY2(pdf.contains("/Image"), "the charts are not in the PDF");
    QCOMPARE(QDir(out_.path()).entryList(QDir::Files).filter(QStringLiteral("report.pdf")).size(),
             1);  // no temporary file left beside it
  }

  void imageReleaseFollowsOptimizationsUnlessTyped() {
    page().setAblationResults(fixtureResults());  // recorded image: 25.10
    QVERIFY(find<QLineEdit>("reportImageTag")->text().isEmpty());
    QCOMPARE(page().reportResults().imageTag, std::string("25.10"));
    page().setImageTag(QStringLiteral("25.11"));
    QCOMPARE(find<QLineEdit>("reportImageTag")->text(), QStringLiteral("25.11"));
    QCOMPARE(page().reportResults().imageTag, std::string("25.11"));
    page().setFormat(ReportExportFormat::Markdown);
    QVERIFY(find<QTextBrowser>("reportPreview")
                ->toPlainText()
                .contains(QStringLiteral("Image: `25.11`")));
    QTest::keyClicks(find<QLineEdit>("reportImageTag"), QStringLiteral("-custom"));
    page().setImageTag(QStringLiteral("25.12"));
    QCOMPARE(page().reportResults().imageTag, std::string("25.11-custom"));
  }

  void resultsFileReplacesTheAblationSelection() {
    QVERIFY(!find<QRadioButton>("reportFromFile")->isEnabled());
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("results.json"));
    QFile file(bad);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"schema_version": 1, "configurations": 7})");
    file.close();
    QVERIFY(!page().loadResultsFile(bad).ok());
    QVERIFY(find<QLabel>("reportStatus")->text().contains(bad));
    QVERIFY(find<QRadioButton>("reportFromAblation")->isChecked());

    QVERIFY(page().loadResultsFile(benchData("results-fixture.json")).ok());
    QVERIFY(find<QRadioButton>("reportFromFile")->isChecked());
    QCOMPARE(page().reportResults().configurations.size(), std::size_t{4});
    find<QRadioButton>("reportFromAblation")->setChecked(true);
    QVERIFY(page().reportResults().configurations.empty());
  }

  void mainWindowCarriesAblationResultsToReports() {
    page_.reset();
    tb::ui::MainWindow window(tb::ui::test::fixtureCatalog(), {});
    using tb::ui::test::child;
    auto* reports = child<tb::ui::ReportsPage>(&window, "reportsPage");
    auto* optimizations = child<tb::ui::OptimizationsPage>(&window, "optimizationsPage");
    auto* ablation = child<tb::ui::AblationPage>(&window, "ablationPage");
    QVERIFY(window.sidebarPageIds().contains(QStringLiteral("ablation")));
    QVERIFY(window.sidebarPageIds().contains(QStringLiteral("reports")));
    QVERIFY(reports->reportResults().configurations.empty());
    QVERIFY(ablation->addResultsFile(benchData("results-fixture.json")).ok());
    QCOMPARE(reports->reportResults().configurations.size(), std::size_t{4});
    QVERIFY(window.showPage(QStringLiteral("reports")));
    // The image release is the one the Optimizations page configures.
    QVERIFY(!optimizations->releaseTag().isEmpty());
    QCOMPARE(child<QLineEdit>(reports, "reportImageTag")->text(), optimizations->releaseTag());
  }
};

TB_UI_TEST_MAIN(ReportsPageTest)
#include "reports_page_test.moc"
