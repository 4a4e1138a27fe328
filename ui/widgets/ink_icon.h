// The Studio's monochrome icons are drawn in one ink (#37474f, with #607d8b
// for secondary lines) on white paper. Drawn like that on a dark palette the
// lines vanish and the paper shows as a light square, so these icons are
// painted by an engine that reads the application palette at paint time:
// in a light palette exactly as designed, in a dark one the ink becomes the
// palette's text and the paper its base. Widgets repaint on a palette
// change, so switching View > Theme recolours every icon without setting it
// again.
#pragma once

#include <QIcon>
#include <QString>

namespace tb::ui {

/// The monochrome SVG at `resource` (":/icons/copy.svg") in the palette's ink.
[[nodiscard]] QIcon inkIcon(const QString& resource);

}  // namespace tb::ui
