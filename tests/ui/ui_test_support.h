// Shared by the Qt tests of the Studio: a fixture catalog built in C++ (so
// page tests do not move when the shipped data is edited), a sandbox that
// keeps tests away from the user's settings and from the real GPU, and the
// one way tests reach a widget: by its object name.
#pragma once

#include <QApplication>
#include <QObject>
#include <QSize>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <source_location>

#include "tb/catalog/catalog.hpp"
#include "ui/catalog_session.h"
#include "ui/image/image_page.h"
#include "ui/qt_text.h"
#include "ui/studio_settings.h"

namespace tb::ui::test {

/// Constructed first in every test object: points HOME at a temporary
/// directory and turns on QStandardPaths test mode, so QSettings writes
/// under <tmp>/.qttest, and simulates a host without an NVIDIA driver
/// unless the environment already says otherwise.
class TestSandbox {
 public:
  TestSandbox();
  [[nodiscard]] QString home() const { return home_.path(); }

 private:
  QTemporaryDir home_;
};

/// Three releases and four driver branches:
///   30.01  CUDA 12.8.0, driver >= 575, R535 from 535.86 and R470 from 470.57, amd64
///   30.02  CUDA 12.10.0, driver >= 580, R535 from 535.86, amd64 + arm64
///   30.03  CUDA 12.9.0, driver >= 570, no forward compatibility, amd64
/// Branches R535 (535.104.05), R550 (550.54.15), R570 (570.124.06), R580 (580.65.06).
[[nodiscard]] tb::catalog::Catalog fixtureCatalog();

/// A driver version the test knows is valid.
[[nodiscard]] tb::catalog::DriverVersion driverVersion(const char* text);

/// A file under tests/ui/data.
[[nodiscard]] QString testDataFile(const QString& name);

/// Removes every Studio setting (in the sandbox).
void clearStudioSettings();

/// Records the failure of child() at the caller's line, then ends the test's
/// process: Qt Test cannot leave the test function from a helper, and the
/// caller would go on to dereference the null.
[[noreturn]] void failMissingChild(const QObject* root, const char* name, const char* type,
                                   const std::source_location& where);

/// The descendant of `root` named `name`, of type T. Pages name the widgets
/// a user works with (setObjectName), and tests find them by that name rather
/// than through getters that exist only for tests.
template <class T>
[[nodiscard]] T* child(const QObject* root, const char* name,
                       const std::source_location& where = std::source_location::current()) {
  T* found = root != nullptr ? root->findChild<T*>(QString::fromLatin1(name)) : nullptr;
  if (found == nullptr) failMissingChild(root, name, T::staticMetaObject.className(), where);
  return found;
}

/// What every Image page test starts from: cleared settings, the fixture
/// catalog, a fresh page of `size` and an amd64 host. Members are destroyed
/// page first, then settings, then session, as the page depends on both.
struct ImagePageHarness {
  explicit ImagePageHarness(QSize size);

  std::unique_ptr<tb::ui::CatalogSession> session;
  std::unique_ptr<tb::ui::StudioSettings> settings;
  std::unique_ptr<tb::ui::ImagePage> page;
};

/// The offscreen platform's screen is 800x600, smaller than the window; a
/// 1920x1200 screen (tests/ui/offscreen-screen.json) keeps restoreGeometry
/// from clamping sizes the tests check. Call before QApplication exists.
void useLargeOffscreenScreen();

}  // namespace tb::ui::test

/// QCOMPARE for the core's enums. They have a toString() returning
/// std::string_view, which QTest would find by ADL and cannot print, so the
/// comparison is done on those names instead.
#define TB_COMPARE_ENUM(actual, expected) \
  QCOMPARE(tb::ui::toQString(toString(actual)), tb::ui::toQString(toString(expected)))

/// QTEST_MAIN with a large offscreen screen.
#define TB_UI_TEST_MAIN(TestClass)           \
  int main(int argc, char* argv[]) {         \
    tb::ui::test::useLargeOffscreenScreen(); \
    QApplication app(argc, argv);            \
    TestClass test;                          \
    return QTest::qExec(&test, argc, argv);  \
  }

namespace tb::ui::test {}  // namespace tb::ui::test
