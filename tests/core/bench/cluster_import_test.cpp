// Cluster results come from spreadsheets and scripts outside our control: good
// files must import exactly, and every kind of bad file must be refused with
// the line or JSON path and the field at fault, never partly imported.
#include <gtest/gtest.h>

#include "tb/bench/cluster_import.hpp"

namespace tb::bench {
namespace {

const std::string kDataDir = std::string(TB_TEST_DATA_DIR) + "/bench/";

std::string importError(const std::string& csv) {
  const auto result = parseClusterCsv(csv, "runs.csv");
  EXPECT_FALSE(result) << "expected an error for:\n" << csv;
  return result ? std::string() : result.error().message;
}

TEST(ClusterCsv, ImportsTheFourConfigurationsWithRepeats) {
  const auto configs = importClusterResults(kDataDir + "cluster-good.csv");
  ASSERT_TRUE(configs) << configs.error().message;
  ASSERT_EQ(configs->size(), 4u);
  const ConfigurationResult& base = configs->front();
  EXPECT_EQ(base.label, "Base");
  EXPECT_EQ(base.source, ResultSource::Cluster);
  EXPECT_EQ(base.gpus, 8);
  EXPECT_EQ(base.throughputUnit, "tokens/s/gpu");
  EXPECT_DOUBLE_EQ(base.throughput.median, 3075.0);
  EXPECT_DOUBLE_EQ(base.throughput.min, 3050.0);
  EXPECT_EQ(base.runs.size(), 2u);
  EXPECT_NEAR(static_cast<double>(base.peakBytes) / (1024.0 * 1024.0 * 1024.0), 71.2, 1e-6);
  EXPECT_EQ(configs->back().label, "AC2+CompilerOpt+CkptOpt");
  EXPECT_DOUBLE_EQ(configs->back().stepTimeS.median, 7.05);
}

TEST(ClusterJson, ImportsTflopsPerGpu) {
  const auto configs = importClusterResults(kDataDir + "cluster-good.json");
  ASSERT_TRUE(configs) << configs.error().message;
  ASSERT_EQ(configs->size(), 4u);
  EXPECT_EQ(configs->at(2).label, "AC2+CompilerOpt");
  EXPECT_EQ(configs->at(2).throughputUnit, "TFLOP/s/gpu");
  EXPECT_DOUBLE_EQ(configs->at(2).throughput.median, 441.2);
  EXPECT_EQ(configs->at(2).gpus, 64);
}

TEST(ClusterCsv, QuotedFieldsMayHoldCommasAndQuotes) {
  const auto configs = parseClusterCsv(
      "label,model,gpus,tokens_per_s_per_gpu,notes\r\n"
      "Base,llama3-8b,8,100,\"a, \"\"quoted\"\" note\"\r\n",
      "runs.csv");
  ASSERT_TRUE(configs) << configs.error().message;
  EXPECT_DOUBLE_EQ(configs->front().throughput.median, 100.0);
}

TEST(ClusterCsv, BadValuesNameTheLineAndField) {
  const std::string header = "label,model,gpus,tokens_per_s_per_gpu\n";
  EXPECT_NE(importError(header + "Base,m,8,100\nBase,m,eight,100\n")
                .find("runs.csv:3: field gpus: 'eight' is not a positive integer"),
            std::string::npos);
  EXPECT_NE(importError(header + "Fastest,m,8,100\n")
                .find("runs.csv:2: field label: 'Fastest' is not an ablation label"),
            std::string::npos);
  EXPECT_NE(importError(header + "Base,m,8,-4\n")
                .find("runs.csv:2: field tokens_per_s_per_gpu: '-4' is not a non-negative"),
            std::string::npos);
  EXPECT_NE(importError(header + "Base,m,8\n").find("runs.csv:2: 3 fields, the header has 4"),
            std::string::npos);
  EXPECT_NE(importError(header + "Base,m,8,\n")
                .find("runs.csv:2: field tokens_per_s_per_gpu: "
                      "missing"),
            std::string::npos);
}

TEST(ClusterCsv, BadHeadersAreRefused) {
  EXPECT_NE(importError("label,model,gpus,tokens_per_sec\nBase,m,8,1\n")
                .find("runs.csv:1: unknown column 'tokens_per_sec'"),
            std::string::npos);
  EXPECT_NE(
      importError("label,gpus,tokens_per_s_per_gpu\nBase,8,1\n").find("missing column 'model'"),
      std::string::npos);
  EXPECT_NE(importError("").find("empty file"), std::string::npos);
  EXPECT_NE(importError("label,model,gpus,tflops_per_gpu\n").find("no runs"), std::string::npos);
  EXPECT_NE(importError("label,model,gpus,notes\nBase,m,8,\"open\n").find("never closed"),
            std::string::npos);
}

TEST(ClusterCsv, OneConfigurationKeepsOneUnit) {
  const std::string message = importError(
      "label,model,gpus,tokens_per_s_per_gpu,tflops_per_gpu\n"
      "AC2,m,8,100,\n"
      "AC2,m,8,,400\n");
  EXPECT_NE(message.find("runs.csv:3: field tflops_per_gpu"), std::string::npos) << message;
  EXPECT_NE(message.find("one unit per configuration"), std::string::npos);
}

TEST(ClusterJson, SchemaViolationsNameTheJsonPath) {
  const auto result = parseClusterJson(
      R"({"schema": "trainbench-cluster-results", "version": 1,
          "runs": [{"label": "Base", "model": "m", "gpus": 8, "tflops_per_gpu": 1},
                   {"label": "AC2", "model": "m", "gpus": "8", "tflops_per_gpu": 1}]})",
      "runs.json");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("runs.json: $.runs[1].gpus"), std::string::npos)
      << result.error().message;
}

TEST(ClusterJson, RowRulesNameTheRun) {
  const auto result = parseClusterJson(
      R"({"schema": "trainbench-cluster-results", "version": 1,
          "runs": [{"label": "Turbo", "model": "m", "gpus": 8, "tflops_per_gpu": 1}]})",
      "runs.json");
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("runs.json: $.runs[0]: field label: 'Turbo'"),
            std::string::npos)
      << result.error().message;
}

TEST(ClusterImport, UnknownSuffixAndMissingFileAreRefused) {
  const auto xlsx = importClusterResults("/tmp/runs.xlsx");
  ASSERT_FALSE(xlsx);
  EXPECT_EQ(xlsx.error().kind, ErrorKind::BadInput);
  EXPECT_NE(xlsx.error().message.find(".xlsx"), std::string::npos);
  const auto missing = importClusterResults("/nonexistent/runs.csv");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/nonexistent/runs.csv"), std::string::npos);
}

TEST(ClusterJson, WrittenRunsReadBackWithTheirLossCurveAtTheLoggedSteps) {
  ClusterRun run;
  run.label = "AC2";
  run.model = "llama3-8b";
  run.gpus = 16;
  run.tokensPerSPerGpu = 4100.5;
  run.stepTimeS = 2.25;
  run.peakMemoryGib = 70.5;
  run.notes = "megatron log train.log";
  run.lossSteps = {10, 20, 30};
  run.lossCurve = {10.6, 9.8, 9.1};
  const auto configs = parseClusterJson(clusterJsonText({run}), "written.json");
  ASSERT_TRUE(configs) << configs.error().message;
  ASSERT_EQ(configs->size(), 1u);
  const ConfigurationResult& config = configs->front();
  EXPECT_EQ(config.label, "AC2");
  EXPECT_EQ(config.gpus, 16);
  EXPECT_DOUBLE_EQ(config.throughput.median, 4100.5);
  EXPECT_EQ(config.lossSteps, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(config.lossCurve, (std::vector<double>{10.6, 9.8, 9.1}));
  EXPECT_DOUBLE_EQ(config.lossFirst, 10.6);
  EXPECT_DOUBLE_EQ(config.lossLast, 9.1);
  EXPECT_EQ(config.runs.front().peakBytes, static_cast<std::uint64_t>(70.5 * 1024 * 1024 * 1024));

  const auto uneven = parseClusterJson(
      R"({"schema": "trainbench-cluster-results", "version": 1, "runs": [{"label": "Base",
          "model": "m", "gpus": 8, "tflops_per_gpu": 1, "loss_steps": [1, 2], "losses": [3]}]})",
      "uneven.json");
  ASSERT_FALSE(uneven);
  EXPECT_NE(uneven.error().message.find("uneven.json: $.runs[0]: loss_steps has 2 entries"),
            std::string::npos)
      << uneven.error().message;
}

}  // namespace
}  // namespace tb::bench
