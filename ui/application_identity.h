// Who the application says it is. QSettings, QStandardPaths and the desktop
// shell all key off these names, so the app and the tests take them from one
// place instead of repeating string literals.
#pragma once

#include <QString>

namespace tb::ui {

/// The names under which settings are stored ("TrainBench" / "TrainBench Studio").
[[nodiscard]] QString organizationName();
[[nodiscard]] QString applicationName();
/// The project version from CMake ("0.1.0").
[[nodiscard]] QString applicationVersion();
/// The desktop entry id, resources/trainbench-studio.desktop without ".desktop".
[[nodiscard]] QString desktopFileName();

/// The About box: name, version, licence (GPL-3.0-or-later) and credits,
/// as rich text. `catalogVersion` is the data version of the loaded catalog;
/// `engineVersions` what `trainbench --version` printed (the training
/// engine's libraries; the Studio itself links no LibTorch), or a line
/// saying why it is not there yet.
[[nodiscard]] QString aboutText(const QString& catalogVersion, const QString& engineVersions = {});

/// Sets organization, name, version and desktop file name on the running
/// QGuiApplication (which must exist).
void applyApplicationIdentity();

}  // namespace tb::ui
