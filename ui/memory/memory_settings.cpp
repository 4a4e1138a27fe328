// Values are range-checked on the way in, and names (preset, dtype, profile,
// runtime, policy, card) are checked against what the core parses, so a hand-edited
// or older settings file can never put the form in a state it cannot show.
#include "ui/memory/memory_settings.h"

#include <QSettings>

#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"
#include "ui/application_identity.h"
#include "ui/qt_text.h"

namespace tb::ui {
namespace {

QString key(const char* name) { return QStringLiteral("memory/") + QString::fromLatin1(name); }

qint64 number(const QSettings& settings, const char* name, qint64 fallback, qint64 high) {
  bool ok = false;
  const qint64 value = settings.value(key(name), fallback).toLongLong(&ok);
  return ok && value >= 1 && value <= high ? value : fallback;
}

template <class Parse>
QString checkedName(const QSettings& settings, const char* name, const QString& fallback,
                    Parse parse) {
  const QString value = settings.value(key(name), fallback).toString();
  return parse(toStdString(value)) ? value : fallback;
}

bool isCard(const QString& name) {
  if (name == customCardName()) return true;
  for (const GpuCard& card : gpuCards()) {
    if (card.name == name) return true;
  }
  return false;
}

}  // namespace

MemoryPageInputs MemorySettings::load() const {
  const QSettings settings(organizationName(), applicationName());
  MemoryPageInputs in;
  const QString preset = settings.value(key("preset"), in.preset).toString();
  if (tb::model::findPreset(toStdString(preset))) in = withPresetShape(in, preset);
  constexpr qint64 kWide = qint64{1} << 24;
  in.vocab = number(settings, "vocab", in.vocab, kWide);
  in.dim = number(settings, "dim", in.dim, kWide);
  in.layers = number(settings, "layers", in.layers, 4096);
  in.heads = number(settings, "heads", in.heads, 4096);
  in.kvHeads = number(settings, "kvHeads", in.kvHeads, 4096);
  in.ffn = number(settings, "ffn", in.ffn, kWide);
  in.seq = number(settings, "seq", in.seq, kWide);
  in.batch = number(settings, "batch", in.batch, qint64{1} << 20);
  in.dp = number(settings, "dp", in.dp, 1 << 20);
  in.tp = number(settings, "tp", in.tp, 4096);
  in.pp = number(settings, "pp", in.pp, 4096);
  in.sequenceParallel = settings.value(key("sequenceParallel"), in.sequenceParallel).toBool();
  in.flashAttention = settings.value(key("flashAttention"), in.flashAttention).toBool();
  const int zero = settings.value(key("zero"), in.zero).toInt();
  if (zero >= 0 && zero <= 3) in.zero = zero;
  in.dtype = checkedName(settings, "dtype", in.dtype, tb::memory::parseDType);
  in.profile = checkedName(settings, "profile", in.profile, tb::memory::parseProfile);
  if (const QString runtime = settings.value(key("runtime"), in.runtime).toString();
      runtime == QStringLiteral("tuned") || runtime == QStringLiteral("stock")) {
    in.runtime = runtime;
  }
  in.recompute = checkedName(settings, "recompute", in.recompute, tb::memory::parseRecompute);
  const QString card = settings.value(key("card"), in.card).toString();
  if (isCard(card)) in.card = card;
  const double gib = settings.value(key("customGiB"), in.customGiB).toDouble();
  if (gib > 0.0 && gib <= 4096.0) in.customGiB = gib;
  return in;
}

void MemorySettings::save(const MemoryPageInputs& in) const {
  if (access_ == SettingsAccess::ReadOnly) return;
  QSettings settings(organizationName(), applicationName());
  settings.setValue(key("preset"), in.preset);
  settings.setValue(key("vocab"), in.vocab);
  settings.setValue(key("dim"), in.dim);
  settings.setValue(key("layers"), in.layers);
  settings.setValue(key("heads"), in.heads);
  settings.setValue(key("kvHeads"), in.kvHeads);
  settings.setValue(key("ffn"), in.ffn);
  settings.setValue(key("seq"), in.seq);
  settings.setValue(key("batch"), in.batch);
  settings.setValue(key("dp"), in.dp);
  settings.setValue(key("tp"), in.tp);
  settings.setValue(key("pp"), in.pp);
  settings.setValue(key("sequenceParallel"), in.sequenceParallel);
  settings.setValue(key("flashAttention"), in.flashAttention);
  settings.setValue(key("zero"), in.zero);
  settings.setValue(key("dtype"), in.dtype);
  settings.setValue(key("profile"), in.profile);
  settings.setValue(key("runtime"), in.runtime);
  settings.setValue(key("recompute"), in.recompute);
  settings.setValue(key("card"), in.card);
  settings.setValue(key("customGiB"), in.customGiB);
}

}  // namespace tb::ui
