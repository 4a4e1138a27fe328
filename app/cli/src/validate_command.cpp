// `trainbench validate FILE...`: checks DeepSpeed JSON, env files, Kubernetes
// manifests and Dockerfiles against the image's notes. Every file is read
// before anything is printed, so an unreadable file (exit 2) never leaves a
// half report behind; what is wrong inside a file is a finding (exit 3 when
// any finding is an error).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "output.hpp"
#include "tb/config/validation.hpp"

namespace tb::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string kind = "auto";
  bool json = false;
};

std::string placeText(const config::Finding& finding) {
  std::string place = finding.file;
  if (finding.line > 0) place += ":" + std::to_string(finding.line);
  return place;
}

void printFindings(std::ostream& out, const std::vector<config::FileReport>& reports) {
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  for (const config::FileReport& report : reports) {
    errors += report.count(config::Severity::Error);
    warnings += report.count(config::Severity::Warning);
    infos += report.count(config::Severity::Info);
    if (report.findings.empty()) {
      out << report.file << ": ok (" << config::toString(report.kind) << ")\n";
      continue;
    }
    for (const config::Finding& finding : report.findings) {
      out << placeText(finding) << ": " << config::toString(finding.severity) << ": "
          << finding.message << " [" << finding.rule << "]\n";
      if (!finding.path.empty()) out << "    at " << finding.path << '\n';
      out << "    fix: " << finding.fix << '\n';
    }
  }
  out << '\n'
      << errors << " error(s), " << warnings << " warning(s), " << infos << " note(s) in "
      << reports.size() << " file(s)\n";
}

Json findingToJson(const config::Finding& finding) {
  return Json{{"severity", config::toString(finding.severity)},
              {"file", finding.file},
              {"line", finding.line > 0 ? Json(finding.line) : Json(nullptr)},
              {"path", finding.path.empty() ? Json(nullptr) : Json(finding.path)},
              {"rule", finding.rule},
              {"message", finding.message},
              {"fix", finding.fix}};
}

Json reportsToJson(const std::vector<config::FileReport>& reports) {
  Json files = Json::array();
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  for (const config::FileReport& report : reports) {
    Json findings = Json::array();
    for (const config::Finding& finding : report.findings) {
      findings.push_back(findingToJson(finding));
    }
    errors += report.count(config::Severity::Error);
    warnings += report.count(config::Severity::Warning);
    infos += report.count(config::Severity::Info);
    files.push_back({{"file", report.file},
                     {"kind", config::toString(report.kind)},
                     {"errors", report.count(config::Severity::Error)},
                     {"warnings", report.count(config::Severity::Warning)},
                     {"infos", report.count(config::Severity::Info)},
                     {"findings", findings}});
  }
  return Json{
      {"ok", errors == 0},
      {"summary",
       {{"files", reports.size()}, {"errors", errors}, {"warnings", warnings}, {"infos", infos}}},
      {"files", files}};
}

int runValidate(const CommandContext& context, const ValidateOptions& options) {
  auto kind = config::parseFileKind(options.kind);
  if (!kind) return context.fail(makeError(ErrorKind::BadInput, "--" + kind.error().message));
  auto catalog = context.loadCatalog();
  if (!catalog) return context.fail(catalog.error());
  std::vector<config::FileReport> reports;
  const std::vector<std::filesystem::path> files(options.files.begin(), options.files.end());
  for (auto& report : config::validateFiles(files, *kind, *catalog)) {
    if (!report) return context.fail(report.error());
    reports.push_back(std::move(*report));
  }
  bool anyError = false;
  for (const auto& report : reports) {
    anyError = anyError || report.count(config::Severity::Error) > 0;
  }
  if (options.json) {
    printJson(context.out(), reportsToJson(reports));
  } else {
    printFindings(context.out(), reports);
  }
  return anyError ? kExitCheckFailed : kExitSuccess;
}

}  // namespace

RegisteredCommand registerValidateCommand(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command =
      app.add_subcommand("validate",
                         "Check DeepSpeed JSON, env files, Kubernetes manifests, Dockerfiles and "
                         "TrainingArguments code against the training-nv-pytorch image's rules");
  command
      ->add_option("files", options->files,
                   "Files to check; the kind is taken from the name (.json, .env, .yaml, .py, "
                   "Dockerfile) or the content")
      ->type_name("FILE")
      ->required();
  command
      ->add_option("--kind", options->kind,
                   "Treat every file as: auto (default), deepspeed, env, k8s, dockerfile, "
                   "training-args")
      ->type_name("KIND");
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  command->footer(
      "Each finding has a severity, the file and line (or JSON/YAML path), what is wrong\n"
      "and the fix. Unparseable files are reported as findings.\n"
      "Exit codes: 0 no errors (warnings allowed), 3 errors found, 2 a file cannot be read.");
  return {command,
          [options](const CommandContext& context) { return runValidate(context, *options); }};
}

}  // namespace tb::cli
