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

#include <algorithm>
#include <cmath>

#include "plotting/ablation_charts.h"
#include "plotting/ablation_report_charts.h"
#include "plotting/ablation_series.h"
#include "plotting/chart_export.h"
#include "plotting/legend_key_item.h"
#include "tb/bench/ablation.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/bench/results.hpp"
#include "tb/common/units.hpp"

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
    const double clusterSpeedup =
        config(results, 3, ResultSource::Cluster, "llama3-70b").throughput.median /
        config(results, 0, ResultSource::Cluster, "llama3-70b").throughput.median;
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
    const auto peak = config(results, 3, ResultSource::Engine, "small").peakBytes;
    QCOMPARE(engine.at(3).value, static_cast<double>(peak) / tb::kGiB);
  }

  // Regression: engine bars (MiB of CPU memory) shared one axis with cluster
  // bars (tens of GiB per GPU) and were invisible; the budget's label sat on bars.
  void peakMemoryGivesEngineAndClusterAnAxisEach() {
    const AblationResults results = withClusterRuns();
    tb::plotting::PeakMemoryChart chart;
    chart.resize(900, 500);
    chart.setResults(results);
    chart.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(chart.yAxis2->visible());
    QVERIFY2(chart.yAxis->label().startsWith(QStringLiteral("Engine")),
             qPrintable(chart.yAxis->label()));
    QVERIFY2(chart.yAxis2->label().contains(QStringLiteral("Cluster, per GPU (GiB)")),
             qPrintable(chart.yAxis2->label()));
    const int plotHeight = chart.axisRect()->height();
    int engineBars = 0;
    int clusterBars = 0;
    for (int index = 0; index < chart.plottableCount(); ++index) {
      const auto* bars = qobject_cast<QCPBars*>(chart.plottable(index));
      if (bars == nullptr) continue;
      const bool engine = bars->name().startsWith(QStringLiteral("engine"));
      QCOMPARE(bars->valueAxis(), engine ? chart.yAxis : chart.yAxis2);
      double tallest = 0.0;
      for (auto point = bars->data()->constBegin(); point != bars->data()->constEnd(); ++point) {
        tallest = std::max(tallest, point->value);
      }
      const double pixels =
          bars->valueAxis()->coordToPixel(0.0) - bars->valueAxis()->coordToPixel(tallest);
      // Each kind's tallest bar fills most of the plot on its own axis.
      QVERIFY2(pixels > 0.6 * plotHeight, qPrintable(bars->name()));
      ++(engine ? engineBars : clusterBars);
    }
    QCOMPARE(engineBars, 1);
    QCOMPARE(clusterBars, 2);

    // The budget is a legend entry on the engine axis, not a text among the bars.
    const QCPGraph* budget = nullptr;
    for (int index = 0; index < chart.graphCount(); ++index) {
      if (chart.graph(index)->name().contains(QStringLiteral("memory budget"))) {
        budget = chart.graph(index);
      }
    }
    QVERIFY(budget != nullptr);
    QCOMPARE(budget->valueAxis(), chart.yAxis);
    QVERIFY(chart.legend->hasItemWithPlottable(budget));
    QVERIFY(budget->data()->constBegin()->value < chart.yAxis->range().upper);
    // Three series leave bars too narrow for values: no text is drawn on them.
    QCOMPARE(chart.itemCount(), 0);

    // Hover over a bar on the right axis names it in GiB per GPU.
    const auto cluster = barsOf(chart.bars(), QStringLiteral("cluster · llama3-8b"));
    QCOMPARE(cluster.size(), 4);
    const QPointF inside(chart.xAxis->coordToPixel(tb::plotting::seriesKey(0, 1, 3)),
                         chart.yAxis2->coordToPixel(cluster.at(0).value / 2));
    const QString tip = chart.toolTipAt(inside);
    QVERIFY2(tip.contains(QStringLiteral("GiB per GPU")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("llama3-8b")), qPrintable(tip));
  }

  void peakMemoryOfSmallEngineRunsIsInMiB() {
    AblationResults results = engineResults();
    for (auto& c : results.configurations) c.peakBytes = 244u << 20u;
    results.memoryBudgetBytes = 337u << 20u;
    tb::plotting::PeakMemoryChart chart;
    chart.setResults(results);
    QVERIFY(!chart.yAxis2->visible());
    QCOMPARE(chart.yAxis->label(), QStringLiteral("Peak (MiB)"));
    QVERIFY(chart.yAxis->range().upper > 337.0 && chart.yAxis->range().upper < 450.0);
    QCOMPARE(chart.bars().at(0).value, 244.0 / 1024.0);  // bars() stay in GiB
    QCOMPARE(chart.itemCount(), 4);                      // one value per bar, with its unit
    const auto* text = qobject_cast<QCPItemText*>(chart.item(0));
    QVERIFY(text != nullptr);
    QCOMPARE(text->text(), QStringLiteral("244 MiB"));
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

  // Regression: one legend entry per curve with names like
  // "AC2+CompilerOpt+CkptOpt (cluster · llama3-70b · 64 GPUs)" ran off the chart.
  void lossLegendFitsTheChartAndNamesKeysInFull() {
    AblationResults results = engineResults();
    const std::size_t engineCount = results.configurations.size();
    for (std::size_t index = 0; index < engineCount; ++index) {
      auto copy = results.configurations.at(index);
      copy.source = ResultSource::Cluster;
      copy.model = "llama3-70b-instruct, sequence 8192, run 2026-11-28 on the big partition";
      copy.gpus = 64;
      copy.throughputUnit = "tokens/s/gpu";
      results.configurations.push_back(copy);
    }
    tb::plotting::LossCurvesChart chart;
    chart.resize(360, 300);
    chart.setResults(results);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot(QCustomPlot::rpImmediateRefresh);
    QCOMPARE(chart.graphCount(), 8);
    const tb::plotting::LegendKeyItem* longKey = nullptr;
    int keys = 0;
    for (int index = 0; index < chart.legend->itemCount(); ++index) {
      const QCPAbstractLegendItem* item = chart.legend->item(index);
      if (item == nullptr) continue;  // an empty cell of the wrapped grid
      ++keys;
      QVERIFY2(item->outerRect().left() >= 0 && item->outerRect().right() <= chart.width(),
               qPrintable(QStringLiteral("legend entry %1 runs off the chart").arg(index)));
      const auto* key = qobject_cast<const tb::plotting::LegendKeyItem*>(item);
      QVERIFY(key != nullptr);
      if (key->fullText().contains(QStringLiteral("big partition"))) longKey = key;
    }
    QCOMPARE(keys, 4 + 2);  // four colours, two dashes
    QVERIFY(longKey != nullptr);
    QVERIFY(longKey->shownText().contains(QChar(0x2026)));  // elided …
    const QString tip = chart.toolTipAt(longKey->outerRect().center());
    QVERIFY2(tip.contains(longKey->fullText()), qPrintable(tip));
    // A curve's hover names it in full as well.
    QVERIFY(chart.curveNames().contains(QString::fromStdString(
        "AC2 (cluster · " + results.configurations.back().model + " · 64 GPUs)")));
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

  void anEmptyChartKeepsItsWholePlotArea() {
    // An empty legend used to size the layout's column to its own few
    // pixels: the plot shrank to a sliver, its category labels overlapping.
    tb::plotting::AblationThroughputChart empty;
    empty.resize(600, 320);
    empty.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY2(empty.axisRect()->width() > 450,
             qPrintable(QString::number(empty.axisRect()->width())));
    QVERIFY(!empty.legend->visible());
    // With results the legend comes back below the plot, and goes again.
    empty.setResults(engineResults());
    empty.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(empty.legend->visible());
    QVERIFY(empty.axisRect()->width() > 450);
    empty.setResults({});
    empty.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(empty.axisRect()->width() > 450);
  }

  void stepNamesTakeTwoLinesWhereOneDoesNotFit() {
    // A quarter of a 1280 px window: "+CompilerOpt" printed over "+CkptOpt".
    tb::plotting::AblationThroughputChart chart;
    chart.setResults(engineResults());
    chart.resize(320, 260);
    chart.show();  // a hidden widget gets its resize event only when shown
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(chart.chainLabelsWrapped());
    const auto ticker = chart.xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(ticker->ticks().value(2), QStringLiteral("+Compiler\nOpt"));
    // Given room, one line again; and no label wider than its category.
    chart.resize(1100, 400);
    QTRY_COMPARE(chart.width(), 1100);
    chart.replot(QCustomPlot::rpImmediateRefresh);
    QVERIFY(!chart.chainLabelsWrapped());
    QCOMPARE(ticker->ticks().value(2), QStringLiteral("+CompilerOpt"));
    const QFontMetrics metrics(chart.xAxis->tickLabelFont());
    const double share = chart.axisRect()->width() / chart.xAxis->range().size();
    for (const QString& label : ticker->ticks())
      QVERIFY2(metrics.horizontalAdvance(label) < share, qPrintable(label));
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
    const auto drawn = tb::plotting::renderAblationCharts(withClusterRuns(), QSize(720, 420));
    QCOMPARE(drawn.charts.size(), std::size_t{4});
    QVERIFY(drawn.note.empty());
    for (const auto& chart : drawn.charts) {
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
    const auto drawn = tb::plotting::renderAblationCharts(results, QSize(600, 400));
    QCOMPARE(drawn.charts.size(), std::size_t{2});  // throughput and memory
    QVERIFY(drawn.note.empty());
  }

  void reportChartsSayWhyThereAreNone() {
    AblationResults results = engineResults();
    results.configurations.clear();
    const auto drawn = tb::plotting::renderAblationCharts(results, QSize(600, 400));
    QVERIFY(drawn.charts.empty());
    QVERIFY2(drawn.note.find("nothing to chart") != std::string::npos, drawn.note.c_str());
  }
};

QTEST_MAIN(AblationChartsTest)
#include "ablation_charts_test.moc"
