// Values a user copies (image references, versions) are selectable text or
// have a copy button; nothing is only in a tooltip.
#include "ui/image/release_details_view.h"

#include <QClipboard>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include "tb/catalog/catalog.hpp"
#include "ui/qt_text.h"
#include "ui/widgets/elided_label.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {

namespace {

// One name and version per row: two side by side made the table wider than
// the details column at the default window size, and pushed the copy
// buttons out of sight behind a sideways scroll.
constexpr int kComponentPairsPerRow = 1;
/// A link shows at most this many characters (the whole address is its
/// target and its tooltip): an address has no place to wrap.
constexpr int kLinkTextLimit = 32;

QLabel* valueLabel(QWidget* parent, Qt::TextFormat format = Qt::PlainText) {
  auto* label = new QLabel(parent);
  label->setTextFormat(format);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  return label;
}

QLabel* sectionHeading(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setTextFormat(Qt::PlainText);
  QFont bold = label->font();
  bold.setBold(true);
  label->setFont(bold);
  return label;
}

QString branchList(const std::vector<int>& branches) {
  QStringList names;
  for (int branch : branches) names.append(QStringLiteral("R%1").arg(branch));
  return names.join(QStringLiteral(", "));
}

// One name/version pair a row; names in the muted text colour.
QString componentTable(const tb::catalog::Release& release, const QColor& muted) {
  QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\" style=\"margin:0\">");
  std::size_t index = 0;
  for (const tb::catalog::Component& component : release.components) {
    if (index % kComponentPairsPerRow == 0) html += QStringLiteral("<tr>");
    html += QStringLiteral(
                "<td style=\"color:%1; padding-right:8px; white-space:pre\">%2</td>"
                "<td style=\"white-space:pre\">%3</td>")
                .arg(muted.name(), toQString(component.name).toHtmlEscaped(),
                     toQString(component.version).toHtmlEscaped());
    ++index;
    if (index % kComponentPairsPerRow == 0) html += QStringLiteral("</tr>");
  }
  if (index % kComponentPairsPerRow != 0) html += QStringLiteral("</tr>");
  return html + QStringLiteral("</table>");
}

}  // namespace

ReleaseDetailsView::ReleaseDetailsView(QWidget* parent) : QGroupBox(tr("Release"), parent) {
  setObjectName(QStringLiteral("releaseDetails"));
  image_ = new ElidedLabel(this);
  image_->setObjectName(QStringLiteral("imageReference"));
  vpc_ = new ElidedLabel(this);
  vpc_->setObjectName(QStringLiteral("vpcPattern"));
  cuda_ = valueLabel(this);
  forwardCompat_ = valueLabel(this);
  mustUpgrade_ = valueLabel(this);
  notes_ = valueLabel(this, Qt::RichText);
  notes_->setOpenExternalLinks(true);
  notes_->setTextInteractionFlags(Qt::TextBrowserInteraction);

  components_ = valueLabel(this, Qt::RichText);
  components_->setObjectName(QStringLiteral("components"));
  highlights_ = valueLabel(this, Qt::RichText);
  highlights_->setObjectName(QStringLiteral("highlights"));

  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->setLabelAlignment(Qt::AlignLeft);
  form->setHorizontalSpacing(12);
  form->setVerticalSpacing(4);
  form->addRow(tr("Image"), copyableRow(image_, tr("image reference")));
  form->addRow(tr("VPC mirror"), copyableRow(vpc_, tr("VPC image pattern")));
  form->addRow(tr("Needs"), cuda_);
  form->addRow(tr("Forward compat."), forwardCompat_);
  form->addRow(tr("Must upgrade"), mustUpgrade_);
  form->addRow(tr("Notes"), notes_);

  auto* contents = new QHBoxLayout;
  contents->setSpacing(16);
  auto* componentColumn = new QVBoxLayout;
  componentColumn->setSpacing(2);
  componentColumn->addWidget(sectionHeading(tr("Components"), this));
  componentColumn->addWidget(components_);
  componentColumn->addStretch(1);
  auto* highlightColumn = new QVBoxLayout;
  highlightColumn->setSpacing(2);
  highlightColumn->addWidget(sectionHeading(tr("Highlights"), this));
  highlightColumn->addWidget(highlights_);
  highlightColumn->addStretch(1);
  contents->addLayout(componentColumn, 1);
  contents->addLayout(highlightColumn, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(8);
  layout->addLayout(form);
  layout->addLayout(contents, 1);
  showRelease(nullptr);
}

QWidget* ReleaseDetailsView::copyableRow(ElidedLabel* label, const QString& what) {
  auto* row = new QWidget(this);
  auto* copy = new QToolButton(row);
  copy->setIcon(inkIcon(QStringLiteral(":/icons/copy.svg")));
  copy->setAutoRaise(true);
  copy->setToolTip(tr("Copy the %1").arg(what));
  connect(copy, &QToolButton::clicked, label,
          [label] { QGuiApplication::clipboard()->setText(label->text()); });
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);
  layout->addWidget(label, 1);
  layout->addWidget(copy);
  return row;
}

void ReleaseDetailsView::showRelease(const tb::catalog::Release* release) {
  componentLines_.clear();
  highlightLines_.clear();
  if (!release) {
    setTitle(tr("Release"));
    image_->setText(tr("Choose a release in the table."));
    vpc_->setText(QString());
    for (QLabel* label : {cuda_, forwardCompat_, mustUpgrade_, notes_, components_, highlights_}) {
      label->clear();
    }
    return;
  }

  setTitle(release->baseImage.empty()
               ? tr("Release %1").arg(toQString(release->tag))
               : tr("Release %1, based on %2")
                     .arg(toQString(release->tag), toQString(release->baseImage)));
  image_->setText(toQString(release->image));
  vpc_->setText(toQString(release->vpcImagePattern));
  if (!release->vpcRegions.empty()) {
    vpc_->setToolTip(tr("%1\nPullable in %2")
                         .arg(toQString(release->vpcImagePattern),
                              toQStringList(release->vpcRegions).join(QStringLiteral(", "))));
  }

  QStringList arches;
  for (tb::catalog::CpuArch arch : release->architectures) {
    arches.append(toQString(tb::catalog::toString(arch)));
  }
  cuda_->setText(tr("CUDA %1 \u00b7 driver \u2265 %2 \u00b7 %3")
                     .arg(toQString(release->cudaVersion))
                     .arg(release->requiredDriverMajor)
                     .arg(arches.join(QStringLiteral(", "))));

  QStringList allowances;
  for (const tb::catalog::ForwardCompatAllowance& allowance : release->forwardCompat) {
    allowances.append(
        tr("R%1 \u2265 %2").arg(allowance.branch).arg(toQString(allowance.minimum.text())));
  }
  forwardCompat_->setText(
      allowances.isEmpty()
          ? tr("none")
          : tr("%1, data-center GPUs only").arg(allowances.join(QStringLiteral(", "))));
  mustUpgrade_->setText(release->mustUpgradeBranches.empty()
                            ? tr("none listed")
                            : branchList(release->mustUpgradeBranches));
  const QString url = toQString(release->notesUrl).toHtmlEscaped();
  const QString shown =
      url.size() > kLinkTextLimit ? url.left(kLinkTextLimit - 1) + QStringLiteral("\u2026") : url;
  notes_->setText(url.isEmpty() ? tr("not recorded")
                                : QStringLiteral("<a href=\"%1\">%2</a>")
                                      .arg(url.toHtmlEscaped(), shown.toHtmlEscaped()));
  notes_->setToolTip(url);

  for (const tb::catalog::Component& component : release->components) {
    componentLines_.append(toQString(component.name) + QLatin1Char(' ') +
                           toQString(component.version));
  }
  const QColor muted = palette().color(QPalette::PlaceholderText);
  components_->setText(release->components.empty() ? tr("none recorded")
                                                   : componentTable(*release, muted));

  highlightLines_ = toQStringList(release->highlights);
  QStringList bullets;
  for (const QString& line : highlightLines_) {
    bullets.append(QStringLiteral("\u2022&nbsp;") + line.toHtmlEscaped());
  }
  highlights_->setText(bullets.isEmpty() ? tr("none recorded")
                                         : bullets.join(QStringLiteral("<br>")));
}

QString ReleaseDetailsView::imageReference() const { return image_->text(); }

QString ReleaseDetailsView::vpcPattern() const { return vpc_->text(); }

}  // namespace tb::ui
