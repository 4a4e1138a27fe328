// The form is rebuilt from an ImageConfig and read back into one, so the
// page never has to know which widget holds which field. Notes are static
// text: they paraphrase the image's release notes, which say the same for
// every release this catalog covers.
#include "ui/optimizations/optimization_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "ui/qt_text.h"

namespace tb::ui {
namespace {

constexpr std::array<int, 5> kPodSizes = {1, 2, 4, 8, 16};

QLabel* noteLabel(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  label->setTextFormat(Qt::PlainText);
  QFont font = label->font();
  if (font.pointSizeF() > 0) font.setPointSizeF(font.pointSizeF() * 0.9);
  label->setFont(font);
  label->setForegroundRole(QPalette::PlaceholderText);
  label->setContentsMargins(22, 0, 0, 4);
  return label;
}

QSpinBox* spin(QWidget* parent, const QString& objectName, int low, int high) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(objectName);
  box->setRange(low, high);
  box->setAccelerated(true);
  return box;
}

}  // namespace

OptimizationForm::OptimizationForm(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("optimizationForm"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(8);
  layout->addWidget(buildOptimizationGroup());
  layout->addWidget(buildParallelGroup());
  layout->addWidget(buildDeepSpeedGroup());
  layout->addWidget(buildWorkloadGroup());
  layout->addWidget(buildRegistryGroup());
  layout->addStretch(1);
  setConfig(tb::config::ImageConfig{});
}

QCheckBox* OptimizationForm::addToggle(QWidget* group, const QString& name,
                                       const QString& objectName, const QString& what) {
  auto* box = new QCheckBox(name, group);
  box->setObjectName(objectName);
  group->layout()->addWidget(box);
  group->layout()->addWidget(noteLabel(what, group));
  connect(box, &QCheckBox::toggled, this, &OptimizationForm::onEdited);
  return box;
}

QWidget* OptimizationForm::buildOptimizationGroup() {
  auto* group = new QGroupBox(tr("Optimizations"), this);
  group->setLayout(new QVBoxLayout);
  compile_ = addToggle(group, tr("Compiler optimization"), QStringLiteral("compileBox"),
                       tr("torch_compile=True in the Trainer: fused kernels and graphs. Notes: "
                          "only together with bf16 and gradient checkpointing."));
  gradientCheckpointing_ = addToggle(
      group, tr("Gradient checkpointing"), QStringLiteral("gradientCheckpointingBox"),
      tr("Recomputes activations in the backward pass instead of keeping them: less memory, "
         "more compute. Notes: required by the compiler optimization."));
  checkpointOpt_ = addToggle(
      group, tr("Checkpoint optimization"), QStringLiteral("checkpointOptimizationBox"),
      tr("CHECKPOINT_OPTIMIZATION=true: the image recomputes only the layers memory needs. "
         "Notes: set it in the container environment; the value must be exactly true."));
  bf16_ = addToggle(group, tr("bf16 mixed precision"), QStringLiteral("bf16Box"),
                    tr("bfloat16 compute with fp32 master weights. Notes: required by the "
                       "compiler optimization."));
  return group;
}

QWidget* OptimizationForm::buildParallelGroup() {
  auto* group = new QGroupBox(tr("Pods"), this);
  auto* form = new QFormLayout(group);
  gpus_ = new QComboBox(group);
  gpus_->setObjectName(QStringLiteral("gpusCombo"));
  for (const int size : kPodSizes) {
    gpus_->addItem(size == 16 ? tr("16 (whole machine)") : QString::number(size), size);
  }
  nodes_ = spin(group, QStringLiteral("nodesSpin"), 1, 1024);
  socketNote_ = noteLabel(QString(), group);
  socketNote_->setObjectName(QStringLiteral("socketNote"));
  form->addRow(tr("GPUs per pod"), gpus_);
  form->addRow(socketNote_);
  form->addRow(tr("Nodes"), nodes_);
  form->addRow(noteLabel(tr("Several nodes: a Kubernetes indexed Job with a headless Service; "
                            "torchrun meets on node 0."),
                         group));
  connect(gpus_, &QComboBox::currentIndexChanged, this, &OptimizationForm::onEdited);
  connect(nodes_, &QSpinBox::valueChanged, this, &OptimizationForm::onEdited);
  return group;
}

QWidget* OptimizationForm::buildDeepSpeedGroup() {
  auto* group = new QGroupBox(tr("DeepSpeed"), this);
  auto* form = new QFormLayout(group);
  zeroStage_ = new QComboBox(group);
  zeroStage_->setObjectName(QStringLiteral("zeroStageCombo"));
  zeroStage_->addItem(tr("0: off (plain data parallel)"), 0);
  zeroStage_->addItem(tr("1: shard optimizer state"), 1);
  zeroStage_->addItem(tr("2: + gradients"), 2);
  zeroStage_->addItem(tr("3: + parameters"), 3);
  form->addRow(tr("ZeRO stage"), zeroStage_);
  form->addRow(noteLabel(tr("Notes: leave zero_optimization.stage3_prefetch_bucket_size empty "
                            "or \"auto\"; a fixed number undoes the image's tuning."),
                         group));
  offloadOptimizer_ = new QCheckBox(tr("Offload optimizer state to host memory"), group);
  offloadOptimizer_->setObjectName(QStringLiteral("offloadOptimizerBox"));
  offloadParameters_ = new QCheckBox(tr("Offload parameters to host memory"), group);
  offloadParameters_->setObjectName(QStringLiteral("offloadParametersBox"));
  form->addRow(offloadOptimizer_);
  form->addRow(offloadParameters_);
  form->addRow(noteLabel(tr("Offload trades PCIe traffic for GPU memory; parameters need "
                            "ZeRO 3, the optimizer ZeRO 1 or more."),
                         group));
  connect(zeroStage_, &QComboBox::currentIndexChanged, this, &OptimizationForm::onEdited);
  connect(offloadOptimizer_, &QCheckBox::toggled, this, &OptimizationForm::onEdited);
  connect(offloadParameters_, &QCheckBox::toggled, this, &OptimizationForm::onEdited);
  return group;
}

QWidget* OptimizationForm::buildWorkloadGroup() {
  auto* group = new QGroupBox(tr("Workload"), this);
  auto* form = new QFormLayout(group);
  model_ = new QLineEdit(group);
  model_->setObjectName(QStringLiteral("modelEdit"));
  model_->setValidator(
      new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[^\\s\"']+")), model_));
  microBatch_ = spin(group, QStringLiteral("microBatchSpin"), 1, 4096);
  gradientAccumulation_ = spin(group, QStringLiteral("gradientAccumulationSpin"), 1, 4096);
  seqLength_ = spin(group, QStringLiteral("seqLengthSpin"), 1, 1 << 20);
  seqLength_->setSingleStep(1024);
  jobName_ = new QLineEdit(group);
  jobName_->setObjectName(QStringLiteral("jobNameEdit"));
  jobName_->setValidator(new QRegularExpressionValidator(
      QRegularExpression(QStringLiteral("[a-z][a-z0-9-]{0,39}")), jobName_));
  form->addRow(tr("Model"), model_);
  form->addRow(tr("Micro-batch per GPU"), microBatch_);
  form->addRow(tr("Gradient accumulation"), gradientAccumulation_);
  form->addRow(tr("Sequence length"), seqLength_);
  form->addRow(tr("Job name"), jobName_);
  form->addRow(noteLabel(tr("Written into TrainingArguments and the launch commands; "
                            "Kubernetes objects are named after the job and the release."),
                         group));
  connect(model_, &QLineEdit::textEdited, this, &OptimizationForm::onEdited);
  connect(jobName_, &QLineEdit::textEdited, this, &OptimizationForm::onEdited);
  connect(microBatch_, &QSpinBox::valueChanged, this, &OptimizationForm::onEdited);
  connect(gradientAccumulation_, &QSpinBox::valueChanged, this, &OptimizationForm::onEdited);
  connect(seqLength_, &QSpinBox::valueChanged, this, &OptimizationForm::onEdited);
  return group;
}

QWidget* OptimizationForm::buildRegistryGroup() {
  auto* group = new QGroupBox(tr("Registry"), this);
  auto* form = new QFormLayout(group);
  registry_ = new QComboBox(group);
  registry_->setObjectName(QStringLiteral("registryCombo"));
  registry_->addItem(tr("Public"), QStringLiteral("public"));
  registry_->addItem(tr("VPC mirror"), QStringLiteral("vpc"));
  region_ = new QComboBox(group);
  region_->setObjectName(QStringLiteral("regionCombo"));
  form->addRow(tr("Pull from"), registry_);
  form->addRow(tr("Region"), region_);
  form->addRow(noteLabel(tr("The VPC mirror pulls inside the region without internet egress; "
                            "only regions the release lists have one. Never pip install torch "
                            "or deepspeed on top of the image: it overwrites its optimizations."),
                         group));
  connect(registry_, &QComboBox::currentIndexChanged, this, &OptimizationForm::onEdited);
  connect(region_, &QComboBox::currentIndexChanged, this, [this] {
    if (!updating_ && region_->currentIndex() >= 0) vpcRegionWanted_ = region_->currentText();
    onEdited();
  });
  return group;
}

tb::config::ImageConfig OptimizationForm::config() const {
  tb::config::ImageConfig c;
  c.registry = registry_->currentData().toString() == QStringLiteral("vpc")
                   ? tb::config::RegistryKind::Vpc
                   : tb::config::RegistryKind::Public;
  c.region = toStdString(region_->currentIndex() >= 0 ? region_->currentText() : vpcRegionWanted_);
  c.gpusPerPod = gpus_->currentData().toInt();
  c.nodes = nodes_->value();
  c.compilerOptimization = compile_->isChecked();
  c.gradientCheckpointing = gradientCheckpointing_->isChecked();
  c.checkpointOptimization = checkpointOpt_->isChecked();
  c.bf16 = bf16_->isChecked();
  c.deepspeed.zeroStage = zeroStage_->currentData().toInt();
  c.deepspeed.offloadOptimizer = offloadOptimizer_->isChecked();
  c.deepspeed.offloadParameters = offloadParameters_->isChecked();
  c.model = toStdString(model_->text());
  c.microBatch = microBatch_->value();
  c.gradientAccumulation = gradientAccumulation_->value();
  c.seqLength = seqLength_->value();
  c.jobName = toStdString(jobName_->text());
  return c;
}

void OptimizationForm::setConfig(const tb::config::ImageConfig& c) {
  updating_ = true;
  const QList<QWidget*> editors = findChildren<QWidget*>();
  std::vector<std::unique_ptr<QSignalBlocker>> blockers;
  for (QWidget* editor : editors) blockers.push_back(std::make_unique<QSignalBlocker>(editor));
  registry_->setCurrentIndex(c.registry == tb::config::RegistryKind::Vpc ? 1 : 0);
  vpcRegionWanted_ = toQString(c.region);
  const int regionIndex = region_->findText(vpcRegionWanted_);
  if (regionIndex >= 0) region_->setCurrentIndex(regionIndex);
  gpus_->setCurrentIndex(std::max(0, gpus_->findData(c.gpusPerPod)));
  nodes_->setValue(c.nodes);
  compile_->setChecked(c.compilerOptimization);
  gradientCheckpointing_->setChecked(c.gradientCheckpointing);
  checkpointOpt_->setChecked(c.checkpointOptimization);
  bf16_->setChecked(c.bf16);
  zeroStage_->setCurrentIndex(std::max(0, zeroStage_->findData(c.deepspeed.zeroStage)));
  offloadOptimizer_->setChecked(c.deepspeed.offloadOptimizer);
  offloadParameters_->setChecked(c.deepspeed.offloadParameters);
  model_->setText(toQString(c.model));
  microBatch_->setValue(c.microBatch);
  gradientAccumulation_->setValue(c.gradientAccumulation);
  seqLength_->setValue(c.seqLength);
  jobName_->setText(toQString(c.jobName));
  blockers.clear();
  enforceRules();
  updating_ = false;
}

void OptimizationForm::setVpcRegions(const QStringList& regions) {
  updating_ = true;
  {
    const QSignalBlocker blockRegion(region_);
    const QSignalBlocker blockRegistry(registry_);
    region_->clear();
    region_->addItems(regions);
    const int wanted = region_->findText(vpcRegionWanted_);
    region_->setCurrentIndex(wanted >= 0 ? wanted : (regions.isEmpty() ? -1 : 0));
  }
  enforceRules();
  updating_ = false;
}

// Locks what a chosen option requires, and unticks what the chosen option
// rules out, so the form can only describe configurations the core accepts.
void OptimizationForm::enforceRules() {
  const QSignalBlocker blockBf16(bf16_);
  const QSignalBlocker blockCheckpointing(gradientCheckpointing_);
  const QSignalBlocker blockOffloadOptimizer(offloadOptimizer_);
  const QSignalBlocker blockOffloadParameters(offloadParameters_);
  const QSignalBlocker blockRegistry(registry_);
  const bool compile = compile_->isChecked();
  const QString needed = compile ? tr("On because the compiler optimization needs it; turn "
                                      "that off first.")
                                 : QString();
  for (QCheckBox* box : {bf16_, gradientCheckpointing_}) {
    if (compile) box->setChecked(true);
    box->setEnabled(!compile);
    box->setToolTip(needed);
  }
  const int stage = zeroStage_->currentData().toInt();
  if (stage < 1) offloadOptimizer_->setChecked(false);
  if (stage < 3) offloadParameters_->setChecked(false);
  offloadOptimizer_->setEnabled(stage >= 1);
  offloadParameters_->setEnabled(stage == 3);

  const bool haveRegions = region_->count() > 0;
  auto* registryModel = qobject_cast<QStandardItemModel*>(registry_->model());
  if (registryModel != nullptr) registryModel->item(1)->setEnabled(haveRegions);
  if (!haveRegions) registry_->setCurrentIndex(0);
  registry_->setToolTip(haveRegions ? QString()
                                    : tr("This release has no VPC mirror in the catalog."));
  region_->setEnabled(registry_->currentIndex() == 1);

  const int gpus = gpus_->currentData().toInt();
  socketNote_->setText(
      tr("NCCL_SOCKET_IFNAME=%1. Notes: eth0 for pods of 1, 2, 4 or 8 GPUs, hpn0 for all 16.")
          .arg(toQString(tb::config::socketInterfaceFor(gpus))));
}

void OptimizationForm::onEdited() {
  if (updating_) return;
  enforceRules();
  Q_EMIT configChanged();
}

}  // namespace tb::ui
