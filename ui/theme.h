// Light and dark: the Studio follows the desktop's palette unless View >
// Theme says otherwise, and the choice persists (keys::kTheme). Charts, the
// code previews and the banners repaint on QEvent::PaletteChange, so one
// application palette switches every page.
#pragma once

#include <QPalette>
#include <QString>

namespace tb::ui {

enum class ThemeChoice { System, Light, Dark };

/// "system", "light", "dark": the stored and the command-line names.
[[nodiscard]] QString themeName(ThemeChoice choice);
[[nodiscard]] bool isThemeName(const QString& name);
[[nodiscard]] ThemeChoice themeFromName(const QString& name);

/// The dark palette: Fusion's roles with dark windows and light text, links
/// and highlights kept readable on both.
[[nodiscard]] QPalette darkPalette();

/// Sets the application's style and palette for `choice`; System puts back
/// what the application started with (the desktop's).
void applyThemeChoice(ThemeChoice choice);

/// Whether the application palette is dark (its window darker than its text).
[[nodiscard]] bool paletteIsDark(const QPalette& palette);

}  // namespace tb::ui
