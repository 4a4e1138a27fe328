// The four ablation charts against the results fixture (four engine
// configurations) plus the two cluster fixtures (an 8-GPU chain in tokens/s
// per GPU and a 64-GPU chain in TFLOP/s per GPU). Expected values are
// computed here from the fixture's own numbers, never typed in, so a change
// to the fixture cannot make these tests pass by accident.
#include <QFile>
#include <QPalette>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cmath>

#include "plotting/ablation_charts.h"
#include "plotting/ablation_report_charts.h"
#include "plotting/chart_export.h"
#include "tb/bench/ablation.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/bench/results.hpp"

namespace {

using tb::bench::AblationResults;
using tb::bench::ResultSource;

const QString kData = QStringLiteral(TB_TEST_DATA_DIR "/bench/");

AblationResults engineResults() {
  const QString path = kData + QStringLiteral("results-fixture.json");
  auto results = tb::bench::loadResults(path.toStdString());
  if (!results) qFatal("fixture: %s", results.error().message.c_str());
  return *results;
}

AblationResults withClusterRuns() {
  AblationResults results = engineResults();
  for (const char* name : {"cluster-good.csv", "cluster-good.json"}) {
    const QString path = kData + QLatin1String(name);
    auto imported = tb::bench::importClusterResults(path.toStdString());
    if (!imported) qFatal("fixture: %s", imported.error().message.c_str());
    for (auto& config : *imported) results.configurations.push_back(std::move(config));
  }
  return results;
}

const tb::bench::ConfigurationResult& config(const AblationResults& results, int chain,
                                             ResultSource source, const std::string& model) {
  for (const auto& candidate : results.configurations) {
    const auto step = tb::bench::parseAblationLabel(candidate.label);
    if (step && tb::bench::chainIndex(*step) == chain && candidate.source == source &&
        candidate.model == model) {
      return candidate;
    }
  }
  qFatal("no configuration %d of %s", chain, model.c_str());
}

QVector<tb::plotting::AblationBar> barsOf(const QVector<tb::plotting::AblationBar>& bars,
                                          const QString& seriesPrefix) {
  QVector<tb::plotting::AblationBar> found;
  for (const auto& bar : bars) {
    if (bar.series.startsWith(seriesPrefix)) found.append(bar);
  }
  return found;
}

QPalette darkPalette() {
  QPalette palette;
  palette.setColor(QPalette::Window, QColor(30, 30, 34));
  palette.setColor(QPalette::Base, QColor(24, 24, 28));
  palette.setColor(QPalette::Text, QColor(235, 235, 235));
  palette.setColor(QPalette::WindowText, QColor(235, 235, 235));
  return palette;
}

bool parsesAsXml(const QByteArray& bytes) {
  QXmlStreamReader reader(bytes);
  bool sawSvg = false;
  while (!reader.atEnd()) {
    if (reader.readNext() == QXmlStreamReader::StartElement && reader.name() == u"svg") {
      sawSvg = true;
    }
  }
  return !reader.hasError() && sawSvg;
}

}  // namespace

class AblationChartsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void throughputIsNormalisedToEachSeriesBase() {
    const AblationResults results = withClusterRuns();
    tb::plotting::AblationThroughputChart chart;
    chart.resize(900, 500);
    chart.setResults(results);
    QVERIFY(chart.isNormalised());
    QCOMPARE(chart.seriesNames().size(), 3);
    QCOMPARE(chart.bars().size(), 12);
    for (const QString& prefix : {QStringLiteral("engine"), QStringLiteral("cluster · llama3-8b"),
                                  QStringLiteral("cluster · llama3-70b")}) {
      const auto bars = barsOf(chart.bars(), prefix);
      QCOMPARE(bars.size(), 4);
      QCOMPARE(bars.at(0).chainIndex, 0);
      QCOMPARE(bars.at(0).value, 1.0);  // Base = 1.0
      QCOMPARE(bars.at(0).speedup, 1.0);
    }
    const auto engine = barsOf(chart.bars(), QStringLiteral("engine"));
    const auto& base = config(results, 0, ResultSource::Engine, "small");
    const auto& ckpt = config(results, 3, ResultSource::Engine, "small");
    QVERIFY(std::abs(engine.at(3).value - ckpt.throughput.median / base.throughput.median) < 1e-12);
    QVERIFY(std::abs(engine.at(3).low - ckpt.throughput.min / base.throughput.median) < 1e-12);
    QVERIFY(std::abs(engine.at(3).high - ckpt.throughput.max / base.throughput.median) < 1e-12);
    QVERIFY(engine.at(3).low < engine.at(3).value && engine.at(3).value < engine.at(3).high);
    // The cluster chain is divided by its own Base, not by the engine's.
    const auto cluster = barsOf(chart.bars(), QStringLiteral("cluster · llama3-70b"));
    const double clusterSpeedup = config(results, 3, ResultSource::Cluster, "llama3-70b")
                                      .throughput.median /
                                  config(results, 0, ResultSource::Cluster, "llama3-70b")
                                      .throughput.median;
    QVERIFY(std::abs(cluster.at(3).value - clusterSpeedup) < 1e-12);
  }

  void toggleSwitchesToAbsoluteThroughput() {
    const AblationResults results = withClusterRuns();
    tb::plotting::AblationThroughputChart chart;
    chart.setResults(results);
    int signalled = 0;
    bool lastValue = true;
    connect(&chart, &tb::plotting::AblationThroughputChart::normalisedChanged, this,
            [&](bool normalised) {
              ++signalled;
              lastValue = normalised;
            });
    chart.setNormalised(false);
    QCOMPARE(signalled, 1);
    QVERIFY(!lastValue);
    const auto engine = barsOf(chart.bars(), QStringLiteral("engine"));
    QCOMPARE(engine.size(), 4);
    for (int chain = 0; chain < 4; ++chain) {
      const auto& expected = config(results, chain, ResultSource::Engine, "small");
      QCOMPARE(engine.at(chain).value, expected.throughput.median);
      QCOMPARE(engine.at(chain).high, expected.throughput.max);
    }
    // The speedup written on the bar stays the one over Base.
    QCOMPARE(engine.at(0).speedup, 1.0);
    // tokens/s and TFLOP/s/gpu are not drawn against one axis.
    QVERIFY(chart.yAxis2->visible());
    QVERIFY(chart.yAxis2->label().contains(QStringLiteral("TFLOP/s/gpu")));
    chart.setNormalised(false);
    QCOMPARE(signalled, 1);  // no change, no signal
    chart.setNormalised(true);
    QCOMPARE(barsOf(chart.bars(), QStringLiteral("engine")).at(0).value, 1.0);
    QVERIFY(!chart.yAxis2->visible());
  }

  void hoverNamesTheBarUnderTheMouse() {
    tb::plotting::AblationThroughputChart chart;
    chart.resize(800, 500);
    chart.setResults(engineResults());
    chart.replot(QCustomPlot::rpImmediateRefresh);
    const auto& ckpt = chart.bars().at(3);
    const double key = 3.0;  // one series: the bar is centred on its chain position
    const QPointF inside(chart.xAxis->coordToPixel(key), chart.yAxis->coordToPixel(ckpt.value / 2));
    const QString tip = chart.toolTipAt(inside);
    QVERIFY2(tip.contains(QStringLiteral("AC2+CompilerOpt+CkptOpt")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("860 tokens/s")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("2.10")), qPrintable(tip));
    const QPointF between(chart.xAxis->coordToPixel(2.5), chart.yAxis->coordToPixel(0.5));
    QVERIFY(chart.toolTipAt(between).isEmpty());
  }

  void peakMemoryHasOneBarPerConfiguration() {
    const AblationResults results = withClusterRuns();
    tb::plotting::PeakMemoryChart chart;
    chart.setResults(results);
    int expected = 0;
    for (const auto& c : results.configurations) expected += c.peakBytes > 0 ? 1 : 0;
    QCOMPARE(chart.bars().size(), expected);
    const auto engine = barsOf(chart.bars(), QStringLiteral("engine"));
    QCOMPARE(engine.size(), 4);
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const auto peak = config(results, 3, ResultSource::Engine, "small").peakBytes;
    QCOMPARE(engine.at(3).value, static_cast<double>(peak) / gib);
  }

  void stepTimesGiveBoxesWithQuartiles() {
    const AblationResults results = withClusterRuns();
    tb::plotting::StepTimeChart chart;
    chart.setResults(results);
    // Engine runs keep every step; the CSV import has step times; the JSON import has none.
    QCOMPARE(chart.seriesNames().size(), 2);
    QCOMPARE(chart.boxes().size(), 8);
    const auto& box = chart.boxes().at(0);
    const auto& base = config(results, 0, ResultSource::Engine, "small");
    QCOMPARE(box.samples, static_cast<int>(base.stepTimes.size()));
    QCOMPARE(box.minimum, *std::min_element(base.stepTimes.begin(), base.stepTimes.end()));
    QCOMPARE(box.maximum, *std::max_element(base.stepTimes.begin(), base.stepTimes.end()));
    QVERIFY(box.lowerQuartile <= box.median && box.median <= box.upperQuartile);
  }

  void lossCurvesAreOverlaid() {
    const AblationResults results = withClusterRuns();
    tb::plotting::LossCurvesChart chart;
    chart.setResults(results);
    int withCurves = 0;
    for (const auto& c : results.configurations) withCurves += c.lossCurve.empty() ? 0 : 1;
    QCOMPARE(withCurves, 4);
    QCOMPARE(chart.graphCount(), withCurves);
    QVERIFY(chart.curveNames().contains(QStringLiteral("AC2 (engine · small)")));
    QCOMPARE(chart.graph(0)->dataCount(),
             static_cast<int>(config(results, 0, ResultSource::Engine, "small").lossCurve.size()));
  }

  void emptyResultsShowAMessageNotACrash() {
    tb::plotting::AblationThroughputChart throughput;
    tb::plotting::StepTimeChart steps;
    QVERIFY(throughput.bars().isEmpty());
    QVERIFY(steps.boxes().isEmpty());
    QCOMPARE(throughput.itemCount(), 1);  // the "No results loaded" message
    throughput.setResults(engineResults());
    throughput.setResults({});
    QVERIFY(throughput.bars().isEmpty());
    QVERIFY(throughput.toolTipAt(QPointF(10, 10)).isEmpty());
  }

  void darkPaletteRebuildsWithLightText() {
    tb::plotting::AblationThroughputChart chart;
    chart.setResults(engineResults());
    chart.setPalette(darkPalette());
    QVERIFY(chart.xAxis->tickLabelColor().lightnessF() > 0.8);
    QCOMPARE(chart.bars().size(), 4);  // rebuilt, not emptied
  }

  void exportWritesPngAndSvg() {
    QTemporaryDir dir;
    tb::plotting::AblationThroughputChart chart;
    chart.resize(640, 400);
    chart.setResults(withClusterRuns());
    const QString png = dir.filePath(QStringLiteral("throughput.png"));
    const QString svg = dir.filePath(QStringLiteral("throughput.svg"));
    QVERIFY(tb::plotting::exportChart(chart, png));
    QVERIFY(tb::plotting::exportChart(chart, svg));
    QFile pngFile(png);
    QVERIFY(pngFile.open(QIODevice::ReadOnly));
    QVERIFY(pngFile.readAll().startsWith("\x89PNG\r\n\x1a\n"));
    QFile svgFile(svg);
    QVERIFY(svgFile.open(QIODevice::ReadOnly));
    QVERIFY(parsesAsXml(svgFile.readAll()));
  }

  void reportChartsAreFourSvgDocuments() {
    const auto charts = tb::plotting::renderAblationCharts(withClusterRuns(), QSize(720, 420));
    QCOMPARE(charts.size(), std::size_t{4});
    for (const auto& chart : charts) {
      QCOMPARE(chart.mimeType, std::string("image/svg+xml"));
      QVERIFY(!chart.title.empty());
      QVERIFY2(parsesAsXml(QByteArray::fromStdString(chart.data)), chart.title.c_str());
    }
  }

  void reportChartsLeaveOutChartsWithNothingToShow() {
    AblationResults results = engineResults();
    for (auto& c : results.configurations) {
      c.lossCurve.clear();
      c.stepTimes.clear();
      c.stepTimeS = {};
    }
    const auto charts = tb::plotting::renderAblationCharts(results, QSize(600, 400));
    QCOMPARE(charts.size(), std::size_t{2});  // throughput and memory
  }
};

QTEST_MAIN(AblationChartsTest)
#include "ablation_charts_test.moc"
