// `trainbench-studio --screenshot FILE`: the window rendered to a PNG once it
// has settled, with no display needed (QT_QPA_PLATFORM=offscreen). Here
// rather than in main() so tests run the very same code path.
#pragma once

#include <QString>

#include <functional>

#include "tb/common/expected.hpp"

class QWidget;

namespace tb::ui {

class MainWindow;

/// Renders `widget` as it is now and writes it to `path` as PNG, atomically
/// (a reader never sees a half-written file). Errors name the path.
tb::Status saveWidgetPng(QWidget& widget, const QString& path);

/// Lays the window out at MainWindow::kDefaultSize, waits until it is no
/// longer busy (host detection) and the event loop is idle, then saves it
/// with saveWidgetPng and calls `done` with the result. Returns at once.
void saveScreenshotWhenSettled(MainWindow& window, const QString& path,
                               std::function<void(const tb::Status&)> done);

}  // namespace tb::ui
