// The release catalog: what the release notes of each training-nv-pytorch
// image say (CUDA, required driver, forward-compatibility allowances,
// architectures, components), plus NVIDIA's driver tables that the verdict
// needs. Plain data; loading and validation live in catalog_loader.hpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tb/catalog/driver_version.hpp"

namespace tb::catalog {

/// CPU architecture as OCI platforms name it.
enum class CpuArch { Amd64, Arm64 };

/// "amd64" or "arm64".
[[nodiscard]] std::string_view toString(CpuArch arch) noexcept;
/// Accepts amd64/x86_64 and arm64/aarch64 (any case); nothing otherwise.
[[nodiscard]] std::optional<CpuArch> parseCpuArch(std::string_view text);

/// A driver branch the release notes allow in forward-compatibility mode on
/// data-center GPUs, from `minimum` upwards within the branch ("R535 from
/// 535.86").
struct ForwardCompatAllowance {
  int branch = 0;
  DriverVersion minimum;
};

/// One software component shipped in the image ("torch", "2.7.1.8+nv25.3").
struct Component {
  std::string name;
  std::string version;
};

/// One image release (a tag of training-nv-pytorch).
struct Release {
  std::string tag;                      ///< "25.04"
  std::string image;                    ///< public image reference with tag
  std::string vpcImagePattern;          ///< reference with a {region-id} placeholder
  std::vector<std::string> vpcRegions;  ///< regions where the VPC mirror is pullable
  std::string cudaVersion;              ///< "12.8.0"
  int requiredDriverMajor = 0;          ///< "requires driver >= 575" -> 575
  std::vector<ForwardCompatAllowance> forwardCompat;
  std::vector<int> mustUpgradeBranches;  ///< branches the notes say are not forward-compatible
  std::vector<CpuArch> architectures;
  std::vector<Component> components;
  std::vector<std::string> highlights;
  std::string baseImage;  ///< "NGC PyTorch 25.03"
  std::string notesUrl;   ///< where the facts come from

  [[nodiscard]] bool hasArchitecture(CpuArch arch) const;
  /// The component's version, or nothing when the notes do not give one.
  [[nodiscard]] std::optional<std::string> componentVersion(std::string_view name) const;
  [[nodiscard]] const ForwardCompatAllowance* allowanceFor(int branch) const;
  [[nodiscard]] bool mustUpgrade(int branch) const;
  /// The NGC image the release is built on, as a reference to pull
  /// ("nvcr.io/nvidia/pytorch:25.03-py3"), when baseImage names an NGC
  /// PyTorch release ("NGC PyTorch 25.03"); nothing otherwise.
  [[nodiscard]] std::optional<std::string> baseImageReference() const;
};

/// One row of NVIDIA's "CUDA Toolkit and minimum driver" table.
struct ToolkitDriverRequirement {
  std::string cudaRelease;  ///< as NVIDIA labels it: "12.8 U1", "13.0 GA"
  std::string cudaVersion;  ///< numeric "12.8.1", "13.0.0"
  DriverVersion minimumLinux;
};

/// Lifecycle class of a data-center driver branch.
enum class BranchKind { LongTermSupport, Production, NewFeature, Legacy };

[[nodiscard]] std::string_view toString(BranchKind kind) noexcept;

/// A driver branch as NVIDIA's current lifecycle table and forward
/// compatibility matrix describe it.
struct DriverBranch {
  int branch = 0;  ///< 535
  BranchKind kind = BranchKind::Legacy;
  std::optional<std::string> endOfLife;  ///< "2026-06" (year-month), when known
  bool inForwardCompatMatrix = false;    ///< false: "end of life, not a supported target"
  DriverVersion representative;          ///< a real version of the branch, used for matrix cells
  std::string maxCuda;                   ///< newest CUDA the branch runs without compat, "12.2"
};

/// The whole catalog: releases plus NVIDIA's tables.
struct Catalog {
  int schemaVersion = 1;
  std::string catalogVersion;        ///< date-stamped version of the data, "2026.11.1"
  std::vector<std::string> sources;  ///< files the catalog was read from
  std::vector<Release> releases;     ///< sorted by tag
  std::vector<ToolkitDriverRequirement> toolkitDrivers;
  std::vector<DriverBranch> driverBranches;  ///< sorted by branch

  [[nodiscard]] const Release* findRelease(std::string_view tag) const;
  [[nodiscard]] const DriverBranch* findBranch(int branch) const;
  [[nodiscard]] std::vector<std::string> tags() const;
};

}  // namespace tb::catalog
