// The wording follows the CLI's `plan` ("nothing fits; the smallest budget
// that would is …") so the page and the terminal tell a user the same thing.
#include "ui/memory/memory_summary_banner.h"

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/data_size.h"
#include "ui/memory/memory_view.h"

namespace tb::ui {

MemorySummaryBanner::MemorySummaryBanner(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("memorySummary"));
  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("memorySummaryTitle"));
  QFont font = title_->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.15);
  title_->setFont(font);
  title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  detail_ = new QLabel(this);
  detail_->setObjectName(QStringLiteral("memorySummaryDetail"));
  detail_->setWordWrap(true);
  detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(kBannerStripeWidth + 12, 8, 12, 8);
  layout->setSpacing(2);
  layout->addWidget(title_);
  layout->addWidget(detail_);
}

QString MemorySummaryBanner::title() const { return title_->text(); }
QString MemorySummaryBanner::detail() const { return detail_->text(); }

void MemorySummaryBanner::showView(const MemoryView& view) {
  if (!view.ok()) {
    present(VerdictTone::Incomplete, tr("Cannot predict these inputs"), view.error);
    return;
  }
  const auto budget = static_cast<double>(view.budgetBytes);
  const auto peak = static_cast<double>(view.prediction.totalBytes);
  const QString policy = QString::fromStdString(tb::memory::toString(view.input.recompute));
  const tb::memory::RecomputePlan& plan = view.plan;
  if (!plan.fits) {
    const double fullPeak =
        plan.curve.empty() ? peak : static_cast<double>(plan.curve.back().peakBytes);
    present(VerdictTone::Unsupported,
            tr("Nothing fits on %1 (%2)").arg(view.cardLabel, formatDataSize(budget)),
            tr("Even full recomputation peaks at %1. The smallest budget that would fit is %2 "
               "(with the planner's %3 % margin). Shard more (ZeRO-3, more data-parallel ranks, "
               "tensor or pipeline parallel) or shorten the sequence.")
                .arg(formatDataSize(fullPeak),
                     formatDataSize(static_cast<double>(plan.smallestBudgetBytes)))
                .arg(QString::number(100.0 * plan.margin, 'f', 0)));
    return;
  }
  // Cluster profiles predict what the caching allocator reserves; say how
  // much of it tensors hold, so a peak is comparable with either counter.
  const auto allocated = static_cast<double>(view.prediction.allocatedBytes);
  const QString split =
      allocated < peak
          ? tr(" Reserved %1: %2 allocated by tensors, %3 held in the allocator's cache.")
                .arg(formatDataSize(peak), formatDataSize(allocated),
                     formatDataSize(peak - allocated))
          : QString();
  const QString recommendation =
      tr("Recommended: --recompute %1 \u2014 peak %2, step time %3.")
          .arg(recommendedPolicy(plan),
               formatDataSize(static_cast<double>(plan.predictedPeakBytes)),
               formatTimeRatio(1.0 + plan.timeOverheadRatio));
  if (peak <= budget * (1.0 - plan.margin)) {
    present(VerdictTone::Supported,
            tr("Fits: %1 of %2 on %3 (%4 %)")
                .arg(formatDataSize(peak), formatDataSize(budget), view.cardLabel)
                .arg(QString::number(100.0 * peak / budget, 'f', 0)),
            tr("With --recompute %1, peaking at %2.")
                    .arg(policy, QString::fromStdString(view.prediction.peakPhase)) +
                split + QLatin1Char(' ') + recommendation);
    return;
  }
  present(VerdictTone::ForwardCompatible,
          tr("Over by %1 with --recompute %2")
              .arg(formatDataSize(peak - budget * (1.0 - plan.margin)), policy),
          tr("The peak is %1 against %2 on %3 less a %4 % margin. ")
                  .arg(formatDataSize(peak), formatDataSize(budget), view.cardLabel)
                  .arg(QString::number(100.0 * plan.margin, 'f', 0)) +
              recommendation + split);
}

void MemorySummaryBanner::present(VerdictTone tone, const QString& title, const QString& detail) {
  tone_ = tone;
  title_->setText(title);
  detail_->setText(detail);
  QPalette titlePalette = title_->palette();
  titlePalette.setColor(QPalette::WindowText, accentColor(tone));
  title_->setPalette(titlePalette);
  setAccessibleName(title);
  update();
}

void MemorySummaryBanner::paintEvent(QPaintEvent* event) {
  QFrame::paintEvent(event);
  paintToneBanner(*this, tone_);
}

void MemorySummaryBanner::changeEvent(QEvent* event) {
  QFrame::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) update();
}

}  // namespace tb::ui
