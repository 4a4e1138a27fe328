// The worker side of torchrun's environment contract, and the launcher side
// that writes it. Everything is checked before a socket is opened: a worker
// with a wrong RANK or a mistyped interface otherwise waits in the rendezvous
// until its timeout and says nothing useful.
//
// The interface rules copy what the libraries do with the same variables:
// c10d's Python binding splits GLOO_SOCKET_IFNAME with std::getline and uses
// it only when longer than one character; NCCL's ncclFindInterfaces has the
// same length rule, reads '^' then '=' at the front, and its parseStringList
// skips empty entries and takes ":N" after a name as a port.
#include "tb/engine/launch_env.hpp"

#include <ifaddrs.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "tb/common/text.hpp"

namespace tb::engine {
namespace {

constexpr long long kMaxPort = 65535;

Error badInput(std::string message) { return makeError(ErrorKind::BadInput, std::move(message)); }

// Raw text is quoted so that an empty value or stray spaces show.
Error notANumber(const std::string& name, const std::string& text) {
  return badInput(name + " '" + text + "' is not a whole number (digits only)");
}

// A non-negative int variable; nullopt when unset.
Expected<std::optional<int>> readCount(const EnvLookup& lookup, const std::string& name) {
  const auto text = lookup(name);
  if (!text) return std::optional<int>{};
  const auto value = parseUnsigned(*text);
  if (!value) return notANumber(name, *text);
  if (*value > std::numeric_limits<int>::max())
    return badInput(name + " '" + *text + "' is too large");
  return std::optional<int>(static_cast<int>(*value));
}

Expected<std::optional<bool>> readAgentStore(const EnvLookup& lookup) {
  const std::string name = "TORCHELASTIC_USE_AGENT_STORE";
  const auto text = lookup(name);
  if (!text) return std::optional<bool>{};
  if (*text == "True" || *text == "true" || *text == "1") return std::optional<bool>(true);
  if (*text == "False" || *text == "false" || *text == "0") return std::optional<bool>(false);
  return badInput(name + " '" + *text + "' is not True or False");
}

Error missingInterface(std::string_view variable, const std::string& what,
                       const std::vector<std::string>& interfaces) {
  return badInput(std::string(variable) + ": no network interface " + what +
                  " on this host (interfaces: " +
                  (interfaces.empty() ? std::string("none") : joinList(interfaces)) + ")");
}

bool hasInterface(const std::vector<std::string>& interfaces, std::string_view name) {
  return std::find(interfaces.begin(), interfaces.end(), name) != interfaces.end();
}

}  // namespace

std::string LaunchEnv::agentStorePrefix() const {
  return "/worker/attempt_" + std::to_string(restartCount);
}

EnvLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

Expected<std::optional<LaunchEnv>> launchEnvFrom(const EnvLookup& lookup) {
  const auto rankText = lookup("RANK");
  const auto worldText = lookup("WORLD_SIZE");
  if (!rankText && !worldText) return std::optional<LaunchEnv>{};
  if (!worldText) {
    return badInput("RANK '" + *rankText +
                    "' is set but WORLD_SIZE is not: a launched worker needs both");
  }
  if (!rankText) {
    return badInput("WORLD_SIZE '" + *worldText +
                    "' is set but RANK is not: a launched worker needs both");
  }

  LaunchEnv env;
  const auto rank = readCount(lookup, "RANK");
  if (!rank) return rank.error();
  const auto world = readCount(lookup, "WORLD_SIZE");
  if (!world) return world.error();
  env.rank = **rank;
  env.worldSize = **world;
  if (env.worldSize < 1)
    return badInput("WORLD_SIZE " + std::to_string(env.worldSize) + " must be at least 1");
  if (env.rank >= env.worldSize) {
    return badInput("RANK " + std::to_string(env.rank) + " must be below WORLD_SIZE " +
                    std::to_string(env.worldSize));
  }

  const auto localWorld = readCount(lookup, "LOCAL_WORLD_SIZE");
  if (!localWorld) return localWorld.error();
  env.localWorldSize = localWorld->value_or(env.worldSize);
  if (env.localWorldSize < 1) {
    return badInput("LOCAL_WORLD_SIZE " + std::to_string(env.localWorldSize) +
                    " must be at least 1");
  }
  if (env.worldSize % env.localWorldSize != 0) {
    return badInput("WORLD_SIZE " + std::to_string(env.worldSize) +
                    " is not a multiple of LOCAL_WORLD_SIZE " + std::to_string(env.localWorldSize));
  }
  // Ranks are laid out node by node, so on one node (the default) this is RANK.
  const auto localRank = readCount(lookup, "LOCAL_RANK");
  if (!localRank) return localRank.error();
  env.localRank = localRank->value_or(env.rank % env.localWorldSize);
  if (env.localRank >= env.localWorldSize) {
    return badInput("LOCAL_RANK " + std::to_string(env.localRank) +
                    " must be below LOCAL_WORLD_SIZE " + std::to_string(env.localWorldSize));
  }

  const int nodes = env.worldSize / env.localWorldSize;
  const auto groupRank = readCount(lookup, "GROUP_RANK");
  if (!groupRank) return groupRank.error();
  env.groupRank = groupRank->value_or(env.rank / env.localWorldSize);
  if (env.groupRank >= nodes) {
    return badInput("GROUP_RANK " + std::to_string(env.groupRank) +
                    " must be below the node count " + std::to_string(nodes) + " (WORLD_SIZE " +
                    std::to_string(env.worldSize) + " / LOCAL_WORLD_SIZE " +
                    std::to_string(env.localWorldSize) + ")");
  }

  if (const auto addr = lookup("MASTER_ADDR")) {
    if (addr->empty())
      return badInput("MASTER_ADDR '' is empty: it must name the host of the store");
    env.masterAddr = *addr;
  }
  if (const auto portText = lookup("MASTER_PORT")) {
    const auto port = parseUnsigned(*portText);
    if (!port) return notANumber("MASTER_PORT", *portText);
    if (*port < 1 || *port > kMaxPort)
      return badInput("MASTER_PORT " + *portText + " is not a port (1..65535)");
    env.masterPort = static_cast<std::uint16_t>(*port);
  }

  const auto agentStore = readAgentStore(lookup);
  if (!agentStore) return agentStore.error();
  env.useAgentStore = agentStore->value_or(false);
  const auto restarts = readCount(lookup, "TORCHELASTIC_RESTART_COUNT");
  if (!restarts) return restarts.error();
  env.restartCount = restarts->value_or(0);

  return std::optional<LaunchEnv>(std::move(env));
}

std::map<std::string, std::string> toEnvironment(const LaunchEnv& env) {
  const auto text = [](int value) { return std::to_string(value); };
  const int nodes = env.localWorldSize > 0 ? env.worldSize / env.localWorldSize : 0;
  return {
      {"RANK", text(env.rank)},
      {"LOCAL_RANK", text(env.localRank)},
      {"WORLD_SIZE", text(env.worldSize)},
      {"LOCAL_WORLD_SIZE", text(env.localWorldSize)},
      {"GROUP_RANK", text(env.groupRank)},
      {"GROUP_WORLD_SIZE", text(nodes)},
      // One role ("default"), so role ranks are the global ones, as torchrun sets them.
      {"ROLE_RANK", text(env.rank)},
      {"ROLE_WORLD_SIZE", text(env.worldSize)},
      {"ROLE_NAME", "default"},
      {"MASTER_ADDR", env.masterAddr},
      {"MASTER_PORT", std::to_string(env.masterPort)},
      {"TORCHELASTIC_USE_AGENT_STORE", env.useAgentStore ? "True" : "False"},
      {"TORCHELASTIC_RESTART_COUNT", text(env.restartCount)},
      {"TORCHELASTIC_MAX_RESTARTS", "0"},
      {"TORCHELASTIC_RUN_ID", "none"},
  };
}

std::vector<std::string> hostInterfaces() {
  std::vector<std::string> names;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return names;
  // getifaddrs lists an interface once per address (and once for AF_PACKET).
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_name == nullptr || entry->ifa_addr == nullptr) continue;
    const int family = entry->ifa_addr->sa_family;
    if (family == AF_INET || family == AF_INET6) names.emplace_back(entry->ifa_name);
  }
  freeifaddrs(list);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Expected<std::vector<std::string>> glooInterfaces(const EnvLookup& lookup,
                                                  const std::vector<std::string>& interfaces) {
  constexpr std::string_view kVariable = "GLOO_SOCKET_IFNAME";
  std::vector<std::string> names;
  const auto value = lookup(std::string(kVariable));
  if (!value || value->size() <= 1) return names;
  auto parts = split(*value, ',');
  // std::getline, which c10d splits with, yields no piece after a final separator.
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  for (const auto part : parts) {
    if (!hasInterface(interfaces, part))
      return missingInterface(kVariable, "'" + std::string(part) + "'", interfaces);
    names.emplace_back(part);
  }
  return names;
}

Status checkNcclInterfaces(const EnvLookup& lookup, const std::vector<std::string>& interfaces) {
  constexpr std::string_view kVariable = "NCCL_SOCKET_IFNAME";
  const auto value = lookup(std::string(kVariable));
  if (!value || value->size() <= 1) return {};
  std::string_view list = *value;
  if (list.front() == '^') return {};
  const bool exact = list.front() == '=';
  if (exact) list.remove_prefix(1);

  bool namedAny = false;
  for (auto entry : split(list, ',')) {
    entry = entry.substr(0, entry.find(':'));
    if (entry.empty()) continue;
    namedAny = true;
    const bool found =
        std::any_of(interfaces.begin(), interfaces.end(), [&](const std::string& name) {
          return exact ? name == entry : std::string_view(name).starts_with(entry);
        });
    if (!found) {
      const std::string quoted = "'" + std::string(entry) + "'";
      return missingInterface(kVariable, exact ? quoted : "starting with " + quoted, interfaces);
    }
  }
  if (!namedAny) return badInput(std::string(kVariable) + " '" + *value + "' names no interface");
  return {};
}

}  // namespace tb::engine
