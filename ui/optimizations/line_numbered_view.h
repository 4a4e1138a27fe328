// A read-only text view with a line-number gutter, Qt's CodeEditor pattern:
// the gutter is a child widget laid over the viewport margin and repainted
// from updateRequest, so scrolling costs one strip, not a relayout. Findings
// cite lines, so the numbers let a user check a cited line at a glance.
#pragma once

#include <QPlainTextEdit>

class QPaintEvent;
class QResizeEvent;

namespace tb::ui {

/// A QPlainTextEdit with line numbers, a faint band on the cursor's line
/// and a stronger one on a marked line (the finding being shown).
class LineNumberedView : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit LineNumberedView(QWidget* parent = nullptr);

  /// Marks `line` (1-based; 0 clears) and its number in the gutter.
  void setMarkedLine(int line);
  [[nodiscard]] int markedLine() const noexcept { return markedLine_; }

  /// Width the gutter needs for the document's largest line number.
  [[nodiscard]] int gutterWidth() const;
  /// The 1-based line whose band follows the cursor.
  [[nodiscard]] int currentLine() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  friend class LineNumberGutter;
  void paintGutter(QPaintEvent* event);
  void updateGutterWidth();
  void scrollGutter(const QRect& rect, int dy);
  void refreshBands();

  QWidget* gutter_ = nullptr;
  int markedLine_ = 0;
};

}  // namespace tb::ui
