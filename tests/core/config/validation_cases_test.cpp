// The validator's rule table: for each rule a fixture that breaks it (the
// finding's rule, severity, line and path are asserted) and fixtures that
// keep every rule (no errors, no warnings). Malformed files are findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

#include "tb/catalog/catalog_loader.hpp"
#include "tb/config/validation.hpp"

namespace tb::config {
namespace {

std::string fixture(const std::string& name) {
  return std::string(TB_TEST_DATA_DIR) + "/config/" + name;
}

FileReport validateFixture(const std::string& name) {
  auto report = validateFile(fixture(name), FileKind::Auto, catalog::builtinCatalog());
  if (!report) throw std::runtime_error(report.error().message);
  return *report;
}

std::string describe(const FileReport& report) {
  std::string text;
  for (const Finding& f : report.findings) {
    text += std::string(toString(f.severity)) + " " + f.rule + " line " + std::to_string(f.line) +
            " " + f.path + ": " + f.message + "\n";
  }
  return text;
}

// "bad_ds_stage.json" -> "bad_ds_stage_json": gtest names allow [A-Za-z0-9_].
std::string testName(std::string fixtureName) {
  for (char& c : fixtureName) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return fixtureName;
}

struct BadCase {
  const char* fixture;
  const char* rule;
  Severity severity;
  int line;          ///< expected line; 0: the finding has no line
  const char* path;  ///< expected path; "" when the file kind has none
};

class ValidatorBreaksRule : public ::testing::TestWithParam<BadCase> {};

TEST_P(ValidatorBreaksRule, ReportsTheRuleAtItsPlace) {
  const BadCase& expected = GetParam();
  const FileReport report = validateFixture(expected.fixture);
  const auto match =
      std::find_if(report.findings.begin(), report.findings.end(), [&expected](const Finding& f) {
        return f.rule == expected.rule && f.severity == expected.severity;
      });
  ASSERT_NE(match, report.findings.end()) << "findings:\n" << describe(report);
  EXPECT_EQ(match->line, expected.line) << describe(report);
  EXPECT_EQ(match->path, expected.path) << describe(report);
  EXPECT_EQ(match->file, fixture(expected.fixture));
  EXPECT_FALSE(match->message.empty());
  EXPECT_FALSE(match->fix.empty());
}

constexpr Severity kError = Severity::Error;
constexpr Severity kWarning = Severity::Warning;
constexpr Severity kInfo = Severity::Info;

INSTANTIATE_TEST_SUITE_P(
    Rules, ValidatorBreaksRule,
    ::testing::Values(
        BadCase{"bad_ds_prefetch_number.json", "stage3-prefetch-bucket-size", kError, 6,
                "/zero_optimization/stage3_prefetch_bucket_size"},
        BadCase{"bad_ds_stage.json", "deepspeed-zero", kError, 3, "/zero_optimization/stage"},
        BadCase{"bad_ds_fp16.json", "bf16", kWarning, 2, "/fp16/enabled"},
        BadCase{"malformed_ds.json", "parse", kError, 5, ""},
        BadCase{"bad_ds_array.json", "deepspeed-shape", kError, 1, ""},
        BadCase{"bad_checkpoint_value.env", "checkpoint-optimization", kError, 2, ""},
        BadCase{"checkpoint_off.env", "checkpoint-optimization", kInfo, 2, ""},
        BadCase{"quoted_value.env", "env-quotes", kWarning, 1, ""},
        BadCase{"bad_ifname.env", "nccl-socket-ifname", kWarning, 2, ""},
        BadCase{"malformed.env", "env-syntax", kError, 2, ""},
        BadCase{"duplicate.env", "env-duplicate", kWarning, 3, ""},
        BadCase{"bad_command.yaml", "entrypoint", kWarning, 9, "spec.containers[0].command"},
        BadCase{"bad_ifname_16gpu.yaml", "nccl-socket-ifname", kError, 13,
                "spec.containers[0].env[1].value"},
        BadCase{"missing_ifname.yaml", "nccl-socket-ifname", kWarning, 7, "spec.containers[0].env"},
        BadCase{"bad_unquoted_bool.yaml", "env-value-type", kError, 13,
                "spec.containers[0].env[1].value"},
        BadCase{"unknown_tag.yaml", "image-tag", kWarning, 8, "spec.containers[0].image"},
        BadCase{"bad_arch.yaml", "image-arch", kError, 7, "spec.nodeSelector[kubernetes.io/arch]"},
        BadCase{"bad_too_many_gpus.yaml", "gpu-resources", kError, 16,
                "spec.containers[0].resources.limits[nvidia.com/gpu]"},
        BadCase{"odd_gpu_count.yaml", "gpu-resources", kWarning, 16,
                "spec.containers[0].resources.limits[nvidia.com/gpu]"},
        BadCase{"malformed.yaml", "parse", kError, 7, ""},
        BadCase{"not_k8s.yaml", "k8s-shape", kError, 1, "$"},
        BadCase{"bad_pip_torch.Dockerfile", "reinstall-framework", kError, 2, ""},
        BadCase{"bad_pip_deepspeed_continued.Dockerfile", "reinstall-framework", kError, 5, ""},
        BadCase{"torchvision.Dockerfile", "reinstall-framework", kWarning, 2, ""},
        BadCase{"bad_entrypoint.Dockerfile", "entrypoint", kWarning, 2, ""},
        BadCase{"bad_env.Dockerfile", "checkpoint-optimization", kError, 2, ""},
        BadCase{"no_from.Dockerfile", "parse", kError, 1, ""},
        BadCase{"other_base.Dockerfile", "image-tag", kInfo, 0, ""},
        BadCase{"bad_compile_without_checkpointing.py", "torch-compile", kError, 6, ""},
        BadCase{"bad_compile_without_bf16.py", "torch-compile", kError, 6, ""},
        BadCase{"compile_off.py", "torch-compile", kInfo, 3, ""}),
    [](const ::testing::TestParamInfo<BadCase>& param) { return testName(param.param.fixture); });

class ValidatorAcceptsGoodFile : public ::testing::TestWithParam<const char*> {};

TEST_P(ValidatorAcceptsGoodFile, HasNoErrorsOrWarnings) {
  const FileReport report = validateFixture(GetParam());
  EXPECT_EQ(report.count(Severity::Error), 0) << describe(report);
  EXPECT_EQ(report.count(Severity::Warning), 0) << describe(report);
}

INSTANTIATE_TEST_SUITE_P(GoodFiles, ValidatorAcceptsGoodFile,
                         ::testing::Values("good_ds_zero3.json", "good_ds_empty_prefetch.json",
                                           "good.env", "good_pod.yaml", "good_job_16gpu.yaml",
                                           "good_arm64_2510.yaml", "good.Dockerfile",
                                           "good_training_args.py"),
                         [](const ::testing::TestParamInfo<const char*>& param) {
                           return testName(param.param);
                         });

TEST(ValidatorRules, OtherBaseImageIsNotHeldToTheImageRules) {
  const FileReport report = validateFixture("other_base.Dockerfile");
  EXPECT_EQ(report.count(Severity::Error), 0) << describe(report);
}

TEST(ValidatorRules, PipInstallOfTorchNamesThePackage) {
  const FileReport report = validateFixture("bad_pip_deepspeed_continued.Dockerfile");
  ASSERT_EQ(report.count(Severity::Error), 1) << describe(report);
  EXPECT_NE(report.findings.front().message.find("deepspeed"), std::string::npos);
}

TEST(FileKinds, DetectedFromNameThenContent) {
  EXPECT_EQ(detectFileKind("ds.json", ""), FileKind::DeepSpeedJson);
  EXPECT_EQ(detectFileKind("job.yml", ""), FileKind::KubernetesManifest);
  EXPECT_EQ(detectFileKind("/x/Dockerfile", ""), FileKind::Dockerfile);
  EXPECT_EQ(detectFileKind("train.dockerfile", ""), FileKind::Dockerfile);
  EXPECT_EQ(detectFileKind("prod.env", ""), FileKind::EnvFile);
  EXPECT_EQ(detectFileKind("config", "  {\"a\": 1}"), FileKind::DeepSpeedJson);
  EXPECT_EQ(detectFileKind("build", "# c\nFROM ubuntu\n"), FileKind::Dockerfile);
  EXPECT_EQ(detectFileKind("spec", "apiVersion: v1\nkind: Pod\n"), FileKind::KubernetesManifest);
  EXPECT_EQ(detectFileKind("vars", "A=1\n"), FileKind::EnvFile);
  EXPECT_EQ(detectFileKind("train.py", ""), FileKind::TrainingArgs);
  EXPECT_EQ(detectFileKind("snippet", "a = TrainingArguments(\n"), FileKind::TrainingArgs);
}

TEST(FileKinds, ExplicitKindOverridesTheName) {
  const FileReport report = validateContent("settings.txt", "NCCL_SOCKET_IFNAME=ib0\n",
                                            FileKind::EnvFile, catalog::builtinCatalog());
  EXPECT_EQ(report.kind, FileKind::EnvFile);
  EXPECT_EQ(report.count(Severity::Warning), 1) << describe(report);
  EXPECT_FALSE(parseFileKind("helm").ok());
  EXPECT_EQ(*parseFileKind("k8s"), FileKind::KubernetesManifest);
}

TEST(ValidateFile, MissingFileIsNotFoundNamingThePath) {
  const auto report =
      validateFile(fixture("no_such_file.json"), FileKind::Auto, catalog::builtinCatalog());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ErrorKind::NotFound);
  EXPECT_NE(report.error().message.find("no_such_file.json"), std::string::npos);
}

TEST(ValidateFiles, EachFileInOrderWithProgressAndAStopBetweenFiles) {
  const std::vector<std::filesystem::path> paths{
      fixture("bad_arch.yaml"), fixture("no_such_file.json"), fixture("bad_command.yaml")};
  std::vector<std::int64_t> done;
  const auto all = validateFiles(paths, FileKind::Auto, catalog::builtinCatalog(), {},
                                 [&done](const Progress& p) {
                                   EXPECT_EQ(p.total, 3);
                                   done.push_back(p.done);
                                 });
  ASSERT_EQ(all.size(), 3U);
  EXPECT_TRUE(all[0].ok());
  EXPECT_FALSE(all[1].ok());  // one unreadable file does not end the others
  EXPECT_TRUE(all[2].ok());
  EXPECT_EQ(done, (std::vector<std::int64_t>{1, 2, 3}));

  const StopSource stop;
  const auto stopped = validateFiles(paths, FileKind::Auto, catalog::builtinCatalog(), stop.token(),
                                     [&stop](const Progress&) { stop.requestStop(); });
  EXPECT_EQ(stopped.size(), 1U);
}

TEST(ValidateFile, DirectoryIsBadInput) {
  const auto report = validateFile(std::string(TB_TEST_DATA_DIR) + "/config", FileKind::Auto,
                                   catalog::builtinCatalog());
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ErrorKind::BadInput);
}

TEST(ValidateContent, EmptyAndBinaryInputsAreFindingsNotCrashes) {
  const auto& catalog = catalog::builtinCatalog();
  for (FileKind kind : {FileKind::DeepSpeedJson, FileKind::KubernetesManifest, FileKind::Dockerfile,
                        FileKind::EnvFile}) {
    const std::string binary("\x00\xff\xfe{[: \x01", 8);
    EXPECT_NO_THROW((void)validateContent("f", "", kind, catalog));
    EXPECT_NO_THROW((void)validateContent("f", binary, kind, catalog));
  }
  EXPECT_EQ(validateContent("f", "", FileKind::DeepSpeedJson, catalog).count(Severity::Error), 1);
  EXPECT_EQ(validateContent("f", "", FileKind::Dockerfile, catalog).count(Severity::Error), 1);
}

}  // namespace
}  // namespace tb::config
