// Resolved at each start, not cached: a test or a user may change the
// environment between runs.
#include "ui/runs/trainbench_binary.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace tb::ui {

QString trainbenchBinary() {
  const QString fromEnvironment = qEnvironmentVariable("TRAINBENCH_BINARY");
  if (!fromEnvironment.isEmpty()) return fromEnvironment;
  const QFileInfo besideStudio(
      QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("trainbench")));
  if (besideStudio.isFile() && besideStudio.isExecutable()) return besideStudio.filePath();
  const QString onPath = QStandardPaths::findExecutable(QStringLiteral("trainbench"));
  return onPath.isEmpty() ? QStringLiteral("trainbench") : onPath;
}

}  // namespace tb::ui
