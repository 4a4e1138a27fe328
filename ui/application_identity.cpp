// Identity strings in one translation unit; TB_VERSION comes from CMake so
// the About box and --version never disagree with the build.
#include "ui/application_identity.h"

#include <QCoreApplication>
#include <QGuiApplication>

namespace tb::ui {

QString organizationName() { return QStringLiteral("TrainBench"); }

QString applicationName() { return QStringLiteral("TrainBench Studio"); }

QString applicationVersion() { return QStringLiteral(TB_VERSION); }

QString desktopFileName() { return QStringLiteral("trainbench-studio"); }

QString aboutText(const QString& catalogVersion) {
  return QCoreApplication::translate(
             "tb::ui::About",
             "<h3>%1 %2</h3>"
             "<p>Compatibility, configuration, memory and ablation tooling for "
             "<code>training-nv-pytorch</code> images.</p>"
             "<p>Release catalog %3.</p>"
             "<p>Licensed under the GNU General Public License, version 3 or (at your "
             "option) any later version (GPL-3.0-or-later). There is NO WARRANTY.</p>"
             "<p>Charts use <a href=\"https://www.qcustomplot.com/\">QCustomPlot</a> by "
             "Emanuel Eichhammer (GPL-3.0). Built with Qt %4.</p>")
      .arg(applicationName().toHtmlEscaped(), applicationVersion().toHtmlEscaped(),
           catalogVersion.toHtmlEscaped(), QString::fromLatin1(qVersion()));
}

void applyApplicationIdentity() {
  QCoreApplication::setOrganizationName(organizationName());
  QCoreApplication::setApplicationName(applicationName());
  QCoreApplication::setApplicationVersion(applicationVersion());
  QGuiApplication::setDesktopFileName(desktopFileName());
}

}  // namespace tb::ui
