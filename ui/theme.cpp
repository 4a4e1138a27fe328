#include "ui/theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace tb::ui {
namespace {

/// The desktop's own style and palette, taken before the first change.
struct Startup {
  QString style;
  QPalette palette;
};

const Startup& startup() {
  static const Startup taken{QApplication::style()->name(), QApplication::palette()};
  return taken;
}

}  // namespace

QString themeName(ThemeChoice choice) {
  switch (choice) {
    case ThemeChoice::Light: return QStringLiteral("light");
    case ThemeChoice::Dark: return QStringLiteral("dark");
    case ThemeChoice::System: break;
  }
  return QStringLiteral("system");
}

ThemeChoice themeFromName(const QString& name) {
  if (name == QLatin1String("light")) return ThemeChoice::Light;
  if (name == QLatin1String("dark")) return ThemeChoice::Dark;
  return ThemeChoice::System;
}

// A name is one of ours exactly when reading and writing it gives it back.
bool isThemeName(const QString& name) { return themeName(themeFromName(name)) == name; }

QPalette darkPalette() {
  const QColor window(0x2b, 0x2d, 0x30);
  const QColor base(0x1e, 0x1f, 0x22);
  const QColor text(0xe6, 0xe6, 0xe6);
  const QColor muted(0x8c, 0x8f, 0x94);
  QPalette palette;
  palette.setColor(QPalette::Window, window);
  palette.setColor(QPalette::WindowText, text);
  palette.setColor(QPalette::Base, base);
  palette.setColor(QPalette::AlternateBase, window);
  palette.setColor(QPalette::ToolTipBase, base);
  palette.setColor(QPalette::ToolTipText, text);
  palette.setColor(QPalette::PlaceholderText, muted);
  palette.setColor(QPalette::Text, text);
  palette.setColor(QPalette::Button, window.lighter(115));
  palette.setColor(QPalette::ButtonText, text);
  palette.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
  palette.setColor(QPalette::Light, window.lighter(150));
  palette.setColor(QPalette::Midlight, window.lighter(125));
  palette.setColor(QPalette::Mid, window.darker(120));
  palette.setColor(QPalette::Dark, window.darker(160));
  palette.setColor(QPalette::Shadow, Qt::black);
  palette.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
  palette.setColor(QPalette::LinkVisited, QColor(0xb4, 0x9c, 0xff));
  palette.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
  palette.setColor(QPalette::HighlightedText, Qt::white);
  for (const QPalette::ColorRole role :
       {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    palette.setColor(QPalette::Disabled, role, muted);
  }
  return palette;
}

void applyThemeChoice(ThemeChoice choice) {
  const Startup& original = startup();
  switch (choice) {
    case ThemeChoice::System:
      QApplication::setStyle(QStyleFactory::create(original.style));
      QApplication::setPalette(original.palette);
      return;
    case ThemeChoice::Light:
      // Fusion draws both themes the same way, so only the colours change.
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(QApplication::style()->standardPalette());
      return;
    case ThemeChoice::Dark:
      QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
      QApplication::setPalette(darkPalette());
      return;
  }
}

bool paletteIsDark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() <
         palette.color(QPalette::WindowText).lightness();
}

}  // namespace tb::ui
