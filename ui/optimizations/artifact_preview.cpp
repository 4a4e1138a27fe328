// Texts are replaced only when they differ, and the scroll position is put
// back afterwards, so toggling an option while reading the manifest does not
// jump the view to the top.
#include "ui/optimizations/artifact_preview.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

#include "tb/common/atomic_file.hpp"
#include "ui/optimizations/artifact_highlighter.h"
#include "ui/optimizations/line_numbered_view.h"
#include "ui/qt_text.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {
namespace {

std::size_t indexOf(tb::config::ArtifactKind kind) {
  const auto& kinds = tb::config::allArtifactKinds();
  return static_cast<std::size_t>(std::find(kinds.begin(), kinds.end(), kind) - kinds.begin());
}

}  // namespace

ArtifactPreview::ArtifactPreview(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("artifactPreview"));
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("artifactTabs"));
  tabs_->setDocumentMode(true);
  const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  for (const tb::config::ArtifactKind kind : tb::config::allArtifactKinds()) {
    auto* editor = new LineNumberedView(tabs_);
    const QString name = toQString(tb::config::toString(kind));
    editor->setObjectName(QStringLiteral("preview-") + name);
    editor->setReadOnly(true);
    editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    editor->setFont(fixed);
    new ArtifactHighlighter(editor->document(), languageFor(kind));
    tabs_->addTab(editor, name);
    editors_.push_back(editor);
  }

  problem_ = new QLabel(this);
  problem_->setObjectName(QStringLiteral("previewProblem"));
  problem_->setWordWrap(true);
  problem_->setStyleSheet(
      QStringLiteral("QLabel { background: #fde7e9; color: #8a1c24; border: 1px solid #f1b0b7; "
                     "border-radius: 4px; padding: 6px; }"));
  problem_->hide();

  copy_ = new QPushButton(inkIcon(QStringLiteral(":/icons/copy.svg")), tr("Copy"), this);
  copy_->setObjectName(QStringLiteral("copyArtifactButton"));
  copy_->setToolTip(tr("Copy the file of this tab to the clipboard"));
  save_ = new QPushButton(tr("Save all to folder\u2026"), this);
  save_->setObjectName(QStringLiteral("saveAllButton"));
  save_->setToolTip(
      tr("Write every file into one folder; each file is written whole or "
         "not at all"));
  auto* bar = new QHBoxLayout;
  auto* title = new QLabel(tr("<b>Generated files</b>"), this);
  bar->addWidget(title);
  bar->addStretch(1);
  bar->addWidget(copy_);
  bar->addWidget(save_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(problem_);
  layout->addWidget(tabs_, 1);

  connect(copy_, &QPushButton::clicked, this, &ArtifactPreview::copyCurrent);
  connect(tabs_, &QTabWidget::currentChanged, this,
          [this] { Q_EMIT currentKindChanged(currentKind()); });
  connect(save_, &QPushButton::clicked, this, &ArtifactPreview::chooseFolderAndSave);
}

void ArtifactPreview::setArtifacts(std::vector<tb::config::Artifact> artifacts) {
  artifacts_ = std::move(artifacts);
  hasProblem_ = false;
  problem_->hide();
  copy_->setEnabled(true);
  save_->setEnabled(true);
  for (const tb::config::Artifact& artifact : artifacts_) {
    const std::size_t index = indexOf(artifact.kind);
    if (index >= editors_.size()) continue;
    QPlainTextEdit* editor = editors_[index];
    tabs_->setTabText(static_cast<int>(index), toQString(artifact.fileName));
    tabs_->setTabToolTip(static_cast<int>(index),
                         tr("%1 (%2)").arg(toQString(artifact.fileName),
                                           toQString(tb::config::toString(artifact.kind))));
    const QString text = toQString(artifact.content);
    if (editor->toPlainText() == text) continue;
    const int scroll = editor->verticalScrollBar()->value();
    editor->setPlainText(text);
    editor->verticalScrollBar()->setValue(scroll);
  }
}

void ArtifactPreview::setProblem(const QString& message) {
  hasProblem_ = true;
  problem_->setText(tr("These files are from the last valid configuration: %1").arg(message));
  problem_->show();
  save_->setEnabled(false);
}

QString ArtifactPreview::text(tb::config::ArtifactKind kind) const {
  const std::size_t index = indexOf(kind);
  return index < editors_.size() ? editors_[index]->toPlainText() : QString();
}

void ArtifactPreview::showKind(tb::config::ArtifactKind kind) {
  tabs_->setCurrentIndex(static_cast<int>(indexOf(kind)));
}

tb::config::ArtifactKind ArtifactPreview::currentKind() const {
  const auto& kinds = tb::config::allArtifactKinds();
  const int index = tabs_->currentIndex();
  return index >= 0 && static_cast<std::size_t>(index) < kinds.size()
             ? kinds[static_cast<std::size_t>(index)]
             : kinds.front();
}

void ArtifactPreview::copyCurrent() {
  const int index = tabs_->currentIndex();
  if (index < 0 || static_cast<std::size_t>(index) >= editors_.size()) return;
  QApplication::clipboard()->setText(editors_[static_cast<std::size_t>(index)]->toPlainText());
  Q_EMIT statusMessage(tr("Copied %1 to the clipboard.").arg(tabs_->tabText(index)), false);
}

tb::Status ArtifactPreview::saveAllTo(const QString& directory) const {
  if (artifacts_.empty()) {
    return tb::makeError(tb::ErrorKind::BadInput, "there are no generated files to save");
  }
  if (hasProblem_) {
    return tb::makeError(tb::ErrorKind::BadInput,
                         "the configuration is not valid; fix it before saving");
  }
  const std::filesystem::path folder(toStdString(directory));
  for (const tb::config::Artifact& artifact : artifacts_) {
    const std::filesystem::path path = folder / artifact.fileName;
    if (auto status = writeFileAtomically(path, artifact.content); !status) return status;
    if (path.extension() == ".sh") {
      std::error_code ignored;  // a script that is not executable still runs with sh
      std::filesystem::permissions(path, std::filesystem::perms::owner_exec,
                                   std::filesystem::perm_options::add, ignored);
    }
  }
  return {};
}

void ArtifactPreview::chooseFolderAndSave() {
  const QString directory =
      QFileDialog::getExistingDirectory(this, tr("Save the generated files into"));
  if (directory.isEmpty()) return;
  if (auto status = saveAllTo(directory); !status) {
    Q_EMIT statusMessage(tr("Saving stopped (files before it were written whole): %1")
                             .arg(toQString(status.error().message)),
                         true);
    return;
  }
  Q_EMIT statusMessage(
      tr("Saved %n file(s) to %1.", nullptr, static_cast<int>(artifacts_.size())).arg(directory),
      false);
}

}  // namespace tb::ui
