// The Memory page against core/memory itself: every number the page shows
// (breakdown total, curve, recommended point, smallest budget) is compared
// with a prediction or plan made here directly from tb::memory for the same
// inputs, so the page can neither drift from the CLI nor hard-code a result.
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include "plotting/breakdown_bar_chart.h"
#include "plotting/chart_export.h"
#include "plotting/tradeoff_chart.h"
#include "tb/common/units.hpp"
#include "tb/memory/planner.hpp"
#include "ui/data_size.h"
#include "ui/memory/breakdown_table_model.h"
#include "ui/memory/curve_table_model.h"
#include "ui/memory/memory_inputs_form.h"
#include "ui/memory/memory_page.h"
#include "ui/memory/memory_summary_banner.h"
#include "ui/memory/memory_view.h"
#include "ui/studio_settings.h"
#include "ui_test_support.h"

namespace {

// nvidia-smi's totals for an H100 80GB and an RTX 4090.
constexpr auto kH100Bytes = static_cast<std::uint64_t>(81559 * tb::kMiB);
constexpr auto kRtx4090Bytes = static_cast<std::uint64_t>(24564 * tb::kMiB);

// llama3-8b, 8k tokens, one sequence, 8-way DP with ZeRO-1, bf16 on Megatron.
tb::ui::MemoryPageInputs llamaOnH100() {
  tb::ui::MemoryPageInputs in = tb::ui::withPresetShape({}, QStringLiteral("llama3-8b"));
  in.seq = 8192;
  in.batch = 1;
  in.dp = 8;
  in.zero = 1;
  in.flashAttention = true;
  in.dtype = QStringLiteral("bf16");
  in.profile = QStringLiteral("megatron");
  in.recompute = QStringLiteral("none");
  in.card = QStringLiteral("H100 80GB");
  return in;
}

// The same job built from the core's own API, not from the page's conversion.
tb::memory::PredictionInput coreInput(std::int64_t layers = 32, std::int64_t vocab = 128256) {
  auto model = tb::model::findPreset("llama3-8b");
  tb::model::ModelOverrides overrides;
  overrides.seq = 8192;
  overrides.batch = 1;
  if (layers != model->layers) overrides.layers = layers;
  if (vocab != model->vocab) overrides.vocab = vocab;
  tb::memory::PredictionInput input;
  input.model = tb::model::applyOverrides(*model, overrides);
  input.parallel.dp = 8;
  input.parallel.zero = 1;
  input.parallel.flashAttention = true;
  input.parallel.dtype = tb::memory::DType::Bf16;
  input.profile = tb::memory::Profile::Megatron;
  return input;
}

}  // namespace

class MemoryPageTest : public QObject {
  Q_OBJECT

 private:
  tb::ui::test::TestSandbox sandbox_;
  std::unique_ptr<tb::ui::StudioSettings> settings_;
  std::unique_ptr<tb::ui::MemoryPage> page_;

  template <class T>
  T* find(const char* name) {
    return tb::ui::test::child<T>(page_.get(), name);
  }
  tb::ui::MemoryInputsForm* form() { return find<tb::ui::MemoryInputsForm>("memoryInputsForm"); }
  tb::ui::MemorySummaryBanner* summary() {
    return find<tb::ui::MemorySummaryBanner>("memorySummary");
  }
  tb::plotting::BreakdownBarChart* breakdownChart() {
    return find<tb::plotting::BreakdownBarChart>("breakdownBarChart");
  }
  tb::plotting::TradeoffChart* tradeoffChart() {
    return find<tb::plotting::TradeoffChart>("tradeoffChart");
  }
  QPushButton* useRecommendationButton() { return find<QPushButton>("useRecommendationButton"); }

  void show(const tb::ui::MemoryPageInputs& inputs) {
    form()->setInputs(inputs);
    QVERIFY(page_->isBusy());
    QTRY_VERIFY_WITH_TIMEOUT(!page_->isBusy(), 20000);
  }

 private Q_SLOTS:
  void init() {
    tb::ui::test::clearStudioSettings();
    settings_ = std::make_unique<tb::ui::StudioSettings>();
    page_ = std::make_unique<tb::ui::MemoryPage>(*settings_);
    page_->resize(1400, 900);
  }

  void cleanup() {
    page_.reset();
    settings_.reset();
  }

  void breakdownTotalMatchesThePredictor() {
    show(llamaOnH100());
    const auto prediction = tb::memory::predictMemory(coreInput());
    QVERIFY(prediction.ok());
    const auto expected = static_cast<double>(prediction->totalBytes);
    QCOMPARE(page_->view().prediction.totalBytes, prediction->totalBytes);
    QCOMPARE(page_->breakdownModel()->totalBytes(), expected);
    QCOMPARE(breakdownChart()->totalBytes(), expected);
    QCOMPARE(breakdownChart()->capacityBytes(), static_cast<double>(kH100Bytes));
    // Every non-zero term of the predictor is a segment of the bar.
    QVERIFY(breakdownChart()->segmentNames().contains(QStringLiteral("Activations")));
    QVERIFY(breakdownChart()->segmentNames().contains(QStringLiteral("Optimizer state")));
    // The last row is the total, and the hover text of the first segment names it.
    const auto* model = page_->breakdownModel();
    QCOMPARE(model
                 ->data(model->index(model->rowCount() - 1, tb::ui::BreakdownTableModel::Size),
                        tb::ui::BreakdownTableModel::ValueRole)
                 .toDouble(),
             expected);
    const auto* chart = breakdownChart();
    const QPointF firstSegment(chart->xAxis->coordToPixel(1.0), chart->yAxis->coordToPixel(1.0));
    QVERIFY2(chart->toolTipAt(firstSegment).startsWith(QStringLiteral("Weights")),
             qPrintable(chart->toolTipAt(firstSegment)));
  }

  void curveAndRecommendationMatchThePlanner() {
    show(llamaOnH100());
    const auto plan = tb::memory::planRecompute(coreInput(), kH100Bytes);
    QVERIFY(plan.ok());
    QVERIFY(plan->fits);
    const auto* chart = tradeoffChart();
    QCOMPARE(chart->pointCount(), static_cast<int>(plan->curve.size()));
    QCOMPARE(chart->pointCount(), 33);              // K = 0..32
    QCOMPARE(page_->curveModel()->rowCount(), 34);  // and selective or the off-curve choice
    for (std::size_t i = 0; i < plan->curve.size(); ++i) {
      QCOMPARE(chart->data().curve.at(static_cast<qsizetype>(i)).peakBytes,
               static_cast<double>(plan->curve[i].peakBytes));
    }
    const QString policy = QString::fromStdString(tb::memory::toString(plan->policy));
    if (const auto k = tb::memory::curveK(*plan)) {
      QVERIFY(chart->markedK() == std::optional<int>(static_cast<int>(*k)));
      QCOMPARE(page_->curveModel()->recommendedRow(), static_cast<int>(*k));
      QCOMPARE(page_->curveModel()->policyAt(static_cast<int>(*k)), policy);
      const QPointF onK(chart->xAxis->coordToPixel(static_cast<double>(*k)),
                        chart->yAxis->coordToPixel(60.0));
      QVERIFY2(chart->toolTipAt(onK).startsWith(QStringLiteral("K = %1 ").arg(*k)),
               qPrintable(chart->toolTipAt(onK)));
    } else {
      // A module set (behind K full blocks) is off the K curve: the level
      // line and the table's last row show it, named as --recompute spells it.
      QVERIFY(tb::ui::offCurveChoice(*plan).has_value());
      QVERIFY(chart->data().selectiveRecommended);
      QCOMPARE(chart->data().selectiveName, policy);
      QCOMPARE(chart->data().selective->peakBytes, static_cast<double>(plan->predictedPeakBytes));
      QCOMPARE(page_->curveModel()->recommendedRow(), 33);
      QCOMPARE(page_->curveModel()->policyAt(33), policy);
    }
    QCOMPARE(summary()->tone(), tb::ui::VerdictTone::ForwardCompatible);
  }

  void smallCardShowsNothingFitsWithTheSmallestBudget() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    in.card = QStringLiteral("RTX 4090 24GB");
    show(in);
    const auto plan = tb::memory::planRecompute(coreInput(), kRtx4090Bytes);
    QVERIFY(plan.ok());
    QVERIFY(!plan->fits);
    QCOMPARE(summary()->tone(), tb::ui::VerdictTone::Unsupported);
    QVERIFY(summary()->title().startsWith(QStringLiteral("Nothing fits")));
    const QString smallest = tb::ui::formatDataSize(static_cast<double>(plan->smallestBudgetBytes));
    QVERIFY2(summary()->detail().contains(smallest), qPrintable(smallest));
    QVERIFY(!useRecommendationButton()->isEnabled());
    QCOMPARE(page_->curveModel()->recommendedRow(), -1);
    QVERIFY(!tradeoffChart()->markedK().has_value());
  }

  void marginLabelMovesBelowItsLineWhenTheLevelsCrowd() {
    // The budget's label sits above its line; so does the margin's, unless
    // the two lines are too close for two labels (0.5 GiB against a curve
    // reaching 14 GiB), where it goes below its own line instead.
    using tb::kGiB;
    tb::plotting::TradeoffChart chart;
    const auto marginLabelAlignment = [&chart](double budget, double usable) {
      tb::plotting::TradeoffData data;
      for (int k = 0; k <= 6; ++k) data.curve.append({k, (14.0 - 1.5 * k) * kGiB, 1.0 + 0.05 * k});
      data.budgetBytes = budget * kGiB;
      data.usableBytes = usable * kGiB;
      chart.setData(data);
      for (int i = 0; i < chart.itemCount(); ++i) {
        const auto* text = qobject_cast<QCPItemText*>(chart.item(i));
        if (text != nullptr && text->text().startsWith(QStringLiteral("less margin"))) {
          return text->positionAlignment();
        }
      }
      return Qt::Alignment();
    };
    QVERIFY(marginLabelAlignment(0.5, 0.475).testFlag(Qt::AlignTop));
    QVERIFY(marginLabelAlignment(10.0, 8.0).testFlag(Qt::AlignBottom));
  }

  void customShapeFlowsIntoThePrediction() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    in.layers = 16;
    in.vocab = 32000;
    show(in);
    const auto prediction = tb::memory::predictMemory(coreInput(16, 32000));
    QVERIFY(prediction.ok());
    QCOMPARE(page_->view().input.model.layers, std::int64_t{16});
    QCOMPARE(QString::fromStdString(page_->view().input.model.name),
             QStringLiteral("llama3-8b+custom"));
    QCOMPARE(page_->view().prediction.totalBytes, prediction->totalBytes);
    QCOMPARE(tradeoffChart()->pointCount(), 17);
  }

  void badShapeIsNamedNotPredicted() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    in.heads = 7;  // 4096 is not a multiple of 7
    show(in);
    QVERIFY(!page_->view().ok());
    QCOMPARE(summary()->tone(), tb::ui::VerdictTone::Incomplete);
    QVERIFY2(summary()->detail().contains(QStringLiteral("7")), qPrintable(summary()->detail()));
    QVERIFY(!useRecommendationButton()->isEnabled());
  }

  void recommendationSignalCarriesThePlannersPolicy() {
    show(llamaOnH100());
    const auto plan = tb::memory::planRecompute(coreInput(), kH100Bytes);
    QVERIFY(plan.ok());
    QSignalSpy spy(page_.get(), &tb::ui::MemoryPage::recomputeRecommended);
    QVERIFY(useRecommendationButton()->isEnabled());
    QTest::mouseClick(useRecommendationButton(), Qt::LeftButton);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(),
             QString::fromStdString(tb::memory::toString(plan->policy)));
    QVERIFY(spy.at(0).at(0).toString().startsWith(QStringLiteral("layers:")));
    // Megatron's plan is for no engine runtime.
    QVERIFY(spy.at(0).at(1).toString().isEmpty());
  }

  void rapidChangesEndOnTheLatestInputs() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    for (int seq : {1024, 2048, 4096}) {
      in.seq = seq;
      form()->setInputs(in);
    }
    QTRY_VERIFY_WITH_TIMEOUT(!page_->isBusy(), 20000);
    QCOMPARE(page_->view().input.model.seq, std::int64_t{4096});
  }

  void theEngineProfilePredictsTheChosenRuntime() {
    // Tuned is what the Runs page runs by default: its flat gradient buffers
    // live through the whole step, so it peaks above stock.
    const tb::model::ModelConfig small = *tb::model::findPreset("small");
    tb::ui::MemoryPageInputs in = tb::ui::withPresetShape({}, QStringLiteral("small"));
    in.seq = small.seq;
    in.batch = small.batch;
    in.profile = QStringLiteral("engine");
    in.dtype = QStringLiteral("fp32");
    in.flashAttention = false;
    in.dp = 1;
    in.zero = 0;
    const auto predicted = [&small](bool tuned) {
      tb::memory::PredictionInput input;
      input.model = small;
      input.flatGradients = input.gqaInPlace = tuned;
      return tb::memory::predictMemory(input)->totalBytes;
    };
    auto* runtime = find<QComboBox>("runtimeBox");
    QCOMPARE(in.runtime, QStringLiteral("tuned"));
    show(in);
    QVERIFY(runtime->isEnabled());
    QCOMPARE(page_->view().prediction.totalBytes, predicted(true));
    in.runtime = QStringLiteral("stock");
    show(in);
    QCOMPARE(page_->view().prediction.totalBytes, predicted(false));
    QVERIFY(predicted(false) < predicted(true));
    // The recommendation names the runtime it was planned for.
    QSignalSpy spy(page_.get(), &tb::ui::MemoryPage::recomputeRecommended);
    QTest::mouseClick(useRecommendationButton(), Qt::LeftButton);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(1).toString(), QStringLiteral("stock"));
    in.profile = QStringLiteral("megatron");
    in.dtype = QStringLiteral("bf16");
    show(in);
    QVERIFY(!runtime->isEnabled());
  }

  void torchtitanShowsItsPolicyNamesAndTheAllocatedReservedSplit() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    in.seq = 8192;
    in.batch = 2;
    in.dp = 8;
    in.zero = 3;
    in.profile = QStringLiteral("torchtitan");
    in.recompute = QStringLiteral("torchtitan:op");
    in.compile = true;
    show(in);
    QVERIFY(page_->view().ok());
    // The policy is torchtitan's own name, and its tool tip says what it means.
    auto* recompute = find<QComboBox>("recomputeBox");
    QCOMPARE(recompute->currentData().toString(), QStringLiteral("torchtitan:op"));
    QVERIFY2(
        recompute->itemData(recompute->currentIndex(), Qt::ToolTipRole)
            .toString()
            .contains(QStringLiteral("wq, wv, w1 and w2")),
        qPrintable(recompute->itemData(recompute->currentIndex(), Qt::ToolTipRole).toString()));
    // Reserved is split into what tensors hold and the allocator's cache.
    const tb::memory::MemoryPrediction& p = page_->view().prediction;
    QVERIFY(p.allocatedBytes < p.totalBytes);
    QVERIFY(breakdownChart()->segmentNames().contains(QStringLiteral("Allocator cache")));
    QString banner;
    for (const QLabel* label : summary()->findChildren<QLabel*>()) banner += label->text();
    QVERIFY2(banner.contains(QStringLiteral("allocated by tensors")), qPrintable(banner));
    // The plan is one torchtitan can be told.
    const QString policy = tb::ui::recommendedPolicy(page_->view().plan);
    QVERIFY2(policy == QStringLiteral("op") || policy.startsWith(QStringLiteral("every:")) ||
                 policy == QStringLiteral("full"),
             qPrintable(policy));
  }

  void inputsPersistAcrossPageInstances() {
    tb::ui::MemoryPageInputs in = llamaOnH100();
    in.preset = QStringLiteral("llama3-70b");
    in = tb::ui::withPresetShape(in, in.preset);
    in.ffn = 20000;
    in.tp = 4;
    in.pp = 2;
    in.sequenceParallel = true;
    in.zero = 3;
    in.dtype = QStringLiteral("fp16");
    in.profile = QStringLiteral("fsdp");
    in.runtime = QStringLiteral("stock");
    in.recompute = QStringLiteral("layers:5");
    in.card = tb::ui::customCardName();
    in.customGiB = 62.5;
    show(in);
    const tb::ui::MemoryPageInputs shown = form()->inputs();
    QCOMPARE(shown.recompute, QStringLiteral("layers:5"));
    page_.reset();
    page_ = std::make_unique<tb::ui::MemoryPage>(*settings_);
    QVERIFY(form()->inputs() == shown);
    QCOMPARE(page_->view().budgetBytes, static_cast<std::uint64_t>(62.5 * tb::kGiB));

    // A read-only page (screenshots) shows what is stored but writes nothing back.
    const tb::ui::StudioSettings readOnly(tb::ui::SettingsAccess::ReadOnly);
    page_ = std::make_unique<tb::ui::MemoryPage>(readOnly);
    show(llamaOnH100());
    page_ = std::make_unique<tb::ui::MemoryPage>(*settings_);
    QVERIFY(form()->inputs() == shown);
  }

  void chartsFollowThePalette() {
    show(llamaOnH100());
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(24, 24, 28));
    dark.setColor(QPalette::Text, QColor(235, 235, 235));
    for (QCustomPlot* chart : {static_cast<QCustomPlot*>(breakdownChart()),
                               static_cast<QCustomPlot*>(tradeoffChart())}) {
      QVERIFY(chart->xAxis->basePen().color() != dark.color(QPalette::Text));
      chart->setPalette(dark);
      QCOMPARE(chart->xAxis->basePen().color(), dark.color(QPalette::Text));
    }
    // The data survives the re-theme.
    QCOMPARE(tradeoffChart()->pointCount(), 33);
    QVERIFY(breakdownChart()->totalBytes() > 0.0);
  }

  void chartsExportToPng() {
    show(llamaOnH100());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (QCustomPlot* chart : {static_cast<QCustomPlot*>(breakdownChart()),
                               static_cast<QCustomPlot*>(tradeoffChart())}) {
      const QString path = dir.filePath(chart->objectName() + QStringLiteral(".png"));
      const tb::Status status = tb::plotting::exportChart(*chart, path, QSize(800, 400));
      QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
      QFile file(path);
      QVERIFY(file.open(QIODevice::ReadOnly));
      QVERIFY(file.size() > 1000);
      QCOMPARE(file.read(4), QByteArray("\x89PNG"));
    }
  }
};

TB_UI_TEST_MAIN(MemoryPageTest)

#include "memory_page_test.moc"
