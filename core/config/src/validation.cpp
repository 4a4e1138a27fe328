// Entry points of validation: naming and detecting file kinds, and choosing
// the validator. Reading a file is the only step that can fail the call;
// everything about the content is a finding.
#include "tb/common/name_table.hpp"
#include "tb/config/validation.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>

#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"
#include "validators.hpp"

namespace tb::config {
namespace {

constexpr std::array<EnumName<FileKind>, 6> kFileKindNames = {{
    {FileKind::Auto, "auto"},
    {FileKind::DeepSpeedJson, "deepspeed"},
    {FileKind::EnvFile, "env"},
    {FileKind::KubernetesManifest, "k8s"},
    {FileKind::Dockerfile, "dockerfile"},
    {FileKind::TrainingArgs, "training-args"},
}};

std::optional<FileKind> kindFromName(std::string_view fileName) {
  const std::string name = toLower(std::filesystem::path(fileName).filename().string());
  if (name.ends_with(".json")) return FileKind::DeepSpeedJson;
  if (name.ends_with(".yaml") || name.ends_with(".yml")) return FileKind::KubernetesManifest;
  if (name == "dockerfile" || name == "containerfile" || name.starts_with("dockerfile.") ||
      name.ends_with(".dockerfile")) {
    return FileKind::Dockerfile;
  }
  if (name.ends_with(".py")) return FileKind::TrainingArgs;
  if (name == ".env" || name.ends_with(".env") || name == "env") return FileKind::EnvFile;
  return std::nullopt;
}

FileKind kindFromContent(std::string_view content) {
  const std::string_view text = trim(content);
  if (text.starts_with("{") || text.starts_with("[")) return FileKind::DeepSpeedJson;
  if (text.find("TrainingArguments(") != std::string_view::npos) return FileKind::TrainingArgs;
  for (std::string_view line : split(text, '\n')) {
    const std::string lower = toLower(trim(line));
    if (lower.starts_with("from ")) return FileKind::Dockerfile;
    if (lower.starts_with("apiversion:") || lower.starts_with("kind:")) {
      return FileKind::KubernetesManifest;
    }
  }
  return FileKind::EnvFile;
}

}  // namespace

std::string_view toString(Severity severity) noexcept {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "info";
}

std::string_view toString(FileKind kind) noexcept { return nameOf(kFileKindNames, kind, "auto"); }

Expected<FileKind> parseFileKind(std::string_view text) {
  if (auto kind = valueNamed(kFileKindNames, text)) return *kind;
  return makeError(ErrorKind::BadInput, "kind: unknown file kind '" + std::string(text) +
                                            "'; known: " + joinList(namesOf(kFileKindNames)));
}

int FileReport::count(Severity severity) const {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(),
                    [severity](const Finding& f) { return f.severity == severity; }));
}

FileKind detectFileKind(std::string_view fileName, std::string_view content) {
  return kindFromName(fileName).value_or(kindFromContent(content));
}

FileReport validateContent(std::string_view fileName, std::string_view content, FileKind kind,
                           const catalog::Catalog& catalog) {
  if (kind == FileKind::Auto) kind = detectFileKind(fileName, content);
  detail::FindingSink sink{std::string(fileName)};
  switch (kind) {
    case FileKind::DeepSpeedJson: detail::validateDeepSpeedJson(sink, content); break;
    case FileKind::EnvFile: detail::validateEnvFile(sink, content); break;
    case FileKind::KubernetesManifest:
      detail::validateKubernetesManifest(sink, content, catalog);
      break;
    case FileKind::Dockerfile: detail::validateDockerfile(sink, content, catalog); break;
    case FileKind::TrainingArgs: detail::validateTrainingArgs(sink, content); break;
    case FileKind::Auto: break;
  }
  return FileReport{std::string(fileName), kind, sink.take()};
}

Expected<FileReport> validateFile(const std::filesystem::path& path, FileKind kind,
                                  const catalog::Catalog& catalog) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return makeError(ErrorKind::NotFound, "validate: no such file '" + path.string() + "'");
  }
  if (std::filesystem::is_directory(path, error)) {
    return makeError(ErrorKind::BadInput,
                     "validate: '" + path.string() + "' is a directory, not a file");
  }
  auto content = readFile(path);
  if (!content) return content.error();
  return validateContent(path.string(), *content, kind, catalog);
}

std::vector<Expected<FileReport>> validateFiles(const std::vector<std::filesystem::path>& paths,
                                                FileKind kind, const catalog::Catalog& catalog,
                                                const StopToken& stop, const ProgressFn& progress) {
  std::vector<Expected<FileReport>> reports;
  const auto total = static_cast<std::int64_t>(paths.size());
  for (const std::filesystem::path& path : paths) {
    if (stop.stopRequested()) break;
    reports.push_back(validateFile(path, kind, catalog));
    if (progress) {
      const std::string name = path.string();
      progress({static_cast<std::int64_t>(reports.size()), total, name});
    }
  }
  return reports;
}

}  // namespace tb::config
