// Where a file the Studio is asked to open belongs (the command line, the
// desktop's "Open with"): the release catalog goes where File > Load Catalog
// puts it, results, cluster files and training logs to the Ablation page,
// DeepSpeed JSON, env files, Kubernetes manifests, Dockerfiles and
// TrainingArguments scripts to the Optimizations page's validator. Decided
// from the content where it says (our own files name their schema; a
// training log is detected by core/logs), then from the name.
#pragma once

#include <QString>

namespace tb::ui {

enum class OpenTarget { Catalog, Ablation, Validator };

/// The page a file or folder opens on. Reads at most the head of a file,
/// and only detects training-log formats in files small enough to scan at
/// once; a bigger file goes to the Ablation page, which reads logs on a
/// worker (and refuses, naming what it expected, what is no log).
[[nodiscard]] OpenTarget openTargetFor(const QString& path);

}  // namespace tb::ui
