// `trainbench report --format html` run as users run it on a cluster login
// node: the real binary, no display and no QT_QPA_PLATFORM, so the command
// itself must pick the offscreen platform. The charts must arrive inside the
// HTML as SVG (the page is self-contained), one per chart with data.
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include "tb/bench/results.hpp"

namespace {

const QString kData = QStringLiteral(TB_TEST_DATA_DIR "/bench/");

struct Run {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
};

Run runTrainbench(const QStringList& arguments) {
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
    environment.remove(QLatin1String(name));
  }
  QProcess process;
  process.setProcessEnvironment(environment);
  process.start(QStringLiteral(TB_TRAINBENCH_BINARY), arguments);
  Run run;
  if (!process.waitForFinished(120000)) return run;
  run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  run.out = process.readAllStandardOutput();
  run.err = process.readAllStandardError();
  return run;
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The SVG documents embedded as data: URLs, decoded.
QList<QByteArray> embeddedSvgs(const QByteArray& html) {
  static const QRegularExpression dataUrl(
      QStringLiteral(R"re(src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)")re"));
  QList<QByteArray> svgs;
  auto matches = dataUrl.globalMatch(QString::fromUtf8(html));
  while (matches.hasNext()) {
    svgs.append(QByteArray::fromBase64(matches.next().captured(1).toLatin1()));
  }
  return svgs;
}

// The fixture changed by `edit`, saved into `dir` as `name`.
template <typename Edit>
QString editedFixture(const QTemporaryDir& dir, const QString& name, Edit edit) {
  const QString fixture = kData + QStringLiteral("results-fixture.json");
  auto results = tb::bench::loadResults(fixture.toStdString());
  if (!results) qFatal("fixture: %s", results.error().message.c_str());
  edit(*results);
  const QString path = dir.filePath(name);
  if (!tb::bench::saveResults(path.toStdString(), *results).ok()) {
    qFatal("cannot save %s", qPrintable(path));
  }
  return path;
}

}  // namespace

class AblationReportCliTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void htmlReportEmbedsSvgChartsWithoutADisplay() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("report.html"));
    const Run run = runTrainbench(
        {QStringLiteral("report"), QStringLiteral("--in"),
         kData + QStringLiteral("results-fixture.json"), QStringLiteral("--import"),
         kData + QStringLiteral("cluster-good.csv"), QStringLiteral("--format"),
         QStringLiteral("html"), QStringLiteral("--out"), out, QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("\"charts\": 4"), run.out.constData());
    const QByteArray html = readAll(out);
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    const QList<QByteArray> svgs = embeddedSvgs(html);
    QCOMPARE(svgs.size(), 4);
    for (const QByteArray& svg : svgs) {
      QVERIFY(svg.contains("<svg"));
      QXmlStreamReader reader(svg);
      while (!reader.atEnd()) reader.readNext();
      QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    }
    QVERIFY(!html.contains("No charts"));
  }

  // Regression: the note was spliced in before </body> by string surgery.
  void htmlReportSaysInItsChartsSectionWhyItHasNone() {
    QTemporaryDir dir;
    const QString in = editedFixture(dir, QStringLiteral("nothing.json"),
                                     [](auto& results) { results.configurations.clear(); });
    const QString out = dir.filePath(QStringLiteral("report.html"));
    const Run run = runTrainbench(
        {QStringLiteral("report"), QStringLiteral("--in"), in, QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QByteArray note = "No charts: these results hold nothing to chart.";
    QVERIFY2(run.out.contains(note), run.out.constData());
    const QByteArray html = readAll(out);
    const QByteArray section = "<h2>Charts</h2>\n<p class=\"note\">" + note + "</p>\n</body>";
    QVERIFY2(html.contains(section), html.constData());
    QCOMPARE(html.count("<h2>Charts</h2>"), 1);
  }

  void aPartialResultsFileIsSaidSoInTheReport() {
    QTemporaryDir dir;
    const QString in = editedFixture(dir, QStringLiteral("partial.json"), [](auto& results) {
      results.complete = false;
      results.plannedRuns = 12;
      results.completedRuns = 7;
    });
    const QString out = dir.filePath(QStringLiteral("report.html"));
    const Run run = runTrainbench(
        {QStringLiteral("report"), QStringLiteral("--in"), in, QStringLiteral("--out"), out});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("The results are partial: 7 of 12 runs completed."),
             run.out.constData());
    QVERIFY(readAll(out).contains(
        "<p class=\"partial\"><strong>partial: 7 of 12 runs completed</strong>"));
  }

  void otherFormatsDoNotDrawCharts() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("report.md"));
    const Run run = runTrainbench({QStringLiteral("report"), QStringLiteral("--in"),
                                   kData + QStringLiteral("results-fixture.json"),
                                   QStringLiteral("--out"), out, QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("\"charts\": 0"), run.out.constData());
    QVERIFY(!readAll(out).contains("data:image/svg"));
  }
};

QTEST_GUILESS_MAIN(AblationReportCliTest)
#include "ablation_report_cli_test.moc"
