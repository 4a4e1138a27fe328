// Generation and the self-check run on the GUI thread on purpose: they are
// pure functions over a few kilobytes of text (well under a millisecond), and
// doing them inline keeps the previews exactly in step with the form. Only
// the user's files, which can be anything, are validated on a worker.
#include "ui/optimizations/optimizations_page.h"

#include <QGroupBox>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <optional>

#include "tb/config/artifacts.hpp"
#include "tb/config/validation.hpp"
#include "ui/catalog_session.h"
#include "ui/optimizations/artifact_preview.h"
#include "ui/optimizations/optimization_form.h"
#include "ui/optimizations/validation_panel.h"
#include "ui/qt_text.h"
#include "ui/studio_settings.h"

namespace tb::ui {
namespace {

// Which generated files the validator understands, and as what.
std::optional<tb::config::FileKind> validatorKind(tb::config::ArtifactKind kind) {
  using tb::config::ArtifactKind;
  using tb::config::FileKind;
  switch (kind) {
    case ArtifactKind::Env: return FileKind::EnvFile;
    case ArtifactKind::Kubernetes: return FileKind::KubernetesManifest;
    case ArtifactKind::DeepSpeed: return FileKind::DeepSpeedJson;
    case ArtifactKind::TrainingArgs: return FileKind::TrainingArgs;
    case ArtifactKind::Docker:
    case ArtifactKind::Launch:
    case ArtifactKind::Slurm: break;
  }
  return std::nullopt;
}

QString severityMark(tb::config::Severity severity) {
  switch (severity) {
    case tb::config::Severity::Error: return QStringLiteral("\u2716");
    case tb::config::Severity::Warning: return QStringLiteral("\u26a0");
    case tb::config::Severity::Info: return QStringLiteral("\u2139");
  }
  return {};
}

}  // namespace

OptimizationsPage::OptimizationsPage(CatalogSession& session, const StudioSettings& settings,
                                     QWidget* parent)
    : QWidget(parent), session_(session), settings_(settings.access()) {
  setObjectName(QStringLiteral("optimizationsPage"));
  form_ = new OptimizationForm(this);
  preview_ = new ArtifactPreview(this);
  validation_ = new ValidationPanel(session_, this);
  checks_ = new QLabel(this);
  checks_->setObjectName(QStringLiteral("generatedChecks"));
  checks_->setWordWrap(true);
  checks_->setTextFormat(Qt::PlainText);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("statusLine"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* formScroll = new QScrollArea(this);
  formScroll->setWidget(form_);
  formScroll->setWidgetResizable(true);
  formScroll->setFrameShape(QFrame::NoFrame);
  formScroll->setMinimumWidth(360);
  formScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

  auto* generated = new QWidget(this);
  auto* generatedLayout = new QVBoxLayout(generated);
  generatedLayout->setContentsMargins(0, 0, 0, 0);
  generatedLayout->addWidget(preview_, 1);
  generatedLayout->addWidget(checks_);

  auto* validationBox = new QGroupBox(tr("Check files you already have"), this);
  auto* validationLayout = new QVBoxLayout(validationBox);
  validationLayout->addWidget(validation_);

  auto* right = new QSplitter(Qt::Vertical, this);
  right->setObjectName(QStringLiteral("optimizationsOutputSplitter"));
  right->setChildrenCollapsible(false);
  right->addWidget(generated);
  right->addWidget(validationBox);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  right->setSizes({460, 340});

  auto* columns = new QSplitter(Qt::Horizontal, this);
  columns->setObjectName(QStringLiteral("optimizationsColumnsSplitter"));
  columns->setChildrenCollapsible(false);
  columns->addWidget(formScroll);
  columns->addWidget(right);
  columns->setStretchFactor(0, 0);
  columns->setStretchFactor(1, 1);
  columns->setSizes({400, 900});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 12, 12, 12);
  layout->setSpacing(8);
  layout->addWidget(buildHeader());
  layout->addWidget(columns, 1);
  layout->addWidget(status_);

  const OptimizationChoices choices = settings_.load();
  form_->setConfig(choices.config);
  validation_->setFiles(choices.validationFiles);
  preview_->showKind(choices.previewTab);

  connect(form_, &OptimizationForm::configChanged, this, [this] {
    regenerate();
    saveChoices();
  });
  connect(preview_, &ArtifactPreview::statusMessage, this, &OptimizationsPage::showStatus);
  connect(preview_, &ArtifactPreview::currentKindChanged, this, [this] { saveChoices(); });
  connect(validation_, &ValidationPanel::filesChanged, this, [this] { saveChoices(); });
  connect(validation_, &ValidationPanel::busyChanged, this, &OptimizationsPage::busyChanged);
  connect(&session_, &CatalogSession::selectedReleaseChanged, this,
          &OptimizationsPage::onReleaseChanged);
  connect(&session_, &CatalogSession::catalogChanged, this, &OptimizationsPage::onReleaseChanged);
  onReleaseChanged();
}

QWidget* OptimizationsPage::buildHeader() {
  releaseLabel_ = new QLabel(this);
  releaseLabel_->setObjectName(QStringLiteral("releaseLabel"));
  releaseLabel_->setWordWrap(true);
  return releaseLabel_;
}

tb::config::ImageConfig OptimizationsPage::currentConfig() const {
  tb::config::ImageConfig config = form_->config();
  config.tag = toStdString(releaseTag_);
  return config;
}

bool OptimizationsPage::isBusy() const { return validation_->isBusy(); }

void OptimizationsPage::validateFiles(const QStringList& paths) { validation_->addFiles(paths); }

void OptimizationsPage::onReleaseChanged() {
  const tb::catalog::Catalog& catalog = session_.catalog();
  const tb::catalog::Release* release = session_.selectedRelease();
  const bool chosen = release != nullptr;
  if (!chosen && !catalog.releases.empty()) release = &catalog.releases.back();
  if (release == nullptr) {
    releaseTag_.clear();
    releaseLabel_->setText(
        tr("The catalog holds no releases: load one with File > Load "
           "Catalog."));
    form_->setVpcRegions({});
    regenerate();
    return;
  }
  releaseTag_ = toQString(release->tag);
  const QString torch = toQString(release->componentVersion("torch").value_or("?"));
  const QString facts = tr("<b>training-nv-pytorch %1</b> \u00b7 CUDA %2 \u00b7 PyTorch %3")
                            .arg(releaseTag_, toQString(release->cudaVersion), torch);
  releaseLabel_->setText(
      chosen ? facts + tr(" \u2014 the release chosen on the Image page.")
             : facts + tr(" \u2014 no release is chosen on the Image page, so this is the "
                          "newest one."));
  form_->setVpcRegions(toQStringList(release->vpcRegions));
  regenerate();
}

void OptimizationsPage::regenerate() {
  if (releaseTag_.isEmpty()) {
    preview_->setProblem(tr("no release to generate files for."));
    checks_->clear();
    return;
  }
  auto resolved = tb::config::resolveConfig(currentConfig(), session_.catalog());
  if (!resolved) {
    preview_->setProblem(toQString(resolved.error().message));
    checks_->setText(tr("Fix the configuration to check the generated files."));
    return;
  }
  preview_->setArtifacts(tb::config::generateArtifacts(*resolved));
  checkGenerated(*resolved);
}

// The generated files go through the validator the user's files go through,
// so the release's compatibility rules (tag, architecture, GPU count) and the
// notes' rules are shown for exactly what would be saved.
void OptimizationsPage::checkGenerated(const tb::config::ResolvedConfig& resolved) {
  QStringList lines;
  int checked = 0;
  for (const tb::config::Artifact& artifact : preview_->artifacts()) {
    const auto kind = validatorKind(artifact.kind);
    if (!kind) continue;
    ++checked;
    const tb::config::FileReport report =
        tb::config::validateContent(artifact.fileName, artifact.content, *kind, session_.catalog());
    for (const tb::config::Finding& finding : report.findings) {
      lines.append(severityMark(finding.severity) + QLatin1Char(' ') +
                   toQString(artifact.fileName) + QStringLiteral(": ") +
                   toQString(finding.message));
    }
  }
  if (lines.isEmpty()) {
    checks_->setText(tr("\u2714 The %1 checkable files pass every rule of the image's notes and "
                        "release %2's compatibility checks.")
                         .arg(checked)
                         .arg(toQString(resolved.release.tag)));
  } else {
    lines.prepend(tr("Checks of these files against the image's notes and release %1:")
                      .arg(toQString(resolved.release.tag)));
    checks_->setText(lines.join(QLatin1Char('\n')));
  }
}

void OptimizationsPage::applyCheckpointRecommendation(bool recompute) {
  tb::config::ImageConfig config = form_->config();
  QString text;
  if (recompute) {
    config.gradientCheckpointing = true;
    config.checkpointOptimization = true;
    text =
        tr("Memory page: the model needs recomputation to fit, so gradient checkpointing "
           "and checkpoint optimization are on.");
  } else {
    config.checkpointOptimization = false;
    config.gradientCheckpointing = config.compilerOptimization;
    text = config.compilerOptimization
               ? tr("Memory page: the model fits without recomputation, so checkpoint "
                    "optimization is off; gradient checkpointing stays on because the compiler "
                    "optimization needs it.")
               : tr("Memory page: the model fits without recomputation, so gradient "
                    "checkpointing and checkpoint optimization are off.");
  }
  form_->setConfig(config);
  regenerate();
  saveChoices();
  showStatus(text, false);
}

void OptimizationsPage::showStatus(const QString& text, bool isError) {
  status_->setText(text);
  status_->setStyleSheet(isError ? QStringLiteral("QLabel { color: #b3261e; }") : QString());
}

void OptimizationsPage::saveChoices() const {
  OptimizationChoices choices;
  choices.config = form_->config();
  choices.validationFiles = validation_->files();
  choices.previewTab = preview_->currentKind();
  settings_.save(choices);
}

}  // namespace tb::ui
