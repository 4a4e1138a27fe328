// The fixture is built field by field rather than loaded from JSON: page tests
// then depend on the catalog structs, not on the file format or the loader,
// which have tests of their own.
#include "ui_test_support.h"

#include <QDir>
#include <QSettings>
#include <QStandardPaths>

#include <stdexcept>

#include "ui/application_identity.h"
#include "ui/image/host_panel.h"

namespace tb::ui::test {

namespace {

void setIfUnset(const char* name, const QByteArray& value) {
  if (qEnvironmentVariableIsEmpty(name)) qputenv(name, value);
}

tb::catalog::Release release(const std::string& tag, const std::string& cuda, int required,
                             std::vector<tb::catalog::ForwardCompatAllowance> allowances,
                             std::vector<tb::catalog::CpuArch> architectures,
                             std::vector<tb::catalog::Component> components) {
  tb::catalog::Release r;
  r.tag = tag;
  r.image = "registry.example.invalid/ui-test/training-nv-pytorch:" + tag + "-serverless";
  r.vpcImagePattern = "registry-vpc.{region-id}.example.invalid/ui-test/training-nv-pytorch:" + tag;
  r.vpcRegions = {"cn-beijing"};
  r.cudaVersion = cuda;
  r.requiredDriverMajor = required;
  r.forwardCompat = std::move(allowances);
  r.mustUpgradeBranches = {560};
  r.architectures = std::move(architectures);
  r.components = std::move(components);
  r.highlights = {"Fixture release " + tag + "."};
  r.baseImage = "NGC PyTorch 25.03";
  r.notesUrl = "https://example.invalid/notes/" + tag;
  return r;
}

tb::catalog::DriverBranch branch(int number, tb::catalog::BranchKind kind, const char* driver,
                                 bool inMatrix) {
  tb::catalog::DriverBranch b;
  b.branch = number;
  b.kind = kind;
  b.inForwardCompatMatrix = inMatrix;
  b.representative = driverVersion(driver);
  b.maxCuda = "12.2";
  return b;
}

}  // namespace

TestSandbox::TestSandbox() {
  if (!home_.isValid()) throw std::runtime_error("cannot create a temporary HOME");
  qputenv("HOME", home_.path().toLocal8Bit());
  QStandardPaths::setTestModeEnabled(true);
  setIfUnset("TRAINBENCH_DISABLE_NVML", "1");
  setIfUnset("TRAINBENCH_NVIDIA_SMI", "/nonexistent/nvidia-smi");
  setIfUnset("TRAINBENCH_PROC_DRIVER_VERSION", "/nonexistent/version");
}

tb::catalog::Catalog fixtureCatalog() {
  using tb::catalog::CpuArch;
  tb::catalog::Catalog catalog;
  catalog.catalogVersion = "2099.1.1";
  catalog.sources = {"ui-test-fixture"};
  catalog.releases = {
      release("30.01", "12.8.0", 575,
              {{470, driverVersion("470.57")}, {535, driverVersion("535.86")}}, {CpuArch::Amd64},
              {{"torch", "2.7.1.8+nv25.3"}, {"vllm", "0.10.0"}}),
      release("30.02", "12.10.0", 580, {{535, driverVersion("535.86")}},
              {CpuArch::Amd64, CpuArch::Arm64},
              {{"torch", "2.8.0.9+nv25.3"}, {"vllm", "0.11.0"}, {"transformer_engine", "2.4.0"}}),
      release("30.03", "12.9.0", 570, {}, {CpuArch::Amd64}, {{"torch", "2.6.0.7"}}),
  };
  catalog.toolkitDrivers = {
      {"12.8 GA", "12.8.0", driverVersion("570.26")},
      {"12.9 GA", "12.9.0", driverVersion("575.51.03")},
  };
  catalog.driverBranches = {
      branch(535, tb::catalog::BranchKind::LongTermSupport, "535.104.05", true),
      branch(550, tb::catalog::BranchKind::Legacy, "550.54.15", false),
      branch(570, tb::catalog::BranchKind::Production, "570.124.06", true),
      branch(580, tb::catalog::BranchKind::LongTermSupport, "580.65.06", true),
  };
  return catalog;
}

tb::catalog::DriverVersion driverVersion(const char* text) {
  auto parsed = tb::catalog::DriverVersion::parse(text);
  if (!parsed) throw std::logic_error(parsed.error().message);
  return *parsed;
}

QString testDataFile(const QString& name) {
  return QDir(QStringLiteral(TB_UI_TEST_DATA_DIR)).filePath(name);
}

void useLargeOffscreenScreen() {
  if (qEnvironmentVariable("QT_QPA_PLATFORM") != QStringLiteral("offscreen")) return;
  qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + TB_UI_OFFSCREEN_CONFIG);
}

void clearStudioSettings() {
  QSettings settings(organizationName(), applicationName());
  settings.clear();
  settings.sync();
}

void failMissingChild(const QObject* root, const char* name, const char* type,
                      const std::source_location& where) {
  const QString under =
      root == nullptr
          ? QStringLiteral("a null root")
          : QStringLiteral("%1 \"%2\"")
                .arg(QString::fromLatin1(root->metaObject()->className()), root->objectName());
  const QByteArray message = QStringLiteral("no %1 named \"%2\" under %3")
                                 .arg(QString::fromLatin1(type), QString::fromLatin1(name), under)
                                 .toUtf8();
  const int line = static_cast<int>(where.line());
  QTest::qFail(message.constData(), where.file_name(), line);
  QMessageLogger(where.file_name(), line, where.function_name()).fatal("%s", message.constData());
}

ImagePageHarness::ImagePageHarness(QSize size) {
  clearStudioSettings();
  session = std::make_unique<tb::ui::CatalogSession>(fixtureCatalog());
  settings = std::make_unique<tb::ui::StudioSettings>();
  page = std::make_unique<tb::ui::ImagePage>(*session, *settings);
  page->resize(size);
  child<HostPanel>(page.get(), "hostPanel")->setArch(tb::catalog::CpuArch::Amd64);
}

}  // namespace tb::ui::test
