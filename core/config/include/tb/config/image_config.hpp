// What a user chooses when running a training-nv-pytorch image: the release,
// where to pull it from, the pod shape and which of the image's optimizations
// are on. One plain struct feeds every artifact generator, so the env file,
// the manifest and the Trainer snippet can never disagree with each other.
#pragma once

#include <string>
#include <string_view>

#include "tb/catalog/catalog.hpp"
#include "tb/common/expected.hpp"

namespace tb::config {

/// Where the image is pulled from: the public registry, or the VPC mirror of
/// a region (faster, no internet egress, only where the catalog lists it).
enum class RegistryKind { Public, Vpc };

/// "public" or "vpc".
[[nodiscard]] std::string_view toString(RegistryKind kind) noexcept;

/// DeepSpeed settings the generators write into the JSON.
struct DeepSpeedOptions {
  int zeroStage = 3;               ///< 0..3
  bool offloadOptimizer = false;   ///< ZeRO optimizer state in host memory
  bool offloadParameters = false;  ///< ZeRO-3 parameters in host memory
};

/// One image configuration; the defaults are a single 8-GPU pod.
struct ImageConfig {
  std::string tag;  ///< release tag of the catalog, "25.04"
  RegistryKind registry = RegistryKind::Public;
  std::string region = "cn-beijing";  ///< VPC region; used only for RegistryKind::Vpc
  int gpusPerPod = 8;                 ///< 1, 2, 4, 8 or all 16 of a machine
  int nodes = 1;                      ///< pods (machines) in the job
  bool compilerOptimization = false;  ///< torch_compile=True in the Trainer
  bool gradientCheckpointing = true;
  bool checkpointOptimization = false;  ///< CHECKPOINT_OPTIMIZATION=true
  bool bf16 = true;
  DeepSpeedOptions deepspeed;
  std::string model = "llama3-8b";  ///< model preset or Hugging Face id
  int microBatch = 1;               ///< sequences per GPU per step
  int gradientAccumulation = 1;
  int seqLength = 4096;
  std::string jobName = "trainbench";  ///< Kubernetes object names derive from it
};

/// A configuration checked against the catalog, with what the generators need.
struct ResolvedConfig {
  ImageConfig config;
  catalog::Release release;
  std::string imageReference;   ///< the reference to pull, registry and tag included
  std::string socketInterface;  ///< NCCL_SOCKET_IFNAME for this pod size
  std::string objectName;       ///< DNS-1123 name for Kubernetes objects
};

/// The NCCL socket interface the image's notes give for a pod of `gpus`
/// GPUs: eth0 for 1, 2, 4 or 8, hpn0 for all 16; nothing for other sizes.
[[nodiscard]] std::string_view socketInterfaceFor(int gpus) noexcept;

/// Checks every field (the error names the field and its value, BadInput;
/// an unknown tag is NotFound and lists the known ones) and resolves the
/// release and the image reference.
[[nodiscard]] Expected<ResolvedConfig> resolveConfig(const ImageConfig& config,
                                                     const catalog::Catalog& catalog);

}  // namespace tb::config
