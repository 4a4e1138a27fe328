// The chart theme and export shared by every page's charts: the theme must
// follow the palette, and export must produce real files of each format and
// refuse bad paths without leaving anything behind.
#include <QFile>
#include <QPalette>
#include <QTemporaryDir>
#include "plotting/qcustomplot_include.h"

#include "plotting/chart_export.h"
#include "plotting/chart_theme.h"
#include "ui_test_support.h"

namespace {

QPalette paletteWithBase(const QColor& base, const QColor& text) {
  QPalette palette;
  palette.setColor(QPalette::Base, base);
  palette.setColor(QPalette::Text, text);
  return palette;
}

void fillPlot(QCustomPlot& plot) {
  plot.resize(400, 300);
  QCPGraph* graph = plot.addGraph();
  QVector<double> x;
  QVector<double> y;
  for (int i = 0; i < 50; ++i) {
    x.append(i);
    y.append(6.0 * std::exp(-0.05 * i));
  }
  graph->setData(x, y);
  plot.rescaleAxes();
}

QByteArray fileBytes(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return file.readAll();
}

}  // namespace

class ChartExportTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void darkPaletteGivesDarkTheme() {
    const auto theme =
        tb::plotting::themeForPalette(paletteWithBase(QColor(20, 20, 24), Qt::white));
    QVERIFY(theme.dark);
    QCOMPARE(theme.foreground, QColor(Qt::white));
    const auto light = tb::plotting::themeForPalette(paletteWithBase(Qt::white, Qt::black));
    QVERIFY(!light.dark);
    // Dark series colours are lightened so they stay readable on black.
    QVERIFY(theme.series.at(0).lightnessF() > light.series.at(0).lightnessF());
  }

  void seriesColorsCycleAndDiffer() {
    const auto theme = tb::plotting::themeForPalette(paletteWithBase(Qt::white, Qt::black));
    QVERIFY(tb::plotting::seriesColor(theme, 0) != tb::plotting::seriesColor(theme, 1));
    const auto count = static_cast<int>(theme.series.size());
    QCOMPARE(tb::plotting::seriesColor(theme, count + 1), tb::plotting::seriesColor(theme, 1));
    QCOMPARE(tb::plotting::seriesColor(theme, -1), tb::plotting::seriesColor(theme, count - 1));
  }

  void applyThemeColoursTheAxes() {
    QCustomPlot plot;
    const auto theme =
        tb::plotting::themeForPalette(paletteWithBase(QColor(10, 10, 10), Qt::white));
    tb::plotting::applyTheme(plot, theme);
    QCOMPARE(plot.xAxis->tickLabelColor(), theme.foreground);
    QCOMPARE(plot.axisRect()->backgroundBrush().color(), theme.background);
  }

  void exportsEachFormat_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("magic");
    QTest::newRow("png") << QStringLiteral("chart.png") << QByteArray("\x89PNG");
    QTest::newRow("svg") << QStringLiteral("chart.SVG") << QByteArray("<?xml");
    QTest::newRow("pdf") << QStringLiteral("chart.pdf") << QByteArray("%PDF");
  }

  void exportsEachFormat() {
    QFETCH(QString, name);
    QFETCH(QByteArray, magic);
    QTemporaryDir dir;
    QCustomPlot plot;
    fillPlot(plot);
    const QString path = dir.filePath(name);
    const tb::Status status = tb::plotting::exportChart(plot, path);
    QVERIFY2(status.ok(), status ? "" : status.error().message.c_str());
    const QByteArray bytes = fileBytes(path);
    QVERIFY2(bytes.startsWith(magic), bytes.left(16).constData());
    QVERIFY(bytes.size() > 500);
  }

  void unknownSuffixIsRefusedNamingThePath() {
    QTemporaryDir dir;
    QCustomPlot plot;
    fillPlot(plot);
    const QString path = dir.filePath(QStringLiteral("chart.bmpx"));
    const tb::Status status = tb::plotting::exportChart(plot, path);
    QVERIFY(!status.ok());
    QCOMPARE(status.error().kind, tb::ErrorKind::BadInput);
    QVERIFY(QString::fromStdString(status.error().message).contains(QStringLiteral("chart.bmpx")));
    QVERIFY(!QFile::exists(path));
  }

  void unwritableDirectoryFailsAndKeepsNothing() {
    QTemporaryDir dir;
    QCustomPlot plot;
    fillPlot(plot);
    const QString path = dir.filePath(QStringLiteral("missing/chart.png"));
    const tb::Status status = tb::plotting::exportChart(plot, path);
    QVERIFY(!status.ok());
    QCOMPARE(status.error().kind, tb::ErrorKind::Io);
    QVERIFY(QString::fromStdString(status.error().message).contains(QStringLiteral("missing")));
    QVERIFY(!QFile::exists(path));
  }

 private:
  tb::ui::test::TestSandbox sandbox_;
};

TB_UI_TEST_MAIN(ChartExportTest)
#include "chart_export_test.moc"
