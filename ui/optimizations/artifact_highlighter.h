// One highlighter for every file the page shows, driven by a rule table per
// language: the artifacts are short and regular (YAML, JSON, shell, Python,
// env files), so a few regular expressions read them well enough, and one
// class keeps the colours consistent across the tabs and the file viewer.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

#include <vector>

#include "tb/config/artifacts.hpp"
#include "tb/config/validation.hpp"

namespace tb::ui {

/// The languages the page highlights.
enum class SyntaxLanguage { PlainText, Shell, Yaml, Json, Python, Dockerfile };

/// The language an artifact is written in.
[[nodiscard]] SyntaxLanguage languageFor(tb::config::ArtifactKind kind) noexcept;
/// The language of a file the validator detected (env files read as shell).
[[nodiscard]] SyntaxLanguage languageFor(tb::config::FileKind kind) noexcept;

/// Colours keys, strings, numbers, keywords and comments of one language.
class ArtifactHighlighter : public QSyntaxHighlighter {
  Q_OBJECT

 public:
  ArtifactHighlighter(QTextDocument* document, SyntaxLanguage language);

  [[nodiscard]] SyntaxLanguage language() const noexcept { return language_; }

 protected:
  void highlightBlock(const QString& text) override;

 private:
  struct Rule {
    QRegularExpression pattern;
    QTextCharFormat format;
    int group = 0;  ///< capture group to colour; 0 is the whole match
  };

  SyntaxLanguage language_;
  std::vector<Rule> rules_;
};

}  // namespace tb::ui
