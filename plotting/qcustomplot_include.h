// The one way to include QCustomPlot. Our targets build with QT_NO_KEYWORDS
// and QT_NO_FOREACH (LibTorch's `slots` clashes with the keyword, and Qt's
// foreach copies containers), but qcustomplot.h still spells `signals:` and
// uses `foreach` in two inline templates. Both are mapped to their modern
// forms for the length of the include only, so no other file sees them.
#pragma once

#if defined(signals) || defined(foreach)
#include <qcustomplot.h>
#else
#define signals Q_SIGNALS
#define foreach(declaration, container) for (declaration : container)
#include <qcustomplot.h>
#undef foreach
#undef signals
#endif
