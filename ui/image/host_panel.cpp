// Edits are reported through one path (onFieldEdited) whichever widget
// changed, and fields set by the panel itself are bracketed by a counter, so
// "the user typed this" is known without a signal per widget kind.
#include "ui/image/host_panel.h"

#include <QAction>
#include <QComboBox>
#include <QCompleter>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>

#include "tb/compat/gpu_class.hpp"
#include "ui/qt_text.h"
#include "ui/widgets/background_task.h"
#include "ui/widgets/ink_icon.h"

namespace tb::ui {

namespace {

constexpr int kMaxGpuCount = 100000;

QString gpuSummary(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  bool allSame = true;
  for (const std::string& name : names) allSame = allSame && name == names.front();
  if (allSame) {
    return HostPanel::tr("%1 \u00d7 %2").arg(names.size()).arg(toQString(names.front()));
  }
  QStringList all;
  for (const std::string& name : names) all.append(toQString(name));
  return all.join(QStringLiteral(", "));
}

// Ensures the function runs with edits marked as the panel's own.
class ProgrammaticEdit {
 public:
  explicit ProgrammaticEdit(int& depth) : depth_(depth) { ++depth_; }
  ~ProgrammaticEdit() { --depth_; }
  ProgrammaticEdit(const ProgrammaticEdit&) = delete;
  ProgrammaticEdit& operator=(const ProgrammaticEdit&) = delete;

 private:
  int& depth_;
};

}  // namespace

HostPanel::HostPanel(QWidget* parent)
    : QGroupBox(tr("Host"), parent),
      detection_(new BackgroundTask(BackgroundTask::Policy::Refuse, this)) {
  setObjectName(QStringLiteral("hostPanel"));
  buildLayout();

  connect(driverEdit_, &QLineEdit::textChanged, this, &HostPanel::onFieldEdited);
  connect(gpuCombo_, &QComboBox::currentTextChanged, this, &HostPanel::onFieldEdited);
  connect(gpuCountSpin_, &QSpinBox::valueChanged, this, &HostPanel::onFieldEdited);
  connect(archCombo_, &QComboBox::currentIndexChanged, this, &HostPanel::onFieldEdited);
  connect(detectButton_, &QPushButton::clicked, this,
          [this] { startDetection(DetectionFill::Always); });
  updateDriverFeedback();
}

void HostPanel::buildLayout() {
  driverEdit_ = new QLineEdit(this);
  driverEdit_->setObjectName(QStringLiteral("driverEdit"));
  driverEdit_->setPlaceholderText(tr("e.g. 570.124.06"));
  driverEdit_->setClearButtonEnabled(true);
  driverEdit_->setMinimumWidth(150);
  driverEdit_->setToolTip(tr("The NVIDIA driver version, as nvidia-smi prints it"));
  driverState_ = driverEdit_->addAction(QIcon(), QLineEdit::TrailingPosition);

  driverHint_ = new QLabel(this);
  driverHint_->setObjectName(QStringLiteral("driverHint"));
  driverHint_->setTextFormat(Qt::PlainText);
  QFont small = driverHint_->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  driverHint_->setFont(small);

  gpuCombo_ = new QComboBox(this);
  gpuCombo_->setObjectName(QStringLiteral("gpuCombo"));
  gpuCombo_->setEditable(true);
  gpuCombo_->setInsertPolicy(QComboBox::NoInsert);
  gpuCombo_->setMinimumWidth(180);
  gpuCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  for (const std::string& name : tb::compat::knownGpuNames()) gpuCombo_->addItem(toQString(name));
  gpuCombo_->setCurrentIndex(-1);
  gpuCombo_->lineEdit()->setPlaceholderText(tr("GPU as nvidia-smi names it"));
  auto* completer = new QCompleter(gpuCombo_->model(), gpuCombo_);
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  completer->setFilterMode(Qt::MatchContains);
  completer->setCompletionMode(QCompleter::PopupCompletion);
  gpuCombo_->setCompleter(completer);

  gpuCountSpin_ = new QSpinBox(this);
  gpuCountSpin_->setObjectName(QStringLiteral("gpuCountSpin"));
  gpuCountSpin_->setRange(1, kMaxGpuCount);
  gpuCountSpin_->setToolTip(tr("GPUs per node"));

  archCombo_ = new QComboBox(this);
  archCombo_->setObjectName(QStringLiteral("archCombo"));
  archCombo_->addItem(tr("amd64 (x86_64)"), QStringLiteral("amd64"));
  archCombo_->addItem(tr("arm64 (aarch64)"), QStringLiteral("arm64"));

  detectButton_ =
      new QPushButton(inkIcon(QStringLiteral(":/icons/detect.svg")), tr("Detect this host"), this);
  detectButton_->setObjectName(QStringLiteral("detectButton"));
  detectButton_->setToolTip(
      tr("Read the driver and GPUs of this machine (NVML, nvidia-smi, "
         "/proc/driver/nvidia/version)"));

  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);
  busy_->setTextVisible(false);
  busy_->setFixedSize(72, 10);
  busy_->setVisible(false);

  detectionLabel_ = new QLabel(this);
  detectionLabel_->setObjectName(QStringLiteral("detectionLabel"));
  detectionLabel_->setTextFormat(Qt::PlainText);
  detectionLabel_->setFont(small);
  detectionLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* grid = new QGridLayout(this);
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(4);
  int column = 0;
  const auto addField = [&](const QString& label, QWidget* field, int stretch) {
    auto* caption = new QLabel(label, this);
    caption->setBuddy(field);
    grid->addWidget(caption, 0, column++);
    grid->addWidget(field, 0, column);
    grid->setColumnStretch(column++, stretch);
  };
  addField(tr("&Driver"), driverEdit_, 0);
  addField(tr("&GPU"), gpuCombo_, 1);
  addField(tr("&Count"), gpuCountSpin_, 0);
  addField(tr("&Architecture"), archCombo_, 0);
  grid->addWidget(detectButton_, 0, column);

  auto* statusRow = new QHBoxLayout;
  statusRow->setSpacing(6);
  statusRow->addWidget(busy_);
  statusRow->addWidget(detectionLabel_, 1);
  grid->addWidget(driverHint_, 1, 1);
  grid->addLayout(statusRow, 1, 3, 1, column - 2);
}

HostInput HostPanel::input() const {
  HostInput in;
  in.driverText = driverEdit_->text().trimmed();
  if (!in.driverText.isEmpty()) {
    auto parsed = tb::catalog::DriverVersion::parse(in.driverText.toStdString());
    if (parsed) {
      in.driver = *parsed;
    } else {
      in.driverError = QString::fromStdString(parsed.error().message);
    }
  }
  in.gpuName = gpuCombo_->currentText().trimmed();
  in.gpuCount = gpuCountSpin_->value();
  in.arch = archCombo_->currentData().toString() == QStringLiteral("arm64")
                ? tb::catalog::CpuArch::Arm64
                : tb::catalog::CpuArch::Amd64;
  return in;
}

void HostPanel::setDriverText(const QString& text) {
  const ProgrammaticEdit edit(programmaticEdits_);
  driverEdit_->setText(text);
}

void HostPanel::setGpuName(const QString& name) {
  const ProgrammaticEdit edit(programmaticEdits_);
  const int index = gpuCombo_->findText(name);
  gpuCombo_->setCurrentIndex(index);
  if (index < 0) gpuCombo_->setEditText(name);
}

void HostPanel::setGpuCount(int count) {
  const ProgrammaticEdit edit(programmaticEdits_);
  gpuCountSpin_->setValue(count);
}

void HostPanel::setArch(tb::catalog::CpuArch arch) {
  const ProgrammaticEdit edit(programmaticEdits_);
  archCombo_->setCurrentIndex(archCombo_->findData(toQString(tb::catalog::toString(arch))));
}

void HostPanel::startDetection(DetectionFill fill) {
  pendingFill_ = fill;
  // Read here, on the GUI thread: the worker reads no environment.
  const tb::compat::DetectOptions options = tb::compat::detectOptionsFromEnvironment();
  // Host detection cannot be stopped half-way, so a second request while one
  // runs is refused; the running one's answer serves both.
  if (!detection_->start([options] { return tb::compat::detectHost(options); },
                         [this](const tb::compat::HostInfo& host) { applyDetection(host); })) {
    return;
  }
  detectButton_->setEnabled(false);
  busy_->setVisible(true);
  detectionLabel_->setText(tr("Detecting the NVIDIA driver and GPUs of this machine\u2026"));
  Q_EMIT detectionStarted();
}

bool HostPanel::isDetecting() const { return detection_->isRunning(); }

QString HostPanel::detectionSummary() const { return detectionLabel_->text(); }

void HostPanel::onFieldEdited() {
  if (programmaticEdits_ == 0) hostFromDetection_ = false;
  updateDriverFeedback();
  Q_EMIT inputChanged();
}

void HostPanel::updateDriverFeedback() {
  const HostInput in = input();
  QPalette hintPalette = palette();
  if (in.driverText.isEmpty()) {
    driverState_->setVisible(false);
    driverHint_->setText(tr("Type a version or detect"));
    hintPalette.setColor(QPalette::WindowText, palette().color(QPalette::PlaceholderText));
    driverEdit_->setToolTip(tr("The NVIDIA driver version, as nvidia-smi prints it"));
  } else if (in.driver) {
    driverState_->setIcon(QIcon(QStringLiteral(":/icons/input-valid.svg")));
    driverState_->setVisible(true);
    driverHint_->setText(tr("Branch R%1").arg(in.driver->major()));
    hintPalette.setColor(QPalette::WindowText, palette().color(QPalette::PlaceholderText));
    driverEdit_->setToolTip(tr("Driver %1, branch R%2").arg(in.driverText).arg(in.driver->major()));
  } else {
    driverState_->setIcon(QIcon(QStringLiteral(":/icons/input-invalid.svg")));
    driverState_->setVisible(true);
    driverHint_->setText(tr("Not a driver version"));
    hintPalette.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    driverEdit_->setToolTip(in.driverError);
  }
  driverState_->setToolTip(driverEdit_->toolTip());
  driverHint_->setPalette(hintPalette);
}

void HostPanel::applyDetection(const tb::compat::HostInfo& host) {
  busy_->setVisible(false);
  detectButton_->setEnabled(true);

  QStringList parts{tr("Detected: %1").arg(QString::fromStdString(host.summary()))};
  if (const QString gpus = gpuSummary(host.gpuNames); !gpus.isEmpty()) parts.append(gpus);
  if (!host.machine.empty()) parts.append(QString::fromStdString(host.machine));
  detectionLabel_->setText(parts.join(QStringLiteral(" \u00b7 ")));
  QStringList notes;
  for (const std::string& note : host.notes) notes.append(QString::fromStdString(note));
  detectionLabel_->setToolTip(notes.join(QLatin1Char('\n')));

  const bool mayFill = pendingFill_ == DetectionFill::Always || hostFromDetection_;
  if (mayFill) {
    const ProgrammaticEdit edit(programmaticEdits_);
    if (host.arch) setArch(*host.arch);
    if (host.driver) {
      setDriverText(QString::fromStdString(host.driver->text()));
      setGpuName(host.gpuNames.empty() ? QString() : toQString(host.gpuNames.front()));
      setGpuCount(qMax(1, host.gpuCount()));
      hostFromDetection_ = true;
    } else if (pendingFill_ == DetectionFill::UnlessTyped) {
      // Values detected on an earlier run are stale once the driver is gone.
      setDriverText(QString());
      setGpuName(QString());
    }
  }
  Q_EMIT detectionFinished();
}

}  // namespace tb::ui
