// Checking configurations users already have (DeepSpeed JSON, env files,
// Kubernetes manifests, Dockerfiles) against the image's notes and the
// compatibility verdict. A file that cannot be parsed is a finding, never an
// error of the call: the user asked what is wrong with it, and that is the
// answer.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"
#include "tb/common/stop_token.hpp"

namespace tb::config {

enum class Severity { Error, Warning, Info };

/// "error", "warning", "info".
[[nodiscard]] std::string_view toString(Severity severity) noexcept;

/// What a file is; Auto asks detectFileKind to decide.
enum class FileKind {
  Auto,
  DeepSpeedJson,
  EnvFile,
  KubernetesManifest,
  Dockerfile,
  TrainingArgs,  ///< Python that builds TrainingArguments
};

/// "auto", "deepspeed", "env", "k8s", "dockerfile", "training-args".
[[nodiscard]] std::string_view toString(FileKind kind) noexcept;
/// The inverse of toString; BadInput names the text and the known names.
[[nodiscard]] Expected<FileKind> parseFileKind(std::string_view text);

/// One problem (or remark) about one place of one file.
struct Finding {
  Severity severity = Severity::Info;
  std::string file;     ///< the file as the user named it
  int line = 0;         ///< 1-based; 0 when the place has no line
  std::string path;     ///< JSON pointer or YAML path, empty for line-based files
  std::string rule;     ///< stable identifier, "nccl-socket-ifname"
  std::string message;  ///< what is wrong, naming the value
  std::string fix;      ///< what to write instead
};

/// The findings for one file.
struct FileReport {
  std::string file;
  FileKind kind = FileKind::Auto;
  std::vector<Finding> findings;

  [[nodiscard]] int count(Severity severity) const;
};

/// Decides the kind from the file name first (.json, .env, .yaml/.yml, .py,
/// Dockerfile/Containerfile), then from the content.
[[nodiscard]] FileKind detectFileKind(std::string_view fileName, std::string_view content);

/// Validates content already read. `kind` Auto detects it.
[[nodiscard]] FileReport validateContent(std::string_view fileName, std::string_view content,
                                         FileKind kind, const catalog::Catalog& catalog);

/// Reads and validates a file; only an unreadable file is an error (NotFound
/// or Io naming the path).
[[nodiscard]] Expected<FileReport> validateFile(const std::filesystem::path& path, FileKind kind,
                                                const catalog::Catalog& catalog);

/// validateFile over `paths`, in order, for the CLI and the Studio alike.
/// `stop` is polled between files (the result then holds the files done so
/// far); `progress` (may be empty) hears after each file how many are done.
[[nodiscard]] std::vector<Expected<FileReport>> validateFiles(
    const std::vector<std::filesystem::path>& paths, FileKind kind, const catalog::Catalog& catalog,
    const StopToken& stop = {}, const ProgressFn& progress = {});

}  // namespace tb::config
