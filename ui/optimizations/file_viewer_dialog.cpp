// The file is read on the GUI thread: it is a configuration file the
// validator has just read, and reading stops at a size cap, so a huge or
// wrong file cannot stall the window.
#include "ui/optimizations/file_viewer_dialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QTextBlock>
#include <QVBoxLayout>

#include "ui/optimizations/artifact_highlighter.h"
#include "ui/optimizations/line_numbered_view.h"

namespace tb::ui {
namespace {

constexpr qint64 kMaxViewBytes = 4 * 1024 * 1024;

}  // namespace

FileViewerDialog::FileViewerDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("fileViewer"));
  setModal(false);
  resize(760, 560);
  header_ = new QLabel(this);
  header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  header_->setWordWrap(true);
  editor_ = new LineNumberedView(this);
  editor_->setObjectName(QStringLiteral("fileViewerText"));
  editor_->setReadOnly(true);
  // Arrow keys move the cursor, so the current-line band can be walked
  // from the finding to the lines around it.
  editor_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(header_);
  layout->addWidget(editor_, 1);
  layout->addWidget(buttons);
}

void FileViewerDialog::showFile(const QString& path, int line, tb::config::FileKind kind) {
  path_ = path;
  setWindowTitle(tr("%1 (read-only)").arg(QFileInfo(path).fileName()));
  delete highlighter_;
  highlighter_ = nullptr;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    editor_->setPlainText(QString());
    header_->setText(tr("Cannot open %1: %2").arg(path, file.errorString()));
    highlightLine(0);
    return;
  }
  const QByteArray bytes = file.read(kMaxViewBytes);
  const bool truncated = !file.atEnd();
  editor_->setPlainText(QString::fromUtf8(bytes));
  highlighter_ = new ArtifactHighlighter(editor_->document(), languageFor(kind));
  const int lines = editor_->document()->blockCount();
  QString where = line > 0 ? tr("%1, line %2 of %3").arg(path).arg(line).arg(lines) : path;
  if (truncated) where += tr(" (only the first 4 MiB shown)");
  header_->setText(where);
  highlightLine(line <= lines ? line : 0);
}

QString FileViewerDialog::highlightedText() const {
  if (line_ <= 0) return {};
  return editor_->document()->findBlockByNumber(line_ - 1).text();
}

void FileViewerDialog::highlightLine(int line) {
  line_ = line;
  editor_->setMarkedLine(line);
  if (line <= 0) return;
  editor_->setTextCursor(QTextCursor(editor_->document()->findBlockByNumber(line - 1)));
  editor_->centerCursor();
}

}  // namespace tb::ui
