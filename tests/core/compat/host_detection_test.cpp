// detectHost against real child processes and a real dlopen: a fake
// nvidia-smi script (tests/data/host/fake-nvidia-smi) that prints a fixture,
// hangs or fails, a fake libnvidia-ml built next to this test, and the proc
// fixtures. Each test checks where the answer came from and what the notes
// say about the probes that did not answer.
#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "tb/compat/host_detection.hpp"

namespace tb::compat {
namespace {

namespace fs = std::filesystem;

const std::string kHostData = std::string(TB_TEST_DATA_DIR) + "/host/";

bool notesMention(const HostInfo& host, std::string_view text) {
  return std::any_of(host.notes.begin(), host.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

std::string allNotes(const HostInfo& host) {
  std::string out;
  for (const auto& note : host.notes) out += "\n  " + note;
  return out;
}

class HostDetection : public ::testing::Test {
 protected:
  void SetUp() override {
    // The script is copied and made executable here, so the test does not
    // depend on the executable bit surviving a checkout.
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = fs::temp_directory_path() /
                 ("tb-compat-" + std::to_string(::getpid()) + "-" + info->name());
    fs::create_directories(directory_);
    smi_ = directory_ / "nvidia-smi";
    fs::copy_file(kHostData + "fake-nvidia-smi", smi_, fs::copy_options::overwrite_existing);
    fs::permissions(smi_, fs::perms::owner_all, fs::perm_options::add);
    for (const char* name : kVariables) ::unsetenv(name);
  }

  void TearDown() override {
    for (const char* name : kVariables) ::unsetenv(name);
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }

  /// NVML off, the fake nvidia-smi printing `fixture`, the proprietary proc file.
  [[nodiscard]] DetectOptions options(const std::string& fixture = "nvidia-smi-8xh100.csv") const {
    ::setenv("TB_FAKE_SMI_FIXTURE", (kHostData + fixture).c_str(), 1);
    DetectOptions detect;
    detect.useNvml = false;
    detect.nvidiaSmi = smi_.string();
    detect.procVersionFile = kHostData + "proc-version-proprietary-x86_64.txt";
    detect.nvidiaSmiTimeoutMs = 5000;
    return detect;
  }

  static constexpr const char* kVariables[] = {"TB_FAKE_SMI_FIXTURE",
                                               "TB_FAKE_SMI_MODE",
                                               "TB_FAKE_NVML_INIT_ERROR",
                                               "TB_FAKE_NVML_DRIVER",
                                               "TB_FAKE_NVML_CUDA_ERROR",
                                               "TRAINBENCH_NVIDIA_SMI",
                                               "TRAINBENCH_PROC_DRIVER_VERSION",
                                               "TRAINBENCH_DISABLE_NVML"};
  fs::path directory_;
  fs::path smi_;
};

TEST_F(HostDetection, NvidiaSmiAnswersWhenNvmlIsDisabled) {
  const HostInfo host = detectHost(options());
  ASSERT_TRUE(host.driver.has_value()) << allNotes(host);
  EXPECT_EQ(host.source, DetectionSource::NvidiaSmi);
  EXPECT_EQ(host.driver->text(), "535.104.05");
  EXPECT_EQ(host.gpuCount(), 8);
  EXPECT_EQ(host.gpuNames.front(), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(host.summary(), "535.104.05 via nvidia-smi");
  EXPECT_TRUE(notesMention(host, "NVML: not tried (disabled)")) << allNotes(host);
}

TEST_F(HostDetection, MixedGpusFromNvidiaSmiAreListedInOrder) {
  const HostInfo host = detectHost(options("nvidia-smi-mixed.csv"));
  ASSERT_EQ(host.gpuCount(), 3) << allNotes(host);
  EXPECT_EQ(host.gpuNames[2], "Tesla T4");
}

TEST_F(HostDetection, MissingNvidiaSmiFallsBackToTheProcFile) {
  DetectOptions detect = options();
  detect.nvidiaSmi = (directory_ / "no-such-nvidia-smi").string();
  const HostInfo host = detectHost(detect);
  ASSERT_TRUE(host.driver.has_value()) << allNotes(host);
  EXPECT_EQ(host.source, DetectionSource::ProcFs);
  EXPECT_EQ(host.driver->text(), "535.104.05");
  EXPECT_TRUE(host.gpuNames.empty());
  EXPECT_TRUE(notesMention(host, "nvidia-smi: " + detect.nvidiaSmi + " not found"))
      << allNotes(host);
  EXPECT_EQ(host.summary(), "535.104.05 via /proc/driver/nvidia/version");
}

TEST_F(HostDetection, NvidiaSmiMissingFromPathSaysSo) {
  DetectOptions detect = options();
  detect.nvidiaSmi = "tb-no-such-nvidia-smi";
  const HostInfo host = detectHost(detect);
  EXPECT_TRUE(notesMention(host, "nvidia-smi: not found on PATH")) << allNotes(host);
}

TEST_F(HostDetection, NothingAtAllIsNoDriverNotAnError) {
  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = (directory_ / "libnvidia-ml.so.1").string();
  detect.nvidiaSmi = (directory_ / "no-such-nvidia-smi").string();
  detect.procVersionFile = (directory_ / "no-such-version-file").string();
  const HostInfo host = detectHost(detect);
  EXPECT_FALSE(host.driver.has_value());
  EXPECT_EQ(host.source, DetectionSource::None);
  EXPECT_EQ(host.summary(), "no NVIDIA driver on this machine");
  EXPECT_TRUE(notesMention(host, "NVML: " + detect.nvmlLibrary + " not found")) << allNotes(host);
  EXPECT_TRUE(notesMention(host, detect.procVersionFile + ": not found")) << allNotes(host);
  EXPECT_GE(host.notes.size(), 3U);
}

TEST_F(HostDetection, HangingNvidiaSmiIsStoppedAtTheDeadlineAndFallsBack) {
  DetectOptions detect = options();
  detect.nvidiaSmiTimeoutMs = 300;
  ::setenv("TB_FAKE_SMI_MODE", "hang", 1);
  const auto start = std::chrono::steady_clock::now();
  const HostInfo host = detectHost(detect);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(5)) << "the fake hangs for 30 s";
  EXPECT_EQ(host.source, DetectionSource::ProcFs) << allNotes(host);
  EXPECT_TRUE(notesMention(host, "gave no answer within 300 ms")) << allNotes(host);
}

TEST_F(HostDetection, FailingNvidiaSmiIsQuotedInTheNotes) {
  ::setenv("TB_FAKE_SMI_MODE", "fail", 1);
  const HostInfo host = detectHost(options());
  EXPECT_EQ(host.source, DetectionSource::ProcFs);
  EXPECT_TRUE(notesMention(host, "exited with status 9: NVIDIA-SMI has failed")) << allNotes(host);
}

TEST_F(HostDetection, MalformedProcFileIsANoteNamingThePath) {
  DetectOptions detect = options();
  detect.nvidiaSmi = (directory_ / "no-such-nvidia-smi").string();
  detect.procVersionFile = kHostData + "proc-version-bad-version.txt";
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::None);
  EXPECT_TRUE(notesMention(host, "proc-version-bad-version.txt: driver version file:"))
      << allNotes(host);
}

TEST_F(HostDetection, LibraryWithoutNvmlSymbolsIsANote) {
  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = "libm.so.6";  // loads, but is not NVML
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::NvidiaSmi);
  EXPECT_TRUE(notesMention(host, "NVML: libm.so.6 lacks nvmlInit_v2")) << allNotes(host);
}

TEST_F(HostDetection, FakeNvmlAnswersFirstAndIsShutDown) {
  // Holding our own handle keeps the fake loaded, so its counters survive
  // the probe's dlclose.
  void* fake = ::dlopen(TB_FAKE_NVML_PATH, RTLD_NOW);
  ASSERT_NE(fake, nullptr) << ::dlerror();
  const auto inits = reinterpret_cast<int (*)()>(::dlsym(fake, "tbFakeNvmlInits"));
  const auto shutdowns = reinterpret_cast<int (*)()>(::dlsym(fake, "tbFakeNvmlShutdowns"));
  ASSERT_TRUE(inits != nullptr && shutdowns != nullptr);

  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = TB_FAKE_NVML_PATH;
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::Nvml) << allNotes(host);
  ASSERT_TRUE(host.driver.has_value());
  EXPECT_EQ(host.driver->text(), "570.124.06");
  EXPECT_EQ(host.gpuNames, (std::vector<std::string>{"NVIDIA H200", "NVIDIA H200"}));
  EXPECT_EQ(host.cudaDriverVersion, 12080);
  EXPECT_EQ(host.summary(), "570.124.06 via NVML");
  EXPECT_EQ(inits(), 1);
  EXPECT_EQ(shutdowns(), 1);
  ::dlclose(fake);
}

TEST_F(HostDetection, NvmlInitFailureFallsBackToNvidiaSmi) {
  ::setenv("TB_FAKE_NVML_INIT_ERROR", "9", 1);
  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = TB_FAKE_NVML_PATH;
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::NvidiaSmi);
  EXPECT_TRUE(notesMention(host, "NVML: nvmlInit_v2 failed with error 9 (Driver Not Loaded)"))
      << allNotes(host);
}

TEST_F(HostDetection, NvmlWithAMalformedDriverStringFallsBack) {
  ::setenv("TB_FAKE_NVML_DRIVER", "R570", 1);
  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = TB_FAKE_NVML_PATH;
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::NvidiaSmi);
  EXPECT_TRUE(notesMention(host, "NVML: driver version 'R570'")) << allNotes(host);
}

TEST_F(HostDetection, NvmlWithoutCudaVersionStillAnswers) {
  ::setenv("TB_FAKE_NVML_CUDA_ERROR", "12", 1);
  DetectOptions detect = options();
  detect.useNvml = true;
  detect.nvmlLibrary = TB_FAKE_NVML_PATH;
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.source, DetectionSource::Nvml);
  EXPECT_FALSE(host.cudaDriverVersion.has_value());
  EXPECT_TRUE(notesMention(host, "CUDA driver version unavailable: error 12 (Library Not Found)"))
      << allNotes(host);
}

TEST_F(HostDetection, EnvironmentVariablesSimulateAHost) {
  ::setenv("TRAINBENCH_NVIDIA_SMI", smi_.c_str(), 1);
  ::setenv("TRAINBENCH_PROC_DRIVER_VERSION", "/tmp/version", 1);
  ::setenv("TRAINBENCH_DISABLE_NVML", "1", 1);
  const DetectOptions detect = detectOptionsFromEnvironment();
  EXPECT_EQ(detect.nvidiaSmi, smi_.string());
  EXPECT_EQ(detect.procVersionFile, "/tmp/version");
  EXPECT_FALSE(detect.useNvml);

  ::setenv("TB_FAKE_SMI_FIXTURE", (kHostData + "nvidia-smi-1xa10-crlf.csv").c_str(), 1);
  const HostInfo host = detectHost(detect);
  EXPECT_EQ(host.summary(), "550.54.15 via nvidia-smi") << allNotes(host);
}

TEST_F(HostDetection, EmptyOrZeroEnvironmentKeepsTheDefaults) {
  ::setenv("TRAINBENCH_NVIDIA_SMI", "", 1);
  ::setenv("TRAINBENCH_DISABLE_NVML", "0", 1);
  const DetectOptions detect = detectOptionsFromEnvironment();
  const DetectOptions defaults;
  EXPECT_EQ(detect.nvidiaSmi, defaults.nvidiaSmi);
  EXPECT_EQ(detect.procVersionFile, defaults.procVersionFile);
  EXPECT_TRUE(detect.useNvml);
}

TEST(HostDetectionOnThisMachine, CpuArchitectureMatchesUname) {
  std::string machine;
  const auto arch = detectCpuArch(&machine);
  ASSERT_FALSE(machine.empty());
  if (machine == "x86_64") {
    EXPECT_EQ(arch, catalog::CpuArch::Amd64);
  } else if (machine == "aarch64") {
    EXPECT_EQ(arch, catalog::CpuArch::Arm64);
  }
}

TEST(HostDetectionOnThisMachine, RealDetectionAnswersConsistently) {
  const HostInfo host = detectHost();
  EXPECT_EQ(host.driver.has_value(), host.source != DetectionSource::None) << allNotes(host);
  EXPECT_FALSE(host.summary().empty());
  if (!host.driver) {
    EXPECT_GE(host.notes.size(), 3U) << allNotes(host);
  }
}

TEST(DetectionSource, NamesAreStable) {
  EXPECT_EQ(toString(DetectionSource::Nvml), "nvml");
  EXPECT_EQ(toString(DetectionSource::NvidiaSmi), "nvidia-smi");
  EXPECT_EQ(toString(DetectionSource::ProcFs), "procfs");
  EXPECT_EQ(toString(DetectionSource::None), "none");
}

}  // namespace
}  // namespace tb::compat
