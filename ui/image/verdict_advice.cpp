// The advice names values (a driver, tags, an image reference), never just
// "upgrade": a user should be able to act on it without reading the notes.
#include "ui/image/verdict_advice.h"

#include <QCoreApplication>
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("tb::ui::VerdictAdvice", text); }

QString upgradeTarget(const tb::catalog::Release& release,
                      const tb::compat::CompatVerdict& verdict) {
  if (verdict.upgradeTo) return toQString(verdict.upgradeTo->text());
  return QStringLiteral("R%1").arg(release.requiredDriverMajor);
}

}  // namespace

QStringList verdictActions(const tb::catalog::Release& release,
                           const tb::compat::CompatQuery& query,
                           const tb::compat::CompatVerdict& verdict,
                           const std::vector<tb::catalog::Release>& allReleases) {
  const QString arch = toQString(tb::catalog::toString(query.arch));
  if (!release.hasArchitecture(query.arch)) {
    QStringList tags;
    for (const tb::catalog::Release& other : allReleases) {
      if (other.hasArchitecture(query.arch)) tags.append(toQString(other.tag));
    }
    if (tags.isEmpty()) {
      return {tr("No release in the catalog is published for %1; run on an amd64 host.").arg(arch)};
    }
    return {
        tr("Choose a release published for %1: %2.").arg(arch, tags.join(QStringLiteral(", ")))};
  }

  switch (verdict.status) {
    case tb::compat::VerdictStatus::Supported:
      return {tr("Ready to run: docker pull %1").arg(toQString(release.image))};
    case tb::compat::VerdictStatus::ForwardCompatible:
      // How to run in compat mode is already a warning; say how to leave it.
      return {tr("Upgrade the driver to %1 or newer to run without forward compatibility.")
                  .arg(upgradeTarget(release, verdict))};
    case tb::compat::VerdictStatus::Unsupported: break;
  }
  return {tr("Upgrade the driver to %1 or newer.").arg(upgradeTarget(release, verdict))};
}

}  // namespace tb::ui
