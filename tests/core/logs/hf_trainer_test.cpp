// The Hugging Face Trainer's files read into runs. The fixtures under
// tests/data/logs/hf-trainer/ follow docs/LOG_FORMATS.md, "Hugging Face
// Trainer": trainer_state.json written as
// TrainerState.save_to_json does (indent 2, sorted keys), train_results.json
// as Trainer.save_metrics does (indent 4, no trailing newline), built from the
// trainer_state.json of Jaong/Checkpoint-of-CPT @ 6a9b832a, byte for byte
// (CRLF, train/eval/predict entries, predict entries without "step") and
// aa-n/Qwen3_Lora (summary-only log_history, train_results.json verbatim);
// the oldest key set of trainer_callback.py @ 01081ce2; json.dumps's NaN and
// Infinity; an output_dir holding only checkpoints.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "format_parser.hpp"
#include "line_feed_support.hpp"
#include "python_json.hpp"
#include "tb/logs/log_import.hpp"

namespace tb::logs {
namespace {

using runs::RateScope;
using test::fixture;

struct Read {
  Status status;
  runs::ImportedRun run;
  std::vector<runs::ImportedStep> steps;
};

Read read(const std::filesystem::path& path) {
  Read out;
  test::VectorSink sink;
  out.status = detail::readHfTrainer(path, out.run, sink);
  out.steps = sink.steps;
  return out;
}

TEST(HfTrainer, StateWithTrainEvalPredictEntriesAndCrlf) {
  const Read r = read(fixture("hf-trainer/trainer_state_cpt_crlf.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // Eval entries and the predict entries (no "step") are not training records.
  ASSERT_EQ(r.steps.size(), 10U);  // every logging_steps = 500 up to 5000
  EXPECT_EQ(r.steps[0].step, 500);
  EXPECT_DOUBLE_EQ(*r.steps[0].loss, 1.1409);
  EXPECT_DOUBLE_EQ(*r.steps[0].learningRate, 1.817850637522769e-05);
  EXPECT_DOUBLE_EQ(*r.steps[0].gradNorm, 2.757542133331299);
  EXPECT_FALSE(r.steps[0].stepTimeSeconds);  // log_history has no timestamps
  EXPECT_EQ(r.steps[3].step, 2000);
  EXPECT_DOUBLE_EQ(*r.steps[3].loss, 0.4477);
  EXPECT_EQ(r.steps[9].step, 5000);
  EXPECT_DOUBLE_EQ(*r.steps[9].loss, 0.2645);

  ASSERT_TRUE(r.run.summary);
  const auto& summary = *r.run.summary;
  EXPECT_DOUBLE_EQ(*summary.runtimeSeconds, 64358.151);
  EXPECT_DOUBLE_EQ(*summary.samplesPerSecond, 0.511);
  EXPECT_DOUBLE_EQ(*summary.stepsPerSecond, 0.085);
  EXPECT_DOUBLE_EQ(*summary.totalFlos, 3.718809382109184e+16);
  EXPECT_DOUBLE_EQ(*summary.loss, 0.4479398911550831);
  EXPECT_FALSE(summary.tokensPerSecond);  // num_input_tokens_seen is 0: the flag was off
  EXPECT_EQ(r.run.plannedSteps, 5490);
  EXPECT_FALSE(r.run.partial);
  EXPECT_FALSE(r.run.globalBatch);  // train_batch_size 6 is per device
}

TEST(HfTrainer, SummaryOnlyStateDerivesJobTokensFromTokensSeen) {
  const Read r = read(fixture("hf-trainer/trainer_state_qwen_summary_only.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(r.steps.empty());
  ASSERT_TRUE(r.run.summary);
  const auto& summary = *r.run.summary;
  EXPECT_DOUBLE_EQ(*summary.runtimeSeconds, 5980.6912);
  EXPECT_DOUBLE_EQ(*summary.samplesPerSecond, 14.427);
  EXPECT_DOUBLE_EQ(*summary.stepsPerSecond, 0.128);
  EXPECT_DOUBLE_EQ(*summary.totalFlos, 2.0772363998572052e+18);
  EXPECT_DOUBLE_EQ(*summary.loss, 0.9732094605763754);
  ASSERT_TRUE(summary.tokensPerSecond);
  EXPECT_DOUBLE_EQ(summary.tokensPerSecond->value, 24689312.0 / 5980.6912);
  EXPECT_EQ(summary.tokensPerSecond->scope, RateScope::Job);  // gathered over all ranks
  EXPECT_EQ(r.run.plannedSteps, 768);
  EXPECT_FALSE(r.run.partial);
}

TEST(HfTrainer, FlatTrainResults) {
  const Read r = read(fixture("hf-trainer/train_results.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  EXPECT_TRUE(r.steps.empty());
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 5980.6912);
  EXPECT_DOUBLE_EQ(*r.run.summary->samplesPerSecond, 14.427);
  EXPECT_DOUBLE_EQ(r.run.summary->tokensPerSecond->value, 24689312.0 / 5980.6912);
  EXPECT_FALSE(r.run.plannedSteps);
  EXPECT_FALSE(r.run.partial);
}

TEST(HfTrainer, TrainTokensPerSecondIsPerDevice) {
  const Read r = read(fixture("hf-trainer/train_results_tokens_per_second.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_TRUE(r.run.summary && r.run.summary->tokensPerSecond);
  EXPECT_DOUBLE_EQ(r.run.summary->tokensPerSecond->value, 16384.0);
  EXPECT_EQ(r.run.summary->tokensPerSecond->scope, RateScope::PerGpu);
  EXPECT_DOUBLE_EQ(*r.run.summary->samplesPerSecond, 64.0);
}

TEST(HfTrainer, ResultsWithoutTrainRuntimeAreRefusedSayingSo) {
  // accelerate's no_trainer scripts write an unrelated all_results.json: no
  // training entry, no train_* key, nothing of a training run.
  const auto path = fixture("hf-trainer/all_results_no_trainer.json");
  const Read r = read(path);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  EXPECT_EQ(r.status.error().message.rfind(
                path.string() + ":1: no train_runtime: no training throughput in this file", 0),
            0U)
      << r.status.error().message;
  // Through the importer: the same refusal, not "found none".
  const auto imported = importLog(path);
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.error().message.find("no train_runtime: no training throughput in this file"),
            std::string::npos)
      << imported.error().message;
}

TEST(HfTrainer, StateWithOnlyEvalEntriesIsRefusedSayingSo) {
  const auto dir = std::filesystem::temp_directory_path() / "tb_hf_trainer_eval_only";
  std::filesystem::create_directories(dir);
  const auto path = dir / "trainer_state.json";
  std::ofstream(path)
      << "{\n  \"global_step\": 20,\n  \"log_history\": [\n    {\n      \"epoch\": 1.0,\n"
         "      \"eval_loss\": 2.5,\n      \"eval_runtime\": 3.0,\n      \"step\": 20\n    }\n  "
         "],\n"
         "  \"max_steps\": 20\n}\n";
  const Read r = read(path);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find(
                "trainer_state.json:1: no train_runtime: no training throughput in this "
                "file (and no training entry in log_history)"),
            std::string::npos)
      << r.status.error().message;
}

TEST(HfTrainer, ASummaryWithoutTrainRuntimeImportsWithoutThroughput) {
  // A results file with train_loss but no train_runtime: a run, no rates.
  const auto dir = std::filesystem::temp_directory_path() / "tb_hf_trainer_no_runtime";
  std::filesystem::create_directories(dir);
  const auto path = dir / "train_results.json";
  std::ofstream(path) << "{\n    \"epoch\": 3.0,\n    \"train_loss\": 0.97\n}";
  const auto imported = importLog(path);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.records, 0);
  ASSERT_TRUE(imported->run.summary);
  EXPECT_DOUBLE_EQ(*imported->run.summary->loss, 0.97);
  EXPECT_FALSE(imported->medians.samplesPerSecond);
  EXPECT_FALSE(imported->medians.stepTimeSeconds);
  EXPECT_EQ(imported->missing,
            (std::vector<std::string>{"learning_rate", "grad_norm", "step_time_s", "samples_per_s",
                                      "tokens_per_s", "tflops_per_gpu", "mfu", "memory",
                                      "world_size", "global_batch", "sequence_length"}));
}

TEST(HfTrainer, OldestKeySetWithoutGradNorm) {
  const Read r = read(fixture("hf-trainer/trainer_state_old_keys.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_EQ(r.steps[1].step, 100);
  EXPECT_DOUBLE_EQ(*r.steps[1].loss, 1.9877);
  EXPECT_DOUBLE_EQ(*r.steps[1].learningRate, 4.0e-05);
  EXPECT_FALSE(r.steps[1].gradNorm);
  ASSERT_TRUE(r.run.summary);
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 300.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->samplesPerSecond, 16.0);
  EXPECT_FALSE(r.run.summary->stepsPerSecond);
  EXPECT_EQ(r.run.plannedSteps, 150);
}

TEST(HfTrainer, PythonNanAndInfinityAreRead) {
  const Read r = read(fixture("hf-trainer/trainer_state_nan.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 3U);
  EXPECT_TRUE(std::isnan(*r.steps[1].loss));
  EXPECT_TRUE(std::isinf(*r.steps[1].gradNorm) && *r.steps[1].gradNorm > 0);
  EXPECT_TRUE(std::isinf(*r.steps[2].gradNorm) && *r.steps[2].gradNorm < 0);
  EXPECT_DOUBLE_EQ(*r.steps[2].loss, 9.5);
  // global_step 30 of max_steps 100 and no summary: a checkpoint's state.
  EXPECT_TRUE(r.run.partial);
  EXPECT_NE(r.run.partialReason.find("global_step 30 of max_steps 100"), std::string::npos)
      << r.run.partialReason;
  EXPECT_FALSE(r.run.summary);
}

TEST(HfTrainer, OutputDirWithCheckpointsOnlyMergesNewestStateAndResults) {
  const Read r = read(fixture("hf-trainer/output_dir"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  // checkpoint-500's history holds every entry up to step 500.
  ASSERT_EQ(r.steps.size(), 10U);
  EXPECT_EQ(r.steps.front().step, 50);
  EXPECT_EQ(r.steps.back().step, 500);
  EXPECT_DOUBLE_EQ(*r.steps.back().loss, 1.0);
  ASSERT_TRUE(r.run.summary);  // from all_results.json
  EXPECT_DOUBLE_EQ(*r.run.summary->runtimeSeconds, 250.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->samplesPerSecond, 16.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->stepsPerSecond, 2.0);
  EXPECT_DOUBLE_EQ(*r.run.summary->loss, 1.5);
  EXPECT_EQ(r.run.plannedSteps, 500);
  EXPECT_FALSE(r.run.partial);
}

TEST(HfTrainer, CheckpointStateIsPartialWithoutThroughput) {
  const Read r = read(fixture("hf-trainer/output_dir/checkpoint-250/trainer_state.json"));
  ASSERT_TRUE(r.status.ok()) << r.status.error().message;
  ASSERT_EQ(r.steps.size(), 5U);
  EXPECT_DOUBLE_EQ(*r.steps[2].gradNorm, 1.6666666666666665);
  EXPECT_TRUE(r.run.partial);
  EXPECT_FALSE(r.run.summary);
  EXPECT_EQ(r.run.plannedSteps, 500);
}

TEST(HfTrainer, TruncatedFileNamesTheByteWhereItEnds) {
  const auto path = fixture("hf-trainer/trainer_state_truncated.json");
  const Read r = read(path);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  const std::string& message = r.status.error().message;
  EXPECT_NE(message.find("trainer_state_truncated.json:"), std::string::npos) << message;
  EXPECT_NE(message.find("byte " + std::to_string(std::filesystem::file_size(path))),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("end of input"), std::string::npos) << message;
}

TEST(HfTrainer, CorruptTokenNamesLineAndByte) {
  const Read r = read(fixture("hf-trainer/trainer_state_corrupt.json"));
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  const std::string& message = r.status.error().message;
  // `"loss": 1.8 "x",` on line 16: the parser stops at the end of "x" (byte 284).
  EXPECT_NE(message.find("trainer_state_corrupt.json:16:"), std::string::npos) << message;
  EXPECT_NE(message.find("byte 284"), std::string::npos) << message;
}

TEST(HfTrainer, WrongTypeNamesTheEntryAndKey) {
  const Read r = read(fixture("hf-trainer/trainer_state_wrong_type.json"));
  ASSERT_FALSE(r.status.ok());
  const std::string& message = r.status.error().message;
  EXPECT_NE(message.find("log_history[2]"), std::string::npos) << message;
  EXPECT_NE(message.find("\"loss\""), std::string::npos) << message;
  EXPECT_NE(message.find("1.7?"), std::string::npos) << message;
}

TEST(HfTrainer, DeepNestingIsRefusedWithItsByteBeforeItIsBuilt) {
  // 500,000 '[' in a loss: refused at the 257th level, never built or printed.
  const auto dir = std::filesystem::temp_directory_path() / "tb_hf_trainer_deep";
  std::filesystem::create_directories(dir);
  const auto path = dir / "trainer_state.json";
  const std::string head = "{\n  \"log_history\": [\n    {\"loss\": ";
  std::ofstream(path) << head << std::string(500000, '[') << std::string(500000, ']')
                      << "}\n  ]\n}\n";
  const Read r = read(path);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::Parse);
  const std::string& message = r.status.error().message;
  // The file, line 3, and the byte of the bracket that went one too deep:
  // the root object, log_history, the entry, then 254 of the loss's arrays.
  const std::size_t byte = head.size() + 253;
  EXPECT_NE(message.find("trainer_state.json:3: JSON nested deeper than 256 levels at byte " +
                         std::to_string(byte)),
            std::string::npos)
      << message;
}

TEST(HfTrainer, FolderWithoutTrainerFilesIsNotFound) {
  const auto folder = std::filesystem::temp_directory_path() / "tb_hf_trainer_empty_folder";
  std::filesystem::create_directories(folder);
  const Read r = read(folder);
  std::filesystem::remove_all(folder);
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.error().kind, ErrorKind::NotFound);
}

TEST(HfTrainer, ClaimsTrainerFilesOnly) {
  EXPECT_TRUE(
      detail::hfTrainerClaimsHead(test::readFixture("hf-trainer/trainer_state_cpt_crlf.json")));
  EXPECT_TRUE(detail::hfTrainerClaimsHead(test::readFixture("hf-trainer/train_results.json")));
  EXPECT_TRUE(
      detail::hfTrainerClaimsHead(test::readFixture("hf-trainer/all_results_no_trainer.json")));
  EXPECT_TRUE(detail::hfTrainerClaimsHead("\xEF\xBB\xBF  {\"log_history\": []}"));
  EXPECT_FALSE(detail::hfTrainerClaimsHead(
      "{\"train_micro_batch_size_per_gpu\": 4, \"zero_optimization\": {}}"));
  EXPECT_FALSE(detail::hfTrainerClaimsHead("[{\"train_runtime\": 1}]"));
  EXPECT_FALSE(detail::hfTrainerClaimsHead(":::MLLOG {\"key\": \"run_start\"}"));
}

TEST(PythonJson, LiteralsAcrossBlockBoundariesAreRewrittenOutsideStrings) {
  // "Infinity" straddles the stream buffer's first 64 KiB block.
  std::string text =
      "[\"NaN Infinity\"," + std::string(65536 - 20, ' ') + "Infinity, -Infinity, NaN, -1.5]";
  std::istringstream in(text);
  detail::PythonJsonStreamBuf buffer(in);
  std::istream filtered(&buffer);
  const std::string rewritten{std::istreambuf_iterator<char>(filtered),
                              std::istreambuf_iterator<char>()};
  ASSERT_EQ(rewritten.size(), text.size());  // offsets into the file stay right
  const auto document = nlohmann::json::parse(rewritten);
  ASSERT_EQ(document.size(), 5U);
  EXPECT_EQ(document[0], "NaN Infinity");  // inside a string: left alone
  std::optional<double> value;
  ASSERT_TRUE(detail::jsonNumber(document[1], value));
  EXPECT_TRUE(std::isinf(*value) && *value > 0);
  ASSERT_TRUE(detail::jsonNumber(document[2], value));
  EXPECT_TRUE(std::isinf(*value) && *value < 0);
  ASSERT_TRUE(detail::jsonNumber(document[3], value));
  EXPECT_TRUE(std::isnan(*value));
  ASSERT_TRUE(detail::jsonNumber(document[4], value));
  EXPECT_DOUBLE_EQ(*value, -1.5);
}

TEST(PythonJson, ANumberOutOfRangeIsAnErrorNotAnException) {
  // nlohmann's DOM parser throws out_of_range (406) for 1e999.
  detail::JsonTextError problem;
  const auto document = detail::parsePythonJson(R"({"loss": 1e999})", problem);
  EXPECT_FALSE(document.has_value());
  EXPECT_NE(problem.reason.find("number overflow parsing '1e999'"), std::string::npos)
      << problem.reason;
  EXPECT_EQ(problem.byte, 13U);  // the last byte of the number
}

TEST(PythonJson, DeepNestingIsAnErrorWithItsByte) {
  detail::JsonTextError problem;
  const std::string text =
      R"({"data": )" + std::string(500000, '[') + std::string(500000, ']') + "}";
  EXPECT_FALSE(detail::parsePythonJson(text, problem).has_value());
  EXPECT_EQ(problem.reason, "JSON nested deeper than 256 levels");
  EXPECT_EQ(problem.byte, 9U + 255U);  // the object is level 1, the 256th '[' level 257
  // Brackets inside strings do not count.
  const std::string quoted = "{\"a\": \"" + std::string(1000, '[') + "\"}";
  EXPECT_TRUE(detail::parsePythonJson(quoted, problem).has_value());
}

TEST(PythonJson, CountsAreWholeNonNegativeAndBelowTwoToThe63) {
  using nlohmann::json;
  EXPECT_EQ(detail::jsonCount(json::parse("9223372036854775807")), INT64_MAX);
  // is_number_integer() is true for unsigned values too: 2^63 must not wrap.
  EXPECT_FALSE(detail::jsonCount(json::parse("9223372036854775808")).has_value());
  EXPECT_FALSE(detail::jsonCount(json::parse("18446744073709551615")).has_value());
  EXPECT_FALSE(detail::jsonCount(json::parse("-1")).has_value());
  EXPECT_FALSE(detail::jsonCount(json::parse("-2.0")).has_value());
  EXPECT_EQ(detail::jsonCount(json::parse("99.0")), 99);
  EXPECT_FALSE(detail::jsonCount(json::parse("99.5")).has_value());
  EXPECT_FALSE(detail::jsonCount(json::parse("1e300")).has_value());
  EXPECT_FALSE(detail::jsonCount(json::parse("\"7\"")).has_value());
}

TEST(PythonJson, FoundDescribesContainersAndCutsStringsWithoutRecursion) {
  using nlohmann::json;
  // 100,000 nested arrays, built without copies: dump() would recurse once per level.
  json deep = json::array();
  for (int i = 0; i < 100000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  EXPECT_EQ(detail::jsonFound(deep), "an array of 1 value");
  EXPECT_EQ(detail::jsonFound(json::parse(R"({"a": 1, "b": [2, 3]})")), "an object of 2 keys");
  EXPECT_EQ(detail::jsonFound(json::parse(R"([1, 2, 3])")), "an array of 3 values");
  EXPECT_EQ(detail::jsonFound(json("1.7?")), "'\"1.7?\"'");
  EXPECT_EQ(detail::jsonFound(json(12)), "'12'");
  const std::string cut = detail::jsonFound(json(std::string(10000000, 'x')));
  EXPECT_EQ(cut, "'\"" + std::string(60, 'x') + "\"…'");
}

// Through the importer: detection from content, and a summary-only run's
// medians taken from its summary.
TEST(HfTrainer, ImportedThroughTheImporter) {
  const auto detected = detectFormat(fixture("hf-trainer/trainer_state_cpt_crlf.json"));
  ASSERT_TRUE(detected.ok()) << detected.error().message;
  EXPECT_EQ(*detected, Format::HfTrainer);

  const auto imported = importLog(fixture("hf-trainer/trainer_state_qwen_summary_only.json"));
  ASSERT_TRUE(imported.ok()) << imported.error().message;
  EXPECT_EQ(imported->run.format, "hf-trainer");
  EXPECT_EQ(imported->run.records, 0);
  ASSERT_TRUE(imported->medians.samplesPerSecond);
  EXPECT_DOUBLE_EQ(*imported->medians.samplesPerSecond, 14.427);
}

}  // namespace
}  // namespace tb::logs
