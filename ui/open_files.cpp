// The order matters: a catalog has a schema_version like results.json, and
// any .json is a DeepSpeed config by its name alone, so our own schemas and
// the training-log formats are asked before the config kinds.
#include "ui/open_files.h"

#include <QFile>
#include <QFileInfo>

#include "tb/config/validation.hpp"
#include "tb/logs/log_import.hpp"
#include "ui/ablation/ablation_source_model.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

/// Files up to this size are scanned for a training-log format on the GUI
/// thread (configs are kilobytes); bigger ones are logs or nothing.
constexpr qint64 kScanLimitBytes = 4 * 1024 * 1024;
constexpr qint64 kHeadBytes = 64 * 1024;

}  // namespace

OpenTarget openTargetFor(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir()) return OpenTarget::Ablation;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return OpenTarget::Ablation;  // says why it cannot
  const QByteArray head = file.read(kHeadBytes);
  if (head.contains("\"trainbench-catalog\"")) return OpenTarget::Catalog;
  if (head.contains("\"trainbench-cluster-plan\"")) return OpenTarget::Ablation;
  if (guessSourceKind(path) != AblationSourceKind::TrainingLog) return OpenTarget::Ablation;
  if (info.size() > kScanLimitBytes) return OpenTarget::Ablation;
  if (tb::logs::detectFormat(toStdString(path))) return OpenTarget::Ablation;
  // A binary file is no config; the log import says what it expected.
  if (head.contains('\0')) return OpenTarget::Ablation;
  const auto kind = tb::config::detectFileKind(
      toStdString(info.fileName()),
      std::string_view(head.constData(), static_cast<std::size_t>(head.size())));
  return kind == tb::config::FileKind::Auto ? OpenTarget::Ablation : OpenTarget::Validator;
}

}  // namespace tb::ui
