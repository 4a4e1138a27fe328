// The monochrome icons in both themes: in the light one drawn as designed
// (their ink, #37474f), in the dark one with the palette's text as ink and
// its base as paper, so no icon shows as a light square or vanishes into
// the window; every monochrome icon in the resources is checked, and the
// disabled form is the style's greyed one.
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QPixmap>
#include <QTest>

#include <algorithm>

#include "ui/studio_resources.h"
#include "ui/theme.h"
#include "ui/widgets/ink_icon.h"

namespace {

constexpr int kSize = 32;
// Colours an antialiased edge may blend; a stroke's own pixels are within this.
constexpr int kTolerance = 12;

/// Icons drawn in their own colours, not in the ink: left as they are.
bool isColoured(const QString& resource) {
  return resource.endsWith(QLatin1String("trainbench-studio.svg")) ||
         resource.contains(QLatin1String("input-"));
}

bool near(QColor a, QColor b) {
  return std::abs(a.red() - b.red()) <= kTolerance &&
         std::abs(a.green() - b.green()) <= kTolerance &&
         std::abs(a.blue() - b.blue()) <= kTolerance;
}

struct Pixels {
  int opaque = 0;       ///< fully covered pixels
  int nearInk = 0;      ///< of those, close to the ink asked about
  int lighterThan = 0;  ///< of those, lighter than the ink by more than the tolerance
};

Pixels count(const QIcon& icon, QColor ink) {
  const QImage image = icon.pixmap(kSize, kSize).toImage().convertToFormat(QImage::Format_ARGB32);
  Pixels pixels;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QColor colour = image.pixelColor(x, y);
      if (colour.alpha() < 255) continue;
      ++pixels.opaque;
      if (near(colour, ink)) ++pixels.nearInk;
      if (colour.lightness() > ink.lightness() + kTolerance) ++pixels.lighterThan;
    }
  }
  return pixels;
}

QStringList monochromeIcons() {
  QStringList icons;
  QDirIterator it(QStringLiteral(":/icons"), {QStringLiteral("*.svg")});
  while (it.hasNext()) {
    const QString resource = it.next();
    if (!isColoured(resource)) icons << resource;
  }
  icons.sort();
  return icons;
}

}  // namespace

class InkIconTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { tb::ui::initStudioResources(); }
  void cleanup() { tb::ui::applyThemeChoice(tb::ui::ThemeChoice::System); }

  void theResourcesHoldTheMonochromeIcons() {
    const QStringList icons = monochromeIcons();
    QVERIFY2(icons.contains(QStringLiteral(":/icons/copy.svg")), qPrintable(icons.join(u' ')));
    QVERIFY(icons.contains(QStringLiteral(":/icons/page-ablation.svg")));
    QVERIFY(icons.size() >= 10);
  }

  void lightThemeDrawsTheDesignedInk() {
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Light);
    for (const QString& resource : monochromeIcons()) {
      const Pixels pixels = count(tb::ui::inkIcon(resource), QColor(0x37, 0x47, 0x4f));
      // filter.svg is drawn in the secondary ink only.
      const bool secondary = resource.endsWith(QLatin1String("filter.svg"));
      const Pixels drawn =
          secondary ? count(tb::ui::inkIcon(resource), QColor(0x60, 0x7d, 0x8b)) : pixels;
      QVERIFY2(drawn.nearInk > 0, qPrintable(resource));
    }
  }

  void darkThemeDrawsInTheTextColourWithoutLightPaper() {
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Dark);
    const QPalette palette = QGuiApplication::palette();
    QVERIFY(tb::ui::paletteIsDark(palette));
    const QColor text = palette.color(QPalette::WindowText);
    for (const QString& resource : monochromeIcons()) {
      const QIcon icon = tb::ui::inkIcon(resource);
      const Pixels designed = count(icon, QColor(0x37, 0x47, 0x4f));
      QVERIFY2(designed.nearInk == 0, qPrintable(resource + QStringLiteral(": design ink left")));
      // The light-square defect: paper lighter than the text the lines are drawn in.
      const Pixels inText = count(icon, text);
      QVERIFY2(inText.lighterThan == 0,
               qPrintable(QStringLiteral("%1: %2 pixels lighter than the text")
                              .arg(resource)
                              .arg(inText.lighterThan)));
      if (!resource.endsWith(QLatin1String("filter.svg"))) {
        QVERIFY2(inText.nearInk > 0,
                 qPrintable(resource + QStringLiteral(": no line in the text colour")));
      }
    }
  }

  void theIconFollowsAThemeChangeWithoutBeingSetAgain() {
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Light);
    const QIcon icon = tb::ui::inkIcon(QStringLiteral(":/icons/copy.svg"));
    const QImage light = icon.pixmap(kSize, kSize).toImage();
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Dark);
    const QImage dark = icon.pixmap(kSize, kSize).toImage();
    QVERIFY(light != dark);
    tb::ui::applyThemeChoice(tb::ui::ThemeChoice::Light);
    QCOMPARE(icon.pixmap(kSize, kSize).toImage(), light);
  }

  void disabledAndHighDensityFormsAreDrawn() {
    const QIcon icon = tb::ui::inkIcon(QStringLiteral(":/icons/detect.svg"));
    const QPixmap disabled = icon.pixmap(QSize(kSize, kSize), QIcon::Disabled);
    QVERIFY(!disabled.isNull());
    QVERIFY(disabled.toImage() != icon.pixmap(kSize, kSize).toImage());
    const QPixmap dense = icon.pixmap(QSize(kSize, kSize), 2.0);
    QCOMPARE(dense.size(), QSize(2 * kSize, 2 * kSize));
    QCOMPARE(dense.devicePixelRatio(), 2.0);
    QVERIFY(tb::ui::inkIcon(QStringLiteral(":/icons/no-such.svg")).isNull());
  }
};

QTEST_MAIN(InkIconTest)
#include "ink_icon_test.moc"
