// Every parser of outside input, as a libFuzzer target: the input is the
// file, line, header or command output exactly as the parser receives it.
// A target only calls the parser and drops its answer: what is checked is
// that no input crashes, leaks, trips a sanitizer or takes long (libFuzzer's
// -timeout and -rss_limit_mb). A new parser of outside input gets a target
// here (docs/RELIABILITY.md says so).
#include "fuzz_targets.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tb/bench/cluster_import.hpp"
#include "tb/bench/host_cpu.hpp"
#include "tb/bench/results.hpp"
#include "tb/catalog/catalog_loader.hpp"
#include "tb/catalog/driver_version.hpp"
#include "tb/compat/host_detection.hpp"
#include "tb/config/validation.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/registry/http_headers.hpp"
#include "tb/registry/image_reference.hpp"
#include "tb/registry/registry_documents.hpp"
#include "tb/report/chart_document.hpp"
#include "tb/runs/benchmark_event.hpp"
#include "tb/runs/run_event.hpp"
#include "tb/runs/run_store.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::fuzz {
namespace {

namespace fs = std::filesystem;

/// A folder of this process's own on a tmpfs where there is one, for the
/// readers that take a path (log files, run directories).
const fs::path& scratch() {
  static const fs::path dir = [] {
    const fs::path shm = "/dev/shm";
    fs::path base = fs::is_directory(shm) ? shm : fs::temp_directory_path();
    fs::path mine = base / ("tb-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(mine);
    return mine;
  }();
  return dir;
}

void writeFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A log importer with its format forced (or detected, when none).
void importAs(std::string_view input, std::optional<logs::Format> format) {
  const fs::path file = scratch() / "log";
  writeFile(file, input);
  logs::ImportOptions options;
  options.format = format;
  (void)logs::importLog(file, options);
}

void validateAs(std::string_view input, config::FileKind kind) {
  (void)config::validateContent("fuzz", input, kind, catalog::builtinCatalog());
}

/// A run directory: the input up to its first NUL is config.json, the rest
/// summary.json (absent when there is no NUL), with events.jsonl beside.
void readRunDirectory(std::string_view input) {
  const fs::path dir = scratch() / "run";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto split = input.find('\0');
  writeFile(dir / "config.json", input.substr(0, split));
  if (split != std::string_view::npos) writeFile(dir / "summary.json", input.substr(split + 1));
  writeFile(dir / "events.jsonl", "{\"event\":\"start\"}\n");
  (void)runs::readRun(dir);
}

std::vector<Target> makeTargets() {
  std::vector<Target> targets = {
      {"catalog", [](std::string_view in) { (void)catalog::parseCatalog(in, "fuzz"); }},
      {"driver_version", [](std::string_view in) { (void)catalog::DriverVersion::parse(in); }},
      {"results", [](std::string_view in) { (void)bench::parseResults(in, "fuzz"); }},
      {"cluster_csv", [](std::string_view in) { (void)bench::parseClusterCsv(in, "fuzz"); }},
      {"cluster_json", [](std::string_view in) { (void)bench::parseClusterJson(in, "fuzz"); }},
      {"cpuinfo", [](std::string_view in) { (void)bench::parseCpuInfo(in); }},
      {"nvidia_smi", [](std::string_view in) { (void)compat::parseNvidiaSmiCsv(in); }},
      {"proc_driver", [](std::string_view in) { (void)compat::parseProcDriverVersion(in); }},
      {"run_event_line", [](std::string_view in) { (void)runs::parseEventLine(in); }},
      {"run_events", [](std::string_view in) { (void)runs::parseEvents(in); }},
      {"run_summary", [](std::string_view in) { (void)runs::parseSummaryText(in); }},
      {"run_directory", readRunDirectory},
      {"benchmark_event_line",
       [](std::string_view in) { (void)runs::parseBenchmarkEventLine(in); }},
      {"chart_document", [](std::string_view in) { (void)report::parseChartDocument(in); }},
      {"registry_tags", [](std::string_view in) { (void)registry::parseTagList(in, "fuzz"); }},
      {"registry_manifest",
       [](std::string_view in) {
         // The content type is the answer's first line, so both are fuzzed.
         const auto newline = in.find('\n');
         const std::string_view type = in.substr(0, newline);
         const std::string_view body =
             newline == std::string_view::npos ? std::string_view() : in.substr(newline + 1);
         (void)registry::parseManifest(body, type, "fuzz");
       }},
      {"registry_image_config",
       [](std::string_view in) { (void)registry::parseImageConfig(in, "fuzz"); }},
      {"registry_error_body", [](std::string_view in) { (void)registry::parseErrorBody(in); }},
      {"registry_link", [](std::string_view in) { (void)registry::parseNextLink(in); }},
      {"registry_www_authenticate",
       [](std::string_view in) { (void)registry::parseAuthChallenge(in); }},
      {"image_reference",
       [](std::string_view in) {
         (void)registry::parseImageReference(in, registry::TagPolicy::Required);
         (void)registry::parseImageReference(in, registry::TagPolicy::Forbidden);
       }},
      {"config_deepspeed",
       [](std::string_view in) { validateAs(in, config::FileKind::DeepSpeedJson); }},
      {"config_env", [](std::string_view in) { validateAs(in, config::FileKind::EnvFile); }},
      {"config_k8s",
       [](std::string_view in) { validateAs(in, config::FileKind::KubernetesManifest); }},
      {"config_dockerfile",
       [](std::string_view in) { validateAs(in, config::FileKind::Dockerfile); }},
      {"config_training_args",
       [](std::string_view in) { validateAs(in, config::FileKind::TrainingArgs); }},
      {"config_detect", [](std::string_view in) { validateAs(in, config::FileKind::Auto); }},
      {"log_detect", [](std::string_view in) { importAs(in, std::nullopt); }},
  };
  for (const logs::Format format : logs::allFormats()) {
    std::string name = "log_" + std::string(logs::formatName(format));
    for (char& c : name) c = c == '-' ? '_' : c;
    targets.push_back({std::move(name), [format](std::string_view in) { importAs(in, format); }});
  }
  return targets;
}

}  // namespace

const std::vector<Target>& targets() {
  static const std::vector<Target> all = makeTargets();
  return all;
}

const Target* findTarget(std::string_view name) {
  for (const Target& target : targets()) {
    if (target.name == name) return &target;
  }
  return nullptr;
}

}  // namespace tb::fuzz
