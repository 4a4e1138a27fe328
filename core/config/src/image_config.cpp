// Validation of an ImageConfig happens once, here, so that every generator can
// trust its input and every bad value is reported with the field's name.
#include "tb/config/image_config.hpp"

#include <algorithm>
#include <array>

#include "tb/common/text.hpp"

namespace tb::config {
namespace {

Error badField(std::string_view field, const std::string& value, std::string_view why) {
  return makeError(ErrorKind::BadInput,
                   std::string(field) + ": '" + value + "' " + std::string(why));
}

bool isDnsLabel(std::string_view text) {
  if (text.empty() || text.size() > 40) return false;
  if (text.front() < 'a' || text.front() > 'z' || text.back() == '-') return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

std::string tagAsLabel(std::string_view tag) {
  std::string label(tag);
  std::replace(label.begin(), label.end(), '.', '-');
  return toLower(label);
}

Status checkShape(const ImageConfig& config) {
  if (socketInterfaceFor(config.gpusPerPod).empty()) {
    return badField("gpus", std::to_string(config.gpusPerPod),
                    "is not a pod size the image supports: use 1, 2, 4, 8 or 16 GPUs");
  }
  if (config.nodes < 1 || config.nodes > 1024) {
    return badField("nodes", std::to_string(config.nodes), "must be between 1 and 1024");
  }
  if (config.deepspeed.zeroStage < 0 || config.deepspeed.zeroStage > 3) {
    return badField("zero", std::to_string(config.deepspeed.zeroStage),
                    "is not a ZeRO stage: use 0, 1, 2 or 3");
  }
  if (config.deepspeed.offloadParameters && config.deepspeed.zeroStage != 3) {
    return badField("zero", std::to_string(config.deepspeed.zeroStage),
                    "cannot offload parameters: parameter offload needs ZeRO stage 3");
  }
  if (config.deepspeed.offloadOptimizer && config.deepspeed.zeroStage == 0) {
    return badField("zero", "0", "cannot offload the optimizer: optimizer offload needs ZeRO 1-3");
  }
  if (config.microBatch < 1) {
    return badField("micro-batch", std::to_string(config.microBatch), "must be at least 1");
  }
  if (config.gradientAccumulation < 1) {
    return badField("gradient-accumulation", std::to_string(config.gradientAccumulation),
                    "must be at least 1");
  }
  if (config.seqLength < 1) {
    return badField("seq", std::to_string(config.seqLength), "must be at least 1");
  }
  return {};
}

Status checkOptimizations(const ImageConfig& config) {
  // The image's notes: the compiler optimization is torch_compile=True
  // *together with* bf16 and gradient checkpointing in the Trainer.
  if (config.compilerOptimization && !config.bf16) {
    return makeError(ErrorKind::BadInput,
                     "compile: the compiler optimization needs bf16; turn bf16 on or compile off");
  }
  if (config.compilerOptimization && !config.gradientCheckpointing) {
    return makeError(ErrorKind::BadInput,
                     "compile: the compiler optimization needs gradient checkpointing; turn it "
                     "on or compile off");
  }
  if (config.model.empty() || config.model.find_first_of(" \t\n\"'") != std::string::npos) {
    return badField("model", config.model, "is not a model name (no spaces or quotes)");
  }
  if (!isDnsLabel(config.jobName)) {
    return badField("job-name", config.jobName,
                    "is not a Kubernetes name: lower-case letters, digits and '-', starting "
                    "with a letter, at most 40 characters");
  }
  return {};
}

Expected<std::string> imageReference(const ImageConfig& config, const catalog::Release& release) {
  if (config.registry == RegistryKind::Public) return release.image;
  const auto& regions = release.vpcRegions;
  if (std::find(regions.begin(), regions.end(), config.region) == regions.end()) {
    return badField("region", config.region,
                    "has no VPC mirror of " + release.tag + "; VPC regions: " + joinList(regions));
  }
  std::string reference = release.vpcImagePattern;
  const std::string placeholder = "{region-id}";
  const auto at = reference.find(placeholder);
  if (at == std::string::npos) {
    return makeError(ErrorKind::BadInput, "release " + release.tag + ": VPC image pattern '" +
                                              reference + "' has no {region-id} placeholder");
  }
  return reference.replace(at, placeholder.size(), config.region);
}

}  // namespace

std::string_view toString(RegistryKind kind) noexcept {
  return kind == RegistryKind::Vpc ? "vpc" : "public";
}

std::string_view socketInterfaceFor(int gpus) noexcept {
  constexpr std::array<int, 4> kEthernetPodSizes = {1, 2, 4, 8};
  if (std::find(kEthernetPodSizes.begin(), kEthernetPodSizes.end(), gpus) !=
      kEthernetPodSizes.end()) {
    return "eth0";
  }
  return gpus == 16 ? "hpn0" : "";
}

Expected<ResolvedConfig> resolveConfig(const ImageConfig& config, const catalog::Catalog& catalog) {
  const catalog::Release* release = catalog.findRelease(config.tag);
  if (release == nullptr) {
    return makeError(ErrorKind::NotFound, "image: unknown release '" + config.tag +
                                              "'; known tags: " + joinList(catalog.tags()));
  }
  if (auto shape = checkShape(config); !shape) return shape.error();
  if (auto optimizations = checkOptimizations(config); !optimizations) {
    return optimizations.error();
  }
  auto reference = imageReference(config, *release);
  if (!reference) return reference.error();
  ResolvedConfig resolved;
  resolved.config = config;
  resolved.release = *release;
  resolved.imageReference = std::move(*reference);
  resolved.socketInterface = std::string(socketInterfaceFor(config.gpusPerPod));
  resolved.objectName = config.jobName + "-" + tagAsLabel(release->tag);
  return resolved;
}

}  // namespace tb::config
