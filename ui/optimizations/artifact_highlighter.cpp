// Rules are applied in table order and later rules win, so comments and
// strings come last: a '#' inside a quoted value is then coloured as a
// string, and a keyword inside a comment as a comment. Colours are fixed mid
// tones that read on the light and the dark palette alike.
#include "ui/optimizations/artifact_highlighter.h"

#include <QColor>
#include <QFont>

namespace tb::ui {
namespace {

QTextCharFormat makeFormat(const QColor& colour, bool bold = false, bool italic = false) {
  QTextCharFormat result;
  result.setForeground(colour);
  if (bold) result.setFontWeight(QFont::DemiBold);
  result.setFontItalic(italic);
  return result;
}

const QColor kKey(0x1f, 0x6f, 0xb5);
const QColor kString(0x2e, 0x8b, 0x3a);
const QColor kNumber(0xb3, 0x5c, 0x00);
const QColor kKeyword(0x8e, 0x3c, 0xb0);
const QColor kVariable(0xb0, 0x3a, 0x5b);
const QColor kComment(0x80, 0x80, 0x80);

QRegularExpression re(const char* pattern) {
  return QRegularExpression(QString::fromLatin1(pattern));
}

}  // namespace

SyntaxLanguage languageFor(tb::config::ArtifactKind kind) noexcept {
  using tb::config::ArtifactKind;
  switch (kind) {
    case ArtifactKind::Kubernetes: return SyntaxLanguage::Yaml;
    case ArtifactKind::DeepSpeed: return SyntaxLanguage::Json;
    case ArtifactKind::TrainingArgs: return SyntaxLanguage::Python;
    case ArtifactKind::Env:
    case ArtifactKind::Docker:
    case ArtifactKind::Launch:
    case ArtifactKind::Slurm: return SyntaxLanguage::Shell;
  }
  return SyntaxLanguage::PlainText;
}

SyntaxLanguage languageFor(tb::config::FileKind kind) noexcept {
  using tb::config::FileKind;
  switch (kind) {
    case FileKind::DeepSpeedJson: return SyntaxLanguage::Json;
    case FileKind::EnvFile: return SyntaxLanguage::Shell;
    case FileKind::KubernetesManifest: return SyntaxLanguage::Yaml;
    case FileKind::Dockerfile: return SyntaxLanguage::Dockerfile;
    case FileKind::TrainingArgs: return SyntaxLanguage::Python;
    case FileKind::Auto: break;
  }
  return SyntaxLanguage::PlainText;
}

ArtifactHighlighter::ArtifactHighlighter(QTextDocument* document, SyntaxLanguage syntax)
    : QSyntaxHighlighter(document), language_(syntax) {
  const QTextCharFormat key = makeFormat(kKey, true);
  const QTextCharFormat string = makeFormat(kString);
  const QTextCharFormat number = makeFormat(kNumber);
  const QTextCharFormat keyword = makeFormat(kKeyword, true);
  const QTextCharFormat variable = makeFormat(kVariable);
  const QTextCharFormat comment = makeFormat(kComment, false, true);
  switch (syntax) {
    case SyntaxLanguage::Yaml:
      rules_ = {{re(R"(^\s*(?:- )?([\w./'\[\]-]+):(?=\s|$))"), key, 1},
                {re(R"(\b-?\d+(?:\.\d+)?\b)"), number, 0},
                {re(R"(\b(?:true|false|null)\b)"), keyword, 0},
                {re(R"(^---$)"), keyword, 0},
                {re(R"("(?:[^"\\]|\\.)*"|'[^']*')"), string, 0},
                {re(R"((?:^|\s)#.*$)"), comment, 0}};
      break;
    case SyntaxLanguage::Json:
      rules_ = {{re(R"(-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b)"), number, 0},
                {re(R"(\b(?:true|false|null)\b)"), keyword, 0},
                {re(R"("(?:[^"\\]|\\.)*")"), string, 0},
                {re(R"(("(?:[^"\\]|\\.)*")\s*:)"), key, 1}};
      break;
    case SyntaxLanguage::Shell:
    case SyntaxLanguage::Dockerfile:
      rules_ = {
          {re(R"(^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=)"), key, 1},
          {re(R"((?:^|\s)(--?[A-Za-z][\w-]*))"), variable, 1},
          {re(R"(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\([A-Z_]+\))"), variable, 0},
          {re(R"(\b(?:docker|torchrun|exec|if|then|fi|set|export|python|pip)\b)"), keyword, 0},
          {re(R"("(?:[^"\\]|\\.)*"|'[^']*')"), string, 0},
          {re(R"((?:^|\s)#.*$)"), comment, 0}};
      if (syntax == SyntaxLanguage::Dockerfile) {
        rules_.insert(rules_.begin(),
                      Rule{re(R"(^\s*(?:FROM|RUN|ENV|ARG|COPY|ADD|WORKDIR|ENTRYPOINT|CMD|)"
                              R"(USER|LABEL|EXPOSE|SHELL)\b)"),
                           keyword, 0});
      }
      break;
    case SyntaxLanguage::Python:
      rules_ = {
          {re(R"(\b(?:from|import|def|return|if|else|for|in|True|False|None)\b)"), keyword, 0},
          {re(R"(\b([A-Za-z_]\w*)\s*=(?!=))"), key, 1},
          {re(R"(\b\d+(?:\.\d+)?(?:e-?\d+)?\b)"), number, 0},
          {re(R"("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"), string, 0},
          {re(R"(#.*$)"), comment, 0}};
      break;
    case SyntaxLanguage::PlainText: break;
  }
}

void ArtifactHighlighter::highlightBlock(const QString& text) {
  for (const Rule& rule : rules_) {
    QRegularExpressionMatchIterator matches = rule.pattern.globalMatch(text);
    while (matches.hasNext()) {
      const QRegularExpressionMatch match = matches.next();
      const auto start = match.capturedStart(rule.group);
      if (start < 0) continue;
      setFormat(static_cast<int>(start), static_cast<int>(match.capturedLength(rule.group)),
                rule.format);
    }
  }
}

}  // namespace tb::ui
