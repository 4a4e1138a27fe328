// One colour and wording scheme for verdicts, shared by the banner and the
// matrix so that "amber" means forward-compatible everywhere on the page.
#pragma once

#include <QColor>
#include <QString>

class QWidget;

#include "tb/compat/verdict.hpp"

namespace tb::ui {

/// How a verdict (or the lack of one) is shown.
enum class VerdictTone { Supported, ForwardCompatible, Unsupported, Incomplete };

[[nodiscard]] VerdictTone toneFor(tb::compat::VerdictStatus status) noexcept;

/// The strong colour of a tone: the banner's stripe and title, legend chips.
[[nodiscard]] QColor accentColor(VerdictTone tone);

/// A light fill for the tone, mixed over `base` so it stays readable on dark
/// palettes too.
[[nodiscard]] QColor tintColor(VerdictTone tone, const QColor& base, double strength = 0.16);

/// Width of the accent stripe on a banner's left edge, for its layout margins.
inline constexpr int kBannerStripeWidth = 6;

/// Paints a banner in `tone` over `widget`: a rounded tinted box with a thin
/// border and the accent stripe. Called from the banners' paintEvent so every
/// banner in the Studio looks the same.
void paintToneBanner(QWidget& widget, VerdictTone tone);

/// "Supported", "Forward-compatible", "Unsupported".
[[nodiscard]] QString statusTitle(tb::compat::VerdictStatus status);

/// The short text of a matrix cell: "✓", "compat", "✗".
[[nodiscard]] QString cellText(tb::compat::VerdictStatus status);

}  // namespace tb::ui
