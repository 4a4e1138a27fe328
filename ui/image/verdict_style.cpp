// Colours are picked to pass WCAG AA as text on white (the banner title uses
// them) and to stay apart for the common red-green colour deficiencies: the
// cells also carry a symbol, so colour is never the only signal.
#include "ui/image/verdict_style.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPainterPath>
#include <QWidget>

namespace tb::ui {

VerdictTone toneFor(tb::compat::VerdictStatus status) noexcept {
  switch (status) {
    case tb::compat::VerdictStatus::Supported: return VerdictTone::Supported;
    case tb::compat::VerdictStatus::ForwardCompatible: return VerdictTone::ForwardCompatible;
    case tb::compat::VerdictStatus::Unsupported: return VerdictTone::Unsupported;
  }
  return VerdictTone::Incomplete;
}

QColor accentColor(VerdictTone tone) {
  switch (tone) {
    case VerdictTone::Supported: return QColor(0x2e, 0x7d, 0x32);
    case VerdictTone::ForwardCompatible: return QColor(0xb2, 0x6a, 0x00);
    case VerdictTone::Unsupported: return QColor(0xc6, 0x28, 0x28);
    case VerdictTone::Incomplete: return QColor(0x6b, 0x72, 0x80);
  }
  return QColor(0x6b, 0x72, 0x80);
}

QColor tintColor(VerdictTone tone, const QColor& base, double strength) {
  const QColor accent = accentColor(tone);
  const auto mix = [strength](int a, int b) {
    return static_cast<int>(a * strength + b * (1.0 - strength) + 0.5);
  };
  return QColor(mix(accent.red(), base.red()), mix(accent.green(), base.green()),
                mix(accent.blue(), base.blue()));
}

QString statusTitle(tb::compat::VerdictStatus status) {
  switch (status) {
    case tb::compat::VerdictStatus::Supported:
      return QCoreApplication::translate("tb::ui::Verdict", "Supported");
    case tb::compat::VerdictStatus::ForwardCompatible:
      return QCoreApplication::translate("tb::ui::Verdict", "Forward-compatible");
    case tb::compat::VerdictStatus::Unsupported:
      return QCoreApplication::translate("tb::ui::Verdict", "Unsupported");
  }
  return {};
}

QString cellText(tb::compat::VerdictStatus status) {
  switch (status) {
    case tb::compat::VerdictStatus::Supported: return QStringLiteral("\u2713");
    case tb::compat::VerdictStatus::ForwardCompatible:
      return QCoreApplication::translate("tb::ui::Verdict", "compat");
    case tb::compat::VerdictStatus::Unsupported: return QStringLiteral("\u2717");
  }
  return {};
}

void paintToneBanner(QWidget& widget, VerdictTone tone) {
  constexpr qreal kCornerRadius = 6.0;
  QPainter painter(&widget);
  painter.setRenderHint(QPainter::Antialiasing);
  const QColor accent = accentColor(tone);
  const QRectF box = QRectF(widget.rect()).adjusted(0.5, 0.5, -0.5, -0.5);
  QPainterPath outline;
  outline.addRoundedRect(box, kCornerRadius, kCornerRadius);
  painter.fillPath(outline, tintColor(tone, widget.palette().color(QPalette::Base), 0.12));
  QColor border = accent;
  border.setAlphaF(0.45f);
  painter.setPen(QPen(border, 1.0));
  painter.drawPath(outline);
  // The stripe is clipped to the rounded outline so its left corners match.
  painter.setClipPath(outline);
  painter.fillRect(QRectF(box.left(), box.top(), kBannerStripeWidth, box.height()), accent);
}

}  // namespace tb::ui
