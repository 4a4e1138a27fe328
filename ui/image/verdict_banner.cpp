// Painted rather than styled with a style sheet: a style sheet on one frame
// switches its children to QStyleSheetStyle and makes them look unlike the
// rest of the page; a paintEvent keeps the native look and follows the palette.
#include "ui/image/verdict_banner.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "ui/image/verdict_advice.h"
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QString section(const QString& heading, const QStringList& items) {
  QString html = QStringLiteral("<b>%1</b>").arg(heading.toHtmlEscaped());
  for (const QString& item : items) {
    html += QStringLiteral("<br>\u2022&nbsp;") + item.toHtmlEscaped();
  }
  return html;
}

QLabel* makeSectionLabel(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextFormat(Qt::RichText);
  label->setWordWrap(true);
  label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
  return label;
}

}  // namespace

VerdictBanner::VerdictBanner(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("verdictBanner"));
  setAutoFillBackground(false);

  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("verdictStatus"));
  title_->setTextFormat(Qt::PlainText);
  QFont titleFont = title_->font();
  titleFont.setBold(true);
  titleFont.setPointSizeF(titleFont.pointSizeF() * 1.35);
  title_->setFont(titleFont);

  subtitle_ = new QLabel(this);
  subtitle_->setObjectName(QStringLiteral("verdictSubtitle"));
  subtitle_->setTextFormat(Qt::PlainText);
  subtitle_->setWordWrap(true);
  subtitle_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  reasonsLabel_ = makeSectionLabel(this);
  warningsLabel_ = makeSectionLabel(this);
  actionsLabel_ = makeSectionLabel(this);

  auto* sections = new QHBoxLayout;
  sections->setSpacing(24);
  sections->addWidget(reasonsLabel_, 1);
  sections->addWidget(warningsLabel_, 1);
  sections->addWidget(actionsLabel_, 1);

  auto* heading = new QHBoxLayout;
  heading->setSpacing(14);
  heading->addWidget(title_, 0, Qt::AlignBaseline);
  heading->addWidget(subtitle_, 1, Qt::AlignBaseline);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(kBannerStripeWidth + 14, 8, 14, 10);
  layout->setSpacing(6);
  layout->addLayout(heading);
  layout->addLayout(sections);

  applyTone(VerdictTone::Incomplete);
}

void VerdictBanner::showVerdict(const tb::catalog::Release& release,
                                const tb::compat::CompatQuery& query,
                                const tb::compat::CompatVerdict& verdict,
                                const std::vector<tb::catalog::Release>& allReleases) {
  title_->setText(statusTitle(verdict.status));
  applyTone(toneFor(verdict.status));

  QString gpu = query.gpuName.empty() ? tr("GPU not given") : toQString(query.gpuName);
  if (!query.gpuName.empty() && query.gpuCount > 1) {
    gpu = tr("%1 \u00d7 %2").arg(query.gpuCount).arg(gpu);
  }
  const QString driver = query.driver ? toQString(query.driver->text()) : tr("none");
  subtitle_->setText(
      tr("training-nv-pytorch %1 (CUDA %2, needs driver \u2265 %3) on driver %4 \u00b7 %5 "
         "(%6) \u00b7 %7")
          .arg(toQString(release.tag), toQString(release.cudaVersion))
          .arg(release.requiredDriverMajor)
          .arg(driver, gpu, toQString(tb::compat::toString(verdict.gpuClass)),
               toQString(tb::catalog::toString(query.arch))));
  setSections(toQStringList(verdict.reasons), toQStringList(verdict.warnings),
              verdictActions(release, query, verdict, allReleases));
}

void VerdictBanner::showIncomplete(const QString& title, const QString& detail) {
  title_->setText(title);
  applyTone(VerdictTone::Incomplete);
  subtitle_->setText(detail);
  setSections({}, {}, {});
}

QString VerdictBanner::statusText() const { return title_->text(); }

QString VerdictBanner::subtitleText() const { return subtitle_->text(); }

void VerdictBanner::setSections(const QStringList& reasons, const QStringList& warnings,
                                const QStringList& actions) {
  reasons_ = reasons;
  warnings_ = warnings;
  actions_ = actions;
  const auto fill = [](QLabel* label, const QString& heading, const QStringList& items) {
    label->setText(items.isEmpty() ? QString() : section(heading, items));
    label->setVisible(!items.isEmpty());
  };
  fill(reasonsLabel_, tr("Why"), reasons);
  fill(warningsLabel_, tr("Watch out"), warnings);
  fill(actionsLabel_, tr("What to do"), actions);
}

void VerdictBanner::applyTone(VerdictTone tone) {
  tone_ = tone;
  // Screen readers get the status; the colour alone would say nothing.
  setAccessibleName(tr("Verdict: %1").arg(title_->text()));
  QPalette titlePalette = title_->palette();
  titlePalette.setColor(QPalette::WindowText, accentColor(tone));
  title_->setPalette(titlePalette);
  update();
}

void VerdictBanner::paintEvent(QPaintEvent* event) {
  QFrame::paintEvent(event);
  paintToneBanner(*this, tone_);
}

void VerdictBanner::changeEvent(QEvent* event) {
  QFrame::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) update();
}

}  // namespace tb::ui
