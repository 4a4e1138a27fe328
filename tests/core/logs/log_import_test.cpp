// The importer's spine: detection of every format from content (the samples
// are published excerpts of what the Trainer, Megatron-LM and
// Megatron-DeepSpeed, DeepSpeed, torchtitan, NeMo / Lightning and MLPerf
// write, and TFRecord framing; docs/LOG_FORMATS.md), the precedence of host
// formats over the guest lines inside them, the folder rules, the refusals,
// the partial rule, the medians' derivations and hints, and the collector's
// bounded memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "format_parser.hpp"
#include "step_collector.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

namespace fs = std::filesystem;
using detail::MedianFactors;
using detail::MedianSeries;
using detail::StepCollector;

// --- samples ------------------------------------------------------------------

constexpr const char* kMegatron =
    " [2024-09-03 15:54:54] iteration       10/  500000 | consumed samples:        10240 | elapsed "
    "time per "
    "iteration (ms): 13035.3 | throughput per GPU (TFLOP/s/GPU): 812.5 | learning rate: "
    "0.000000E+00 | global "
    "batch size:  1024 | loss scale: 8388608.0 | number of skipped iterations:  10 | number of nan "
    "iterations:   0 |\n"
    " [2024-09-03 15:56:55] iteration       20/  500000 | consumed samples:        20480 | elapsed "
    "time per "
    "iteration (ms): 12137.8 | throughput per GPU (TFLOP/s/GPU): 872.5 | learning rate: "
    "6.976744E-07 | global "
    "batch size:  1024 | lm loss: 1.064275E+01 | loss scale: 262144.0 | grad norm: 47.021 | number "
    "of skipped "
    "iterations:   5 | number of nan iterations:   0 |\n"
    "[Rank 0] (after 20 iterations) memory (MB) | allocated: 48465.275390625 | max allocated: "
    "75078.4326171875 | "
    "reserved: 75682.0 | max reserved: 75682.0\n";

// Megatron-DeepSpeed's line as its training.py prints it: no time
// stamp, consumed tokens, actual seqlen, and samples/s, tgs and TFLOPs last.
constexpr const char* kMegatronDeepSpeedLine =
    " iteration      199/  317892 | consumed samples:       152832 | consumed tokens:    625999872 "
    "| elapsed time "
    "per iteration (ms): 14287.5 | learning rate: 2.407E-04 | global batch size:   768 | lm loss: "
    "5.905366E+00 | "
    "loss scale: 8192.0 | actual seqlen:  4096 | number of skipped iterations:   0 | number of nan "
    "iterations:   0 "
    "| samples per second: 53.753 | tokens per gpu per second (tgs): 1834.768 | TFLOPs: 95.21 |\n";

constexpr const char* kDeepSpeed =
    "[2023-08-02 00:41:17,935] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, skipped=10, "
    "lr=[0.0001], "
    "mom=[(0.9, 0.999)]\n"
    "[2023-08-02 00:41:17,936] [INFO] [timer.py:215:stop] epoch=0/micro_step=10/global_step=10, "
    "RunningAvgSamplesPerSec=220.69530887096045, CurrSamplesPerSec=222.88787331278564, "
    "MemAllocated=0.07GB, "
    "MaxMemAllocated=1.36GB\n"
    "2023-08-02 00:41:17.936 | INFO     | __main__:log_dist:54 - [Rank 0] Loss: 10.8766\n";

constexpr const char* kDeepSpeedTimers =
    "[2024-04-04 09:09:53,313] [INFO] [logging.py:96:log_dist] [Rank 0] time (ms) | fwd_microstep: "
    "6567.68 | "
    "bwd_microstep: 17950.36 | bwd_inner_microstep: 17711.20 | bwd_allreduce_microstep: 239.11 | "
    "step_microstep: "
    "1139.27\n"
    "[2024-04-04 09:09:53,313] [INFO] [logging.py:96:log_dist] [Rank 0] time (ms) | fwd: 6567.66 | "
    "bwd: 17950.35 | "
    "bwd_inner: 17711.19 | bwd_allreduce: 239.11 | step: 1139.29\n";

constexpr const char* kNemo =
    "Training epoch 0, iteration 1/249 | lr: 3.922e-06 | global_batch_size: 8 | global_step: 1 | "
    "reduced_train_loss: 1.653 | train_step_timing in s: 2.505 | consumed_samples: 16\n";

constexpr const char* kMlperf =
    R"(:::MLLOG {"namespace": "", "time_ms": 1696565619332, "event_type": "POINT_IN_TIME", "key": "cache_clear", "value": true, "metadata": {"file": "<string>", "lineno": 3}})"
    "\n"
    R"(:::MLLOG {"namespace": "", "time_ms": 1696565401886, "event_type": "POINT_IN_TIME", "key": "tracked_stats", "value": {"throughput": 5154997.267404211}, "metadata": {"file": "/workspace/llm/custom_callbacks.py", "lineno": 284, "step": 1211105280}})"
    "\n";

constexpr const char* kTorchtitan =
    "[rank0]:[titan] 2025-06-04 08:51:58,557 - root - INFO - step: 10  loss: 10.7069  memory: "
    "30.99GiB(32.62%)  "
    "tps: 7,034  tflops: 407.35  mfu: 41.19%\n";

// Lightning 2.2+ sorts the header; NeMo's metric names.
constexpr const char* kLightningCsv =
    "epoch,global_step,lr,reduced_train_loss,step,train_step_timing in s\n"
    "0,0,3.922e-06,1.653,0,2.505\n"
    "0,1,7.843e-06,1.641,1,2.498\n";

// json.dumps(indent=2, sort_keys=True) of a TrainerState (the Jaong
// excerpt).
constexpr const char* kTrainerState = R"({
  "best_metric": null,
  "best_model_checkpoint": null,
  "epoch": 10.0,
  "eval_steps": 500,
  "global_step": 5490,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [
    {
      "epoch": 0.91,
      "grad_norm": 2.757542133331299,
      "learning_rate": 1.817850637522769e-05,
      "loss": 1.1409,
      "step": 500
    },
    {
      "epoch": 10.0,
      "step": 5490,
      "total_flos": 3.718809382109184e+16,
      "train_loss": 0.4479398911550831,
      "train_runtime": 64358.151,
      "train_samples_per_second": 0.511,
      "train_steps_per_second": 0.085
    }
  ],
  "logging_steps": 500,
  "max_steps": 5490,
  "num_input_tokens_seen": 0,
  "num_train_epochs": 10,
  "save_steps": 500,
  "total_flos": 3.718809382109184e+16,
  "train_batch_size": 6,
  "trial_name": null,
  "trial_params": null
}
)";

// TFRecord framing around one Event { wall_time = 1; file_version =
// "brain.Event:2" }, the first record of every event file.
std::uint32_t crc32c(const std::string& bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (const char c : bytes) {
    crc ^= static_cast<std::uint8_t>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::string littleEndian(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFu);
  return out;
}

std::string maskedCrc(const std::string& bytes) {
  const std::uint32_t crc = crc32c(bytes);
  return littleEndian(static_cast<std::uint32_t>(((crc >> 15) | (crc << 17)) + 0xa282ead8u), 4);
}

std::string eventFile() {
  const std::string version = "brain.Event:2";
  std::string event;
  event += '\x09';                                  // field 1 (wall_time), 64-bit
  event += littleEndian(0x41D9E1D0A0000000ull, 8);  // 1.7364e9 as a double's bits
  event += '\x1a';                                  // field 3 (file_version), length-delimited
  event += static_cast<char>(version.size());
  event += version;
  const std::string length = littleEndian(event.size(), 8);
  return length + maskedCrc(length) + event + maskedCrc(event);
}

// --- fixture ------------------------------------------------------------------

class LogImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("tb-logs-import-") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const fs::path& relative, const std::string& bytes) {
    const fs::path file = dir_ / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }

  std::optional<Format> detect(const std::string& bytes) {
    auto format = detectFormat(write("stdout.txt", bytes));
    EXPECT_TRUE(format.ok()) << (format.ok() ? "" : format.error().message);
    return format.ok() ? std::optional<Format>(*format) : std::nullopt;
  }

  fs::path dir_;
};

// --- names and table ------------------------------------------------------------

TEST(Formats, NamesRoundTripAndFollowDetectionOrder) {
  const std::vector<std::string> expected{"hf-trainer",         "tensorboard", "nemo",
                                          "megatron-deepspeed", "megatron",    "torchtitan",
                                          "lightning-csv",      "mlperf",      "deepspeed"};
  std::vector<std::string> names;
  for (const Format format : allFormats()) {
    names.emplace_back(formatName(format));
    EXPECT_EQ(formatFromName(formatName(format)), format);
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(formatFromName(" Megatron-DeepSpeed "), Format::MegatronDeepSpeed);
  EXPECT_FALSE(formatFromName("wandb").has_value());
}

TEST(Formats, SpecsCarryFrameworkAndWarmUp) {
  // What the framework itself discounts: DeepSpeed's ThroughputTimer leaves
  // out global steps 1 and 2 (start_step = 2); nobody else discounts any.
  EXPECT_EQ(detail::formatSpec(Format::DeepSpeed).skipStepsUpTo, 2);
  for (const Format format : allFormats()) {
    if (format != Format::DeepSpeed) {
      EXPECT_FALSE(detail::formatSpec(format).skipStepsUpTo.has_value()) << formatName(format);
    }
  }
  EXPECT_EQ(detail::formatSpec(Format::Megatron).framework, "Megatron-LM");
  for (const Format format : allFormats()) {
    const detail::FormatSpec& spec = detail::formatSpec(format);
    EXPECT_EQ(spec.format, format);
    const bool line = spec.claimsLine != nullptr && spec.makeLineFormat != nullptr;
    const bool document = spec.claimsHead != nullptr && spec.readDocument != nullptr;
    EXPECT_NE(line, document) << spec.name;
  }
}

// --- detection of each format ---------------------------------------------------

TEST_F(LogImport, DetectsEveryLineFormatFromContent) {
  EXPECT_EQ(detect(kMegatron), Format::Megatron);
  EXPECT_EQ(detect(kMegatronDeepSpeedLine), Format::MegatronDeepSpeed);
  EXPECT_EQ(detect(kDeepSpeed), Format::DeepSpeed);
  EXPECT_EQ(detect(kNemo), Format::Nemo);
  EXPECT_EQ(detect(kMlperf), Format::Mlperf);
  EXPECT_EQ(detect(kTorchtitan), Format::Torchtitan);
  EXPECT_EQ(detect(kLightningCsv), Format::LightningCsv);
}

TEST_F(LogImport, DetectsDocumentFormatsFromTheirHead) {
  EXPECT_EQ(detect(kTrainerState), Format::HfTrainer);
  EXPECT_EQ(detect(eventFile()), Format::Tensorboard);
}

TEST_F(LogImport, DetectsBehindLaunchersAndOtherLoggers) {
  const std::string preamble =
      "W0604 08:51:30.123000 140 torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment "
      "variable\n";
  EXPECT_EQ(detect(preamble + "0: " + kTorchtitan), Format::Torchtitan);
  EXPECT_EQ(detect(preamble + "[default0]:" + kMegatron), Format::Megatron);
  EXPECT_EQ(detect(std::string(" 0: ") + kMlperf), Format::Mlperf);
}

TEST_F(LogImport, AHostFormatWinsOverTheGuestLinesBeforeIt) {
  // DeepSpeed's engine prints every steps_per_print steps, the fork's
  // iteration line comes every log_interval: DeepSpeed lines come first.
  EXPECT_EQ(detect(std::string(kDeepSpeed) + kDeepSpeedTimers + kMegatronDeepSpeedLine),
            Format::MegatronDeepSpeed);
  // An MLPerf submission's NeMo log: MLLOG init lines before the first step.
  EXPECT_EQ(detect(std::string(kMlperf) + kNemo), Format::Nemo);
  // Guests alone are the format; MLLOG before DeepSpeed when both appear.
  EXPECT_EQ(detect(std::string(kDeepSpeed) + kDeepSpeedTimers), Format::DeepSpeed);
  EXPECT_EQ(detect(std::string(kDeepSpeed) + kMlperf), Format::Mlperf);
}

// --- folders --------------------------------------------------------------------

TEST_F(LogImport, ATrainerOutputFolderIsTheTrainers) {
  write("output/trainer_state.json", kTrainerState);
  write("output/runs/Jan09_19-01-12_host/events.out.tfevents.1736449272.host.4242.0", eventFile());
  write("output/config.json", "{}\n");
  auto format = detectFormat(dir_ / "output");
  ASSERT_TRUE(format.ok()) << format.error().message;
  EXPECT_EQ(*format, Format::HfTrainer);
  write("results/train_results.json", "{\n    \"train_runtime\": 5980.6912\n}");
  EXPECT_EQ(detectFormat(dir_ / "results").value(), Format::HfTrainer);
}

TEST_F(LogImport, AFolderWithEventFilesBelowIsTensorboard) {
  // torchtitan: <dump_folder>/tb/<YYYYmmdd-HHMM>/.
  write("outputs/tb/20260109-1901/events.out.tfevents.1736449272.host.4242.0", eventFile());
  write("outputs/checkpoint/step-100/.metadata", "x");
  auto format = detectFormat(dir_ / "outputs");
  ASSERT_TRUE(format.ok()) << format.error().message;
  EXPECT_EQ(*format, Format::Tensorboard);
}

TEST_F(LogImport, AFolderWithOneLogIsThatLogs) {
  write("version_0/metrics.csv", kLightningCsv);
  write("version_0/hparams.yaml", "lr: 0.001\nmax_steps: 250\n");
  auto format = detectFormat(dir_ / "version_0");
  ASSERT_TRUE(format.ok()) << format.error().message;
  EXPECT_EQ(*format, Format::LightningCsv);
}

TEST_F(LogImport, AFolderWithSeveralLogsNamesThem) {
  write("two/a.log", kTorchtitan);
  write("two/b.log", kMegatron);
  write("two/notes.txt", "nothing to see\n");
  auto format = detectFormat(dir_ / "two");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.error().kind, ErrorKind::BadInput);
  EXPECT_NE(format.error().message.find("a.log (torchtitan), b.log (megatron)"), std::string::npos)
      << format.error().message;
}

TEST_F(LogImport, AFolderWithoutALogIsRefused) {
  write("empty/notes.txt", "nothing to see\n");
  auto format = detectFormat(dir_ / "empty");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.error().kind, ErrorKind::Parse);
  EXPECT_NE(format.error().message.find("no training log found"), std::string::npos)
      << format.error().message;
}

// --- refusals -------------------------------------------------------------------

TEST_F(LogImport, AFileInNoKnownFormatIsAParseErrorNamingIt) {
  const fs::path file = write("notes.txt", "hello\nthis is not a training log\n");
  for (const Error& error : {detectFormat(file).error(), importLog(file).error()}) {
    EXPECT_EQ(error.kind, ErrorKind::Parse);
    EXPECT_EQ(error.message.rfind(
                  file.string() + ": no known training-log format: expected one of hf-trainer, "
                                  "tensorboard, nemo, megatron-deepspeed, megatron, torchtitan, "
                                  "lightning-csv, mlperf, deepspeed",
                  0),
              0U)
        << error.message;
  }
  EXPECT_NE(detectFormat(write("empty.log", "")).error().message.find("an empty file"),
            std::string::npos);
}

TEST_F(LogImport, ABinaryFileIsAParseErrorNamingIt) {
  const fs::path file = write("image.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  auto format = detectFormat(file);
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.error().kind, ErrorKind::Parse);
  EXPECT_NE(format.error().message.find(file.string()), std::string::npos);
  EXPECT_NE(format.error().message.find("binary file"), std::string::npos)
      << format.error().message;
}

TEST_F(LogImport, AMissingPathIsNotFound) {
  auto format = detectFormat(dir_ / "nope.log");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.error().kind, ErrorKind::NotFound);
}

TEST_F(LogImport, BadOptionsAreRefusedBeforeReading) {
  ImportOptions options;
  options.gpus = 0;
  auto imported = importLog(write("t.log", kTorchtitan), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(imported.error().message, "--gpus: expected at least 1, found 0");
}

TEST_F(LogImport, MegatronsFirstWindowCountsByDefault) {
  auto imported = importLog(write("m.log", kMegatron));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->skippedRecords, 0);
  EXPECT_NEAR(*imported->medians.stepTimeSeconds, (13.0353 + 12.1378) / 2, 1e-12);
}

TEST_F(LogImport, ALineOverTheBoundIsSkippedAndSaidSo) {
  // Another program's dump between two training lines: skipped, not refused.
  std::string text =
      std::string(kTorchtitan) + std::string(std::size_t{2} << 20, 'x') + "\n" + kTorchtitan;
  auto imported = importLog(write("t.log", text));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 2);
  EXPECT_NE(std::find(imported->hints.begin(), imported->hints.end(),
                      "1 line longer than 1048576 bytes skipped (no line of a training-log format "
                      "is that long)"),
            imported->hints.end());
}

TEST_F(LogImport, ProgressBarRedrawsAreLinesOfTheirOwn) {
  // tqdm's '\r' redraws, then a training line after the last one.
  std::string text = " 10%|#         | 1/10\r 20%|##        | 2/10\r" + std::string(kTorchtitan);
  auto imported = importLog(write("bar.log", text));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "torchtitan");
  EXPECT_EQ(imported->run.records, 1);
  EXPECT_EQ(imported->run.lastStep, 10);
}

TEST_F(LogImport, AForcedFormatWithoutRecordsIsRefused) {
  ImportOptions options;
  options.format = Format::Torchtitan;
  auto imported = importLog(write("m.log", kMegatron), options);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().kind, ErrorKind::Parse);
  EXPECT_NE(imported.error().message.find("expected torchtitan training records, found none"),
            std::string::npos);
}

// --- partial --------------------------------------------------------------------

// A torchtitan fork's `step: N/M = P%` gives the planned steps.
std::string forkLines(int from, int to) {
  std::string text;
  for (int step = from; step <= to; step += 10)
    text += "[titan] 2025-03-01 10:00:00,000 - root - INFO - step: " + std::to_string(step) +
            "/644 = 0.0000%  loss:  2.3456  memory: 40.12GiB(50.66%)  tps: 9,876  tflops: 123.45  "
            "mfu: 12.48%\n";
  return text;
}

TEST_F(LogImport, ARunThatStopsAnIntervalShortOfItsPlanIsPartial) {
  auto imported = importLog(write("short.log", forkLines(260, 300)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.plannedSteps, 644);
  EXPECT_TRUE(imported->run.partial);
  EXPECT_EQ(imported->run.partialReason, "the last record is step 300 of 644 planned");
}

TEST_F(LogImport, ARunWhoseLastLogFallsJustBeforeItsPlanIsComplete) {
  // Logged every 10 steps, the last at 640 of 644: nothing was left to log.
  auto imported = importLog(write("done.log", forkLines(600, 640)));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.lastStep, 640);
  EXPECT_FALSE(imported->run.partial) << imported->run.partialReason;
}

TEST_F(LogImport, AFileEndingMidLineIsPartialAndBothReasonsAreKept) {
  std::string text = forkLines(260, 300);
  text += "[titan] 2025-03-01 10:00:00,000 - root - INFO - step: 310/644 = 0.0000%  loss:  2.34";
  auto imported = importLog(write("killed.log", text));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 5);
  EXPECT_TRUE(imported->run.partial);
  EXPECT_NE(imported->run.partialReason.find("step 300 of 644"), std::string::npos);
  EXPECT_NE(imported->run.partialReason.find("ends mid-line"), std::string::npos);
}

// --- medians and hints ----------------------------------------------------------

runs::ImportedStep megatronRecord(std::int64_t step, double stepTime) {
  runs::ImportedStep record;
  record.step = step;
  record.stepTimeSeconds = stepTime;
  record.globalBatch = 1024;
  record.tflopsPerGpu = 800.0 + static_cast<double>(step);
  return record;
}

TEST(Medians, SamplesComeFromEachRecordsBatchAndStepTime) {
  StepCollector collector(1);
  const std::array<double, 5> times{13.0353, 12.1378, 12.20, 12.15, 12.18};
  for (std::size_t i = 0; i < times.size(); ++i)
    collector.add(megatronRecord(static_cast<std::int64_t>(10 * (i + 1)), times[i]));
  const auto derived = detail::deriveMedians(collector, std::nullopt, {});
  EXPECT_DOUBLE_EQ(*derived.medians.stepTimeSeconds, (12.15 + 12.18) / 2);
  // The median of the per-record samples/s, not the batch over the median time.
  const double samples = (1024 / 12.18 + 1024 / 12.15) / 2;
  EXPECT_DOUBLE_EQ(*derived.medians.samplesPerSecond, samples);
  EXPECT_DOUBLE_EQ(*derived.medians.tflopsPerGpu, (830.0 + 840.0) / 2);
  EXPECT_FALSE(derived.medians.tokensPerSecondPerGpu.has_value());
  EXPECT_FALSE(derived.medians.mfu.has_value());
  EXPECT_EQ(derived.hints, std::vector<std::string>{"tokens_per_s_per_gpu needs --gpus and --seq"});

  MedianFactors factors;
  factors.gpus = 8;
  factors.sequenceLength = 4096;
  const auto complete = detail::deriveMedians(collector, std::nullopt, factors);
  EXPECT_DOUBLE_EQ(*complete.medians.tokensPerSecondPerGpu, samples / 8 * 4096);
  EXPECT_TRUE(complete.hints.empty());
}

TEST(Medians, StepTimeComesFromAJobRateAndTheGlobalBatch) {
  StepCollector collector(0);
  for (const double rate : {220.0, 222.0, 221.0}) {
    runs::ImportedStep record;
    record.samplesPerSecond = runs::ScopedRate{rate, runs::RateScope::Job};
    collector.add(record);
  }
  const auto derived = detail::deriveMedians(collector, std::nullopt, {});
  EXPECT_EQ(derived.medians.samplesPerSecond, 221.0);
  EXPECT_FALSE(derived.medians.stepTimeSeconds.has_value());
  EXPECT_EQ(derived.hints,
            (std::vector<std::string>{"step_time_s needs --global-batch",
                                      "tokens_per_s_per_gpu needs --gpus and --seq"}));
  MedianFactors factors;
  factors.globalBatch = 64;
  EXPECT_DOUBLE_EQ(*detail::deriveMedians(collector, std::nullopt, factors).medians.stepTimeSeconds,
                   64 / 221.0);
}

TEST(Medians, AJobTokenRateIsSharedOverTheGpus) {
  StepCollector collector(0);
  runs::ImportedStep record;
  record.tokensPerSecond = runs::ScopedRate{80000.0, runs::RateScope::Job};
  collector.add(record);
  EXPECT_EQ(
      detail::deriveMedians(collector, std::nullopt, {}).hints,
      (std::vector<std::string>{"samples_per_s needs --seq", "tokens_per_s_per_gpu needs --gpus"}));
  MedianFactors factors;
  factors.gpus = 8;
  EXPECT_EQ(detail::deriveMedians(collector, std::nullopt, factors).medians.tokensPerSecondPerGpu,
            10000.0);
}

TEST(Medians, ASummaryOnlyFileTakesItsMediansFromTheSummary) {
  // aa-n/Qwen3_Lora train_results.json.
  runs::ImportedSummary summary;
  summary.runtimeSeconds = 5980.6912;
  summary.samplesPerSecond = 14.427;
  summary.stepsPerSecond = 0.128;
  summary.totalFlos = 2.0772363998572052e+18;
  summary.loss = 0.9732094605763754;
  const StepCollector collector(0);
  const auto derived = detail::deriveMedians(collector, summary, {});
  EXPECT_DOUBLE_EQ(*derived.medians.stepTimeSeconds, 1 / 0.128);
  EXPECT_EQ(derived.medians.samplesPerSecond, 14.427);
  EXPECT_FALSE(derived.medians.tflopsPerGpu.has_value());
  EXPECT_EQ(derived.hints,
            (std::vector<std::string>{
                "the rates are the summary's, over its whole runtime: time the file does not time "
                "(checkpoint saving, the loop's start-up) stays inside them",
                "tokens_per_s_per_gpu needs --gpus and --seq", "tflops_per_gpu needs --gpus"}));
  EXPECT_FALSE(derived.excludedSeconds);  // the file timed nothing that was not training
  MedianFactors factors;
  factors.gpus = 8;
  factors.sequenceLength = 1024;
  const auto complete = detail::deriveMedians(collector, summary, factors);
  EXPECT_DOUBLE_EQ(*complete.medians.tokensPerSecondPerGpu, 14.427 / 8 * 1024);
  EXPECT_DOUBLE_EQ(*complete.medians.tflopsPerGpu, 2.0772363998572052e+18 / 5980.6912 / 1e12 / 8);

  runs::ImportedRun run;
  run.summary = summary;
  EXPECT_EQ(
      detail::missingFields(collector, run),
      (std::vector<std::string>{"learning_rate", "grad_norm", "tokens_per_s", "tflops_per_gpu",
                                "mfu", "memory", "world_size", "global_batch", "sequence_length"}));
}

TEST(Medians, AllRecordsInTheWarmUpSaySo) {
  StepCollector collector(3);
  collector.add(megatronRecord(10, 13.0));
  collector.add(megatronRecord(20, 12.0));
  const auto derived = detail::deriveMedians(collector, std::nullopt, {});
  EXPECT_FALSE(derived.medians.stepTimeSeconds.has_value());
  EXPECT_EQ(collector.skippedRecords(), 2);
  EXPECT_EQ(derived.hints,
            std::vector<std::string>{
                "all 2 records are warm-up under --skip-first 3: a smaller --skip-first leaves "
                "some for the medians"});
}

TEST(Medians, WarmUpByStepLeavesOutTheFrameworksOwnSteps) {
  StepCollector collector(detail::WarmUp{0, 2});
  for (const std::int64_t step : {1, 2, 3, 10})
    collector.add(megatronRecord(step, static_cast<double>(step)));
  EXPECT_EQ(collector.skippedRecords(), 2);
  EXPECT_DOUBLE_EQ(*detail::deriveMedians(collector, std::nullopt, {}).medians.stepTimeSeconds,
                   (3.0 + 10.0) / 2);

  StepCollector early(detail::WarmUp{0, 2});
  early.add(megatronRecord(1, 1.0));
  early.add(megatronRecord(2, 2.0));
  const auto derived = detail::deriveMedians(early, std::nullopt, {});
  EXPECT_FALSE(derived.medians.stepTimeSeconds.has_value());
  EXPECT_NE(
      std::find(derived.hints.begin(), derived.hints.end(),
                "all 2 records are warm-up (steps up to 2, which the framework itself leaves out): "
                "--skip-first 0 keeps them"),
      derived.hints.end());
}

TEST(Medians, ValuesThatAreNoMeasurementAreLeftOut) {
  StepCollector collector(0);
  for (const double rate :
       {-std::numeric_limits<double>::infinity(), std::nan(""), 200.0, 210.0, -5.0}) {
    runs::ImportedStep record;
    record.samplesPerSecond = runs::ScopedRate{rate, runs::RateScope::Job};
    collector.add(record);
  }
  EXPECT_EQ(collector.series(MedianSeries::SamplesJob).count(), 2U);
  EXPECT_EQ(detail::deriveMedians(collector, std::nullopt, {}).medians.samplesPerSecond, 205.0);
  EXPECT_EQ(collector.records(), 5);
}

// --- bounded memory -------------------------------------------------------------

TEST(StepCollectorMemory, AMillionRecordsStayBoundedAndEvenlyThinned) {
  constexpr std::int64_t kRecords = 1000000;
  StepCollector collector(0);
  for (std::int64_t i = 0; i < kRecords; ++i) {
    runs::ImportedStep record;
    record.step = i + 1;
    record.loss = 10.0 - static_cast<double>(i) * 1e-6;
    record.stepTimeSeconds =
        1.0 + static_cast<double>(i % 1000) / 1000.0;  // 1.000 … 1.999, 1,000 times each
    record.tokensPerSecond = runs::ScopedRate{50000.0, runs::RateScope::PerGpu};
    collector.add(record);
  }
  EXPECT_LT(collector.retainedBytes(), std::size_t{8} << 20);
  const detail::MedianInput& times = collector.series(MedianSeries::StepTime);
  EXPECT_FALSE(times.isExact());
  EXPECT_EQ(times.count(), static_cast<std::uint64_t>(kRecords));
  // Exact: the mean of 1.499 and 1.500; buckets give it within 0.1 %.
  EXPECT_NEAR(*times.median(), 1.4995, 1.4995 * 1e-3);
  EXPECT_EQ(collector.series(MedianSeries::TokensPerGpu).median(),
            50000.0);  // a constant stays exact

  runs::ImportedRun run;
  collector.moveInto(run);
  EXPECT_EQ(run.records, kRecords);
  EXPECT_EQ(run.firstStep, 1);
  EXPECT_EQ(run.lastStep, kRecords);
  ASSERT_LE(run.steps.size(), StepCollector::kMaxKeptSteps);
  ASSERT_GE(run.steps.size(), StepCollector::kMaxKeptSteps / 2);
  const std::int64_t stride = collector.stride();
  EXPECT_EQ(stride & (stride - 1), 0);  // a power of two
  for (std::size_t i = 0; i + 2 < run.steps.size(); ++i)
    ASSERT_EQ(run.steps[i + 1].step - run.steps[i].step, stride) << i;
  EXPECT_EQ(run.steps.front().step, 1);
  EXPECT_EQ(run.steps.back().step, kRecords);  // the curve reaches the end
  EXPECT_EQ(run.steps.back().loss, 10.0 - static_cast<double>(kRecords - 1) * 1e-6);
}

TEST(StepCollectorMemory, ASmallRunKeepsEveryRecord) {
  StepCollector collector(0);
  for (std::int64_t step = 1; step <= 100; ++step) collector.add(megatronRecord(step, 1.0));
  runs::ImportedRun run;
  collector.moveInto(run);
  ASSERT_EQ(run.steps.size(), 100U);
  EXPECT_EQ(run.steps[41].step, 42);
  EXPECT_TRUE(collector.series(MedianSeries::StepTime).isExact());
}

}  // namespace
}  // namespace tb::logs
