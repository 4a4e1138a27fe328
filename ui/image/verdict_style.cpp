// Colours are picked to pass WCAG AA as text on white (the banner title uses
// them) and to stay apart for the common red-green colour deficiencies: the
// cells also carry a symbol, so colour is never the only signal.
#include "ui/image/verdict_style.h"

#include <QCoreApplication>

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

}  // namespace tb::ui
