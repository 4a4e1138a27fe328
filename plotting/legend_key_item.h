// A legend entry that is not tied to one plottable: a line sample (colour,
// dash) and a text. The loss chart's legend says "colour = configuration,
// dash = series" in a few such keys instead of one long entry per curve.
// A key whose text does not fit is elided and its full text kept for the
// hover tooltip, so the legend never runs past the chart's edge.
#pragma once

#include <QPen>
#include <QString>

#include "plotting/qcustomplot_include.h"

namespace tb::plotting {

/// A legend key: a short line drawn with `pen`, then the (possibly elided) text.
class LegendKeyItem : public QCPAbstractLegendItem {
  Q_OBJECT

 public:
  /// `toolTip` is shown on hover; it names what the key stands for in full.
  LegendKeyItem(QCPLegend* legend, const QPen& pen, const QString& text, const QString& toolTip);

  [[nodiscard]] const QString& fullText() const { return text_; }
  [[nodiscard]] const QString& toolTip() const { return toolTip_; }
  /// The text as drawn in the item's current rectangle (elided when it does not fit).
  [[nodiscard]] QString shownText() const;
  [[nodiscard]] QSize minimumOuterSizeHint() const override;

 protected:
  void draw(QCPPainter* painter) override;

 private:
  [[nodiscard]] int maximumTextWidth() const;

  QPen pen_;
  QString text_;
  QString toolTip_;
};

}  // namespace tb::plotting
