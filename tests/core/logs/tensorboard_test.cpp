// TensorBoard event files, following docs/LOG_FORMATS.md (TFRecord framing
// and its masked CRC-32C, Event / Summary / TensorProto, the two scalar
// forms, folders of files) with the tag names of Megatron-LM, torchtitan, the
// Trainer (its keys, written by its TensorBoard callback with a `train/`
// prefix) and NeMo. The event files are written by write_tfevents.py, which
// frames and checksums them with its own Python code and builds the messages
// with python3-protobuf from the .proto, so the reader is checked against an
// independent writer.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "format_parser.hpp"
#include "tb/common/subprocess.hpp"
#include "tb/logs/log_follow.hpp"
#include "tb/logs/log_import.hpp"
#include "tfrecord.hpp"

namespace {

namespace fs = std::filesystem;
using tb::logs::detail::crc32c;
using tb::logs::detail::crc32cBitwise;
using tb::logs::detail::crc32cExtend;
using tb::logs::detail::maskCrc;
using tb::logs::detail::TfRecordReader;
using tb::logs::detail::unmaskCrc;
using tb::runs::ImportedStep;
using tb::runs::RateScope;
using tb::runs::ScopedRate;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// ---------------------------------------------------------------------------
// CRC-32C

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283U);  // the CRC catalogue's check value
  EXPECT_EQ(crc32c(""), 0U);
  // RFC 3720 (iSCSI) appendix B.4.
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAU);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43U);
  std::string ascending;
  std::string descending;
  for (int i = 0; i < 32; ++i) {
    ascending += static_cast<char>(i);
    descending += static_cast<char>(31 - i);
  }
  EXPECT_EQ(crc32c(ascending), 0x46DD794EU);
  EXPECT_EQ(crc32c(descending), 0x113FDB5CU);
}

TEST(Crc32c, MaskedLengthOfTheFirstRecordOfEveryEventFile) {
  // Every PyTorch event file starts 18 00 00 00 00 00 00 00 a3 7f 4b 22: a
  // 24-byte file-version record and the masked CRC of that length.
  const std::string length("\x18\0\0\0\0\0\0\0", 8);
  EXPECT_EQ(maskCrc(crc32c(length)), 0x224B7FA3U);
  EXPECT_EQ(unmaskCrc(0x224B7FA3U), crc32c(length));
}

TEST(Crc32c, SlicedMatchesBitwiseOnRandomInputs) {
  std::mt19937 random(23);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> size(0, 300);
  for (int round = 0; round < 500; ++round) {
    std::string data(size(random), '\0');
    for (char& c : data) c = static_cast<char>(byte(random));
    ASSERT_EQ(crc32c(data), crc32cBitwise(data)) << "size " << data.size();
    // Continuing from any split point gives the CRC of the whole.
    const std::size_t split = data.empty() ? 0 : size(random) % data.size();
    const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
    ASSERT_EQ(crc32cExtend(crc32c(data.substr(0, split)), bytes + split, data.size() - split),
              crc32c(data));
    const std::uint32_t value = static_cast<std::uint32_t>(random());
    ASSERT_EQ(unmaskCrc(maskCrc(value)), value);
  }
}

// ---------------------------------------------------------------------------
// TFRecord framing on in-memory streams (framed here with the CRC under
// test; the end-to-end tests below use the independent writer).

std::string littleEndian(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFU);
  return out;
}

std::string frame(const std::string& data) {
  const std::string length = littleEndian(data.size(), 8);
  return length + littleEndian(maskCrc(crc32c(length)), 4) + data +
         littleEndian(maskCrc(crc32c(data)), 4);
}

TEST(TfRecordReader, ReadsRecordsInOrderAndSkipsLongOnes) {
  const std::string big(1000, 'g');
  std::istringstream in(frame("first") + frame(big) + frame("") + frame("last"));
  TfRecordReader reader(in, "mem", {.maxRecordBytes = 4096, .maxKeptBytes = 100});
  std::string data;
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Record);
  EXPECT_EQ(data, "first");
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Skipped);
  EXPECT_EQ(reader.recordOffset(), 21U);
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Record);
  EXPECT_EQ(data, "");
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Record);
  EXPECT_EQ(data, "last");
  EXPECT_EQ(reader.next(data), TfRecordReader::Next::End);
  EXPECT_EQ(reader.records(), 4U);
}

TEST(TfRecordReader, ACorruptSkippedRecordIsStillCaught) {
  std::string bytes = frame("first") + frame(std::string(1000, 'g'));
  bytes[21 + 12 + 500] ^= 0x01;
  std::istringstream in(bytes);
  TfRecordReader reader(in, "mem", {.maxRecordBytes = 4096, .maxKeptBytes = 100});
  std::string data;
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Record);
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Failed);
  EXPECT_NE(reader.error()->message.find("mem: byte 21: expected the record data's"),
            std::string::npos)
      << reader.error()->message;
}

TEST(TfRecordReader, EveryCutInsideARecordIsTruncationNotCorruption) {
  const std::string whole = frame("complete") + frame("cut off");
  const std::size_t second = frame("complete").size();
  for (std::size_t cut = second + 1; cut < whole.size(); ++cut) {
    std::istringstream in(whole.substr(0, cut));
    TfRecordReader reader(in, "mem");
    std::string data;
    ASSERT_EQ(reader.next(data), TfRecordReader::Next::Record);
    ASSERT_EQ(reader.next(data), TfRecordReader::Next::Truncated) << "cut at " << cut;
    EXPECT_EQ(reader.recordOffset(), second);
    EXPECT_EQ(reader.next(data), TfRecordReader::Next::Truncated);  // and stays so
  }
}

TEST(TfRecordReader, RefusesABadLengthCrcAndAnOverlongLength) {
  std::string bytes = frame("record");
  bytes[0] ^= 0x40;
  std::istringstream flipped(bytes);
  TfRecordReader reader(flipped, "mem");
  std::string data;
  ASSERT_EQ(reader.next(data), TfRecordReader::Next::Failed);
  EXPECT_EQ(reader.error()->kind, tb::ErrorKind::Parse);
  EXPECT_NE(
      reader.error()->message.find("mem: byte 0: expected the record length's masked CRC-32C"),
      std::string::npos)
      << reader.error()->message;

  std::istringstream longOne(frame(std::string(200, 'x')));
  TfRecordReader bounded(longOne, "mem", {.maxRecordBytes = 100, .maxKeptBytes = 100});
  ASSERT_EQ(bounded.next(data), TfRecordReader::Next::Failed);
  EXPECT_NE(bounded.error()->message.find("expected a record of at most 100 bytes, found 200"),
            std::string::npos)
      << bounded.error()->message;
}

// ---------------------------------------------------------------------------
// Event files from the independent writer.

struct Value {
  Value(std::string tag_, double value_, std::string form_ = "simple", std::string plugin_ = {})
      : tag(std::move(tag_)), value(value_), form(std::move(form_)), plugin(std::move(plugin_)) {}
  std::string tag;
  double value = 0.0;
  std::string form;    ///< write_tfevents.py's form: simple, float_val, tensor_content, …
  std::string plugin;  ///< empty: the writer's default ("scalars" on a tag's first tensor)
};

struct Event {
  Event(std::int64_t step_, std::vector<Value> values_, int unknownFieldBytes_ = 0)
      : step(step_), values(std::move(values_)), unknownFieldBytes(unknownFieldBytes_) {}
  std::int64_t step = 0;
  std::vector<Value> values;
  int unknownFieldBytes = 0;  ///< an Event field our .proto leaves out, of this many bytes
};

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string specJson(const std::vector<Event>& events, const std::string& fileVersion) {
  std::string json = "{\"file_version\": \"" + fileVersion + "\", \"events\": [";
  for (std::size_t e = 0; e < events.size(); ++e) {
    json += e == 0 ? "" : ", ";
    json += "{\"step\": " + std::to_string(events[e].step) +
            ", \"unknown_field_bytes\": " + std::to_string(events[e].unknownFieldBytes) +
            ", \"values\": [";
    for (std::size_t v = 0; v < events[e].values.size(); ++v) {
      const Value& value = events[e].values[v];
      json += v == 0 ? "" : ", ";
      json += "{\"tag\": \"" + value.tag + "\", \"value\": " + number(value.value) +
              ", \"form\": \"" + value.form + "\"";
      if (!value.plugin.empty()) json += ", \"plugin\": \"" + value.plugin + "\"";
      json += "}";
    }
    json += "]}";
  }
  return json + "]}";
}

class TensorboardFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tb-tfevents-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  /// Writes `events` with write_tfevents.py to dir_/relative.
  fs::path write(const std::string& relative, const std::vector<Event>& events,
                 const std::string& fileVersion = "brain.Event:2") {
    const fs::path out = dir_ / relative;
    fs::create_directories(out.parent_path());
    const fs::path spec = dir_ / (std::to_string(specs_++) + ".spec.json");
    std::ofstream(spec) << specJson(events, fileVersion);
    tb::ProcessOptions options;
    options.timeout = std::chrono::milliseconds(60000);
    auto result =
        tb::runProcess({"/usr/bin/python3", TB_TFEVENTS_WRITER, "--proto", TB_TFEVENTS_PROTO,
                        "--out", out.string(), "--spec", spec.string()},
                       options);
    EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
    if (result.ok()) {
      EXPECT_EQ(result->exitCode, 0) << result->standardError;
    }
    return out;
  }

  fs::path dir_;
  int specs_ = 0;
};

class CollectingSink : public tb::logs::detail::StepSink {
 public:
  void add(const ImportedStep& step) override { steps.push_back(step); }
  std::vector<ImportedStep> steps;
};

struct Read {
  tb::Status status;
  tb::runs::ImportedRun run;
  std::vector<ImportedStep> steps;
};

Read readBack(const fs::path& path) {
  Read read;
  CollectingSink sink;
  read.status = tb::logs::detail::readTensorboard(path, read.run, sink);
  read.steps = sink.steps;
  return read;
}

std::string describe(const ImportedStep& s) {
  std::ostringstream out;
  out.precision(17);
  auto field = [&](const char* name, const std::optional<double>& v) {
    if (v) out << ' ' << name << '=' << *v;
  };
  out << "step=" << s.step;
  field("loss", s.loss);
  field("lr", s.learningRate);
  field("grad_norm", s.gradNorm);
  field("step_time", s.stepTimeSeconds);
  if (s.tokensPerSecond) {
    out << " tokens/s=" << s.tokensPerSecond->value
        << (s.tokensPerSecond->scope == RateScope::PerGpu ? "/gpu" : "/job");
  }
  field("tflops", s.tflopsPerGpu);
  field("mfu", s.mfu);
  field("memory", s.memoryBytes);
  if (s.globalBatch) out << " batch=" << *s.globalBatch;
  return out.str();
}

void expectSteps(const std::vector<ImportedStep>& actual,
                 const std::vector<ImportedStep>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i], expected[i]) << "record " << i << "\n  read:     " << describe(actual[i])
                                      << "\n  expected: " << describe(expected[i]);
  }
}

/// What a float32 field gives back (simple_value, float_val, tensor_content).
double f32(double value) { return static_cast<double>(static_cast<float>(value)); }

ImportedStep at(std::int64_t step) {
  ImportedStep s;
  s.step = step;
  return s;
}

TEST_F(TensorboardFiles, MegatronSimpleValuesReadBackEqual) {
  // Megatron-LM's training_log tags, written by PyTorch's
  // SummaryWriter as simple_value; `lm loss vs samples` counts samples on
  // its step axis and must not become a record.
  std::vector<Event> events;
  std::vector<ImportedStep> expected;
  for (int i = 1; i <= 3; ++i) {
    const std::int64_t step = 10 * i;
    const double loss = 10.64275 - 0.5 * i;
    const double seconds = 13.0353 - 0.1 * i;
    const double tflops = 812.5 + i;
    const double lr = 6.976744e-07 * i;
    const double norm = 47.021 / i;
    events.push_back({step,
                      {{"learning-rate", lr},
                       {"learning-rate vs samples", lr},
                       {"batch-size", 1024},
                       {"lm loss", loss},
                       {"world-size", 8},
                       {"grad-norm", norm},
                       {"loss-scale", 262144.0},
                       {"some-unknown-tag", 1.0}}});
    events.push_back({step * 1024, {{"lm loss vs samples", loss}}});
    events.push_back({step, {{"iteration-time", seconds}, {"throughput", tflops}}});
    ImportedStep s = at(step);
    s.loss = f32(loss);
    s.learningRate = f32(lr);
    s.gradNorm = f32(norm);
    s.stepTimeSeconds = f32(seconds);
    s.tflopsPerGpu = f32(tflops);
    s.globalBatch = 1024;
    expected.push_back(s);
  }
  const auto read = readBack(write("events.out.tfevents.1725371694.node1.4242.0", events));
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, expected);
  EXPECT_EQ(read.run.worldSize, 8);
  EXPECT_EQ(read.run.globalBatch, 1024);
  EXPECT_EQ(read.run.framework, "Megatron-LM");
  EXPECT_FALSE(read.run.partial);
}

TEST_F(TensorboardFiles, TorchtitanTensorValuedScalarsInEveryFormReadBackEqual) {
  // torchtitan's metric names written in TensorFlow 2's
  // rank-0 tensor form, the "scalars" metadata on each tag's first value
  // only; float_val, tensor_content, double_val, half and bfloat16 mixed.
  const std::vector<std::string> forms = {"float_val", "tensor_content", "double_val",
                                          "tensor_content_double"};
  std::vector<Event> events;
  std::vector<ImportedStep> expected;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t step = i == 0 ? 1 : 10 * i;
    const std::string& form = forms[static_cast<std::size_t>(i)];
    const bool f64 = form.find("double") != std::string::npos;
    auto as = [&](double v) { return f64 ? v : f32(v); };
    const double loss = 9.4939 - 0.25 * i;
    const double tps = 55314.0 + 17.5 * i;
    const double tflops = 412.06 + i;
    const double mfu = 41.66 + 0.01 * i;
    const double gib = 72.82 + 0.125 * i;
    const double seconds = 0.97 + 0.01 * i;
    events.push_back({step,
                      {{"loss_metrics/global_avg_loss", loss, form},
                       {"loss_metrics/global_max_loss", loss + 1.0, form},
                       {"grad_norm", 0.375 * (i + 1), "half_val"},
                       {"throughput(tps)", tps, form},
                       {"tflops", tflops, form},
                       {"mfu(%)", mfu, form},
                       {"time_metrics/end_to_end(s)", seconds, form},
                       {"memory/max_reserved(GiB)", gib, form},
                       {"memory/max_reserved(%)", 91.97, form},
                       {"validation_metrics/throughput(tps)", 1.0, form}}});
    ImportedStep s = at(step);
    s.loss = as(loss);
    s.gradNorm = 0.375 * (i + 1);  // exact in half precision
    s.tokensPerSecond = ScopedRate{as(tps), RateScope::PerGpu};
    s.tflopsPerGpu = as(tflops);
    s.mfu = as(mfu) / 100.0;
    s.stepTimeSeconds = as(seconds);
    s.memoryBytes = as(gib) * kGiB;
    expected.push_back(s);
  }
  // A tag prefix (torchtitan's MetricsProcessor `tag`) and bfloat16.
  events.push_back({50, {{"titan/loss_metrics/global_avg_loss", -2.25, "bfloat16"}}});
  ImportedStep last = at(50);
  last.loss = -2.25;
  expected.push_back(last);

  const auto read = readBack(write("tb/20260109-1902/events.out.tfevents.1767985378.host", events));
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, expected);
  EXPECT_EQ(read.run.memoryKind, "max_reserved");
  EXPECT_EQ(read.run.framework, "torchtitan");
}

TEST_F(TensorboardFiles, TrainerCallbackStepsAndFinalSummary) {
  // The Trainer's log_history keys as its TensorBoard callback
  // names them; the final summary becomes the run's summary, not a record.
  std::vector<Event> events = {
      {500,
       {{"train/loss", 1.1409},
        {"train/grad_norm", 2.757542133331299},
        {"train/learning_rate", 1.817850637522769e-05},
        {"train/epoch", 0.91}}},
      {500, {{"eval/loss", 1.3}, {"eval/runtime", 30.0}, {"train/epoch", 0.91}}},
      {1000, {{"train/loss", 0.9}, {"train/learning_rate", 1e-05}, {"train/epoch", 1.82}}},
      {1000,
       {{"train/train_runtime", 5980.6912},
        {"train/train_samples_per_second", 14.427},
        {"train/train_steps_per_second", 0.128},
        {"train/total_flos", 2.0772363998572052e+18},
        {"train/train_loss", 0.9732094605763754},
        {"train/epoch", 2.9965936739659367}}},
  };
  ImportedStep first = at(500);
  first.loss = f32(1.1409);
  first.gradNorm = f32(2.757542133331299);
  first.learningRate = f32(1.817850637522769e-05);
  ImportedStep second = at(1000);
  second.loss = f32(0.9);
  second.learningRate = f32(1e-05);

  const auto read =
      readBack(write("runs/Jan09_19-02-58_host/events.out.tfevents.1767985378.host.1.0", events));
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, {first, second});
  EXPECT_EQ(read.run.framework, "Hugging Face Trainer");
  ASSERT_TRUE(read.run.summary.has_value());
  EXPECT_EQ(read.run.summary->runtimeSeconds, f32(5980.6912));
  EXPECT_EQ(read.run.summary->samplesPerSecond, f32(14.427));
  EXPECT_EQ(read.run.summary->stepsPerSecond, f32(0.128));
  EXPECT_EQ(read.run.summary->totalFlos, f32(2.0772363998572052e+18));
  EXPECT_EQ(read.run.summary->loss, f32(0.9732094605763754));
}

TEST_F(TensorboardFiles, TrainerEvaluationAndPredictionRuntimesAreLeftOutOfTheSummary) {
  // rewrite_logs names eval_runtime "eval/runtime", a second eval set's
  // "eval/squad_runtime" and a callback's predict_runtime
  // "train/predict_runtime"; an evaluation after train() returned comes
  // after the summary and stays in.
  const std::vector<Event> events = {
      {10, {{"train/loss", 2.5}}},
      {10, {{"eval/loss", 2.4}, {"eval/runtime", 20.0}}},
      {10, {{"eval/squad_runtime", 7.5}}},
      {10, {{"train/predict_runtime", 12.25}}},
      {20, {{"train/loss", 2.0}}},
      {20, {{"eval/runtime", 22.0}}},
      {20,
       {{"train/train_runtime", 134.0},
        {"train/train_samples_per_second", 1.194},
        {"train/train_steps_per_second", 0.149}}},
      {20, {{"eval/runtime", 21.5}}},
  };
  const fs::path file = write("runs/Jan09/events.out.tfevents.1767985378.host.1.0", events);
  const auto read = readBack(file);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  ASSERT_TRUE(read.run.summary.has_value());
  const auto& excluded = read.run.summary->excluded;
  ASSERT_EQ(excluded.size(), 3U);
  EXPECT_EQ(excluded[0], (tb::runs::ExcludedTime{"eval", 42.0, 2}));
  EXPECT_EQ(excluded[1], (tb::runs::ExcludedTime{"eval_squad", 7.5, 1}));
  EXPECT_EQ(excluded[2], (tb::runs::ExcludedTime{"predict", 12.25, 1}));

  const auto imported = tb::logs::importLog(file);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  ASSERT_TRUE(imported->excludedSeconds);
  EXPECT_DOUBLE_EQ(*imported->excludedSeconds, 61.75);
  const double training = f32(134.0) - 61.75;
  EXPECT_NEAR(*imported->medians.samplesPerSecond, f32(1.194) * f32(134.0) / training, 1e-9);
}

TEST_F(TensorboardFiles, NemoTagsAndInterleavedStepsMergeInStepOrder) {
  // NeMo's metric names; the scalars of steps 1 and 2 arrive
  // interleaved and out of order, and come out as one record per step.
  std::vector<Event> events = {
      {2, {{"reduced_train_loss", 1.5}}},
      {1, {{"reduced_train_loss", 1.653}, {"global_batch_size", 8}}},
      {2, {{"lr", 7.8e-06}, {"train_step_timing in s", 2.25, "double_val"}}},
      {1, {{"lr", 3.922e-06}, {"train_step_timing in s", 2.505, "double_val"}}},
      {2, {{"global_batch_size", 16}, {"tokens_per_sec_per_gpu", 3210.5}}},
      {1, {{"tflops_per_sec_per_gpu", 401.25}, {"consumed_samples", 16}}},
  };
  ImportedStep one = at(1);
  one.loss = f32(1.653);
  one.globalBatch = 8;
  one.learningRate = f32(3.922e-06);
  one.stepTimeSeconds = 2.505;
  one.tflopsPerGpu = f32(401.25);
  ImportedStep two = at(2);
  two.loss = f32(1.5);
  two.learningRate = f32(7.8e-06);
  two.stepTimeSeconds = 2.25;
  two.globalBatch = 16;
  two.tokensPerSecond = ScopedRate{f32(3210.5), RateScope::PerGpu};

  const auto read = readBack(write("events.out.tfevents.1700000000.host.1.0", events));
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, {one, two});
  EXPECT_FALSE(read.run.globalBatch.has_value());  // it changed (batch ramp-up)
  EXPECT_EQ(read.run.framework, "NeMo");
}

TEST_F(TensorboardFiles, OtherPluginsAndOtherFieldsArePassedOver) {
  // A known tag whose first value declares another plugin is not a scalar,
  // on later values without metadata either; an Event field our .proto
  // leaves out (a graph def) is skipped.
  std::vector<Event> events = {
      {1, {{"grad_norm", 4.0, "float_val", "text"}, {"lm loss", 2.0}}, 300},
      {2, {{"grad_norm", 5.0, "float_val"}, {"lm loss", 1.0}}},
  };
  ImportedStep one = at(1);
  one.loss = 2.0;
  ImportedStep two = at(2);
  two.loss = 1.0;
  const auto read = readBack(write("events.out.tfevents.1700000000.host", events));
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, {one, two});
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

/// Byte offsets of the records, walked over the lengths.
std::vector<std::size_t> recordOffsets(const std::string& bytes) {
  std::vector<std::size_t> offsets;
  for (std::size_t at = 0; at + 12 <= bytes.size();) {
    offsets.push_back(at);
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {
      length = (length << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    }
    at += 16 + static_cast<std::size_t>(length);
  }
  return offsets;
}

std::vector<Event> lossEvents(std::int64_t from, std::int64_t to, double scale = 1.0) {
  std::vector<Event> events;
  for (std::int64_t step = from; step <= to; ++step) {
    events.push_back({step, {{"lm loss", scale * static_cast<double>(step)}}});
  }
  return events;
}

std::vector<ImportedStep> lossSteps(std::int64_t from, std::int64_t to, double scale = 1.0) {
  std::vector<ImportedStep> steps;
  for (std::int64_t step = from; step <= to; ++step) {
    ImportedStep s = at(step);
    s.loss = f32(scale * static_cast<double>(step));
    steps.push_back(s);
  }
  return steps;
}

TEST_F(TensorboardFiles, AFlippedByteIsCaughtByTheCrcWithItsOffset) {
  const fs::path file = write("events.out.tfevents.1700000000.host", lossEvents(1, 4));
  const std::string good = slurp(file);
  const auto offsets = recordOffsets(good);
  ASSERT_EQ(offsets.size(), 5U);

  std::string data = good;
  data[offsets[2] + 12 + 3] ^= 0x10;  // inside the third record's Event
  spit(file, data);
  auto read = readBack(file);
  ASSERT_FALSE(read.status.ok());
  EXPECT_EQ(read.status.error().kind, tb::ErrorKind::Parse);
  EXPECT_NE(
      read.status.error().message.find(file.string() + ": byte " + std::to_string(offsets[2]) +
                                       ": expected the record data's masked CRC-32C"),
      std::string::npos)
      << read.status.error().message;

  std::string length = good;
  length[offsets[3] + 2] ^= 0x01;  // the fourth record's length
  spit(file, length);
  read = readBack(file);
  ASSERT_FALSE(read.status.ok());
  EXPECT_NE(read.status.error().message.find(": byte " + std::to_string(offsets[3]) +
                                             ": expected the record length's masked CRC-32C"),
            std::string::npos)
      << read.status.error().message;
}

TEST_F(TensorboardFiles, ATruncatedFileKeepsItsCompleteRecordsAndIsPartial) {
  const fs::path file = write("events.out.tfevents.1700000000.host", lossEvents(1, 4));
  const std::string whole = slurp(file);
  const auto offsets = recordOffsets(whole);

  spit(file, whole.substr(0, whole.size() - 3));  // inside the last record's CRC
  auto read = readBack(file);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, lossSteps(1, 3));
  EXPECT_TRUE(read.run.partial);
  EXPECT_NE(read.run.partialReason.find("byte " + std::to_string(offsets.back())),
            std::string::npos)
      << read.run.partialReason;

  spit(file, whole + std::string("\x20\0\0", 3));  // a next record's first bytes
  read = readBack(file);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, lossSteps(1, 4));
  EXPECT_TRUE(read.run.partial);
  EXPECT_NE(read.run.partialReason.find("byte " + std::to_string(whole.size())), std::string::npos)
      << read.run.partialReason;

  spit(file, "");  // a writer that has not flushed yet
  read = readBack(file);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  EXPECT_TRUE(read.steps.empty());
  EXPECT_TRUE(read.run.partial);
}

TEST_F(TensorboardFiles, AFolderOfTwoFilesIsOneRunInTimeOrder) {
  // The later file (by the time in its name) sits in a subfolder and sorts
  // after the earlier one although its path sorts first.
  write("b/events.out.tfevents.1700000000.host.1.0", lossEvents(1, 3));
  write("a/events.out.tfevents.1700003600.host.2.0", lossEvents(4, 6));
  const auto read = readBack(dir_);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, lossSteps(1, 6));
  EXPECT_FALSE(read.run.partial);
}

TEST_F(TensorboardFiles, ARestartReplacesTheStepsItRepeats) {
  // Resumed from the step-2 checkpoint after a crash at step 4: the second
  // file's steps 3 and 4 stand, as TensorBoard shows them.
  write("events.out.tfevents.1700000000.host.1.0", lossEvents(1, 4));
  write("events.out.tfevents.1700000900.host.2.0", lossEvents(3, 6, 10.0));
  const auto read = readBack(dir_);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  auto expected = lossSteps(1, 2);
  for (const auto& s : lossSteps(3, 6, 10.0)) expected.push_back(s);
  expectSteps(read.steps, expected);
}

TEST_F(TensorboardFiles, RankFoldersContributeTheLowestRankOnly) {
  // torchtitan's save_for_all_ranks layout, <dump>/tb/<time>/rank_<r>/.
  write("20260109-1902/rank_1/events.out.tfevents.1700000000.host", lossEvents(1, 3, 100.0));
  write("20260109-1902/rank_0/events.out.tfevents.1700000000.host", lossEvents(1, 3));
  auto read = readBack(dir_);
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, lossSteps(1, 3));

  read = readBack(dir_ / "20260109-1902" / "rank_1");  // a rank named on purpose
  ASSERT_TRUE(read.status.ok()) << read.status.error().message;
  expectSteps(read.steps, lossSteps(1, 3, 100.0));
}

TEST_F(TensorboardFiles, AFolderWithoutEventFilesAndAForeignFirstRecordAreRefused) {
  std::ofstream(dir_ / "notes.txt") << "no events here\n";
  auto read = readBack(dir_);
  ASSERT_FALSE(read.status.ok());
  EXPECT_EQ(read.status.error().kind, tb::ErrorKind::NotFound);
  EXPECT_NE(read.status.error().message.find("expected events.out.tfevents.* files"),
            std::string::npos);

  const fs::path file = write("events.out.tfevents.1700000000.host", lossEvents(1, 2), "other:1");
  read = readBack(file);
  ASSERT_FALSE(read.status.ok());
  EXPECT_EQ(read.status.error().kind, tb::ErrorKind::Parse);
  EXPECT_NE(read.status.error().message.find(
                ": byte 0: expected a first Event with file_version 'brain.Event:…', found "
                "'other:1'"),
            std::string::npos)
      << read.status.error().message;
}

TEST_F(TensorboardFiles, TheHeadOfAnEventFileIsClaimedAndOnlyThat) {
  const fs::path file = write("events.out.tfevents.1700000000.host", lossEvents(1, 2));
  const std::string head = slurp(file);
  EXPECT_TRUE(tb::logs::detail::tensorboardClaimsHead(head));
  EXPECT_TRUE(tb::logs::detail::tensorboardClaimsHead(head.substr(0, 40)));  // the first record
  EXPECT_FALSE(tb::logs::detail::tensorboardClaimsHead(head.substr(0, 30)));
  std::string flipped = head;
  flipped[20] ^= 0x02;
  EXPECT_FALSE(tb::logs::detail::tensorboardClaimsHead(flipped));
  EXPECT_FALSE(tb::logs::detail::tensorboardClaimsHead(
      " [2024-09-03 15:54:54] iteration       10/  500000 | consumed samples: 10240 |\n"));
  EXPECT_FALSE(tb::logs::detail::tensorboardClaimsHead(""));
}

TEST_F(TensorboardFiles, ImportLogDetectsAndReadsAFileAndAFolder) {
  const fs::path file = write("run/events.out.tfevents.1700000000.host", lossEvents(1, 5));
  auto log = tb::logs::importLog(file);
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log->run.format, "tensorboard");
  EXPECT_EQ(log->run.framework, "Megatron-LM");  // from its tags
  EXPECT_EQ(log->run.records, 5);
  EXPECT_EQ(log->run.firstStep, 1);
  EXPECT_EQ(log->run.lastStep, 5);
  expectSteps(log->run.steps, lossSteps(1, 5));

  auto folder = tb::logs::importLog(dir_ / "run");
  ASSERT_TRUE(folder.ok()) << folder.error().message;
  EXPECT_EQ(folder->run.format, "tensorboard");
  expectSteps(folder->run.steps, lossSteps(1, 5));
}

// A run folder followed while its writer appends records, is cut off inside
// one, and gains a second event file on a restart.
TEST_F(TensorboardFiles, AFollowedRunFolderGainsRecordsAndFiles) {
  const fs::path first = write("run/events.out.tfevents.1700000000.host.1.0", lossEvents(1, 6));
  const std::string whole = slurp(first);
  // The writer mid-record: the first file's last record only half there.
  spit(first, whole.substr(0, whole.size() - 7));
  auto follower = tb::logs::LogFollower::open(dir_ / "run");
  ASSERT_TRUE(follower.ok());
  auto cut = follower->poll();
  ASSERT_TRUE(cut.ok());
  EXPECT_FALSE(cut->problem.has_value()) << *cut->problem;
  ASSERT_TRUE(follower->latest().has_value());
  expectSteps(follower->latest()->run.steps, lossSteps(1, 5));
  EXPECT_TRUE(follower->latest()->run.partial) << "a half record is waited for, not corrupt";

  spit(first, whole);
  auto completed = follower->poll();
  ASSERT_TRUE(completed.ok());
  EXPECT_TRUE(completed->grew);
  expectSteps(follower->latest()->run.steps, lossSteps(1, 6));

  write("run/events.out.tfevents.1700000900.host.2.0", lossEvents(5, 9, 10.0));
  auto restarted = follower->poll();
  ASSERT_TRUE(restarted.ok());
  EXPECT_TRUE(restarted->grew);
  ASSERT_TRUE(restarted->restarted.has_value()) << "a restart from step 5 is said";
  EXPECT_NE(restarted->restarted->find("starts at step 5, at or before step 6"), std::string::npos)
      << *restarted->restarted;
  auto oneShot = tb::logs::importLog(dir_ / "run");
  ASSERT_TRUE(oneShot.ok());
  EXPECT_EQ(follower->latest()->run, oneShot->run);
  EXPECT_EQ(follower->latest()->run.records, 9);

  // A file after the last step read is read from its start, nothing else.
  write("run/events.out.tfevents.1700001800.host.3.0", lossEvents(10, 12, 10.0));
  auto later = follower->poll();
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->grew);
  EXPECT_FALSE(later->restarted.has_value()) << *later->restarted;
  oneShot = tb::logs::importLog(dir_ / "run");
  ASSERT_TRUE(oneShot.ok());
  EXPECT_EQ(follower->latest()->run, oneShot->run);
  EXPECT_EQ(follower->latest()->run.records, 12);
}

// The newest file is read on from its last complete record: bytes already
// read are not read again. A byte flipped inside a record read before
// shows it, since a one-shot import of the same file refuses it by its CRC.
TEST_F(TensorboardFiles, AFollowedFileIsReadOnFromWhereItsReadingStopped) {
  const std::string whole = slurp(write("whole.tfevents", lossEvents(1, 8)));
  const auto offsets = recordOffsets(whole);
  ASSERT_EQ(offsets.size(), 9U);
  const fs::path file = dir_ / "run/events.out.tfevents.1700000000.host.1.0";
  fs::create_directories(file.parent_path());
  spit(file, whole.substr(0, offsets[5]));  // the version and steps 1 to 4

  auto follower = tb::logs::LogFollower::open(dir_ / "run");
  ASSERT_TRUE(follower.ok());
  ASSERT_TRUE(follower->poll().ok());
  ASSERT_TRUE(follower->latest().has_value());
  expectSteps(follower->latest()->run.steps, lossSteps(1, 4));

  {
    std::fstream inPlace(file, std::ios::binary | std::ios::in | std::ios::out);
    const auto flipAt = static_cast<std::streamoff>(offsets[2] + 12 + 3);
    inPlace.seekg(flipAt);
    const char byte = static_cast<char>(inPlace.get());
    inPlace.seekp(flipAt);
    inPlace.put(static_cast<char>(byte ^ 0x10));
    inPlace.seekp(0, std::ios::end);
    inPlace << whole.substr(offsets[5]);  // steps 5 to 8
  }
  auto grown = follower->poll();
  ASSERT_TRUE(grown.ok()) << grown.error().message;
  EXPECT_FALSE(grown->problem.has_value()) << *grown->problem;
  EXPECT_FALSE(grown->restarted.has_value()) << *grown->restarted;
  expectSteps(follower->latest()->run.steps, lossSteps(1, 8));
  EXPECT_FALSE(tb::logs::importLog(dir_ / "run").ok()) << "the flipped byte is in the file";
}

// Cut at random places, inside records too, the followed run is after each
// poll what a one-shot import of the same bytes gives; a truncated file is
// read again from its start, and said.
TEST_F(TensorboardFiles, AFollowedRunEqualsAOneShotImportAfterEveryCut) {
  const std::string whole = slurp(write("whole.tfevents", lossEvents(1, 40)));
  const fs::path file = dir_ / "run/events.out.tfevents.1700000000.host.1.0";
  fs::create_directories(file.parent_path());
  spit(file, "");
  auto follower = tb::logs::LogFollower::open(dir_ / "run");
  ASSERT_TRUE(follower.ok());
  std::mt19937 random(20261207);
  std::size_t written = 0;
  while (written < whole.size()) {
    written = std::min(whole.size(), written + 1 + random() % 120);
    spit(file, whole.substr(0, written));
    auto polled = follower->poll();
    ASSERT_TRUE(polled.ok()) << polled.error().message;
    EXPECT_FALSE(polled->restarted.has_value()) << *polled->restarted;
    const auto oneShot = tb::logs::importLog(dir_ / "run");
    if (!oneShot.ok()) {
      EXPECT_FALSE(follower->latest().has_value()) << "at " << written << " bytes";
      continue;
    }
    ASSERT_TRUE(follower->latest().has_value()) << "at " << written << " bytes";
    EXPECT_EQ(follower->latest()->run, oneShot->run) << "at " << written << " bytes";
  }
  EXPECT_EQ(follower->latest()->run.records, 40);

  spit(file, whole.substr(0, recordOffsets(whole)[11]));  // steps 1 to 10
  auto truncated = follower->poll();
  ASSERT_TRUE(truncated.ok());
  ASSERT_TRUE(truncated->restarted.has_value());
  EXPECT_NE(truncated->restarted->find("(truncated); reading the run from its start"),
            std::string::npos)
      << *truncated->restarted;
  expectSteps(follower->latest()->run.steps, lossSteps(1, 10));
}

}  // namespace
