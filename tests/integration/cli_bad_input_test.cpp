// One table of bad command lines across every command: unknown options, bad
// numbers, out-of-range values, missing files, directories where files are
// expected (and files where directories are), empty files, files in the
// wrong format, conflicting options, and checks that ran and said no. Each
// row must exit with its code (2: usage or bad input; 3: a check said no),
// name the bad value on stderr in one line (CLI11's "Run with --help" hint
// aside), print no stack trace or abort, and leave no output file behind
// (an existing one keeps its content).
//
// Placeholders in a row's arguments, made fresh for every row:
//   {empty}   an empty file         {dir}   an empty directory
//   {garbage} a file of binary junk {file}  a file holding "keep me"
//   {out}     a path that must still not exist afterwards
//   {data}    tests/data
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;

struct BadLine {
  const char* name;               ///< the ctest name: what is wrong
  std::vector<std::string> args;  ///< the command line, with placeholders
  int exitCode;                   ///< 2, or 3 where a check ran and said no
  std::string needle;             ///< on stderr (on stdout for 3), placeholders allowed
};

void PrintTo(const BadLine& line, std::ostream* out) { *out << line.name; }

const std::string kResults = "{data}/bench/results-fixture.json";
const std::string kLog = "{data}/logs/megatron/core_v0.16_first_iteration.log";

// clang-format off
const std::vector<BadLine> kBadLines = {
  // The program and its global options.
  {"UnknownCommand", {"frobnicate"}, 2, "frobnicate"},
  {"UnknownGlobalOption", {"--colour", "images"}, 2, "--colour"},
  {"CatalogMissing", {"--catalog", "{out}", "images"}, 2, "{out}"},
  {"CatalogEmpty", {"--catalog", "{empty}", "images"}, 2, "{empty}"},
  {"CatalogIsADirectory", {"--catalog", "{dir}", "images"}, 2, "{dir}"},
  {"CatalogGarbage", {"--catalog", "{garbage}", "images"}, 2, "{garbage}"},
  {"CatalogOfTheWrongShape", {"--catalog", kResults, "images"}, 2, kResults},
  // images
  {"ImagesUnknownOption", {"images", "--yaml"}, 2, "--yaml"},
  {"ImagesStrayArgument", {"images", "25.10"}, 2, "25.10"},
  // compat
  {"CompatUnknownTag", {"compat", "--image", "99.99"}, 2, "99.99"},
  {"CompatImageAndAll", {"compat", "--image", "25.10", "--all"}, 2, "--all"},
  {"CompatNoRelease", {"compat", "--driver", "570.124.06"}, 2, "--image"},
  {"CompatDriverNotAVersion", {"compat", "--image", "25.10", "--driver", "abc"}, 2, "abc"},
  {"CompatGpuCountZero", {"compat", "--image", "25.10", "--gpu-count", "0"}, 2, "0"},
  {"CompatGpuCountNegative", {"compat", "--image", "25.10", "--gpu-count", "-1"}, 2, "-1"},
  {"CompatGpuCountWord", {"compat", "--image", "25.10", "--gpu-count", "many"}, 2, "many"},
  {"CompatUnknownArch", {"compat", "--image", "25.10", "--arch", "sparc"}, 2, "sparc"},
  {"CompatRegistryTimeoutZero", {"compat", "--image", "25.10", "--from-registry", "--registry-timeout", "0"}, 2, "0"},
  {"CompatRegistryTimeoutWord", {"compat", "--image", "25.10", "--registry-timeout", "soon"}, 2, "soon"},
  {"CompatFromRegistryWithoutImage", {"compat", "--all", "--from-registry"}, 2, "--image"},
  {"CompatDriverTooOld", {"compat", "--image", "25.10", "--driver", "470.57.02", "--gpu", "NVIDIA GeForce RTX 4090"}, 3, "470.57.02"},
  // run
  {"RunStepsWord", {"run", "--steps", "abc"}, 2, "abc"},
  {"RunStepsZero", {"run", "--steps", "0"}, 2, "--steps 0: "},
  {"RunStepsNegative", {"run", "--steps", "-5"}, 2, "--steps -5: "},
  {"RunUnknownModel", {"run", "--model", "gpt-5"}, 2, "gpt-5"},
  {"RunDataMissing", {"run", "--data", "{out}"}, 2, "{out}"},
  {"RunDataEmpty", {"run", "--data", "{empty}"}, 2, "{empty}"},
  {"RunDataIsADirectory", {"run", "--data", "{dir}"}, 2, "{dir}"},
  {"RunThreadsTooMany", {"run", "--threads", "99999"}, 2, "--threads 99999: "},
  {"RunUnknownDevice", {"run", "--device", "tpu"}, 2, "tpu"},
  {"RunUnknownRecompute", {"run", "--recompute", "sometimes"}, 2, "sometimes"},
  {"RunRecomputeLayersNegative", {"run", "--recompute", "layers:-1"}, 2, "-1"},
  {"RunUnknownRuntime", {"run", "--runtime", "warp"}, 2, "warp"},
  {"RunUnknownRuntimeSwitch", {"run", "--runtime", "tuned,+teleport"}, 2, "teleport"},
  {"RunCompileMaybe", {"run", "--compile", "maybe"}, 2, "maybe"},
  {"RunMemoryBudgetWord", {"run", "--memory-budget", "lots"}, 2, "lots"},
  {"RunResumeMissing", {"run", "--resume", "{out}"}, 2, "{out}"},
  {"RunResumeNotARun", {"run", "--resume", "{dir}"}, 2, "{dir}"},
  {"RunNprocZero", {"run", "--nproc-per-node", "0"}, 2, "0"},
  {"RunMasterPortTooLarge", {"run", "--nproc-per-node", "2", "--master-port", "70000"}, 2, "70000"},
  {"RunNodeRankOutsideNodes", {"run", "--nproc-per-node", "1", "--nnodes", "2", "--node-rank", "2", "--master-addr", "127.0.0.1", "--master-port", "29500"}, 2, "2"},
  {"RunSeqMinAboveMax", {"run", "--seq-min", "64", "--seq-max", "16"}, 2, "64"},
  {"RunZeroTwo", {"run", "--zero", "2"}, 2, "2"},
  {"RunBucketNegative", {"run", "--bucket-mb", "-1"}, 2, "--bucket-mb -1: "},
  {"RunDistTimeoutZero", {"run", "--dist-timeout", "0"}, 2, "--dist-timeout 0: "},
  {"RunLogEveryZero", {"run", "--log-every", "0"}, 2, "--log-every 0: "},
  {"RunDimZero", {"run", "--dim", "0"}, 2, "--dim 0: "},
  {"RunVocabZero", {"run", "--vocab", "0"}, 2, "--vocab 0: "},
  {"RunBatchZero", {"run", "--batch", "0"}, 2, "--batch 0: "},
  {"RunKvHeadsDoNotDivideHeads", {"run", "--model", "tiny", "--kv-heads", "3"}, 2, "--kv-heads 3"},
  {"RunSaveEveryNegative", {"run", "--save-every", "-1"}, 2, "--save-every -1: "},
  {"RunHeadsDoNotDivideDim", {"run", "--model", "tiny", "--heads", "7"}, 2, "--heads 7"},
  {"RunRunDirIsAFile", {"run", "--steps", "1", "--run-dir", "{file}"}, 2, "{file}"},
  {"RunEventsIsADirectory", {"run", "--steps", "1", "--events", "{dir}"}, 2, "{dir}"},
  // registry
  {"RegistryNoSubcommand", {"registry"}, 2, "tags"},
  {"RegistryTagsNoReference", {"registry", "tags"}, 2, "IMAGE"},
  {"RegistryTagsBadReference", {"registry", "tags", "Not A Reference!"}, 2, "Not A Reference!"},
  {"RegistryInspectNoTag", {"registry", "inspect", "127.0.0.1:5000/team/image"}, 2, "127.0.0.1:5000/team/image"},
  {"RegistryTimeoutWord", {"registry", "tags", "127.0.0.1:5000/team/image", "--timeout", "later"}, 2, "later"},
  // memory
  {"MemoryUnknownModel", {"memory", "--model", "gpt-5"}, 2, "gpt-5"},
  {"MemorySeqNegative", {"memory", "--seq", "-3"}, 2, "--seq -3: "},
  {"MemoryVocabZero", {"memory", "--vocab", "0"}, 2, "--vocab 0: "},
  {"MemoryDpZero", {"memory", "--dp", "0"}, 2, "0"},
  {"MemoryZeroFour", {"memory", "--zero", "4"}, 2, "4"},
  {"MemoryUnknownDtype", {"memory", "--dtype", "fp8"}, 2, "fp8"},
  {"MemoryUnknownAttention", {"memory", "--attention", "sparse"}, 2, "sparse"},
  {"MemoryUnknownProfile", {"memory", "--profile", "pytorch"}, 2, "pytorch"},
  {"MemoryGpuMemoryNegative", {"memory", "--gpu-memory", "-1"}, 2, "-1"},
  {"MemoryUnknownRecompute", {"memory", "--recompute", "bogus"}, 2, "bogus"},
  {"MemoryCalibrateMissing", {"memory", "--calibrate", "{out}"}, 2, "{out}"},
  {"MemoryCalibrateEmpty", {"memory", "--calibrate", "{empty}"}, 2, "{empty}"},
  {"MemoryCalibrateGarbage", {"memory", "--calibrate", "{garbage}"}, 2, "{garbage}"},
  {"MemoryTpDoesNotDivideHeads", {"memory", "--model", "llama3-8b", "--tp", "3", "--profile", "megatron"}, 2, "3"},
  // plan
  {"PlanMarginAboveOne", {"plan", "--gpu-memory", "80", "--margin", "1.5"}, 2, "1.5"},
  {"PlanMarginNegative", {"plan", "--gpu-memory", "80", "--margin", "-0.1"}, 2, "-0.1"},
  {"PlanGpuMemoryZero", {"plan", "--gpu-memory", "0"}, 2, "0"},
  {"PlanLayersZero", {"plan", "--gpu-memory", "80", "--layers", "0"}, 2, "--layers 0: "},
  {"PlanNoBudget", {"plan"}, 2, "--gpu-memory"},
  {"PlanUnknownModel", {"plan", "--gpu-memory", "80", "--model", "gpt-5"}, 2, "gpt-5"},
  {"PlanDoesNotFit", {"plan", "--model", "llama3-70b", "--profile", "fsdp", "--seq", "8192", "--gpu-memory", "8"}, 3, "8"},
  // config
  {"ConfigNoImage", {"config"}, 2, "--image"},
  {"ConfigUnknownTag", {"config", "--image", "99.99"}, 2, "99.99"},
  {"ConfigGpusThree", {"config", "--image", "25.10", "--gpus", "3"}, 2, "3"},
  {"ConfigNodesZero", {"config", "--image", "25.10", "--nodes", "0"}, 2, "0"},
  {"ConfigZeroFive", {"config", "--image", "25.10", "--zero", "5"}, 2, "5"},
  {"ConfigUnknownRegistry", {"config", "--image", "25.10", "--registry", "private"}, 2, "private"},
  {"ConfigUnknownFormat", {"config", "--image", "25.10", "--format", "yaml"}, 2, "yaml"},
  {"ConfigSeqZero", {"config", "--image", "25.10", "--seq", "0"}, 2, "0"},
  {"ConfigOffloadParamsBelowZero3", {"config", "--image", "25.10", "--zero", "2", "--offload-params"}, 2, "ZeRO stage 3"},
  {"ConfigOutIsAFile", {"config", "--image", "25.10", "--out", "{file}"}, 2, "{file}"},
  // validate
  {"ValidateNoFiles", {"validate"}, 2, "files"},
  {"ValidateMissingFile", {"validate", "{out}"}, 2, "{out}"},
  {"ValidateDirectory", {"validate", "{dir}"}, 2, "{dir}"},
  {"ValidateUnknownKind", {"validate", "--kind", "yaml", "{data}/config/good.env"}, 2, "yaml"},
  {"ValidateUnknownContent", {"validate", "{garbage}"}, 3, "is not NAME=VALUE"},
  {"ValidateBadDeepSpeedStage", {"validate", "{data}/config/bad_ds_stage.json"}, 3, "stage"},
  {"ValidateReinstalledTorch", {"validate", "{data}/config/bad_pip_torch.Dockerfile"}, 3, "pip install torch"},
  {"ValidateCheckpointValue", {"validate", "{data}/config/bad_checkpoint_value.env"}, 3, "CHECKPOINT_OPTIMIZATION"},
  // import
  {"ImportNoLabel", {"import", kLog}, 2, "--label"},
  {"ImportUnknownLabel", {"import", "--label", "Mega", kLog}, 2, "Mega"},
  {"ImportMissingLog", {"import", "--label", "Base", "{out}"}, 2, "{out}"},
  {"ImportEmptyLog", {"import", "--label", "Base", "{empty}"}, 2, "{empty}"},
  {"ImportLossPatternDoesNotCompile", {"import", "--label", "Base", "--loss-pattern", "loss=([0-9", kLog}, 2, "--loss-pattern 'loss=([0-9': not a regular expression"},
  {"ImportLossPatternWithoutGroup", {"import", "--label", "Base", "--loss-pattern", "loss=[0-9.]+", kLog}, 2, "no capture group for the loss"},
  {"ImportLossPatternEmpty", {"import", "--label", "Base", "--loss-pattern", "", kLog}, 2, "--loss-pattern '': empty"},
  {"ImportEmptyDirectory", {"import", "--label", "Base", "{dir}"}, 2, "{dir}"},
  {"ImportFollowIntervalZero", {"import", "--label", "Base", "--follow", "--interval", "0", kLog}, 2, "--interval 0: expected seconds from 0.01 to 3600"},
  {"ImportIntervalWithoutFollow", {"import", "--label", "Base", "--interval", "2", kLog}, 2, "give --follow too"},
  {"ImportGarbage", {"import", "--label", "Base", "{garbage}"}, 2, "{garbage}"},
  {"ImportUnknownFormat", {"import", "--label", "Base", "--format", "word", kLog}, 2, "word"},
  {"ImportGpusZero", {"import", "--label", "Base", "--gpus", "0", kLog}, 2, "0"},
  {"ImportSkipFirstNegative", {"import", "--label", "Base", "--skip-first", "-1", kLog}, 2, "-1"},
  {"ImportForcedWrongFormat", {"import", "--label", "Base", "--format", "tensorboard", kLog}, 2, "core_v0.16_first_iteration.log"},
  {"ImportGarbageWritesNothing", {"import", "--label", "Base", "--out", "{out}", "{garbage}"}, 2, "{garbage}"},
  {"ImportOutIsADirectory", {"import", "--label", "Base", "--out", "{dir}", kLog}, 2, "{dir}"},
  {"ImportMoreLabelsThanLogs", {"import", "--label", "Base", "--label", "AC2", "--label", "AC2+CompilerOpt", kLog, kLog}, 2, "--label"},
  // report
  {"ReportNoOut", {"report", "--in", kResults}, 2, "--out"},
  {"ReportResultsMissing", {"report", "--in", "{out}", "--out", "{out}.html"}, 2, "{out}"},
  {"ReportResultsEmpty", {"report", "--in", "{empty}", "--out", "{out}.html"}, 2, "{empty}"},
  {"ReportResultsGarbage", {"report", "--in", "{garbage}", "--out", "{out}.html"}, 2, "{garbage}"},
  {"ReportNoSuffixNoFormat", {"report", "--in", kResults, "--out", "{out}"}, 2, "--format"},
  {"ReportResultsOfTheWrongShape", {"report", "--in", "{data}/bench/cluster-good.json", "--out", "{out}.md"}, 2, "cluster-good.json"},
  {"ReportUnknownSuffix", {"report", "--in", kResults, "--out", "{out}.pdf"}, 2, ".pdf"},
  {"ReportUnknownFormat", {"report", "--in", kResults, "--format", "docx", "--out", "{out}"}, 2, "docx"},
  {"ReportImportMissing", {"report", "--in", kResults, "--import", "{out}.csv", "--out", "{out}.md"}, 2, "{out}.csv"},
  {"ReportImportUnknownLabel", {"report", "--in", kResults, "--import", "Mega=" + kLog, "--out", "{out}.md"}, 2, "Mega"},
  {"ReportImportGarbage", {"report", "--in", kResults, "--import", "{garbage}", "--out", "{out}.md"}, 2, "{garbage}"},
  {"ReportOutIsADirectory", {"report", "--in", kResults, "--out", "{dir}"}, 2, "{dir}"},
  {"ReportGpusZero", {"report", "--in", kResults, "--import", "Base=" + kLog, "--gpus", "0", "--out", "{out}.md"}, 2, "0"},
  // benchmark
  {"BenchmarkRepeatsZero", {"benchmark", "--repeats", "0", "--dry-run"}, 2, "--repeats 0: "},
  {"BenchmarkStepsZero", {"benchmark", "--steps", "0", "--dry-run"}, 2, "--steps 0: "},
  {"BenchmarkThreadsNegative", {"benchmark", "--threads", "-1", "--dry-run"}, 2, "--threads -1: "},
  {"BenchmarkVocabZero", {"benchmark", "--vocab", "0", "--dry-run"}, 2, "--vocab 0: "},
  {"BenchmarkWarmupNotBelowSteps", {"benchmark", "--steps", "2", "--warmup", "5", "--dry-run"}, 2, "--warmup 5: "},
  {"BenchmarkUnknownDevice", {"benchmark", "--device", "tpu", "--dry-run"}, 2, "tpu"},
  {"BenchmarkMemoryBudgetWord", {"benchmark", "--memory-budget", "lots", "--dry-run"}, 2, "lots"},
  {"BenchmarkNprocZero", {"benchmark", "--nproc-per-node", "0", "--dry-run"}, 2, "0"},
  {"BenchmarkUnknownModel", {"benchmark", "--model", "gpt-5", "--dry-run"}, 2, "gpt-5"},
  {"BenchmarkOutIsAFile", {"benchmark", "--steps", "2", "--repeats", "1", "--out", "{file}"}, 2, "{file}"},
  {"BenchmarkEventsIsADirectory", {"benchmark", "--steps", "2", "--repeats", "1", "--events", "{dir}", "--out", "{out}"}, 2, "{dir}"},
};
// clang-format on

/// What a row's placeholders stand for: made fresh in a folder of its own.
class Scratch {
 public:
  explicit Scratch(const std::string& name)
      : root_(fs::temp_directory_path() /
              ("tb-bad-input-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "dir");
    std::ofstream(root_ / "empty");
    std::ofstream garbage(root_ / "garbage", std::ios::binary);
    for (int i = 0; i < 512; ++i) garbage.put(static_cast<char>((i * 37 + 11) % 256));
    std::ofstream(root_ / "file") << "keep me\n";
  }
  ~Scratch() { fs::remove_all(root_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  [[nodiscard]] std::string expand(std::string text) const {
    replace(text, "{empty}", (root_ / "empty").string());
    replace(text, "{dir}", (root_ / "dir").string());
    replace(text, "{garbage}", (root_ / "garbage").string());
    replace(text, "{file}", (root_ / "file").string());
    replace(text, "{out}", (root_ / "out").string());
    replace(text, "{data}", TB_TEST_DATA_DIR);
    return text;
  }

  /// Every file now in the folder, for "nothing written" (the data home too).
  [[nodiscard]] std::vector<std::string> files() const {
    std::vector<std::string> found;
    for (const auto& entry : fs::recursive_directory_iterator(root_)) {
      if (!entry.is_directory()) found.push_back(fs::relative(entry.path(), root_).string());
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  [[nodiscard]] std::string fileContent() const {
    std::ifstream in(root_ / "file");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  [[nodiscard]] fs::path root() const { return root_; }

 private:
  static void replace(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  }

  fs::path root_;
};

/// stderr without CLI11's usage hint, which follows its one-line message.
std::vector<std::string> messageLines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line == "Run with --help for more information.") continue;
    lines.push_back(line);
  }
  return lines;
}

class BadCommandLine : public ::testing::TestWithParam<BadLine> {};

TEST_P(BadCommandLine, ExitsWithItsCodeNamingTheValueAndWritesNothing) {
  const BadLine& line = GetParam();
  const Scratch scratch(line.name);
  std::vector<std::string> args;
  for (const std::string& arg : line.args) args.push_back(scratch.expand(arg));
  const std::vector<std::string> before = scratch.files();
  // Run state and the run store go to the row's own folder, never the user's.
  const std::string home = (scratch.root() / "home").string();
  const CliRun run = runCli(args, {{"XDG_DATA_HOME", home + "/data"},
                                   {"XDG_CONFIG_HOME", home + "/config"},
                                   {"XDG_CACHE_HOME", home + "/cache"}});

  EXPECT_EQ(run.exitCode, line.exitCode) << "stderr:\n" << run.err << "stdout:\n" << run.out;
  const std::string needle = scratch.expand(line.needle);
  const std::vector<std::string> lines = messageLines(run.err);
  if (line.exitCode == 2) {
    // One line says it; a file's schema problems may follow, one per line,
    // each led by the file's name.
    ASSERT_FALSE(lines.empty()) << "nothing on stderr";
    EXPECT_NE(lines.front().find(needle), std::string::npos)
        << "'" << needle << "' not named in: " << lines.front();
    EXPECT_TRUE(lines.front().starts_with("trainbench")) << lines.front();
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_TRUE(lines[i].starts_with(needle))
          << "a second line that is not a detail of '" << needle << "':\n"
          << run.err;
    }
  } else {
    EXPECT_NE((run.out + run.err).find(needle), std::string::npos)
        << "'" << needle << "' not named in:\n"
        << run.out << run.err;
  }
  for (const char* crash : {"terminate called", "what():", "Exception raised from", "frame #",
                            "Aborted", "Segmentation fault", "core dumped"}) {
    EXPECT_EQ(run.err.find(crash), std::string::npos) << crash << " in:\n" << run.err;
  }
  // Nothing left behind: the folder holds what it held, the kept file its content.
  std::vector<std::string> after = scratch.files();
  std::erase_if(after, [](const std::string& path) { return path.starts_with("home/"); });
  EXPECT_EQ(after, before);
  EXPECT_EQ(scratch.fileContent(), "keep me\n");
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, BadCommandLine, ::testing::ValuesIn(kBadLines),
                         [](const ::testing::TestParamInfo<BadLine>& row) {
                           return std::string(row.param.name);
                         });

TEST(BadCommandLineTable, HoldsAtLeastEightyLinesAcrossEveryCommand) {
  EXPECT_GE(kBadLines.size(), 80U);
  for (const char* command : {"images", "compat", "run", "registry", "memory", "plan", "config",
                              "validate", "import", "report", "benchmark"}) {
    const bool covered = std::any_of(kBadLines.begin(), kBadLines.end(), [&](const BadLine& line) {
      return !line.args.empty() && line.args.front() == command;
    });
    EXPECT_TRUE(covered) << command;
  }
}

}  // namespace
}  // namespace tb::cli::test
