// Labels are matched from the most specific down ("CkptOpt" before
// "CompilerOpt" before "AC2"), because every later label contains the
// earlier ones; "Base" must be a whole word so "database" is not a run.
#include "ui/ablation/benchmark_progress.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

using tb::bench::AblationStep;

std::optional<AblationStep> findStep(const QString& text) {
  if (text.contains(QLatin1String("ckptopt"), Qt::CaseInsensitive)) return AblationStep::CkptOpt;
  if (text.contains(QLatin1String("compileropt"), Qt::CaseInsensitive)) {
    return AblationStep::CompilerOpt;
  }
  static const QRegularExpression ac2(QStringLiteral("\\bac2\\b"),
                                      QRegularExpression::CaseInsensitiveOption);
  if (ac2.match(text).hasMatch()) return AblationStep::Ac2;
  static const QRegularExpression base(QStringLiteral("\\bbase\\b"),
                                       QRegularExpression::CaseInsensitiveOption);
  if (base.match(text).hasMatch()) return AblationStep::Base;
  return std::nullopt;
}

QString findStatus(const QString& text) {
  static const QRegularExpression status(QStringLiteral("\\b(ok|oom|failed|interrupted)\\b"),
                                         QRegularExpression::CaseInsensitiveOption);
  const QRegularExpressionMatch match = status.match(text);
  return match.hasMatch() ? match.captured(1).toLower() : QString();
}

bool announcesStart(const QString& text) {
  static const QRegularExpression start(QStringLiteral("\\b(start|starting|started|running)\\b"),
                                        QRegularExpression::CaseInsensitiveOption);
  return start.match(text).hasMatch();
}

void findCounter(const QString& text, BenchmarkProgress& progress) {
  // "3/12", "[3/12]", "run 3 of 12"; a date or a size such as "1/2 GiB" is
  // not expected on these lines, and a counter must not count past its total.
  static const QRegularExpression counter(
      QStringLiteral("\\b(\\d{1,5})\\s*(?:/|\\bof\\b)\\s*(\\d{1,5})\\b"));
  const QRegularExpressionMatch match = counter.match(text);
  if (!match.hasMatch()) return;
  const int done = match.captured(1).toInt();
  const int total = match.captured(2).toInt();
  if (total <= 0 || done > total) return;
  progress.runsDone = done;
  progress.runsTotal = total;
}

std::optional<BenchmarkProgress> fromJson(const QString& line) {
  const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8());
  if (!document.isObject()) return std::nullopt;
  const QJsonObject object = document.object();
  BenchmarkProgress progress;
  for (const char* key : {"label", "configuration", "config"}) {
    const QString value = object.value(QLatin1String(key)).toString();
    if (!value.isEmpty()) {
      progress.step = tb::bench::parseAblationLabel(toStdString(value));
      break;
    }
  }
  for (const char* key : {"done", "run", "index", "finished"}) {
    if (object.value(QLatin1String(key)).isDouble()) {
      progress.runsDone = object.value(QLatin1String(key)).toInt();
      break;
    }
  }
  for (const char* key : {"total", "runs", "of"}) {
    if (object.value(QLatin1String(key)).isDouble()) {
      progress.runsTotal = object.value(QLatin1String(key)).toInt();
      break;
    }
  }
  if (progress.runsDone > progress.runsTotal) progress.runsDone = progress.runsTotal = 0;
  progress.status = object.value(QLatin1String("status")).toString().toLower();
  const QString event = object.value(QLatin1String("event")).toString();
  progress.started = event.contains(QLatin1String("start"), Qt::CaseInsensitive);
  if (!progress.step && progress.runsTotal == 0) return std::nullopt;
  return progress;
}

}  // namespace

std::optional<BenchmarkProgress> parseBenchmarkProgress(const QString& line) {
  const QString text = line.trimmed();
  if (text.isEmpty()) return std::nullopt;
  if (text.startsWith(QLatin1Char('{'))) return fromJson(text);
  BenchmarkProgress progress;
  progress.step = findStep(text);
  findCounter(text, progress);
  progress.status = findStatus(text);
  progress.started = progress.status.isEmpty() && announcesStart(text);
  // A label alone is not progress: "the budget lets Base fit" names one too.
  // A run line carries a counter ("[5/12]") or a run status ("ok", "oom").
  if (progress.runsTotal == 0 && progress.status.isEmpty()) return std::nullopt;
  return progress;
}

}  // namespace tb::ui
