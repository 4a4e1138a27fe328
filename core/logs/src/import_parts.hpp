// The importer's steps, shared by the one-shot import (log_import.cpp) and
// the follower (log_follow.cpp), so that following a file and importing the
// same bytes give the same run: one resolution of a path to what is read,
// one check of the options, one assembly of the records into the import.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format_parser.hpp"
#include "step_collector.hpp"
#include "tb/common/expected.hpp"
#include "tb/logs/log_import.hpp"
#include "tb/logs/loss_pattern.hpp"
#include "tb/runs/imported_run.hpp"

namespace tb::logs::detail {

struct ImportTarget {
  Format format;
  std::filesystem::path path;  ///< what the format reads: a file, or the folder itself
};

/// Read whole (JSON, CSV, event files) rather than line by line.
[[nodiscard]] inline bool isDocument(const FormatSpec& spec) {
  return spec.readDocument != nullptr;
}

/// The format and the file (or folder) a path names; `forced`: --format.
[[nodiscard]] Expected<ImportTarget> resolveTarget(const std::filesystem::path& path,
                                                   const std::optional<Format>& forced);
[[nodiscard]] Status checkImportOptions(const ImportOptions& options);
[[nodiscard]] Expected<std::optional<LossPattern>> compileLossPattern(const ImportOptions& options);
[[nodiscard]] WarmUp warmUpFor(const FormatSpec& spec, const ImportOptions& options);
/// A run with its source, format and framework named, nothing read yet.
[[nodiscard]] runs::ImportedRun startRun(const FormatSpec& spec,
                                         const std::filesystem::path& target);
/// The hint for lines over the line reader's bound, none when none.
[[nodiscard]] std::optional<std::string> longLinesNote(std::uint64_t skipped);
/// Runs `read`, turning any exception a library below a parser throws into
/// an error naming the file.
[[nodiscard]] Status guardedRead(const FormatSpec& spec, const std::filesystem::path& path,
                                 const std::function<Status()>& read);
/// Says in `notes` that a --loss-pattern given was not used on a document.
void noteUnusedLossPattern(const FormatSpec& spec, bool lossPatternGiven,
                           std::vector<std::string>& notes);
/// A document format's whole file (or folder) into `run` and `collector`.
[[nodiscard]] Status readDocumentTarget(const FormatSpec& spec, const std::filesystem::path& path,
                                        bool lossPatternGiven, runs::ImportedRun& run,
                                        StepCollector& collector, std::vector<std::string>& notes);
/// The records read and the run's metadata into the import: the medians,
/// the fields found and missing, the hints, the partial verdict. A file
/// with no record and no summary is a Parse error. `collector` is spent.
[[nodiscard]] Expected<ImportedLog> assembleImport(const FormatSpec& spec,
                                                   const ImportOptions& options,
                                                   StepCollector& collector, runs::ImportedRun run,
                                                   bool endedMidLine,
                                                   std::vector<std::string> notes);

}  // namespace tb::logs::detail
