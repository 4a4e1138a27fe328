// The recompute field is an editable combo: the common policies are one click
// away, and `layers:K` (or what the Memory page recommends) can be typed. Its
// text is checked with the engine's own grammar (memory::parseEngineRecompute,
// what `trainbench run --recompute` parses) so a typo is caught before the
// child starts, but passed through unchanged. A data file is checked for
// existence only: reading it is the engine's job, and its message names it.
#include "ui/runs/run_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

#include "tb/memory/memory_options.hpp"
#include "ui/qt_text.h"
#include "ui/widgets/combo_width.h"
#include "ui/runtime_choices.h"

namespace tb::ui {
namespace {

using tb::model::ModelConfig;

struct ShapeField {
  const char* label;
  const char* flag;
  std::int64_t ModelConfig::*member;
  int maximum;
};

constexpr std::array<ShapeField, RunForm::kShapeFields> kShape = {{
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Vocabulary"), "--vocab", &ModelConfig::vocab, 1 << 20},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Width D"), "--dim", &ModelConfig::dim, 1 << 16},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Layers"), "--layers", &ModelConfig::layers, 1024},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Heads"), "--heads", &ModelConfig::heads, 1024},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "KV heads"), "--kv-heads", &ModelConfig::kvHeads, 1024},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "FFN width"), "--ffn", &ModelConfig::ffn, 1 << 18},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Sequence"), "--seq", &ModelConfig::seq, 1 << 18},
    {QT_TRANSLATE_NOOP("tb::ui::RunForm", "Micro-batch"), "--batch", &ModelConfig::batch, 4096},
}};

const QString kFileData = QStringLiteral("file");

QSpinBox* makeSpin(int minimum, int maximum, const QString& objectName) {
  auto* spin = new QSpinBox;
  spin->setRange(minimum, maximum);
  spin->setObjectName(objectName);
  spin->setGroupSeparatorShown(true);
  return spin;
}

}  // namespace

RunForm::RunForm(QWidget* parent)
    : QWidget(parent),
      preset_(new QComboBox),
      steps_(makeSpin(1, 10'000'000, QStringLiteral("runSteps"))),
      threads_(makeSpin(0, 1024, QStringLiteral("runThreads"))),
      processes_(makeSpin(1, 256, QStringLiteral("runProcesses"))),
      recompute_(new QComboBox),
      budgetMiB_(makeSpin(0, 16 * 1024 * 1024, QStringLiteral("runMemoryBudget"))),
      data_(new QComboBox),
      dataFile_(new QLineEdit),
      browse_(new QPushButton(tr("Browse\u2026"))),
      summary_(new QLabel) {
  preset_->setObjectName(QStringLiteral("runPreset"));
  preset_->addItems(toQStringList(tb::model::presetNames()));
  preset_->setToolTip(
      tr("A preset fills the shape below; any field you change is passed "
         "as an override."));

  auto* modelBox = new QGroupBox(tr("Model"));
  auto* modelForm = new QFormLayout(modelBox);
  modelForm->addRow(tr("Preset"), preset_);
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    shape_[i] = makeSpin(1, kShape[i].maximum,
                         QStringLiteral("runShape") + QString::number(static_cast<int>(i)));
    modelForm->addRow(tr(kShape[i].label), shape_[i]);
    connect(shape_[i], &QSpinBox::valueChanged, this, [this] {
      if (!filling_) refreshSummary();
    });
  }

  auto* runBox = new QGroupBox(tr("Run"));
  auto* runForm = new QFormLayout(runBox);
  steps_->setValue(200);
  runForm->addRow(tr("Steps"), steps_);
  data_->setObjectName(QStringLiteral("runData"));
  data_->addItem(tr("Random tokens"), QStringLiteral("random"));
  data_->addItem(tr("Learnable synthetic task"), QStringLiteral("synthetic"));
  data_->addItem(tr("Text file (bytes as tokens)"), kFileData);
  data_->setToolTip(
      tr("Random tokens measure speed; the synthetic task shows the loss "
         "falling; a text file trains on its bytes with a held-out split."));
  runForm->addRow(tr("Data"), data_);
  dataFile_->setObjectName(QStringLiteral("runDataFile"));
  dataFile_->setPlaceholderText(tr("a plain text file"));
  browse_->setObjectName(QStringLiteral("runDataBrowse"));
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(dataFile_, 1);
  fileRow->addWidget(browse_);
  runForm->addRow(QString(), fileRow);
  threads_->setSpecialValueText(tr("physical cores"));
  threads_->setToolTip(
      tr("Intra-op threads of each process; the default shares the physical "
         "cores among the processes."));
  runForm->addRow(tr("Threads"), threads_);
  processes_->setSpecialValueText(tr("one process"));
  processes_->setToolTip(
      tr("Train data-parallel over this many worker processes on this "
         "machine (trainbench run --nproc-per-node): each trains the "
         "micro-batch, the gradients are averaged, the curves are the "
         "whole group's. Stopping the run stops every process."));
  runForm->addRow(tr("Processes"), processes_);
  recompute_->setObjectName(QStringLiteral("runRecompute"));
  recompute_->setEditable(true);
  recompute_->addItems({QStringLiteral("none"), QStringLiteral("selective"),
                        QStringLiteral("selective:core_attn,layernorm,mlp_act"),
                        QStringLiteral("selective:core_attn,layernorm,mlp_act,head"),
                        QStringLiteral("full"), QStringLiteral("auto"),
                        QStringLiteral("layers:1")});
  recompute_->setToolTip(
      tr("Activations rebuilt in backward instead of kept: none, selective "
         "(attention core), selective:core_attn,layernorm,mlp_act,head (any of "
         "those modules; head: the output head's logits, a chunk at a "
         "time), full (every block), layers:K (the first K "
         "blocks), layers:K+selective[:MODULES], auto (least recomputation "
         "fitting the budget)."));
  runForm->addRow(tr("Recompute"), recompute_);
  budgetMiB_->setSpecialValueText(tr("unlimited"));
  budgetMiB_->setSuffix(tr(" MiB"));
  budgetMiB_->setToolTip(
      tr("The engine refuses allocations past this, ending the run as oom, "
         "as a GPU would."));
  runForm->addRow(tr("Memory budget"), budgetMiB_);

  summary_->setObjectName(QStringLiteral("runFormSummary"));
  summary_->setWordWrap(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(modelBox);
  layout->addWidget(runBox);
  layout->addWidget(buildEngineBox());
  layout->addWidget(summary_);
  fitCombosToColumn(*this);  // the long recompute entries cut Browse to "Bro"

  connect(preset_, &QComboBox::currentIndexChanged, this, &RunForm::onPresetChosen);
  for (QSpinBox* spin : {steps_, threads_, processes_, budgetMiB_}) {
    connect(spin, &QSpinBox::valueChanged, this, &RunForm::refreshSummary);
  }
  connect(recompute_, &QComboBox::currentTextChanged, this, &RunForm::refreshSummary);
  connect(data_, &QComboBox::currentIndexChanged, this, &RunForm::onDataChosen);
  connect(dataFile_, &QLineEdit::textChanged, this, &RunForm::refreshSummary);
  connect(browse_, &QPushButton::clicked, this, &RunForm::chooseDataFile);
  for (QComboBox* combo : {device_, runtime_}) {
    connect(combo, &QComboBox::currentIndexChanged, this, &RunForm::refreshSummary);
  }
  connect(compile_, &QCheckBox::toggled, this, &RunForm::refreshSummary);
  setPreset(QStringLiteral("tiny"));
  onDataChosen();
  onPresetChosen();
}

QWidget* RunForm::buildEngineBox() {
  auto* box = new QGroupBox(tr("Engine"));
  auto* form = new QFormLayout(box);
  runtime_ = new QComboBox;
  runtime_->setObjectName(QStringLiteral("runRuntime"));
  addRuntimeChoices(runtime_);
  runtime_->setToolTip(
      tr("Tuned: threads sized to the cores, the fastest matrix-product path, "
         "fewer host syncs, flat gradients. Stock: the framework's defaults "
         "(the ablation's Base)."));
  form->addRow(tr("Runtime"), runtime_);
  compile_ = new QCheckBox(tr("Compiled step (fused operators)"));
  compile_->setObjectName(QStringLiteral("runCompile"));
  compile_->setToolTip(
      tr("Fused RMSNorm, RoPE, SwiGLU, attention, output projection with "
         "cross-entropy and AdamW (the ablation's +CompilerOpt)."));
  form->addRow(QString(), compile_);
  device_ = new QComboBox;
  device_->setObjectName(QStringLiteral("runDevice"));
  device_->addItem(tr("CPU"), QStringLiteral("cpu"));
  device_->addItem(tr("CUDA GPU"), QStringLiteral("cuda"));
  // Whether the engine was built with CUDA is known only to the engine, so
  // CUDA is offered and a build without it ends the run with its own reason.
  device_->setToolTip(
      tr("CUDA needs a trainbench built with CUDA LibTorch and a GPU; "
         "otherwise the run stops at once and says why."));
  form->addRow(tr("Device"), device_);
  return box;
}

ModelConfig RunForm::presetModel() const {
  auto preset = tb::model::findPreset(toStdString(preset_->currentText()));
  return preset ? *preset : ModelConfig{};
}

ModelConfig RunForm::model() const {
  const ModelConfig base = presetModel();
  tb::model::ModelOverrides overrides;
  std::array<std::optional<std::int64_t>*, kShapeFields> slots = {
      &overrides.vocab,   &overrides.dim, &overrides.layers, &overrides.heads,
      &overrides.kvHeads, &overrides.ffn, &overrides.seq,    &overrides.batch};
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const std::int64_t value = shape_[i]->value();
    if (value != base.*kShape[i].member) *slots[i] = value;
  }
  return tb::model::applyOverrides(base, overrides);
}

tb::Expected<QStringList> RunForm::arguments() const {
  const ModelConfig config = model();
  if (const tb::Status valid = tb::model::validate(config); !valid) return valid.error();
  const QString policy = recomputePolicy();
  if (auto parsed = tb::memory::parseEngineRecompute(toStdString(policy)); !parsed) {
    return parsed.error();
  }
  QStringList args = {QStringLiteral("run"), QStringLiteral("--model"), preset_->currentText()};
  const ModelConfig base = presetModel();
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    if (shape_[i]->value() != base.*kShape[i].member) {
      args << QLatin1String(kShape[i].flag) << QString::number(shape_[i]->value());
    }
  }
  if (const tb::Status dataUsable = checkData(); !dataUsable) return dataUsable.error();
  args << QStringLiteral("--steps") << QString::number(steps_->value());
  const QString dataKind = data_->currentData().toString();
  if (dataKind == kFileData) {
    args << QStringLiteral("--data") << dataFile_->text().trimmed();
  } else if (dataKind != QStringLiteral("random")) {
    args << QStringLiteral("--data") << dataKind;
  }
  if (threads_->value() > 0) {
    args << QStringLiteral("--threads") << QString::number(threads_->value());
  }
  if (processes_->value() > 1) {
    // A free port each time: two Studios, or a run just ended, never collide.
    args << QStringLiteral("--nproc-per-node") << QString::number(processes_->value())
         << QStringLiteral("--master-port") << QStringLiteral("0");
  }
  args << QStringLiteral("--recompute") << policy;
  if (memoryBudgetBytes() > 0) {
    args << QStringLiteral("--memory-budget") << QString::number(memoryBudgetBytes());
  }
  args << QStringLiteral("--runtime") << runtime_->currentData().toString()
       << QStringLiteral("--compile")
       << (compile_->isChecked() ? QStringLiteral("on") : QStringLiteral("off"));
  if (device_->currentData().toString() != QStringLiteral("cpu")) {
    args << QStringLiteral("--device") << device_->currentData().toString();
  }
  return args;
}

tb::Status RunForm::checkData() const {
  if (data_->currentData().toString() != kFileData) return {};
  const QString path = dataFile_->text().trimmed();
  if (path.isEmpty()) {
    return tb::makeError(tb::ErrorKind::BadInput, "choose the text file to train on");
  }
  const QFileInfo file(path);
  if (!file.isFile() || !file.isReadable()) {
    return tb::makeError(tb::ErrorKind::BadInput,
                         "data file '" + toStdString(path) + "' is not a readable file");
  }
  return {};
}

void RunForm::onDataChosen() {
  const bool file = data_->currentData().toString() == kFileData;
  dataFile_->setEnabled(file);
  browse_->setEnabled(file);
  refreshSummary();
}

void RunForm::chooseDataFile() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Train on a text file"), dataFile_->text(), tr("Text files (*.txt);;All files (*)"));
  if (!path.isEmpty()) dataFile_->setText(path);
}

std::uint64_t RunForm::memoryBudgetBytes() const {
  return static_cast<std::uint64_t>(budgetMiB_->value()) * 1024U * 1024U;
}

int RunForm::steps() const { return steps_->value(); }

void RunForm::setPreset(const QString& name) {
  const int index = preset_->findText(name);
  if (index >= 0) preset_->setCurrentIndex(index);
}

void RunForm::setSteps(int steps) { steps_->setValue(steps); }
void RunForm::setThreads(int threads) { threads_->setValue(threads); }
void RunForm::setProcesses(int processes) { processes_->setValue(processes); }
void RunForm::setMemoryBudgetMiB(int mib) { budgetMiB_->setValue(mib); }
void RunForm::setRecomputePolicy(const QString& policy) {
  recompute_->setCurrentText(policy.trimmed());
}
QString RunForm::recomputePolicy() const { return recompute_->currentText().trimmed(); }
void RunForm::setRuntime(const QString& runtime) {
  if (const int index = runtime_->findData(runtime); index >= 0) runtime_->setCurrentIndex(index);
}
QString RunForm::runtime() const { return runtime_->currentData().toString(); }

void RunForm::onPresetChosen() {
  const ModelConfig config = presetModel();
  filling_ = true;
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const std::int64_t value = config.*kShape[i].member;
    shape_[i]->setValue(value > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                                : static_cast<int>(value));
  }
  filling_ = false;
  refreshSummary();
}

void RunForm::refreshSummary() {
  const auto args = arguments();
  if (!args) {
    summary_->setText(tr("Cannot start: %1").arg(toQString(args.error().message)));
  } else {
    const ModelConfig config = model();
    const QLocale locale;
    summary_->setText(tr("%1: %2 parameters, %3 tokens per step")
                          .arg(toQString(config.name),
                               locale.toString(tb::model::parameterCount(config)),
                               locale.toString(config.seq * config.batch * processes_->value())));
  }
  Q_EMIT changed();
}

}  // namespace tb::ui
