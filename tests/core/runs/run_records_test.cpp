// summary.json and config.json are written and read only here: each round
// trips field for field, older files with fewer fields still read, and a bad
// status or an incomplete model is an error naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tb/runs/model_json.hpp"
#include "tb/runs/run_config_record.hpp"
#include "tb/runs/run_summary.hpp"

namespace tb::runs {
namespace {

model::ModelConfig someModel() {
  model::ModelConfig model;
  model.name = "small+custom";
  model.vocab = 1000;
  model.dim = 96;
  model.layers = 3;
  model.heads = 6;
  model.kvHeads = 2;
  model.ffn = 256;
  model.seq = 48;
  model.batch = 3;
  model.ropeTheta = 50000.0;
  model.qkvBias = true;
  return model;
}

TEST(RunRecords, ASummaryRoundTripsEveryField) {
  RunSummary summary;
  summary.state = RunState::Oom;
  summary.message = "out of memory: needed 4096 bytes";
  summary.model = "small";
  summary.steps = 12;
  summary.firstStep = 5;
  summary.params = 123456;
  summary.tokensPerSecond = 1234.5;
  summary.stepTimeSeconds = 0.0625;
  summary.peakBytes = 1ULL << 33;
  summary.lossFirst = 6.5;
  summary.lossLast = 3.25;
  summary.heldOutLoss = 3.5;
  summary.mfu = 0.125;
  summary.matmulGflops = 88.0;
  summary.flopsPerToken = 1e6;
  summary.threads = 2;
  summary.device = "cpu";
  summary.recompute = "layers:3";
  summary.runtime = "tuned,-matmul";
  summary.compile = true;
  summary.matmulPath = "onednn";
  summary.runDir = "/tmp/runs/x";
  auto back = summaryFromJson(nlohmann::json::parse(toJson(summary).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, summary);
}

TEST(RunRecords, ASummaryWithoutStepsHasNullLossesAndOlderFilesStillRead) {
  RunSummary none;
  none.state = RunState::Failed;
  const nlohmann::json json = toJson(none);
  EXPECT_TRUE(json["loss_first"].is_null());
  auto back = summaryFromJson(json);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->lossFirst.has_value());

  auto old = summaryFromJson(nlohmann::json::parse(R"({"status":"completed","steps":4})"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->steps, 4);
  EXPECT_EQ(old->firstStep, 1);

  auto bad = summaryFromJson(nlohmann::json::parse(R"({"status":"ok"})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'ok'"), std::string::npos);
}

TEST(RunRecords, AConfigRoundTripsEveryField) {
  RunConfigRecord config;
  config.model = someModel();
  config.steps = 30;
  config.seed = 99;
  config.threads = 2;
  config.blasThreads = 1;
  config.blasCore = "Haswell";
  config.memoryBudget = 1ULL << 32;
  config.recompute = "auto";
  config.dataKind = "text";
  config.dataFile = "/data/corpus.txt";
  config.device = "cuda";
  config.runtime = "stock,+gqa";
  config.compile = true;
  config.logEvery = 5;
  config.seqMin = 16;
  config.seqMax = 48;
  config.saveEvery = 10;
  config.resume = "/tmp/runs/old";
  config.torchVersion = "1.13.1";
  auto back = configFromJson(nlohmann::json::parse(toJson(config).dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, config);
  EXPECT_FALSE(trainedOneLength(*back));
}

TEST(RunRecords, AConfigWithoutASequenceRangeTrainedOneLength) {
  RunConfigRecord config;
  config.model = someModel();
  nlohmann::json json = toJson(config);
  json.erase("seq_min");
  json.erase("seq_max");
  auto back = configFromJson(json);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->seqMin, 48);
  EXPECT_TRUE(trainedOneLength(*back));
}

TEST(RunRecords, AModelMustBeCompleteAndTheErrorNamesTheField) {
  const model::ModelConfig model = someModel();
  auto back = modelFromJson(modelToJson(model));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, model);
  nlohmann::json partial = modelToJson(model);
  partial.erase("kv_heads");
  auto bad = modelFromJson(partial);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("kv_heads"), std::string::npos);
  // Found by the run directory's fuzzer: a whole number too large for the
  // shape's int64 (9.2e20) must be refused, not converted.
  for (const char* number : {"9.2e20", "64.0", "18446744073709551615", "\"64\""}) {
    nlohmann::json huge = modelToJson(model);
    huge["dim"] = nlohmann::json::parse(number);
    auto refused = modelFromJson(huge);
    ASSERT_FALSE(refused.ok()) << number;
    EXPECT_NE(refused.error().message.find("'dim'"), std::string::npos) << refused.error().message;
  }
  auto noModel = configFromJson(nlohmann::json::parse(R"({"steps":3})"));
  ASSERT_FALSE(noModel.ok());
  EXPECT_NE(noModel.error().message.find("'model'"), std::string::npos);
}

}  // namespace
}  // namespace tb::runs
