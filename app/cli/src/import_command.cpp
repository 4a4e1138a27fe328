// `trainbench import FILE|DIR…`: reads what real training frameworks write
// (core/logs detects the format from the content) and, with --out, writes
// the cluster-results file the ablation and the reports already read. Every
// file is imported before anything is written, and the file written is read
// back through the cluster reader first, so a refusal leaves nothing behind
// and what is written is what `report --cluster` accepts.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "exit_codes.hpp"
#include "import_follow.hpp"
#include "import_output.hpp"
#include "output.hpp"
#include "tb/bench/ablation.hpp"
#include "tb/bench/cluster_import.hpp"
#include "tb/bench/imported_logs.hpp"
#include "tb/common/atomic_file.hpp"
#include "tb/common/text.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/logs/loss_pattern.hpp"

namespace tb::cli {
namespace {

struct ImportCommandOptions {
  std::vector<std::string> paths;
  std::vector<std::string> labels;
  std::string model = "unknown";
  std::optional<int> gpus;
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> globalBatch;
  std::optional<int> skipFirst;
  std::optional<std::string> lossPattern;
  std::string format;
  std::string out;
  bool json = false;
  bool follow = false;
  std::optional<double> interval;  ///< --interval, seconds
};

Error bad(std::string message) { return makeError(ErrorKind::BadInput, std::move(message)); }

constexpr double kMaxIntervalSeconds = 3600.0;

Expected<std::chrono::milliseconds> followInterval(const ImportCommandOptions& options) {
  if (!options.interval) return std::chrono::milliseconds(1000);
  const double seconds = *options.interval;
  if (!options.follow) return bad("--interval is how often --follow looks; give --follow too");
  if (!(seconds >= 0.01 && seconds <= kMaxIntervalSeconds))
    return bad("--interval " + formatDecimal(seconds) +
               ": expected seconds from 0.01 to 3600 between looks at the files");
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
}

std::string formatNames() {
  std::vector<std::string> names;
  for (const logs::Format format : logs::allFormats()) {
    names.emplace_back(logs::formatName(format));
  }
  return joinList(names);
}

Expected<logs::ImportOptions> importOptions(const ImportCommandOptions& options) {
  logs::ImportOptions imported;
  if (!options.format.empty()) {
    imported.format = logs::formatFromName(options.format);
    if (!imported.format) {
      return bad("--format " + options.format + ": not a format this import reads (" +
                 formatNames() + ")");
    }
  }
  if (options.gpus && *options.gpus < 1) {
    return bad("--gpus " + std::to_string(*options.gpus) + ": a job runs on 1 GPU or more");
  }
  if (options.seq && *options.seq < 1) {
    return bad("--seq " + std::to_string(*options.seq) + ": a sample has 1 token or more");
  }
  if (options.globalBatch && *options.globalBatch < 1) {
    return bad("--global-batch " + std::to_string(*options.globalBatch) +
               ": a step trains 1 sample or more");
  }
  if (options.skipFirst && *options.skipFirst < 0) {
    return bad("--skip-first " + std::to_string(*options.skipFirst) + ": must be 0 or more");
  }
  imported.gpus = options.gpus;
  imported.sequenceLength = options.seq;
  imported.globalBatch = options.globalBatch;
  imported.skipFirst = options.skipFirst;
  if (options.lossPattern) {
    // Checked once here, so a bad pattern is refused before any file is read.
    if (auto pattern = logs::LossPattern::compile(*options.lossPattern); !pattern)
      return std::move(pattern).error();
    imported.lossPattern = options.lossPattern;
  }
  return imported;
}

/// One label for every path, or one per path in order.
Expected<std::vector<std::string>> labelsFor(const ImportCommandOptions& options) {
  if (options.labels.size() != 1 && options.labels.size() != options.paths.size()) {
    return bad("--label was given " + std::to_string(options.labels.size()) + " times for " +
               std::to_string(options.paths.size()) +
               " files: give one label for all of them, or one per file in order");
  }
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < options.paths.size(); ++i) {
    const std::string& text = options.labels.size() == 1 ? options.labels[0] : options.labels[i];
    const auto step = bench::parseAblationLabel(text);
    if (!step) {
      return bad("--label " + text +
                 ": not an ablation label (Base, AC2, AC2+CompilerOpt, AC2+CompilerOpt+CkptOpt)");
    }
    labels.emplace_back(bench::label(*step));
  }
  return labels;
}

int runImport(const CommandContext& context, const ImportCommandOptions& options) {
  auto importing = importOptions(options);
  if (!importing) return context.fail(importing.error());
  auto labels = labelsFor(options);
  if (!labels) return context.fail(labels.error());
  auto interval = followInterval(options);
  if (!interval) return context.fail(interval.error());
  if (options.follow) {
    return followImports(context, FollowRequest{.paths = options.paths,
                                                .labels = std::move(*labels),
                                                .options = std::move(*importing),
                                                .model = options.model,
                                                .out = options.out,
                                                .json = options.json,
                                                .interval = *interval});
  }
  std::vector<logs::ImportedLog> imports;
  for (const std::string& path : options.paths) {
    auto imported = logs::importLog(path, *importing);
    if (!imported) return context.fail(imported.error());
    imports.push_back(std::move(*imported));
  }
  if (!options.out.empty()) {
    if (Status written = writeClusterFile(imports, *labels, options.model, options.out); !written)
      return context.fail(written.error());
  }
  if (options.json) {
    Json runs = Json::array();
    for (std::size_t i = 0; i < imports.size(); ++i) {
      runs.push_back(importToJson(imports[i], (*labels)[i]));
    }
    printJson(
        context.out(),
        Json{{"runs", runs}, {"out", options.out.empty() ? Json(nullptr) : Json(options.out)}});
  } else {
    printImports(context.out(), imports, *labels);
    if (!options.out.empty()) context.out() << "\nwrote " << options.out << '\n';
  }
  return kExitSuccess;
}

}  // namespace

RegisteredCommand registerImportCommand(CLI::App& app) {
  auto options = std::make_shared<ImportCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "import",
      "Read the logs real training runs wrote (Hugging Face Trainer, Megatron-LM, "
      "DeepSpeed, torchtitan, NeMo/Lightning, MLPerf, TensorBoard) into the ablation");
  command
      ->add_option("paths", options->paths,
                   "Log files, or folders (TensorBoard runs, Trainer output)")
      ->type_name("FILE|DIR")
      ->required();
  command
      ->add_option("--label", options->labels,
                   "Ablation label: Base, AC2, AC2+CompilerOpt, AC2+CompilerOpt+CkptOpt; once "
                   "for all files or once per file, in order")
      ->type_name("LABEL")
      ->required();
  command
      ->add_option("--model", options->model,
                   "Model name the runs are compared under (default unknown)")
      ->type_name("NAME");
  command->add_option("--gpus", options->gpus, "GPUs of the job, where the file does not say")
      ->type_name("N");
  command->add_option("--seq", options->seq, "Tokens per sample, where the file does not say")
      ->type_name("T");
  command
      ->add_option("--global-batch", options->globalBatch,
                   "Samples per optimizer step, where the file does not say")
      ->type_name("B");
  command
      ->add_option("--skip-first", options->skipFirst,
                   "Warm-up records left out of the medians (default: what the framework skips)")
      ->type_name("N");
  command
      ->add_option("--loss-pattern", options->lossPattern,
                   "Read the loss from the lines this regular expression matches (ECMAScript): "
                   "its first group is the loss, an optional (?<step>...) group its step "
                   "(default: the last step the framework printed); every text format")
      ->type_name("REGEX");
  command
      ->add_option("--format", options->format,
                   "Read as this format instead of detecting it: " + formatNames())
      ->type_name("F");
  command
      ->add_option("--out", options->out,
                   "Write the cluster-results JSON the ablation and reports read")
      ->type_name("FILE");
  command->add_flag("--json", options->json,
                    "Print one JSON document (fields: docs/CLI.md); with --follow, one JSON "
                    "object per line and event");
  command->add_flag("--follow", options->follow,
                    "Keep reading the files as their runs write them: a line per update, until "
                    "every run ended or SIGINT/SIGTERM; --out is rewritten at each update");
  command
      ->add_option("--interval", options->interval,
                   "Seconds between looks at the files with --follow (default 1)")
      ->type_name("S");
  command->footer(
      "The format is detected from the content, never the name. Values the file cannot give\n"
      "are null, never guessed; the hints say which option would complete them.\n"
      "--follow reads only what was appended since its last look (a truncated or replaced\n"
      "file is read again from its start, and said), by polling: shared filesystems do not\n"
      "signal writes made on other nodes.\n"
      "Exit codes: 0 imported (with --follow: every run ended, or SIGINT/SIGTERM); 2 bad\n"
      "input, a file in no known format, a corrupt record.");
  return {command,
          [options](const CommandContext& context) { return runImport(context, *options); }};
}

}  // namespace tb::cli
