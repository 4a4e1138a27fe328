// The table sizes itself to its rows (AdjustToContents) so the page layout,
// not a scroll bar, decides how much room the matrix gets.
#include "ui/image/fleet_matrix_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>

#include "tb/compat/verdict.hpp"
#include "ui/catalog_session.h"
#include "ui/image/verdict_cell_delegate.h"
#include "ui/image/verdict_matrix_model.h"
#include "ui/image/verdict_style.h"
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QString legendChip(VerdictTone tone, const QString& symbol, const QString& meaning) {
  const QColor fill = tintColor(tone, QColor(Qt::white), 0.22);
  const QColor ink = accentColor(tone).darker(135);
  return QStringLiteral(
             "<span style=\"background-color:%1; color:%2;\">&nbsp;<b>%3</b>&nbsp;"
             "</span>&nbsp;%4")
      .arg(fill.name(), ink.name(), symbol.toHtmlEscaped(), meaning.toHtmlEscaped());
}

constexpr int kMaxVisibleRows = 12;

// Exactly as tall as its rows. AdjustToContents would also count a
// horizontal scroll bar that is only visible before the columns stretch,
// leaving an empty strip under the last row.
class MatrixTableView final : public QTableView {
 public:
  using QTableView::QTableView;

  [[nodiscard]] QSize sizeHint() const override {
    const int frame = 2 * frameWidth();
    // Past a dozen releases (extra catalogs) the table scrolls instead.
    const int rows = qMin(verticalHeader()->count(), kMaxVisibleRows);
    int height = horizontalHeader()->sizeHint().height() +
                 rows * verticalHeader()->defaultSectionSize() + frame;
    if (horizontalScrollBar()->isVisible()) height += horizontalScrollBar()->sizeHint().height();
    return {verticalHeader()->sizeHint().width() + horizontalHeader()->length() + frame, height};
  }
  [[nodiscard]] QSize minimumSizeHint() const override {
    return {QTableView::minimumSizeHint().width(), sizeHint().height()};
  }
};

}  // namespace

FleetMatrixPanel::FleetMatrixPanel(const CatalogSession& session, QWidget* parent)
    : QGroupBox(tr("Fleet view: releases \u00d7 driver branches"), parent),
      session_(session),
      model_(new VerdictMatrixModel(this)) {
  setObjectName(QStringLiteral("fleetMatrix"));
  classCombo_ = new QComboBox(this);
  classCombo_->setObjectName(QStringLiteral("gpuClassCombo"));
  classCombo_->addItem(tr("Data-center GPUs"), static_cast<int>(tb::compat::GpuClass::DataCenter));
  classCombo_->addItem(tr("Workstation GPUs"), static_cast<int>(tb::compat::GpuClass::Workstation));
  classCombo_->addItem(tr("Consumer GPUs"), static_cast<int>(tb::compat::GpuClass::Consumer));
  classCombo_->addItem(tr("Unknown GPUs"), static_cast<int>(tb::compat::GpuClass::Unknown));

  queryLabel_ = new QLabel(this);
  queryLabel_->setTextFormat(Qt::PlainText);
  queryLabel_->setWordWrap(true);  // narrow windows wrap it instead of widening the page

  auto* legend = new QLabel(this);
  legend->setTextFormat(Qt::RichText);
  legend->setText(legendChip(VerdictTone::Supported, cellText(tb::compat::VerdictStatus::Supported),
                             tr("supported")) +
                  QStringLiteral("&nbsp;&nbsp;&nbsp;") +
                  legendChip(VerdictTone::ForwardCompatible,
                             cellText(tb::compat::VerdictStatus::ForwardCompatible),
                             tr("forward-compatible")) +
                  QStringLiteral("&nbsp;&nbsp;&nbsp;") +
                  legendChip(VerdictTone::Unsupported,
                             cellText(tb::compat::VerdictStatus::Unsupported), tr("unsupported")));

  view_ = new MatrixTableView(this);
  view_->setObjectName(QStringLiteral("verdictMatrixView"));
  view_->setModel(model_);
  view_->setItemDelegate(new VerdictCellDelegate(view_));
  view_->setSelectionMode(QAbstractItemView::NoSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->setFocusPolicy(Qt::NoFocus);
  view_->setShowGrid(false);
  view_->setMouseTracking(true);
  view_->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  view_->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
  view_->horizontalHeader()->setHighlightSections(false);
  view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 7);
  view_->verticalHeader()->setHighlightSections(false);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Verdicts for"), this));
  top->addWidget(classCombo_);
  top->addWidget(queryLabel_, 1);
  top->addWidget(legend);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(view_, 1);
  // Never taller than its rows: spare height goes to the release table.
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

  connect(classCombo_, &QComboBox::currentIndexChanged, this, &FleetMatrixPanel::rebuild);
  connect(&session_, &CatalogSession::catalogChanged, this, &FleetMatrixPanel::rebuild);
  connect(view_, &QTableView::clicked, this, &FleetMatrixPanel::onCellClicked);
  rebuild();
}

void FleetMatrixPanel::setGpuClass(tb::compat::GpuClass gpuClass) {
  classCombo_->setCurrentIndex(classCombo_->findData(static_cast<int>(gpuClass)));
}

tb::compat::GpuClass FleetMatrixPanel::gpuClass() const {
  return static_cast<tb::compat::GpuClass>(classCombo_->currentData().toInt());
}

void FleetMatrixPanel::setArch(tb::catalog::CpuArch arch) {
  if (arch == arch_) return;
  arch_ = arch;
  rebuild();
}

void FleetMatrixPanel::setHostCell(const QString& releaseTag, std::optional<int> branch) {
  model_->setHostCell(releaseTag, branch);
}

void FleetMatrixPanel::rebuild() {
  model_->rebuild(session_.catalog(), gpuClass(), arch_, tb::compat::todayUtc());
  view_->updateGeometry();
  const QString gpu =
      model_->gpuName().isEmpty() ? tr("a GPU of unknown class") : model_->gpuName();
  queryLabel_->setText(tr("on %1 \u00b7 %2").arg(toQString(tb::catalog::toString(arch_)), gpu));
  queryLabel_->setToolTip(tr("Each cell checks the row's release on %1 with this GPU and the "
                             "column's representative driver (see the column's tooltip).")
                              .arg(toQString(tb::catalog::toString(arch_))));
}

void FleetMatrixPanel::onCellClicked(const QModelIndex& index) {
  const auto driver = model_->representativeDriver(index.column());
  if (!driver) return;
  Q_EMIT cellChosen(model_->releaseTag(index.row()), *driver, model_->gpuClass());
}

}  // namespace tb::ui
