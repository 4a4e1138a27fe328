// Cells are computed once per rebuild (a few dozen evaluateCompat calls) and
// kept, so painting and tooltips never re-run the rules.
#include "ui/image/verdict_matrix_model.h"

#include <QColor>
#include <QFont>
#include <QStringList>

#include "ui/image/verdict_style.h"
#include "ui/qt_text.h"

namespace tb::ui {

namespace {

QString bulletList(const std::vector<std::string>& items) {
  QString html;
  for (const std::string& item : items) {
    html += QStringLiteral("<br>\u2022&nbsp;") + toQString(item).toHtmlEscaped();
  }
  return html;
}

QString kindShort(const tb::catalog::DriverBranch& branch) {
  if (!branch.inForwardCompatMatrix) return VerdictMatrixModel::tr("EOL");
  switch (branch.kind) {
    case tb::catalog::BranchKind::LongTermSupport: return VerdictMatrixModel::tr("LTSB");
    case tb::catalog::BranchKind::Production: return VerdictMatrixModel::tr("PB");
    case tb::catalog::BranchKind::NewFeature: return VerdictMatrixModel::tr("NFB");
    case tb::catalog::BranchKind::Legacy: return VerdictMatrixModel::tr("legacy");
  }
  return {};
}

}  // namespace

VerdictMatrixModel::VerdictMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

void VerdictMatrixModel::rebuild(const tb::catalog::Catalog& catalog, tb::compat::GpuClass gpuClass,
                                 tb::catalog::CpuArch arch, const std::string& today) {
  beginResetModel();
  gpuClass_ = gpuClass;
  gpuName_ = tb::compat::representativeGpuName(gpuClass);
  arch_ = arch;
  matrix_ = tb::compat::buildVerdictMatrix(catalog, gpuName_, arch, today);
  branches_.clear();
  for (int number : matrix_.branches) {
    const tb::catalog::DriverBranch* known = catalog.findBranch(number);
    tb::catalog::DriverBranch branch;
    branch.branch = number;
    branches_.push_back(known ? *known : branch);
  }
  releases_.clear();
  for (const std::string& tag : matrix_.releaseTags) {
    const tb::catalog::Release* release = catalog.findRelease(tag);
    releases_.push_back(release ? *release : tb::catalog::Release{});
  }
  endResetModel();
}

void VerdictMatrixModel::setHostCell(const QString& releaseTag, std::optional<int> branch) {
  if (releaseTag == hostTag_ && branch == hostBranch_) return;
  hostTag_ = releaseTag;
  hostBranch_ = branch;
  if (rowCount() > 0 && columnCount() > 0) {
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {HostCellRole});
  }
}

QString VerdictMatrixModel::releaseTag(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  return toQString(matrix_.releaseTags[static_cast<std::size_t>(row)]);
}

int VerdictMatrixModel::branch(int column) const {
  if (column < 0 || column >= columnCount()) return 0;
  return matrix_.branches[static_cast<std::size_t>(column)];
}

std::optional<tb::catalog::DriverVersion> VerdictMatrixModel::representativeDriver(
    int column) const {
  if (column < 0 || column >= columnCount()) return std::nullopt;
  const tb::catalog::DriverBranch& branch = branches_[static_cast<std::size_t>(column)];
  if (branch.representative.major() != branch.branch) return std::nullopt;
  return branch.representative;
}

const tb::compat::CompatVerdict* VerdictMatrixModel::verdict(const QModelIndex& index) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) {
    return nullptr;
  }
  const auto& row = matrix_.cells[static_cast<std::size_t>(index.row())];
  if (static_cast<std::size_t>(index.column()) >= row.size()) return nullptr;
  return &row[static_cast<std::size_t>(index.column())];
}

int VerdictMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(matrix_.releaseTags.size());
}

int VerdictMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(matrix_.branches.size());
}

QVariant VerdictMatrixModel::data(const QModelIndex& index, int role) const {
  const tb::compat::CompatVerdict* cell = verdict(index);
  if (!cell) return {};
  const VerdictTone tone = toneFor(cell->status);
  switch (role) {
    case Qt::DisplayRole: return cellText(cell->status);
    case Qt::ToolTipRole: return cellToolTip(index.row(), index.column());
    case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::Alignment(Qt::AlignCenter));
    // Fixed light fills with dark text keep cells legible on dark palettes too.
    case Qt::BackgroundRole: return tintColor(tone, QColor(Qt::white), 0.22);
    case Qt::ForegroundRole: return accentColor(tone).darker(135);
    case StatusRole: return static_cast<int>(cell->status);
    case HostCellRole:
      return hostBranch_.has_value() && releaseTag(index.row()) == hostTag_ &&
             branch(index.column()) == *hostBranch_;
    default: return {};
  }
}

QVariant VerdictMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal) {
    if (section < 0 || section >= columnCount()) return {};
    if (role == Qt::DisplayRole) {
      return tr("R%1\n%2").arg(branch(section)).arg(branchSubtitle(section));
    }
    if (role == Qt::ToolTipRole) return branchToolTip(section);
    return {};
  }
  if (section < 0 || section >= rowCount()) return {};
  if (role == Qt::DisplayRole) return releaseTag(section);
  if (role == Qt::ToolTipRole) {
    const tb::catalog::Release& release = releases_[static_cast<std::size_t>(section)];
    return tr("%1: CUDA %2, needs driver \u2265 %3")
        .arg(toQString(release.tag), toQString(release.cudaVersion))
        .arg(release.requiredDriverMajor);
  }
  return {};
}

QString VerdictMatrixModel::cellToolTip(int row, int column) const {
  const tb::compat::CompatVerdict* cell = verdict(index(row, column));
  const std::optional<tb::catalog::DriverVersion> driver = representativeDriver(column);
  const QString driverText =
      driver ? toQString(driver->text()) : QStringLiteral("R%1").arg(branch(column));
  QString html = tr("<b>%1 on driver %2</b> (%3, %4)")
                     .arg(releaseTag(row).toHtmlEscaped(), driverText.toHtmlEscaped(),
                          gpuName().toHtmlEscaped(), toQString(tb::catalog::toString(arch_)));
  html += QStringLiteral("<br>") + statusTitle(cell->status).toHtmlEscaped();
  html += bulletList(cell->reasons);
  if (!cell->warnings.empty()) {
    html += QStringLiteral("<br><i>") + tr("Watch out").toHtmlEscaped() + QStringLiteral("</i>") +
            bulletList(cell->warnings);
  }
  html += QStringLiteral("<br><i>") +
          tr("Click to check this release with %1.").arg(driverText).toHtmlEscaped() +
          QStringLiteral("</i>");
  return html;
}

QString VerdictMatrixModel::branchSubtitle(int column) const {
  return kindShort(branches_[static_cast<std::size_t>(column)]);
}

QString VerdictMatrixModel::branchToolTip(int column) const {
  const tb::catalog::DriverBranch& branch = branches_[static_cast<std::size_t>(column)];
  QStringList lines{
      tr("R%1, %2 branch").arg(branch.branch).arg(toQString(tb::catalog::toString(branch.kind)))};
  if (branch.endOfLife) lines.append(tr("End of life: %1").arg(toQString(*branch.endOfLife)));
  if (!branch.inForwardCompatMatrix) {
    lines.append(tr("Not in NVIDIA's current forward-compatibility matrix"));
  }
  if (!branch.maxCuda.empty()) {
    lines.append(
        tr("Runs CUDA up to %1 without compatibility libraries").arg(toQString(branch.maxCuda)));
  }
  if (const auto driver = representativeDriver(column)) {
    lines.append(tr("Cells use driver %1").arg(toQString(driver->text())));
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace tb::ui
