// `trainbench import FILE|DIR…`: reads what real training frameworks write
// (core/logs detects the format from the content) and, with --out, writes
// the cluster-results file the ablation and the reports already read. Every
// file is imported before anything is written, and the file written is read
// back through the cluster reader first, so a refusal leaves nothing behind
// and what is written is what `report --cluster` accepts.
#include <CLI/CLI.hpp>

#include <cmath>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "exit_codes.hpp"
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
};

Error bad(std::string message) { return makeError(ErrorKind::BadInput, std::move(message)); }

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

std::optional<double> lastLoss(const runs::ImportedRun& run) {
  for (auto step = run.steps.rbegin(); step != run.steps.rend(); ++step) {
    if (step->loss && std::isfinite(*step->loss)) return step->loss;
  }
  return std::nullopt;
}

Json optionalNumber(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json(nullptr);
}

template <class T>
Json optionalValue(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json importToJson(const logs::ImportedLog& imported, const std::string& label) {
  const runs::ImportedRun& run = imported.run;
  const logs::ImportMedians& m = imported.medians;
  return Json{{"file", run.source},
              {"format", run.format},
              {"framework", run.framework},
              {"label", label},
              {"records", run.records},
              {"first_step", optionalValue(run.firstStep)},
              {"last_step", optionalValue(run.lastStep)},
              {"partial", run.partial},
              {"partial_reason", run.partial ? Json(run.partialReason) : Json(nullptr)},
              {"loss_last", optionalNumber(lastLoss(run))},
              {"skipped_records", imported.skippedRecords},
              {"world_size", optionalValue(run.worldSize)},
              {"global_batch", optionalValue(run.globalBatch)},
              {"sequence_length", optionalValue(run.sequenceLength)},
              {"medians",
               {{"step_time_s", optionalNumber(m.stepTimeSeconds)},
                {"samples_per_s", optionalNumber(m.samplesPerSecond)},
                {"tokens_per_s_per_gpu", optionalNumber(m.tokensPerSecondPerGpu)},
                {"tflops_per_gpu", optionalNumber(m.tflopsPerGpu)},
                {"mfu", optionalNumber(m.mfu)},
                {"benchmark_throughput", optionalNumber(m.benchmarkThroughput)}}},
              {"peak_memory_bytes", optionalNumber(imported.peakMemoryBytes)},
              {"excluded_seconds", optionalNumber(imported.excludedSeconds)},
              {"excluded_kinds", imported.excludedKinds},
              {"found", imported.found},
              {"missing", imported.missing},
              {"hints", imported.hints}};
}

std::string orDash(const std::optional<double>& value, int decimals = 1) {
  if (!value || !std::isfinite(*value)) return "-";
  const double scale = std::pow(10.0, decimals);
  return formatDecimal(std::round(*value * scale) / scale);
}

void printImports(std::ostream& out, const std::vector<logs::ImportedLog>& imports,
                  const std::vector<std::string>& labels) {
  TextTable table({"file", "format", "label", "records", "steps", "step s", "tokens/s/gpu",
                   "TFLOP/s/gpu", "mfu", "loss"});
  for (std::size_t i = 0; i < imports.size(); ++i) {
    const runs::ImportedRun& run = imports[i].run;
    const logs::ImportMedians& m = imports[i].medians;
    const std::string steps = run.firstStep && run.lastStep ? std::to_string(*run.firstStep) + "-" +
                                                                  std::to_string(*run.lastStep)
                                                            : "-";
    table.addRow({run.source, run.format + (run.partial ? " (partial)" : ""), labels[i],
                  std::to_string(run.records), steps, orDash(m.stepTimeSeconds, 3),
                  orDash(m.tokensPerSecondPerGpu), orDash(m.tflopsPerGpu),
                  m.mfu ? orDash(*m.mfu * 100.0) + " %" : "-", orDash(lastLoss(run), 4)});
  }
  table.print(out);
  for (std::size_t i = 0; i < imports.size(); ++i) {
    const logs::ImportedLog& imported = imports[i];
    const std::optional<double>& benchmark = imported.medians.benchmarkThroughput;
    if (imported.missing.empty() && imported.hints.empty() && !imported.run.partial && !benchmark)
      continue;
    out << '\n' << imported.run.source << ":\n";
    if (imported.run.partial) out << "  partial: " << imported.run.partialReason << '\n';
    if (benchmark)
      out << "  benchmark throughput (median, in the benchmark's own unit): "
          << orDash(benchmark, 2) << '\n';
    if (!imported.missing.empty())
      out << "  not in the file: " << joinList(imported.missing) << '\n';
    for (const std::string& hint : imported.hints) out << "  " << hint << '\n';
  }
}

int runImport(const CommandContext& context, const ImportCommandOptions& options) {
  auto importing = importOptions(options);
  if (!importing) return context.fail(importing.error());
  auto labels = labelsFor(options);
  if (!labels) return context.fail(labels.error());
  std::vector<logs::ImportedLog> imports;
  for (const std::string& path : options.paths) {
    auto imported = logs::importLog(path, *importing);
    if (!imported) return context.fail(imported.error());
    imports.push_back(std::move(*imported));
  }
  if (!options.out.empty()) {
    std::vector<bench::ClusterRun> rows;
    for (std::size_t i = 0; i < imports.size(); ++i) {
      auto row = bench::clusterRunFromLog(imports[i], (*labels)[i], options.model);
      if (!row) return context.fail(row.error());
      rows.push_back(std::move(*row));
    }
    const std::string text = bench::clusterJsonText(rows);
    // What is written must be what the ablation reads: the cluster reader's
    // rules across runs (one unit per configuration, …) are checked first.
    if (auto readBack = bench::parseClusterJson(text, options.out); !readBack) {
      return context.fail(readBack.error());
    }
    if (Status written = writeFileAtomically(options.out, text); !written) {
      return context.fail(written.error());
    }
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
  command->add_flag("--json", options->json, "Print one JSON document (fields: docs/CLI.md)");
  command->footer(
      "The format is detected from the content, never the name. Values the file cannot give\n"
      "are null, never guessed; the hints say which option would complete them.\n"
      "Exit codes: 0 imported; 2 bad input, a file in no known format, a corrupt record.");
  return {command,
          [options](const CommandContext& context) { return runImport(context, *options); }};
}

}  // namespace tb::cli
