// The image's declaration applied to the catalog's release: the one place
// `trainbench compat --from-registry` and the Image page's "Check this tag"
// get it from (it was written twice before, in the CLI and the GUI). Every
// branch is covered here on hand-built inspections; the CLI's and the
// panel's tests only check that they call it with what a real registry sent.
#include "tb/registry/image_declaration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tb::registry::test {
namespace {

using catalog::CpuArch;

catalog::Release release(std::string tag, std::string cuda, int driver) {
  catalog::Release r;
  r.image = "example.io/team/image:" + tag + "-serverless";
  r.tag = std::move(tag);
  r.cudaVersion = std::move(cuda);
  r.requiredDriverMajor = driver;
  r.architectures = {CpuArch::Amd64};
  return r;
}

PlatformImage platform(std::string arch, std::vector<std::string> env, std::string os = "linux") {
  PlatformImage image;
  image.platform.os = std::move(os);
  image.platform.architecture = std::move(arch);
  if (image.platform.architecture == "arm64") image.platform.variant = "v8";
  for (const std::string& entry : env) {
    const auto equals = entry.find('=');
    const std::string name = entry.substr(0, equals);
    const std::string value = entry.substr(equals + 1);
    if (name == "CUDA_VERSION") image.config.cudaVersion = value;
    if (name == "CUDA_DRIVER_VERSION") image.config.cudaDriverVersion = value;
    if (name == "NVIDIA_REQUIRE_CUDA") image.config.requireCuda = value;
    image.config.env.push_back(entry);
  }
  return image;
}

ImageInspection twoPlatforms() {
  ImageInspection inspection;
  inspection.reference = "example.io/team/image:30.03-serverless";
  inspection.digest = "sha256:index";
  inspection.platforms = {
      platform("amd64", {"CUDA_VERSION=13.0.2", "CUDA_DRIVER_VERSION=580.95.05",
                         "NVIDIA_REQUIRE_CUDA=cuda>=13.0"}),
      platform("arm64", {"CUDA_VERSION=13.0.1"}),
      platform("unknown", {}, "unknown"),  // an attestation entry
  };
  return inspection;
}

bool hasNote(const DeclaredRelease& declared, const std::string& text) {
  return std::any_of(declared.notes.begin(), declared.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

std::string allNotes(const DeclaredRelease& declared) {
  std::string text;
  for (const std::string& note : declared.notes) text += note + "\n";
  return text;
}

TEST(ImageDeclaration, TheImagesValuesReplaceTheCatalogsAndTheNotesSaySo) {
  const catalog::Release catalogRelease = release("30.03", "12.9.0", 570);
  const DeclaredRelease declared =
      applyDeclaration(&catalogRelease, twoPlatforms(), "30.03-serverless", CpuArch::Amd64);
  EXPECT_EQ(declared.release.cudaVersion, "13.0.2");
  EXPECT_EQ(declared.release.requiredDriverMajor, 580);
  EXPECT_EQ(declared.release.tag, "30.03");  // still the catalog's release
  EXPECT_EQ(declared.release.architectures, (std::vector{CpuArch::Amd64, CpuArch::Arm64}));
  ASSERT_FALSE(declared.notes.empty());
  EXPECT_EQ(declared.notes.front(),
            "from the registry: example.io/team/image:30.03-serverless (sha256:index) "
            "publishes linux/amd64, linux/arm64/v8, unknown/unknown");
  const std::string notes = allNotes(declared);
  EXPECT_TRUE(hasNote(declared,
                      "linux/amd64 declares CUDA_VERSION=13.0.2; the catalog says "
                      "CUDA 12.9.0"))
      << notes;
  EXPECT_TRUE(hasNote(declared, "CUDA_DRIVER_VERSION=580.95.05; the catalog says driver >= 570"))
      << notes;
  EXPECT_TRUE(hasNote(declared, "NVIDIA_REQUIRE_CUDA=cuda>=13.0")) << notes;
}

TEST(ImageDeclaration, ThePlatformOfTheHostsArchitectureDecides) {
  const catalog::Release catalogRelease = release("30.03", "12.9.0", 570);
  const DeclaredRelease declared =
      applyDeclaration(&catalogRelease, twoPlatforms(), "30.03-serverless", CpuArch::Arm64);
  EXPECT_EQ(declared.release.cudaVersion, "13.0.1");
  // arm64 declares no driver: the catalog's floor stays, and a note says so.
  EXPECT_EQ(declared.release.requiredDriverMajor, 570);
  EXPECT_TRUE(hasNote(declared, "linux/arm64/v8 declares no usable CUDA_DRIVER_VERSION"))
      << allNotes(declared);
  EXPECT_FALSE(hasNote(declared, "NVIDIA_REQUIRE_CUDA"));
}

TEST(ImageDeclaration, AgreeingValuesNeedNoNote) {
  const catalog::Release catalogRelease = release("30.03", "13.0.2", 580);
  const DeclaredRelease declared =
      applyDeclaration(&catalogRelease, twoPlatforms(), "30.03-serverless", CpuArch::Amd64);
  EXPECT_FALSE(hasNote(declared, "the catalog says")) << allNotes(declared);
}

TEST(ImageDeclaration, AnImageWithoutTheHostsPlatformKeepsTheCatalogsValues) {
  ImageInspection inspection = twoPlatforms();
  inspection.platforms.erase(inspection.platforms.begin());  // no amd64 any more
  const catalog::Release catalogRelease = release("30.03", "12.9.0", 570);
  const DeclaredRelease declared =
      applyDeclaration(&catalogRelease, inspection, "30.03-serverless", CpuArch::Amd64);
  EXPECT_EQ(declared.release.architectures, std::vector{CpuArch::Arm64});
  EXPECT_EQ(declared.release.cudaVersion, "12.9.0");
  EXPECT_TRUE(hasNote(declared, "the image has no linux/amd64 platform")) << allNotes(declared);
}

TEST(ImageDeclaration, ATagTheCatalogDoesNotKnowIsJudgedOnTheImageAlone) {
  const DeclaredRelease declared =
      applyDeclaration(nullptr, twoPlatforms(), "31.01-rc", CpuArch::Amd64);
  EXPECT_EQ(declared.release.tag, "31.01-rc");
  EXPECT_EQ(declared.release.image, "example.io/team/image:30.03-serverless");
  EXPECT_EQ(declared.release.cudaVersion, "13.0.2");
  EXPECT_EQ(declared.release.requiredDriverMajor, 580);
  EXPECT_TRUE(hasNote(declared, "the catalog has no release for tag 31.01-rc"));
  EXPECT_FALSE(hasNote(declared, "the catalog says"));
}

TEST(ImageDeclaration, TheDriverBranchComesFromCudaDriverVersion) {
  ImageConfig config;
  EXPECT_FALSE(declaredDriverMajor(config).has_value());
  config.cudaDriverVersion = "580.95.05";
  EXPECT_EQ(declaredDriverMajor(config), 580);
  config.cudaDriverVersion = "not-a-driver";
  EXPECT_FALSE(declaredDriverMajor(config).has_value());
}

TEST(ImageDeclaration, ARegistryTagFindsItsCatalogRelease) {
  catalog::Catalog catalog;
  catalog.releases = {release("30.02", "12.10.0", 580), release("30.03", "12.9.0", 570)};
  catalog.releases[1].image = "example.io/team/image:special";
  // By the tag of the release's image reference first...
  EXPECT_EQ(catalogReleaseForTag(catalog, "special")->tag, "30.03");
  // ...then by the release tag and a suffix after a dash.
  EXPECT_EQ(catalogReleaseForTag(catalog, "30.02-serverless")->tag, "30.02");
  EXPECT_EQ(catalogReleaseForTag(catalog, "30.03")->tag, "30.03");
  EXPECT_EQ(catalogReleaseForTag(catalog, "30.020"), nullptr);
  EXPECT_EQ(catalogReleaseForTag(catalog, "29.12-serverless"), nullptr);
}

}  // namespace
}  // namespace tb::registry::test
