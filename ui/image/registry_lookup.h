// What the registry panel asks a registry, as plain functions over the core
// client: Qt-free so they run on a worker thread and read like the CLI's
// `registry tags` + `registry inspect`. Each takes a StopToken that the
// transport polls, so a Cancel in the GUI ends a stalled request promptly.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/common/stop_token.hpp"
#include "tb/registry/registry_client.hpp"

namespace tb::ui {

/// Which registry and repository to ask, and as whom.
struct RegistryLookupTarget {
  std::string host;        ///< "127.0.0.1:5000", "registry.example"
  std::string repository;  ///< "egslingjun/training-nv-pytorch"
  std::optional<tb::registry::Credentials> credentials;
  bool plainHttp = false;  ///< honoured only for loopback hosts
};

/// A tag and the architectures its manifest lists.
struct TagPlatforms {
  std::string tag;
  std::vector<std::string> architectures;  ///< sorted, unique
  bool platformsKnown = false;             ///< false: over the cap or unreadable
};

/// How many tags (the newest) get their manifests read for badges: one
/// small request each; the rest are listed without architectures.
inline constexpr std::size_t kMaxTagsWithPlatforms = 40;

/// A client with GUI timeouts (10 s connect, 30 s per request) whose
/// requests and retry waits end when `cancel` is stopped. Plain HTTP to a
/// non-loopback host is refused (BadInput).
[[nodiscard]] tb::Expected<std::unique_ptr<tb::registry::RegistryClient>> makeLookupClient(
    const RegistryLookupTarget& target, const tb::StopToken& cancel);

/// Lists the tags, then reads the architectures of the newest
/// kMaxTagsWithPlatforms. `progress` (may be empty) hears how many manifests
/// of how many are read.
[[nodiscard]] tb::Expected<std::vector<TagPlatforms>> listTagsWithPlatforms(
    tb::registry::RegistryClient& client, const std::string& repository,
    const tb::StopToken& cancel, const tb::ProgressFn& progress);

/// True when `a` is an older tag than `b`, comparing digit runs as numbers
/// ("25.9" < "25.10").
[[nodiscard]] bool tagOlderThan(const std::string& a, const std::string& b);

}  // namespace tb::ui
