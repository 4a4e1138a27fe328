// `trainbench import` end to end: four runs of one framework (Megatron-LM
// logs, written here in the format of docs/LOG_FORMATS.md) imported with the
// four ablation labels into a cluster-results file, which `report` then
// renders with the ablation chart; the --json document; and refusals (exit
// 2, the file named, nothing written).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

const std::string kLogs = std::string(TB_TEST_DATA_DIR) + "/logs/";
const std::string kResults = std::string(TB_TEST_DATA_DIR) + "/bench/results-fixture.json";

class CliImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tb-cli-import-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  [[nodiscard]] std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// A Megatron-LM run of 8 GPUs, sequence 4096, global batch 64: its
  /// argument dump, then iterations 10..50 at `ms` per iteration and
  /// `tflops` TFLOP/s per GPU.
  std::string megatronLog(const std::string& name, double ms, double tflops) const {
    std::ofstream out(path(name));
    out << "------------------------ arguments ------------------------\n"
           "  global_batch_size ............................... 64\n"
           "  seq_length ...................................... 4096\n"
           "  train_iters ..................................... 50\n"
           "  world_size ...................................... 8\n"
           "-------------------- end of arguments ---------------------\n";
    for (int iteration = 10; iteration <= 50; iteration += 10) {
      out << " [2024-09-03 15:54:54] iteration " << iteration
          << "/      50 | consumed samples: " << iteration * 64
          << " | elapsed time per iteration (ms): " << ms
          << " | throughput per GPU (TFLOP/s/GPU): " << tflops
          << " | learning rate: 3.000000E-04 | global batch size:    64 | lm loss: "
          << 10.0 - iteration * 0.01 << " | loss scale: 1.0 | grad norm: 1.250 | "
          << "number of skipped iterations:   0 | number of nan iterations:   0 |\n";
    }
    return path(name);
  }

  static std::string read(const std::string& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path dir_;
};

TEST_F(CliImport, FourMegatronRunsBecomeTheAblationOfAnHtmlReport) {
  const std::vector<std::string> logs{
      megatronLog("base.log", 2000.0, 380.0), megatronLog("ac2.log", 1900.0, 400.0),
      megatronLog("compiler.log", 1700.0, 447.0), megatronLog("ckpt.log", 1600.0, 475.0)};
  std::vector<std::string> args{"import"};
  args.insert(args.end(), logs.begin(), logs.end());
  args.insert(args.end(), {"--label", "Base", "--label", "AC2", "--label", "AC2+CompilerOpt",
                           "--label", "AC2+CompilerOpt+CkptOpt", "--model", "llama3-8b", "--out",
                           path("cluster.json"), "--json"});
  const CliRun imported = runCli(args);
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  const auto doc = parseSingleDocument(imported);
  ASSERT_EQ(doc["runs"].size(), 4U);
  const auto& base = doc["runs"][0];
  EXPECT_EQ(base["format"], "megatron");
  EXPECT_EQ(base["label"], "Base");
  EXPECT_EQ(base["records"], 5);
  EXPECT_EQ(base["first_step"], 10);
  EXPECT_EQ(base["last_step"], 50);
  EXPECT_EQ(base["partial"], false);
  EXPECT_DOUBLE_EQ(base["loss_last"].get<double>(), 9.5);
  EXPECT_DOUBLE_EQ(base["medians"]["step_time_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(base["medians"]["samples_per_s"].get<double>(), 32.0);  // 64 / 2 s
  // 64 samples x 4096 tokens / 2 s / 8 GPUs.
  EXPECT_DOUBLE_EQ(base["medians"]["tokens_per_s_per_gpu"].get<double>(), 16384.0);
  EXPECT_DOUBLE_EQ(base["medians"]["tflops_per_gpu"].get<double>(), 380.0);
  EXPECT_TRUE(base["medians"]["mfu"].is_null());
  EXPECT_EQ(base["found"],
            nlohmann::json({"loss", "learning_rate", "grad_norm", "step_time_s", "samples_per_s",
                            "tflops_per_gpu", "world_size", "global_batch", "sequence_length"}));
  EXPECT_EQ(base["missing"], nlohmann::json({"tokens_per_s", "mfu", "memory"}));
  EXPECT_EQ(doc["out"], path("cluster.json"));

  const CliRun report = runCli({"report", "--in", kResults, "--import", path("cluster.json"),
                                "--out", path("report.html"), "--json"});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  const auto written = parseSingleDocument(report);
  EXPECT_EQ(written["configurations"], 8);  // the engine's four and the imported four
  const std::string html = read(path("report.html"));
  EXPECT_NE(html.find("llama3-8b"), std::string::npos);
  EXPECT_NE(html.find("AC2+CompilerOpt+CkptOpt"), std::string::npos);

  // `report --import LABEL=LOG` reads the logs themselves, the same way.
  const CliRun direct = runCli(
      {"report", "--in", kResults, "--import", "Base=" + logs[0], "--import", "ac2=" + logs[1],
       "--import", "AC2+CompilerOpt=" + logs[2], "--import", "AC2+CompilerOpt+CkptOpt=" + logs[3],
       "--format", "csv", "--out", path("direct.csv"), "--json"});
  ASSERT_EQ(direct.exitCode, 0) << direct.err;
  EXPECT_EQ(parseSingleDocument(direct)["configurations"], 8);
  const std::string csv = read(path("direct.csv"));
  // The cluster rows: 16,384 tokens/s per GPU for Base (2 s steps), and
  // the last step's 1600 ms over Base's 2000 ms, a 1.25x speedup.
  EXPECT_NE(csv.find("Base,cluster,unknown,8,tokens/s/gpu,16384"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1.25"), std::string::npos) << csv;
  // A log without its label is not a cluster file: refused, naming it.
  const CliRun unlabelled =
      runCli({"report", "--in", kResults, "--import", logs[0], "--out", path("never.html")});
  EXPECT_EQ(unlabelled.exitCode, 2);
  EXPECT_NE(unlabelled.err.find("--import Base=" + logs[0]), std::string::npos) << unlabelled.err;
  EXPECT_FALSE(std::filesystem::exists(path("never.html")));
}

// Jaong/Checkpoint-of-CPT's trainer_state.json: 95 % of its train_runtime
// was evaluation and prediction, which the throughput leaves out, and says
// so in --json, in the cluster file and in the report.
TEST_F(CliImport, ATrainerRunsEvaluationIsLeftOutAndSaidEverywhere) {
  const std::string state = kLogs + "hf-trainer/trainer_state_cpt_crlf.json";
  const CliRun imported = runCli({"import", state, "--label", "AC2", "--gpus", "1", "--seq", "512",
                                  "--out", path("cluster.json"), "--json"});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  const auto run = parseSingleDocument(imported)["runs"][0];
  EXPECT_NEAR(run["excluded_seconds"].get<double>(), 61258.829, 1e-6);
  EXPECT_EQ(run["excluded_kinds"], nlohmann::json({"eval", "predict"}));
  const double training = 64358.151 - 61258.829;
  EXPECT_NEAR(run["medians"]["samples_per_s"].get<double>(), 0.511 * 64358.151 / training, 1e-9);

  const std::string cluster = read(path("cluster.json"));
  EXPECT_NE(cluster.find("\"excluded_seconds\": 61258.82"), std::string::npos) << cluster;
  EXPECT_NE(cluster.find("\"excluded_kinds\""), std::string::npos) << cluster;
  const CliRun report = runCli(
      {"report", "--in", kResults, "--import", path("cluster.json"), "--out", path("report.md")});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  EXPECT_NE(read(path("report.md"))
                .find("AC2 (cluster): throughput over training time only: the 61258.8 s of eval "
                      "and predict that the log timed inside the run are left out."),
            std::string::npos)
      << read(path("report.md"));

  const CliRun text = runCli({"import", state, "--label", "AC2"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("holds 30625.5 s of eval (10 entries), 30633.3 s of predict (10 "
                          "entries), left out: throughput and step time are over the 3099.3 s "
                          "of training"),
            std::string::npos)
      << text.out;
}

// A DeepSpeed run whose loss only the script prints: the built-in forms
// read DeepSpeedExamples' loguru line, --loss-pattern any other.
TEST_F(CliImport, TheScriptsLossLinesBecomeTheLossCurve) {
  const std::string log = kLogs + "deepspeed/v0.10_bert_fp16.log";
  const CliRun builtin = runCli({"import", log, "--label", "AC2", "--json"});
  ASSERT_EQ(builtin.exitCode, 0) << builtin.err;
  EXPECT_DOUBLE_EQ(parseSingleDocument(builtin)["runs"][0]["loss_last"].get<double>(), 10.2361);

  std::ofstream(path("custom.log"))
      << "[2023-08-02 00:41:17,935] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, "
         "skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]\n"
         "train | it 10 | xent 3.5 | 1.2 s\n";
  const CliRun pattern = runCli({"import", path("custom.log"), "--label", "AC2", "--loss-pattern",
                                 "xent ([0-9.]+)", "--json"});
  ASSERT_EQ(pattern.exitCode, 0) << pattern.err;
  EXPECT_DOUBLE_EQ(parseSingleDocument(pattern)["runs"][0]["loss_last"].get<double>(), 3.5);

  const CliRun none = runCli({"import", path("custom.log"), "--label", "AC2"});
  ASSERT_EQ(none.exitCode, 0) << none.err;
  EXPECT_NE(none.out.find("no loss in the file: --loss-pattern REGEX"), std::string::npos)
      << none.out;
}

TEST_F(CliImport, TextOutputNamesWhatTheFileDidNotHaveAndWhatWouldCompleteIt) {
  const CliRun run =
      runCli({"import", kLogs + "megatron/core_r0.8_log_throughput.log", "--label", "base"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("megatron (partial)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("not in the file: tokens_per_s, mfu, world_size, sequence_length"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("tokens_per_s_per_gpu needs --gpus and --seq"), std::string::npos);
  // Given what was missing, the value is derived: 1024 x 2048 / 12.1378 s / 16.
  const CliRun completed =
      runCli({"import", kLogs + "megatron/core_r0.8_log_throughput.log", "--label", "Base",
              "--gpus", "16", "--seq", "2048", "--skip-first", "0", "--json"});
  ASSERT_EQ(completed.exitCode, 0) << completed.err;
  const auto doc = parseSingleDocument(completed);
  const double median = doc["runs"][0]["medians"]["tokens_per_s_per_gpu"].get<double>();
  // Median of the two records' 1024 x 2048 / t / 16 for t = 13.0353 s and 12.1378 s.
  const double expected = (1024.0 * 2048 / 13.0353 / 16 + 1024.0 * 2048 / 12.1378 / 16) / 2;
  EXPECT_NEAR(median, expected, expected * 1e-9);
}

TEST_F(CliImport, MlperfThroughputIsReportedInTheBenchmarksOwnUnitOnly) {
  const std::string log = kLogs + "mlperf/gpt3_result.txt";
  const CliRun json = runCli({"import", log, "--label", "Base", "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto doc = parseSingleDocument(json);
  const auto& run = doc["runs"][0];
  EXPECT_EQ(run["format"], "mlperf");
  EXPECT_DOUBLE_EQ(run["medians"]["benchmark_throughput"].get<double>(), 5154997.267404211);
  const auto& found = run["found"];
  EXPECT_NE(std::find(found.begin(), found.end(), "benchmark_throughput"), found.end())
      << found.dump();
  // Never converted into the comparable rates: a run that logs throughput
  // and nothing else (Llama 2 70B LoRA) has no samples/s or tokens/s.
  const CliRun lora = runCli({"import", kLogs + "mlperf/llama2_70b_lora_srun.txt", "--label",
                              "Base", "--gpus", "8", "--seq", "8192", "--json"});
  ASSERT_EQ(lora.exitCode, 0) << lora.err;
  const auto loraRun = parseSingleDocument(lora)["runs"][0];
  EXPECT_DOUBLE_EQ(loraRun["medians"]["benchmark_throughput"].get<double>(),
                   (1.925 + 1.9251) / 2.0);
  EXPECT_TRUE(loraRun["medians"]["samples_per_s"].is_null());
  EXPECT_TRUE(loraRun["medians"]["tokens_per_s_per_gpu"].is_null());

  const CliRun text = runCli({"import", log, "--label", "Base"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("benchmark throughput (median, in the benchmark's own unit): 5154997.27"),
            std::string::npos)
      << text.out;
  // Other formats carry no such figure.
  const CliRun megatron = runCli(
      {"import", kLogs + "megatron/core_r0.8_log_throughput.log", "--label", "Base", "--json"});
  ASSERT_EQ(megatron.exitCode, 0) << megatron.err;
  EXPECT_TRUE(
      parseSingleDocument(megatron)["runs"][0]["medians"]["benchmark_throughput"].is_null());
}

TEST_F(CliImport, RefusalsNameTheValueAndWriteNothing) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string out = path("never.json");
  const std::string megatron = kLogs + "megatron/core_r0.8_log_throughput.log";
  std::ofstream(path("unknown.txt")) << "hello\nthis is no training log\n";
  std::ofstream(path("binary.bin"), std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\1",
      7);
  const std::vector<Case> cases = {
      {{path("unknown.txt"), "--label", "Base"}, "unknown.txt"},
      {{path("binary.bin"), "--label", "Base"}, "binary"},
      {{kLogs + "no-such.log", "--label", "Base"}, "no-such.log"},
      {{megatron, "--label", "Fast"}, "--label Fast"},
      {{megatron, megatron, "--label", "Base", "--label", "AC2", "--label", "AC2"},
       "3 times for 2"},
      {{megatron, "--label", "Base", "--format", "wandb"}, "--format wandb"},
      {{megatron, "--label", "Base", "--gpus", "0"}, "--gpus 0"},
      {{megatron, "--label", "Base", "--out", out}, "give --gpus N"},
      {{kLogs + "torchtitan/torchtitan_2025-06_rank0_tflops.log", "--label", "Base", "--out", out},
       "give --gpus N"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"import"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliRun run = runCli(args);
    EXPECT_EQ(run.exitCode, 2) << c.message << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.message;
  }
}

}  // namespace
}  // namespace tb::cli::test
