// The SVG text is re-coloured by replacing the three design colours, not by
// tinting the rendered pixels: strokes, their antialiasing and the paper
// stay exactly where the designer put them, and the accent colours some
// icons carry (the Image page's teal edge) are left alone.
#include "ui/widgets/ink_icon.h"

#include <QApplication>
#include <QFile>
#include <QIconEngine>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QPixmapCache>
#include <QStyle>
#include <QStyleOption>
#include <QSvgRenderer>

#include "ui/studio_resources.h"
#include "ui/theme.h"

namespace tb::ui {
namespace {

// The colours every monochrome icon in resources/icons is drawn with.
constexpr QLatin1StringView kInk("#37474f");
constexpr QLatin1StringView kSecondaryInk("#607d8b");
constexpr QLatin1StringView kPaper("#ffffff");

class InkIconEngine final : public QIconEngine {
 public:
  explicit InkIconEngine(QString resource) : resource_(std::move(resource)) {
    initStudioResources();
    QFile file(resource_);
    if (file.open(QIODevice::ReadOnly)) svg_ = file.readAll();
  }

  QIconEngine* clone() const override { return new InkIconEngine(*this); }
  QString key() const override { return QStringLiteral("tb-ink"); }
  bool isNull() override { return svg_.isEmpty(); }

  void paint(QPainter* painter, const QRect& rect, QIcon::Mode mode, QIcon::State state) override {
    const qreal scale = painter->device() != nullptr ? painter->device()->devicePixelRatioF() : 1.0;
    painter->drawPixmap(rect,
                        scaledPixmap((QSizeF(rect.size()) * scale).toSize(), mode, state, scale));
  }

  QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State state) override {
    return scaledPixmap(size, mode, state, 1.0);
  }

  // `pixels` is in device pixels already: QIcon::pixmap(size, scale) asks
  // for size * scale (Qt 6.4's contract).
  // The icons have no on/off variants, so the state is not asked.
  QPixmap scaledPixmap(const QSize& pixels, QIcon::Mode mode, QIcon::State /*state*/,
                       qreal scale) override {
    const QPalette palette = QGuiApplication::palette();
    const bool dark = paletteIsDark(palette);
    const QString cacheKey = QStringLiteral("tb-ink:%1:%2x%3:%4:%5:%6")
                                 .arg(resource_)
                                 .arg(pixels.width())
                                 .arg(pixels.height())
                                 .arg(static_cast<int>(mode))
                                 .arg(dark ? palette.color(QPalette::WindowText).rgba() : 0U)
                                 .arg(dark ? palette.color(QPalette::Base).rgba() : 0U);
    QPixmap drawn;
    if (!QPixmapCache::find(cacheKey, &drawn)) {
      drawn = render(pixels, palette, dark);
      if (mode == QIcon::Disabled || mode == QIcon::Selected) {
        // The style's own greying, as Qt's file icons get it.
        QStyleOption option;
        option.palette = palette;
        drawn = QApplication::style()->generatedIconPixmap(mode, drawn, &option);
      }
      QPixmapCache::insert(cacheKey, drawn);
    }
    drawn.setDevicePixelRatio(scale);
    return drawn;
  }

 private:
  [[nodiscard]] QPixmap render(const QSize& pixels, const QPalette& palette, bool dark) const {
    QByteArray svg = svg_;
    if (dark) {
      svg.replace(kInk.data(), palette.color(QPalette::WindowText).name().toLatin1());
      svg.replace(kSecondaryInk.data(), palette.color(QPalette::PlaceholderText).name().toLatin1());
      svg.replace(kPaper.data(), palette.color(QPalette::Base).name().toLatin1());
    }
    QPixmap pixmap(pixels);
    pixmap.fill(Qt::transparent);
    QSvgRenderer renderer(svg);
    QPainter painter(&pixmap);
    renderer.render(&painter);
    return pixmap;
  }

  QString resource_;
  QByteArray svg_;
};

}  // namespace

QIcon inkIcon(const QString& resource) { return QIcon(new InkIconEngine(resource)); }

}  // namespace tb::ui
