// TensorBoard event files (events.out.tfevents.*): TFRecord framing
// (tfrecord.hpp) around Event messages (tensorboard_event.proto), written by
// torchtitan, Megatron-LM, NeMo/Lightning and the Trainer's TensorBoard
// callback. The scalars we know by tag become ImportedStep fields; every
// other tag, and every other kind of summary, is passed over. Facts: the
// reference's section 10 and docs/LOG_FORMATS.md, "TensorBoard event files".
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "format_parser.hpp"
#include "tensorboard_event.pb.h"
#include "tfrecord.hpp"

namespace tb::logs::detail {
namespace {

namespace fs = std::filesystem;
namespace pb = tb::logs::tfevents;

constexpr std::string_view kFileVersionPrefix = "brain.Event:";
constexpr std::string_view kEventFilePrefix = "events.out.tfevents.";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// ---------------------------------------------------------------------------
// Which tags we read, and into what.

enum class Target : std::uint8_t {
  Loss,
  LearningRate,
  GradNorm,
  StepTimeSeconds,
  TokensPerSecondPerGpu,
  TflopsPerGpu,
  MfuPercent,
  MemoryMaxReservedGiB,
  MemoryMaxAllocatedBytes,
  GlobalBatch,
  // Run-level values: not a step's.
  WorldSize,
  RunRuntimeSeconds,
  RunSamplesPerSecond,
  RunStepsPerSecond,
  RunTotalFlos,
  RunLoss,
};

constexpr std::string_view kTorchtitan = "torchtitan";
constexpr std::string_view kMegatron = "Megatron-LM";
constexpr std::string_view kTrainer = "Hugging Face Trainer";
constexpr std::string_view kNemo = "NeMo";

struct KnownTag {
  std::string_view tag;
  Target target;
  /// The writer whose name this is (as formats.cpp names the frameworks),
  /// empty where two share it; the run is credited to the one writer seen.
  std::string_view framework;
  /// torchtitan's TensorBoardLogger puts an optional `<tag>/` before every
  /// metric name; these also match with one leading folder.
  bool prefixable = false;
};

// One table for every writer; tags do not collide across frameworks, and
// where two share a name (`grad_norm`) they mean the same.
constexpr std::array kKnownTags{
    // torchtitan, components/metrics.py MetricsProcessor.log: per device.
    KnownTag{"loss_metrics/global_avg_loss", Target::Loss, kTorchtitan, true},
    KnownTag{"grad_norm", Target::GradNorm, {}, true},
    KnownTag{"throughput(tps)", Target::TokensPerSecondPerGpu, kTorchtitan, true},
    // The name before tps (2024-11), by the console line's rename.
    KnownTag{"wps", Target::TokensPerSecondPerGpu, kTorchtitan, true},
    KnownTag{"tflops", Target::TflopsPerGpu, kTorchtitan, true},
    KnownTag{"mfu(%)", Target::MfuPercent, kTorchtitan, true},
    KnownTag{"memory/max_reserved(GiB)", Target::MemoryMaxReservedGiB, kTorchtitan, true},
    KnownTag{"time_metrics/end_to_end(s)", Target::StepTimeSeconds, kTorchtitan, true},
    // Megatron-LM, training.py training_log: iteration-time in seconds,
    // throughput in TFLOP/s per GPU; the `… vs samples` twins count samples,
    // not steps, and are left out on purpose.
    KnownTag{"lm loss", Target::Loss, kMegatron},
    KnownTag{"iteration-time", Target::StepTimeSeconds, kMegatron},
    KnownTag{"throughput", Target::TflopsPerGpu, kMegatron},
    KnownTag{"learning-rate", Target::LearningRate, kMegatron},
    KnownTag{"grad-norm", Target::GradNorm, kMegatron},
    KnownTag{"batch-size", Target::GlobalBatch, kMegatron},
    KnownTag{"world-size", Target::WorldSize, kMegatron},
    KnownTag{"mem-max-allocated-bytes", Target::MemoryMaxAllocatedBytes, kMegatron},
    // The Trainer's TensorBoardCallback (rewrite_logs: `train/` before each
    // training key); the final summary arrives at the last global step.
    KnownTag{"train/loss", Target::Loss, kTrainer},
    KnownTag{"train/learning_rate", Target::LearningRate, kTrainer},
    KnownTag{"train/grad_norm", Target::GradNorm, kTrainer},
    KnownTag{"train/train_runtime", Target::RunRuntimeSeconds, kTrainer},
    KnownTag{"train/train_samples_per_second", Target::RunSamplesPerSecond, kTrainer},
    KnownTag{"train/train_steps_per_second", Target::RunStepsPerSecond, kTrainer},
    KnownTag{"train/total_flos", Target::RunTotalFlos, kTrainer},
    KnownTag{"train/train_loss", Target::RunLoss, kTrainer},
    // NeMo through Lightning's TensorBoardLogger.
    KnownTag{"reduced_train_loss", Target::Loss, kNemo},
    KnownTag{"lr", Target::LearningRate, kNemo},
    KnownTag{"train_step_timing in s", Target::StepTimeSeconds, kNemo},
    KnownTag{"train_step_timing", Target::StepTimeSeconds, kNemo},
    KnownTag{"global_batch_size", Target::GlobalBatch, kNemo},
    KnownTag{"tokens_per_sec_per_gpu", Target::TokensPerSecondPerGpu, kNemo},
    KnownTag{"tflops_per_sec_per_gpu", Target::TflopsPerGpu, kNemo},
};

std::optional<std::size_t> findTag(std::string_view tag, bool prefixedOnly) {
  for (std::size_t i = 0; i < kKnownTags.size(); ++i) {
    if (kKnownTags[i].tag == tag && (!prefixedOnly || kKnownTags[i].prefixable)) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> lookupTag(std::string_view tag) {
  if (auto exact = findTag(tag, false)) return exact;
  // One leading folder off, for torchtitan's tag prefix; its validation
  // metrics ("validation_metrics/throughput(tps)") are not training steps.
  const auto slash = tag.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  if (tag.substr(0, slash) == "validation_metrics") return std::nullopt;
  return findTag(tag.substr(slash + 1), true);
}

// ---------------------------------------------------------------------------
// Scalars in both forms.

enum class TagPlugin : std::uint8_t { Unknown, Scalars, Other };

/// TensorFlow 2 writes a summary's metadata on a tag's first value only, so
/// a tag's plugin is remembered from the value that carried it.
void rememberPlugin(const pb::Summary::Value& value, TagPlugin& plugin) {
  if (!value.has_metadata()) return;
  const auto& metadata = value.metadata();
  const std::string& name = metadata.plugin_data().plugin_name();
  if (name == "scalars") {
    plugin = TagPlugin::Scalars;
  } else if (!name.empty()) {
    plugin = TagPlugin::Other;
  } else if (metadata.data_class() == pb::DATA_CLASS_SCALAR) {
    plugin = TagPlugin::Scalars;
  }
}

std::uint64_t littleEndian(const std::string& bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = bytes.size(); i > 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i - 1]);
  }
  return value;
}

double halfToDouble(std::uint32_t bits) {
  const bool negative = (bits & 0x8000U) != 0;
  const int exponent = static_cast<int>((bits >> 10) & 0x1FU);
  const double mantissa = static_cast<double>(bits & 0x3FFU);
  double magnitude = 0.0;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);  // subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0.0 ? HUGE_VAL : std::nan("");
  } else {
    magnitude = std::ldexp(1024.0 + mantissa, exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

double bfloat16ToDouble(std::uint32_t bits) {
  return static_cast<double>(std::bit_cast<float>((bits & 0xFFFFU) << 16));
}

/// The value of a one-element numeric tensor (rank 0, or every dimension 1),
/// from its typed field or its little-endian tensor_content; anything else
/// (strings, histograms, images) is no scalar.
std::optional<double> scalarOf(const pb::TensorProto& tensor) {
  if (tensor.tensor_shape().unknown_rank()) return std::nullopt;
  for (const auto& dim : tensor.tensor_shape().dim()) {
    if (dim.size() != 1) return std::nullopt;
  }
  const std::string& content = tensor.tensor_content();
  switch (tensor.dtype()) {
    case pb::DT_FLOAT:
      if (tensor.float_val_size() == 1) return static_cast<double>(tensor.float_val(0));
      if (content.size() == 4) {
        return static_cast<double>(
            std::bit_cast<float>(static_cast<std::uint32_t>(littleEndian(content))));
      }
      return std::nullopt;
    case pb::DT_DOUBLE:
      if (tensor.double_val_size() == 1) return tensor.double_val(0);
      if (content.size() == 8) return std::bit_cast<double>(littleEndian(content));
      return std::nullopt;
    case pb::DT_INT32:
      if (tensor.int_val_size() == 1) return static_cast<double>(tensor.int_val(0));
      if (content.size() == 4) {
        return static_cast<double>(
            std::bit_cast<std::int32_t>(static_cast<std::uint32_t>(littleEndian(content))));
      }
      return std::nullopt;
    case pb::DT_INT64:
      if (tensor.int64_val_size() == 1) return static_cast<double>(tensor.int64_val(0));
      if (content.size() == 8) {
        return static_cast<double>(std::bit_cast<std::int64_t>(littleEndian(content)));
      }
      return std::nullopt;
    case pb::DT_HALF:
    case pb::DT_BFLOAT16: {
      std::uint32_t bits = 0;
      if (tensor.half_val_size() == 1) {
        bits = static_cast<std::uint32_t>(tensor.half_val(0));
      } else if (content.size() == 2) {
        bits = static_cast<std::uint32_t>(littleEndian(content));
      } else {
        return std::nullopt;
      }
      return tensor.dtype() == pb::DT_HALF ? halfToDouble(bits) : bfloat16ToDouble(bits);
    }
    default:
      return std::nullopt;
  }
}

std::optional<double> scalarOf(const pb::Summary::Value& value, TagPlugin plugin) {
  if (value.has_simple_value()) return static_cast<double>(value.simple_value());
  // A tensor of another plugin (text, hparams, …) is not ours even if it
  // happens to hold one number.
  if (value.has_tensor() && plugin != TagPlugin::Other) return scalarOf(value.tensor());
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Steps in order, in bounded memory.

/// Merges the scalars of one step into one record and hands records to the
/// sink in step order. Writers log a step's scalars together, but nothing
/// forbids interleaving, so a window of recent steps stays open; once it is
/// full the oldest is handed on. A step that comes back after it was handed
/// on cannot be merged any more and is dropped (the window is far wider than
/// any writer's interleaving).
class StepMerger {
 public:
  static constexpr std::size_t kWindow = 64;

  explicit StepMerger(StepSink& sink) : sink_(sink) {}

  /// The open record of `step`, or nullptr when that step was handed on.
  runs::ImportedStep* at(std::int64_t step) {
    if (emittedUpTo_ && step <= *emittedUpTo_) return nullptr;
    auto [it, inserted] = pending_.try_emplace(step);
    if (!inserted) return &it->second;
    it->second.step = step;
    while (pending_.size() > kWindow) emitOldest();
    // A step older than everything in a full window is closed at once
    // (empty, so it is no record); its values are dropped like any late
    // step's.
    const auto open = pending_.find(step);
    return open == pending_.end() ? nullptr : &open->second;
  }

  void flushAll() {
    while (!pending_.empty()) emitOldest();
  }

 private:
  void emitOldest() {
    auto oldest = pending_.begin();
    emittedUpTo_ = oldest->first;
    // A step that only had run-level values or unreadable ones is no record.
    runs::ImportedStep bare;
    bare.step = oldest->first;
    if (oldest->second != bare) sink_.add(oldest->second);
    pending_.erase(oldest);
  }

  StepSink& sink_;
  std::map<std::int64_t, runs::ImportedStep> pending_;
  std::optional<std::int64_t> emittedUpTo_;
};

// ---------------------------------------------------------------------------
// Files.

struct FileEnd {
  bool truncated = false;          ///< the file stopped inside a record
  std::uint64_t truncatedAt = 0;   ///< byte offset of that record
  std::uint64_t records = 0;       ///< complete records, the file version's included
};

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 40)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  return out;
}

/// Calls onEvent(const pb::Event&) for every Event after the file-version
/// record, until it returns false.
template <class OnEvent>
Expected<FileEnd> forEachEvent(const fs::path& file, OnEvent&& onEvent) {
  const std::string origin = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(ErrorKind::Io, origin + ": cannot be opened for reading");
  TfRecordReader reader(in, origin);
  std::string data;
  pb::Event event;
  FileEnd end;
  for (;;) {
    const auto next = reader.next(data);
    if (next == TfRecordReader::Next::End) return end;
    if (next == TfRecordReader::Next::Truncated) {
      end.truncated = true;
      end.truncatedAt = reader.recordOffset();
      return end;
    }
    if (next == TfRecordReader::Next::Failed) return *reader.error();
    const bool first = end.records == 0;
    ++end.records;
    const auto where = [&] { return origin + ": byte " + std::to_string(reader.recordOffset()); };
    if (next == TfRecordReader::Next::Skipped) {
      // Only graph defs and the like come this big; never the first record.
      if (first) {
        return makeError(ErrorKind::Parse, where() +
                                               ": expected a first record holding the file "
                                               "version 'brain.Event:…', found a record of "
                                               "more than 16 MiB");
      }
      continue;
    }
    if (!event.ParseFromString(data)) {
      return makeError(ErrorKind::Parse,
                       where() + ": expected a TensorBoard Event message, found " +
                           std::to_string(data.size()) + " bytes that do not parse as one");
    }
    if (first) {
      const std::string& version = event.file_version();
      if (!event.has_file_version() || !version.starts_with(kFileVersionPrefix)) {
        return makeError(ErrorKind::Parse,
                         where() +
                             ": expected a first Event with file_version 'brain.Event:…', found " +
                             (event.has_file_version() ? "'" + printable(version) + "'"
                                                       : std::string("an Event without one")));
      }
      continue;
    }
    if (!onEvent(static_cast<const pb::Event&>(event))) return end;
  }
}

/// `rank_<r>` as a folder name, torchtitan's save_for_all_ranks layout.
std::optional<std::int64_t> rankOfFolder(const fs::path& folder) {
  const std::string name = folder.string();
  constexpr std::string_view kPrefix = "rank_";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return std::nullopt;
  std::int64_t rank = 0;
  const char* begin = name.data() + kPrefix.size();
  const char* stop = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(begin, stop, rank);
  if (ec != std::errc{} || ptr != stop) return std::nullopt;
  return rank;
}

struct EventFile {
  fs::path path;
  std::uint64_t createdSeconds = 0;  ///< the <unix seconds> of the file name
  std::optional<std::int64_t> rank;
};

std::uint64_t secondsInName(std::string_view name) {
  name.remove_prefix(kEventFilePrefix.size());
  std::uint64_t seconds = 0;
  std::from_chars(name.data(), name.data() + name.size(), seconds);
  return seconds;
}

/// The files of one run: `path` itself, or every events.out.tfevents.* under
/// the folder `path`, where a rank_<r>/ layout contributes its lowest rank
/// only, in order of the time in their names (then of their paths).
Expected<std::vector<fs::path>> eventFiles(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) {
    return makeError(ErrorKind::NotFound, path.string() + ": no such file or folder");
  }
  if (!fs::is_directory(status)) return std::vector<fs::path>{path};

  std::vector<EventFile> found;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kEventFilePrefix)) continue;
    std::error_code fileEc;
    if (!it->is_regular_file(fileEc)) continue;
    EventFile file{it->path(), secondsInName(name), std::nullopt};
    // The outermost rank_<r> folder below `path` (a folder named by the
    // user is read whole, so pointing at rank_3/ reads rank 3).
    for (const auto& folder : it->path().lexically_relative(path).parent_path()) {
      if ((file.rank = rankOfFolder(folder))) break;
    }
    found.push_back(std::move(file));
  }
  if (ec) {
    return makeError(ErrorKind::Io, path.string() + ": cannot list the folder: " + ec.message());
  }
  if (found.empty()) {
    return makeError(ErrorKind::NotFound, path.string() +
                                              ": expected events.out.tfevents.* files in the "
                                              "folder or its subfolders, found none");
  }

  // Every rank logs the same metrics; reading all of them would count each
  // step once per rank.
  std::optional<std::int64_t> lowestRank;
  for (const auto& file : found) {
    if (file.rank && (!lowestRank || *file.rank < *lowestRank)) lowestRank = file.rank;
  }
  std::erase_if(found,
                [&](const EventFile& file) { return file.rank && *file.rank != *lowestRank; });
  std::sort(found.begin(), found.end(), [](const EventFile& a, const EventFile& b) {
    if (a.createdSeconds != b.createdSeconds) return a.createdSeconds < b.createdSeconds;
    if (a.path.filename() != b.path.filename()) return a.path.filename() < b.path.filename();
    return a.path < b.path;
  });
  std::vector<fs::path> paths;
  paths.reserve(found.size());
  for (auto& file : found) paths.push_back(std::move(file.path));
  return paths;
}

// ---------------------------------------------------------------------------
// One run from its files.

class RunReader {
 public:
  RunReader(runs::ImportedRun& run, StepSink& sink) : run_(run), merger_(sink) {}

  /// The first step at which the file has a scalar we read: a later file that
  /// starts at or before a step of an earlier one is a restart from a
  /// checkpoint, and replaces the earlier file's steps from there on.
  Expected<std::optional<std::int64_t>> firstStep(const fs::path& file) {
    std::optional<std::int64_t> first;
    std::array<TagPlugin, kKnownTags.size()> plugins{};
    auto end = forEachEvent(file, [&](const pb::Event& event) {
      if (!event.has_summary()) return true;
      for (const auto& value : event.summary().value()) {
        const auto index = lookupTag(value.tag());
        if (!index) continue;
        rememberPlugin(value, plugins[*index]);
        if (scalarOf(value, plugins[*index])) {
          first = event.step();
          return false;
        }
      }
      return true;
    });
    if (!end) return std::move(end).error();
    return first;
  }

  /// Reads one file's scalars, leaving out steps at or after `cut`.
  Expected<FileEnd> read(const fs::path& file, std::optional<std::int64_t> cut) {
    return forEachEvent(file, [&](const pb::Event& event) {
      if (!event.has_summary()) return true;
      if (cut && event.step() >= *cut) return true;
      for (const auto& value : event.summary().value()) {
        const auto index = lookupTag(value.tag());
        if (!index) continue;
        rememberPlugin(value, plugins_[*index]);
        if (auto number = scalarOf(value, plugins_[*index])) {
          apply(kKnownTags[*index].target, event.step(), *number);
          credit(kKnownTags[*index].framework);
        }
      }
      return true;
    });
  }

  void finish() {
    merger_.flushAll();
    if (batch_ && !batchVaries_) run_.globalBatch = batch_;
    if (summary_ != runs::ImportedSummary{}) run_.summary = summary_;
    // The format says TensorBoard; the tags say who wrote it.
    if (framework_ && !mixedWriters_) run_.framework = std::string(*framework_);
  }

 private:
  void apply(Target target, std::int64_t step, double value) {
    switch (target) {
      case Target::WorldSize:
        if (value >= 1.0 && value <= 1e7) run_.worldSize = static_cast<int>(std::lround(value));
        return;
      case Target::RunRuntimeSeconds: summary_.runtimeSeconds = value; return;
      case Target::RunSamplesPerSecond: summary_.samplesPerSecond = value; return;
      case Target::RunStepsPerSecond: summary_.stepsPerSecond = value; return;
      case Target::RunTotalFlos: summary_.totalFlos = value; return;
      case Target::RunLoss: summary_.loss = value; return;
      default: break;
    }
    runs::ImportedStep* record = merger_.at(step);
    if (record == nullptr) return;
    switch (target) {
      case Target::Loss: record->loss = value; break;
      case Target::LearningRate: record->learningRate = value; break;
      case Target::GradNorm: record->gradNorm = value; break;
      case Target::StepTimeSeconds: record->stepTimeSeconds = value; break;
      case Target::TokensPerSecondPerGpu:
        record->tokensPerSecond = runs::ScopedRate{value, runs::RateScope::PerGpu};
        break;
      case Target::TflopsPerGpu: record->tflopsPerGpu = value; break;
      case Target::MfuPercent: record->mfu = value / 100.0; break;
      case Target::MemoryMaxReservedGiB:
        if (memoryKind("max_reserved")) record->memoryBytes = value * kGiB;
        break;
      case Target::MemoryMaxAllocatedBytes:
        if (memoryKind("max_allocated")) record->memoryBytes = value;
        break;
      case Target::GlobalBatch:
        if (value >= 1.0 && value < 9.0e18) {
          const auto batch = static_cast<std::int64_t>(std::llround(value));
          record->globalBatch = batch;
          if (batch_ && *batch_ != batch) batchVaries_ = true;
          batch_ = batch;
        }
        break;
      default: break;
    }
  }

  void credit(std::string_view framework) {
    if (framework.empty()) return;
    if (framework_ && *framework_ != framework) mixedWriters_ = true;
    framework_ = framework;
  }

  /// One kind of memory per run: the first one seen.
  bool memoryKind(std::string_view kind) {
    if (run_.memoryKind.empty()) run_.memoryKind = kind;
    return run_.memoryKind == kind;
  }

  runs::ImportedRun& run_;
  StepMerger merger_;
  std::array<TagPlugin, kKnownTags.size()> plugins_{};
  runs::ImportedSummary summary_;
  std::optional<std::int64_t> batch_;
  bool batchVaries_ = false;
  std::optional<std::string_view> framework_;
  bool mixedWriters_ = false;
};

}  // namespace

bool tensorboardClaimsHead(std::string_view head) {
  // The first record is the tiny file-version Event; it must fit the head.
  std::istringstream in{std::string(head)};
  TfRecordReader reader(in, "head", {.maxRecordBytes = head.size(), .maxKeptBytes = head.size()});
  std::string data;
  if (reader.next(data) != TfRecordReader::Next::Record) return false;
  pb::Event event;
  return event.ParseFromString(data) && event.has_file_version() &&
         event.file_version().starts_with(kFileVersionPrefix);
}

Status readTensorboard(const fs::path& path, runs::ImportedRun& run, StepSink& sink) {
  auto files = eventFiles(path);
  if (!files) return std::move(files).error();
  RunReader reader(run, sink);

  // cuts[i]: where file i is superseded by a later restart (the lowest first
  // step of any later file), as TensorBoard itself drops such orphaned steps.
  std::vector<std::optional<std::int64_t>> cuts(files->size());
  std::optional<std::int64_t> laterFirst;
  for (std::size_t i = files->size(); i-- > 0;) {
    cuts[i] = laterFirst;
    if (i == 0) break;
    auto first = reader.firstStep((*files)[i]);
    if (!first) return std::move(first).error();
    if (*first && (!laterFirst || **first < *laterFirst)) laterFirst = *first;
  }

  FileEnd last;
  for (std::size_t i = 0; i < files->size(); ++i) {
    auto end = reader.read((*files)[i], cuts[i]);
    if (!end) return std::move(end).error();
    last = *end;
  }
  reader.finish();

  // Only the last file says whether the run is still going: an earlier one
  // cut short was a killed run that a later file resumed.
  const std::string lastFile = files->back().string();
  if (last.records == 0) {
    run.partial = true;
    run.partialReason = lastFile + " holds no complete record yet (a writer that just started)";
  } else if (last.truncated) {
    run.partial = true;
    run.partialReason = lastFile + " ends inside the record at byte " +
                        std::to_string(last.truncatedAt) + " (a writer still going, or killed)";
  }
  return {};
}

}  // namespace tb::logs::detail
