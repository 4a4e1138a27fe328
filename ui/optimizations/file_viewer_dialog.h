// Clicking a finding shows the file at the line it names, read-only, with
// the same highlighting as the previews. One non-modal dialog is reused, so
// the user can keep it beside the table and click through findings.
#pragma once

#include <QDialog>
#include <QString>

#include "tb/config/validation.hpp"

class QLabel;

namespace tb::ui {

class ArtifactHighlighter;
class LineNumberedView;

/// A read-only view of one file, with line numbers and one line highlighted.
class FileViewerDialog : public QDialog {
  Q_OBJECT

 public:
  explicit FileViewerDialog(QWidget* parent = nullptr);

  /// Shows `path` with `line` (1-based; 0: none) highlighted and scrolled
  /// into view; a file that cannot be read shows why instead.
  void showFile(const QString& path, int line, tb::config::FileKind kind);

  [[nodiscard]] QString filePath() const { return path_; }
  /// The highlighted line, 0 when none.
  [[nodiscard]] int highlightedLine() const noexcept { return line_; }
  /// The highlighted line's text, empty when none.
  [[nodiscard]] QString highlightedText() const;

 private:
  void highlightLine(int line);

  QLabel* header_ = nullptr;
  LineNumberedView* editor_ = nullptr;
  ArtifactHighlighter* highlighter_ = nullptr;
  QString path_;
  int line_ = 0;
};

}  // namespace tb::ui
