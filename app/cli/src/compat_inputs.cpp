// Every value is validated before anything is detected, so a typo in one
// option is reported at once instead of after a slow nvidia-smi call. The
// provenance of each value is kept because a verdict is only as good as the
// driver it was judged for, and the user must be able to see where that came
// from.
#include "compat_inputs.hpp"

#include <algorithm>
#include <climits>

#include "tb/common/text.hpp"
#include "tb/compat/gpu_class.hpp"

namespace tb::cli {
namespace {

constexpr std::string_view kServerlessSuffix = "-serverless";

Error badInput(std::string message) { return makeError(ErrorKind::BadInput, std::move(message)); }

// "registry/ns/training-nv-pytorch:25.04" -> "training-nv-pytorch".
std::string repositoryName(std::string_view reference) {
  if (const auto at = reference.find('@'); at != std::string_view::npos) {
    reference = reference.substr(0, at);
  }
  const auto slash = reference.rfind('/');
  if (slash != std::string_view::npos) reference = reference.substr(slash + 1);
  return std::string(reference.substr(0, reference.find(':')));
}

std::vector<std::string> catalogRepositories(const catalog::Catalog& catalog) {
  std::vector<std::string> names;
  for (const auto& release : catalog.releases) {
    std::string name = repositoryName(release.image);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string knownTagsText(const catalog::Catalog& catalog) {
  return "known tags: " + joinList(catalog.tags());
}

Expected<int> parseGpuCount(std::string_view text) {
  const auto number = parseUnsigned(trim(text));
  if (!number || *number < 1 || *number > INT_MAX) {
    return badInput("--gpu-count: expected a whole number of at least 1, got '" +
                    std::string(text) + "'");
  }
  return static_cast<int>(*number);
}

// Uses the detected host for everything the command line left out.
void fillFromHost(const HostOptions& options, const compat::HostInfo& host, JudgedHost& judged) {
  compat::CompatQuery& query = judged.query;
  if (!options.driver) {
    query.driver = host.driver;
    judged.driverOrigin = host.driver ? ValueOrigin::Detected : ValueOrigin::NotDetected;
  }
  if (!options.gpu) {
    judged.gpuOrigin = ValueOrigin::NotDetected;
    if (!host.gpuNames.empty()) {
      std::vector<std::string> models;
      for (const auto& name : host.gpuNames) {
        if (std::find(models.begin(), models.end(), name) == models.end()) models.push_back(name);
      }
      // Forward compatibility holds only if it holds for every GPU, so a
      // mixed host is judged for a GPU that is not data-center, if any.
      const auto weakest = std::find_if(models.begin(), models.end(), [](const std::string& n) {
        return compat::classifyGpu(n) != compat::GpuClass::DataCenter;
      });
      query.gpuName = weakest != models.end() ? *weakest : models.front();
      judged.gpuOrigin = ValueOrigin::Detected;
      if (models.size() > 1) {
        judged.notes.push_back("this host has different GPUs (" + joinList(models) +
                               "); judged for " + query.gpuName +
                               ", the one forward compatibility is least likely to cover");
      }
    } else if (host.driver) {
      judged.notes.emplace_back(
          "the driver was found but not the GPU model; give --gpu to judge "
          "forward compatibility, which depends on the GPU");
    }
  }
  // A count belongs to the GPUs it counts: it is taken from the host only
  // when the GPU name is too.
  if (!options.gpuCount && !options.gpu) {
    query.gpuCount = host.gpuCount();
    judged.gpuCountOrigin = host.gpuCount() > 0 ? ValueOrigin::Detected : ValueOrigin::NotDetected;
  }
}

}  // namespace

std::string_view toString(ValueOrigin origin) noexcept {
  switch (origin) {
    case ValueOrigin::CommandLine: return "command-line";
    case ValueOrigin::Detected: return "detected";
    case ValueOrigin::NotDetected: return "not-detected";
    case ValueOrigin::System: return "system";
    case ValueOrigin::Default: return "default";
  }
  return "unknown";
}

Expected<JudgedHost> resolveHost(const HostOptions& options) {
  JudgedHost judged;
  compat::CompatQuery& query = judged.query;
  query.today = compat::todayUtc();

  if (options.driver) {
    auto driver = catalog::DriverVersion::parse(*options.driver);
    if (!driver) return badInput("--driver: " + driver.error().message);
    query.driver = *driver;
  }
  if (options.gpu) {
    query.gpuName = std::string(trim(*options.gpu));
    if (query.gpuName.empty()) {
      return badInput(
          "--gpu: the GPU name is empty; give it as nvidia-smi prints it, "
          "for example 'NVIDIA H100 80GB HBM3'");
    }
  }
  query.gpuCount = 1;
  judged.gpuCountOrigin = ValueOrigin::Default;
  if (options.gpuCount) {
    auto count = parseGpuCount(*options.gpuCount);
    if (!count) return std::move(count).error();
    query.gpuCount = *count;
    judged.gpuCountOrigin = ValueOrigin::CommandLine;
  }
  std::optional<catalog::CpuArch> arch;
  if (options.arch) {
    arch = catalog::parseCpuArch(trim(*options.arch));
    if (!arch) {
      return badInput("--arch: unknown CPU architecture '" + *options.arch +
                      "'; use amd64 (x86_64) or arm64 (aarch64)");
    }
  }

  std::string machine;
  if (!options.driver || !options.gpu) {
    compat::HostInfo host = compat::detectHost(compat::detectOptionsFromEnvironment());
    fillFromHost(options, host, judged);
    if (!arch) arch = host.arch;
    machine = host.machine;
    judged.detected = std::move(host);
  } else if (!arch) {
    arch = compat::detectCpuArch(&machine);
  }
  if (!options.arch) {
    if (!arch) {
      return badInput("--arch: this machine's CPU ('" + machine +
                      "') is neither amd64 nor arm64; give --arch amd64 or --arch arm64");
    }
    judged.archOrigin = ValueOrigin::System;
  }
  query.arch = *arch;
  return judged;
}

Expected<const catalog::Release*> resolveImage(const catalog::Catalog& catalog,
                                               const std::string& text) {
  const std::string_view reference = trim(text);
  if (reference.empty()) {
    return badInput("--image: the image tag is empty; " + knownTagsText(catalog));
  }
  if (reference.find('@') != std::string_view::npos) {
    return badInput("--image: '" + text + "' names an image by digest; give its tag instead, " +
                    "for example training-nv-pytorch:25.04");
  }

  std::string_view tag = reference;
  const auto slash = reference.rfind('/');
  const auto colon = reference.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    const std::vector<std::string> known = catalogRepositories(catalog);
    const std::string repository = repositoryName(reference);
    if (std::find(known.begin(), known.end(), repository) == known.end()) {
      return badInput("--image: '" + text + "' is not an image of the catalog (repository '" +
                      repository + "'; the catalog describes " + joinList(known) + ")");
    }
    tag = reference.substr(colon + 1);
  } else if (slash != std::string_view::npos) {
    return badInput("--image: image reference '" + text +
                    "' has no tag; add one, for example ':25.04'");
  }
  if (tag.ends_with(kServerlessSuffix)) tag.remove_suffix(kServerlessSuffix.size());

  if (const catalog::Release* release = catalog.findRelease(tag)) return release;
  return makeError(ErrorKind::NotFound, "--image: unknown image tag '" + std::string(tag) + "'; " +
                                            knownTagsText(catalog));
}

}  // namespace tb::cli
