// Widgets are set with `updating_` raised so that loading a preset (six
// fields at once) is one change, not six predictions. The shape fields always
// show the numbers being predicted; the summary line says whether they are
// the preset's or a custom variant of it.
#include "ui/memory/memory_inputs_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "tb/memory/memory_options.hpp"
#include "tb/model/model_config.hpp"
#include "ui/qt_text.h"
#include "ui/runtime_choices.h"
#include "ui/widgets/combo_width.h"

namespace tb::ui {
namespace {

int toInt(qint64 value) { return static_cast<int>(value); }

void selectData(QComboBox* box, const QVariant& data) {
  const int index = box->findData(data);
  if (index >= 0) box->setCurrentIndex(index);
}

QString parameterText(std::int64_t params) {
  const auto value = static_cast<double>(params);
  if (value >= 1e9) return QString::number(value / 1e9, 'f', 2) + QStringLiteral(" B");
  if (value >= 1e6) return QString::number(value / 1e6, 'f', 1) + QStringLiteral(" M");
  return QLocale().toString(static_cast<qlonglong>(params));
}

}  // namespace

MemoryInputsForm::MemoryInputsForm(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("memoryInputsForm"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(buildModelGroup());
  layout->addWidget(buildTrainingGroup());
  layout->addWidget(buildParallelGroup());
  layout->addWidget(buildTargetGroup());
  layout->addStretch(1);
  setInputs(MemoryPageInputs{});
  fitCombosToColumn(*this);
}

QSpinBox* MemoryInputsForm::addSpin(QFormLayout* form, const QString& label, const char* name,
                                    int low, int high, const QString& tip) {
  auto* spin = new QSpinBox(this);
  spin->setObjectName(QString::fromLatin1(name));
  spin->setRange(low, high);
  spin->setToolTip(tip);
  spin->setKeyboardTracking(false);
  spin->setGroupSeparatorShown(true);
  form->addRow(label, spin);
  connect(spin, &QSpinBox::valueChanged, this, &MemoryInputsForm::changed);
  return spin;
}

QWidget* MemoryInputsForm::buildModelGroup() {
  auto* group = new QGroupBox(tr("Model"), this);
  auto* form = new QFormLayout(group);
  preset_ = new QComboBox(this);
  preset_->setObjectName(QStringLiteral("presetBox"));
  for (const QString& name : toQStringList(tb::model::presetNames())) preset_->addItem(name, name);
  auto* reset = new QPushButton(tr("Reset"), this);
  reset->setObjectName(QStringLiteral("resetShapeButton"));
  reset->setToolTip(tr("Put the preset's published shape back"));
  auto* row = new QHBoxLayout;
  row->addWidget(preset_, 1);
  row->addWidget(reset);
  form->addRow(tr("Preset"), row);
  modelSummary_ = new QLabel(this);
  modelSummary_->setObjectName(QStringLiteral("modelSummary"));
  modelSummary_->setWordWrap(true);
  form->addRow(modelSummary_);
  constexpr int kWide = 1 << 24;
  vocab_ = addSpin(form, tr("Vocabulary"), "vocabSpin", 1, kWide, tr("--vocab"));
  dim_ = addSpin(form, tr("Width"), "dimSpin", 1, kWide, tr("--dim: model width D"));
  layers_ = addSpin(form, tr("Layers"), "layersSpin", 1, 4096, tr("--layers"));
  heads_ = addSpin(form, tr("Query heads"), "headsSpin", 1, 4096, tr("--heads"));
  kvHeads_ = addSpin(form, tr("KV heads"), "kvHeadsSpin", 1, 4096,
                     tr("--kv-heads: grouped-query attention shares K and V across heads"));
  ffn_ = addSpin(form, tr("FFN width"), "ffnSpin", 1, kWide, tr("--ffn: SwiGLU hidden width"));
  connect(preset_, &QComboBox::activated, this,
          [this] { choosePreset(preset_->currentData().toString()); });
  connect(reset, &QPushButton::clicked, this,
          [this] { choosePreset(preset_->currentData().toString()); });
  return group;
}

QWidget* MemoryInputsForm::buildTrainingGroup() {
  auto* group = new QGroupBox(tr("Training"), this);
  auto* form = new QFormLayout(group);
  seq_ = addSpin(form, tr("Sequence"), "seqSpin", 1, 1 << 24, tr("--seq: tokens per sequence"));
  batch_ = addSpin(form, tr("Micro-batch"), "batchSpin", 1, 1 << 20,
                   tr("--batch: sequences per micro-batch on each rank"));
  dtype_ = new QComboBox(this);
  dtype_->setObjectName(QStringLiteral("dtypeBox"));
  dtype_->addItem(tr("bf16 (fp32 master weights)"), QStringLiteral("bf16"));
  dtype_->addItem(tr("fp16 (fp32 master weights)"), QStringLiteral("fp16"));
  dtype_->addItem(tr("fp32"), QStringLiteral("fp32"));
  form->addRow(tr("Precision"), dtype_);
  recompute_ = new QComboBox(this);
  recompute_->setObjectName(QStringLiteral("recomputeBox"));
  recompute_->addItem(tr("none"), QStringLiteral("none"));
  recompute_->addItem(tr("selective (attention core)"), QStringLiteral("selective"));
  // Short, so the form keeps its width; the tool tip names the modules.
  recompute_->addItem(tr("selective, all modules"),
                      QStringLiteral("selective:core_attn,layernorm,mlp_act"));
  recompute_->setItemData(recompute_->count() - 1,
                          tr("selective:core_attn,layernorm,mlp_act: the attention core, both "
                             "RMSNorms and the SwiGLU gate rebuilt in every block"),
                          Qt::ToolTipRole);
  recompute_->addItem(tr("selective, all + head"),
                      QStringLiteral("selective:core_attn,layernorm,mlp_act,head"));
  recompute_->setItemData(recompute_->count() - 1,
                          tr("selective:core_attn,layernorm,mlp_act,head: as above, and the "
                             "engine's output head computes its logits a chunk at a time and "
                             "rebuilds them in backward (engine profile, float32)"),
                          Qt::ToolTipRole);
  recompute_->addItem(tr("first K layers"), QStringLiteral("layers"));
  recompute_->addItem(tr("full (every layer)"), QStringLiteral("full"));
  // The frameworks' own names, as their job files spell them; the tool tip
  // says what each is taken to mean (tb::memory::recomputeMapping).
  for (const char* name :
       {"torchtitan:op", "torchtitan:every:2", "torchtitan:full", "megatron:selective",
        "megatron:full:uniform:2", "deepspeed:checkpointing", "hf:gradient_checkpointing"}) {
    recompute_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
    recompute_->setItemData(recompute_->count() - 1,
                            QString::fromStdString(tb::memory::recomputeMapping(name)),
                            Qt::ToolTipRole);
  }
  recompute_->setToolTip(tr("The policy the breakdown is shown for; the curve shows them all"));
  recomputeLayers_ = new QSpinBox(this);
  recomputeLayers_->setObjectName(QStringLiteral("recomputeLayersSpin"));
  recomputeLayers_->setPrefix(QStringLiteral("K = "));
  recomputeLayers_->setKeyboardTracking(false);
  auto* row = new QHBoxLayout;
  row->addWidget(recompute_, 1);
  row->addWidget(recomputeLayers_);
  form->addRow(tr("Recompute"), row);
  connect(dtype_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(recompute_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(recomputeLayers_, &QSpinBox::valueChanged, this, &MemoryInputsForm::changed);
  return group;
}

QWidget* MemoryInputsForm::buildParallelGroup() {
  auto* group = new QGroupBox(tr("Parallelism"), this);
  auto* form = new QFormLayout(group);
  dp_ =
      addSpin(form, tr("Data parallel"), "dpSpin", 1, 1 << 20, tr("--dp: ranks ZeRO shards over"));
  tp_ = addSpin(form, tr("Tensor parallel"), "tpSpin", 1, 4096, tr("--tp"));
  pp_ = addSpin(form, tr("Pipeline stages"), "ppSpin", 1, 4096, tr("--pp (1F1B schedule)"));
  cp_ = addSpin(form, tr("Context parallel"), "cpSpin", 1, 4096,
                tr("--cp: ranks that split every sequence; FSDP and ZeRO shard over dp x cp"));
  zero_ = new QComboBox(this);
  zero_->setObjectName(QStringLiteral("zeroBox"));
  zero_->addItem(tr("0 \u2014 nothing sharded"), 0);
  zero_->addItem(tr("1 \u2014 optimizer state"), 1);
  zero_->addItem(tr("2 \u2014 + gradients"), 2);
  zero_->addItem(tr("3 \u2014 + weights (FSDP)"), 3);
  form->addRow(tr("ZeRO stage"), zero_);
  sequenceParallel_ = new QCheckBox(tr("Sequence parallel"), this);
  sequenceParallel_->setObjectName(QStringLiteral("sequenceParallelCheck"));
  sequenceParallel_->setToolTip(tr("Megatron SP: norm and residual activations split over TP"));
  flashAttention_ = new QCheckBox(tr("Flash attention"), this);
  flashAttention_->setObjectName(QStringLiteral("flashAttentionCheck"));
  flashAttention_->setToolTip(tr("Attention scores are never stored (cluster profiles)"));
  form->addRow(sequenceParallel_);
  form->addRow(flashAttention_);
  connect(zero_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(sequenceParallel_, &QCheckBox::toggled, this, &MemoryInputsForm::changed);
  connect(flashAttention_, &QCheckBox::toggled, this, &MemoryInputsForm::changed);
  return group;
}

QWidget* MemoryInputsForm::buildTargetGroup() {
  auto* group = new QGroupBox(tr("Target"), this);
  auto* form = new QFormLayout(group);
  profile_ = new QComboBox(this);
  profile_->setObjectName(QStringLiteral("profileBox"));
  profile_->addItem(tr("Megatron-LM"), QStringLiteral("megatron"));
  profile_->addItem(tr("DeepSpeed"), QStringLiteral("deepspeed"));
  profile_->addItem(tr("FSDP (Trainer, accelerate)"), QStringLiteral("fsdp"));
  profile_->addItem(tr("torchtitan (FSDP2)"), QStringLiteral("torchtitan"));
  profile_->addItem(tr("This engine"), QStringLiteral("engine"));
  profile_->setToolTip(
      tr("Cluster profiles predict the caching allocator's peak reserved "
         "memory, which decides an out-of-memory"));
  form->addRow(tr("Profile"), profile_);
  runtime_ = new QComboBox(this);
  runtime_->setObjectName(QStringLiteral("runtimeBox"));
  addRuntimeChoices(runtime_);
  runtime_->setToolTip(
      tr("This engine's runtime, as on the Runs page: tuned keeps gradients in "
         "flat buffers for the whole step and reads K and V in place"));
  form->addRow(tr("Runtime"), runtime_);
  compile_ = new QCheckBox(tr("Compiled"), this);
  compile_->setObjectName(QStringLiteral("compileCheck"));
  compile_->setToolTip(
      tr("--compile on: this engine's compiled step, or torch.compile of "
         "each block under torchtitan"));
  form->addRow(compile_);
  card_ = new QComboBox(this);
  card_->setObjectName(QStringLiteral("cardBox"));
  for (const GpuCard& gpu : gpuCards()) {
    card_->addItem(tr("%1 (%2 GiB)").arg(gpu.name, QString::number(gpu.gib, 'f', 1)), gpu.name);
  }
  card_->addItem(tr("Custom size"), customCardName());
  form->addRow(tr("GPU"), card_);
  customGiB_ = new QDoubleSpinBox(this);
  customGiB_->setObjectName(QStringLiteral("customGiBSpin"));
  customGiB_->setRange(0.5, 4096.0);
  customGiB_->setDecimals(1);
  customGiB_->setSuffix(QStringLiteral(" GiB"));
  customGiB_->setKeyboardTracking(false);
  form->addRow(tr("Memory"), customGiB_);
  connect(profile_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(runtime_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(compile_, &QCheckBox::toggled, this, &MemoryInputsForm::changed);
  connect(card_, &QComboBox::currentIndexChanged, this, &MemoryInputsForm::changed);
  connect(customGiB_, &QDoubleSpinBox::valueChanged, this, &MemoryInputsForm::changed);
  return group;
}

MemoryPageInputs MemoryInputsForm::inputs() const {
  MemoryPageInputs in;
  in.preset = preset_->currentData().toString();
  in.vocab = vocab_->value();
  in.dim = dim_->value();
  in.layers = layers_->value();
  in.heads = heads_->value();
  in.kvHeads = kvHeads_->value();
  in.ffn = ffn_->value();
  in.seq = seq_->value();
  in.batch = batch_->value();
  in.dp = dp_->value();
  in.tp = tp_->value();
  in.pp = pp_->value();
  in.cp = cp_->value();
  in.compile = compile_->isChecked();
  in.zero = zero_->currentData().toInt();
  in.sequenceParallel = sequenceParallel_->isChecked();
  in.flashAttention = flashAttention_->isChecked();
  in.dtype = dtype_->currentData().toString();
  in.profile = profile_->currentData().toString();
  in.runtime = runtime_->currentData().toString();
  const QString policy = recompute_->currentData().toString();
  in.recompute = policy == QStringLiteral("layers")
                     ? QStringLiteral("layers:%1").arg(recomputeLayers_->value())
                     : policy;
  in.card = card_->currentData().toString();
  in.customGiB = customGiB_->value();
  return in;
}

void MemoryInputsForm::setInputs(const MemoryPageInputs& in) {
  updating_ = true;
  selectData(preset_, in.preset);
  vocab_->setValue(toInt(in.vocab));
  dim_->setValue(toInt(in.dim));
  layers_->setValue(toInt(in.layers));
  heads_->setValue(toInt(in.heads));
  kvHeads_->setValue(toInt(in.kvHeads));
  ffn_->setValue(toInt(in.ffn));
  seq_->setValue(toInt(in.seq));
  batch_->setValue(toInt(in.batch));
  dp_->setValue(toInt(in.dp));
  tp_->setValue(toInt(in.tp));
  pp_->setValue(toInt(in.pp));
  cp_->setValue(toInt(in.cp));
  compile_->setChecked(in.compile);
  selectData(zero_, in.zero);
  sequenceParallel_->setChecked(in.sequenceParallel);
  flashAttention_->setChecked(in.flashAttention);
  selectData(dtype_, in.dtype);
  selectData(profile_, in.profile);
  selectData(runtime_, in.runtime);
  if (in.recompute.startsWith(QStringLiteral("layers:")) &&
      !in.recompute.contains(QLatin1Char('+'))) {
    selectData(recompute_, QStringLiteral("layers"));
    recomputeLayers_->setMaximum(toInt(in.layers));
    recomputeLayers_->setValue(in.recompute.mid(7).toInt());
  } else {
    selectData(recompute_, in.recompute);
  }
  selectData(card_, in.card);
  customGiB_->setValue(in.customGiB);
  updating_ = false;
  changed();
}

void MemoryInputsForm::choosePreset(const QString& preset) {
  MemoryPageInputs in = withPresetShape(inputs(), preset);
  setInputs(in);
}

void MemoryInputsForm::refreshDerived() {
  const bool custom = card_->currentData().toString() == customCardName();
  if (!custom) {
    for (const GpuCard& gpu : gpuCards()) {
      if (gpu.name == card_->currentData().toString()) customGiB_->setValue(gpu.gib);
    }
  }
  customGiB_->setEnabled(custom);
  recomputeLayers_->setMaximum(layers_->value());
  recomputeLayers_->setEnabled(recompute_->currentData().toString() == QStringLiteral("layers"));
  sequenceParallel_->setEnabled(tp_->value() > 1);
  const QString profile = profile_->currentData().toString();
  runtime_->setEnabled(profile == QStringLiteral("engine"));
  compile_->setEnabled(profile == QStringLiteral("engine") ||
                       profile == QStringLiteral("torchtitan"));

  const MemoryPageInputs in = inputs();
  const auto preset = tb::model::findPreset(toStdString(in.preset));
  if (!preset) return;
  tb::model::ModelConfig shape = *preset;
  shape.vocab = in.vocab;
  shape.dim = in.dim;
  shape.layers = in.layers;
  shape.heads = in.heads;
  shape.kvHeads = in.kvHeads;
  shape.ffn = in.ffn;
  const bool isPreset = shape == *preset;
  if (!tb::model::validate(shape)) {
    modelSummary_->setText(tr("Custom shape (not a valid decoder yet)"));
  } else {
    modelSummary_->setText(
        tr("%1 \u2014 %2 parameters")
            .arg(isPreset ? tr("%1 as published").arg(in.preset) : tr("custom %1").arg(in.preset),
                 parameterText(tb::model::parameterCount(shape))));
  }
}

void MemoryInputsForm::changed() {
  if (updating_) return;
  updating_ = true;
  refreshDerived();
  updating_ = false;
  Q_EMIT inputsChanged();
}

}  // namespace tb::ui
