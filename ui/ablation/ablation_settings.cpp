// The keys, their ranges and the model check are declared in
// studio_settings.h with the Studio's other keys. Files that have gone since
// are dropped by the page, not here.
#include "ui/ablation/ablation_settings.h"

#include "tb/bench/ablation_runner.hpp"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

const QString kLossPatternField = QStringLiteral("loss-pattern:");

}  // namespace

AblationPageState AblationSettings::load() const {
  AblationPageState state;
  state.engineFiles = keys::kAblationEngineFiles.get();
  state.clusterFiles = keys::kAblationClusterFiles.get();
  // "LABEL<TAB>GPUS<TAB>[loss-pattern:ENCODED<TAB>]PATH": a path may hold
  // anything but a tab first; the pattern is percent-encoded, tabs and all.
  for (const QString& entry : keys::kAblationLogs.get()) {
    QStringList parts = entry.split(QLatin1Char('\t'));
    if (parts.size() < 3) continue;
    bool ok = false;
    const int gpus = parts.at(1).toInt(&ok);
    if (!ok || gpus < 0) continue;
    QString pattern;
    if (parts.size() >= 4 && parts.at(2).startsWith(kLossPatternField)) {
      pattern = QString::fromUtf8(
          QByteArray::fromPercentEncoding(parts.at(2).mid(kLossPatternField.size()).toUtf8()));
      parts.removeAt(2);
    }
    state.logs.append({parts.mid(2).join(QLatin1Char('\t')), parts.at(0), gpus, pattern});
  }
  state.lastFolder = keys::kAblationLastFolder.get();
  state.normalised = keys::kAblationNormalised.get();
  state.request.model = keys::kAblationModel.get(state.request.model);
  state.request.repeats = keys::kAblationRepeats.get();
  state.request.steps = keys::kAblationSteps.get();
  return state;
}

void AblationSettings::save(const AblationPageState& state) const {
  SettingsWriter out(access_);
  keys::kAblationEngineFiles.set(out, state.engineFiles);
  keys::kAblationClusterFiles.set(out, state.clusterFiles);
  QStringList logs;
  for (const LogImportRequest& log : state.logs) {
    QString entry = log.label + QLatin1Char('\t') + QString::number(log.gpus) + QLatin1Char('\t');
    if (!log.lossPattern.isEmpty())
      entry += kLossPatternField +
               QString::fromLatin1(log.lossPattern.toUtf8().toPercentEncoding()) +
               QLatin1Char('\t');
    logs << entry + log.path;
  }
  keys::kAblationLogs.set(out, logs);
  keys::kAblationLastFolder.set(out, state.lastFolder);
  keys::kAblationNormalised.set(out, state.normalised);
  keys::kAblationModel.set(out, state.request.model);
  keys::kAblationRepeats.set(out, state.request.repeats);
  keys::kAblationSteps.set(out, state.request.steps);
}

QString defaultBenchmarksFolder() { return toQString(tb::bench::benchmarksDirectory().string()); }

}  // namespace tb::ui
