// What checking the validation panel's files means, as a plain function over
// the core: Qt containers in and out, no widgets, so it runs on a worker
// thread (files may be large or sit on a slow network share) and a test can
// call it directly.
#pragma once

#include <QStringList>

#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/common/stop_token.hpp"
#include "ui/optimizations/finding_table_model.h"

namespace tb::ui {

/// What one validation run found.
struct ValidationResult {
  std::vector<FindingRow> rows;  ///< every finding of every file
  QStringList cleanFiles;        ///< files that produced no finding
  int fileCount = 0;             ///< files checked
  bool cancelled = false;        ///< stopped before the last file
};

/// Runs tb::config::validateFiles over `paths` on the calling thread and
/// turns each report into rows; an unreadable file becomes a finding.
[[nodiscard]] ValidationResult validatePaths(const QStringList& paths,
                                             const tb::catalog::Catalog& catalog,
                                             const tb::StopToken& stop,
                                             const tb::ProgressFn& progress);

}  // namespace tb::ui
