// Core errors start with "registry HOST: ..."; the panel already names the
// host in its own words, so that prefix is dropped from the reason. Errors
// never carry credentials (the client guarantees it), so they are shown as is.
#include "ui/image/registry_messages.h"

#include <QCoreApplication>
#include <QStringList>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("RegistryPanel", text); }

QString reasonWithoutHost(const QString& host, const QString& message) {
  QString reason = message;
  const QString prefix = QStringLiteral("registry ") + host + QStringLiteral(": ");
  if (reason.startsWith(prefix)) reason = reason.mid(prefix.size());
  if (reason.startsWith(QStringLiteral("network error: "))) {
    reason = reason.mid(QStringLiteral("network error: ").size());
  }
  return reason;
}

}  // namespace

QString describeRegistryFailure(const QString& host, const tb::Error& error) {
  const QString reason = reasonWithoutHost(host, toQString(error.message));
  switch (error.kind) {
    case tb::ErrorKind::Io:
      return tr("Offline or unreachable: %1 did not answer (%2). The release table and the "
                "verdict keep using the catalog.")
          .arg(host, reason);
    case tb::ErrorKind::Cancelled: return tr("Cancelled; nothing was changed.");
    case tb::ErrorKind::NotFound: return tr("%1 does not have it: %2").arg(host, reason);
    case tb::ErrorKind::BadInput:
    case tb::ErrorKind::Parse:
    case tb::ErrorKind::Runtime: break;
  }
  return tr("%1 refused: %2").arg(host, reason);
}

QString describeDeclaration(const tb::registry::ImageInspection& inspection) {
  QStringList lines;
  for (const tb::registry::PlatformImage& image : inspection.platforms) {
    const tb::registry::ImageConfig& config = image.config;
    QStringList facts;
    facts << tr("CUDA_VERSION %1")
                 .arg(config.cudaVersion ? toQString(*config.cudaVersion) : tr("not declared"));
    if (config.cudaDriverVersion) {
      facts << tr("CUDA_DRIVER_VERSION %1").arg(toQString(*config.cudaDriverVersion));
    }
    facts << tr("NVIDIA_REQUIRE_CUDA %1")
                 .arg(config.requireCuda ? toQString(*config.requireCuda) : tr("not declared"));
    lines << toQString(image.platform.name()) + QStringLiteral(": ") +
                 facts.join(QStringLiteral(", "));
  }
  if (lines.isEmpty()) return tr("The image lists no platform.");
  return lines.join(QLatin1Char('\n'));
}

}  // namespace tb::ui
