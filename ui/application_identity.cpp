// Identity strings in one translation unit; TB_VERSION comes from CMake so
// the About box and --version never disagree with the build.
#include "ui/application_identity.h"

#include <QCoreApplication>
#include <QGuiApplication>

#include "tb/common/build_info.hpp"
#include "tb/registry/http_transport.hpp"

namespace tb::ui {

QString organizationName() { return QStringLiteral("TrainBench"); }

QString applicationName() { return QStringLiteral("TrainBench Studio"); }

QString applicationVersion() { return QString::fromUtf8(tb::projectVersion()); }

QString desktopFileName() { return QStringLiteral("trainbench-studio"); }

QString aboutText(const QString& catalogVersion, const QString& engineVersions) {
  const QString git = QString::fromUtf8(tb::gitDescription());
  const QString engine =
      engineVersions.isEmpty()
          ? QString()
          : QStringLiteral("<p>%1</p><pre>%2</pre>")
                .arg(
                    QCoreApplication::translate(
                        "tb::ui::About", "The training engine, <code>trainbench --version</code>:"),
                    engineVersions.trimmed().toHtmlEscaped());
  return QCoreApplication::translate(
             "tb::ui::About",
             "<h3>%1 %2</h3>"
             "<p>Compatibility, configuration, memory and ablation tooling for "
             "<code>training-nv-pytorch</code> images.</p>"
             "<p>Release catalog %3.</p>"
             "<p>Licensed under the GNU General Public License, version 3 or (at your "
             "option) any later version (GPL-3.0-or-later). There is NO WARRANTY.</p>"
             "<p>Charts use <a href=\"https://www.qcustomplot.com/\">QCustomPlot</a> by "
             "Emanuel Eichhammer (GPL-3.0). Built with Qt %4, running on Qt %5; registry "
             "client on %6.</p>%7")
      .arg(applicationName().toHtmlEscaped(),
           QString(applicationVersion() +
                   (git.isEmpty() ? QString() : QStringLiteral(" (git %1)").arg(git)))
               .toHtmlEscaped(),
           catalogVersion.toHtmlEscaped(), QStringLiteral(QT_VERSION_STR),
           QString::fromLatin1(qVersion()),
           QString::fromStdString(tb::registry::transportLibraryVersion()).toHtmlEscaped(), engine);
}

void applyApplicationIdentity() {
  QCoreApplication::setOrganizationName(organizationName());
  QCoreApplication::setApplicationName(applicationName());
  QCoreApplication::setApplicationVersion(applicationVersion());
  QGuiApplication::setDesktopFileName(desktopFileName());
}

}  // namespace tb::ui
