// The torchrun contract without torchrun: a worker reads its place from the
// environment (defaults as a single node, every bad value named with its
// variable), a launcher's environment reads back to what it wrote, and the
// socket-interface variables are checked the way c10d and NCCL read them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tb/engine/launch_env.hpp"

namespace {

using tb::engine::EnvLookup;
using tb::engine::LaunchEnv;
using Variables = std::map<std::string, std::string>;

EnvLookup lookupIn(const Variables& variables) {
  return [variables](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

LaunchEnv parsed(const Variables& variables) {
  const auto env = tb::engine::launchEnvFrom(lookupIn(variables));
  EXPECT_TRUE(env.ok()) << (env.ok() ? "" : env.error().message);
  if (!env.ok() || !env->has_value()) {
    ADD_FAILURE() << "not read as a launched worker";
    return {};
  }
  return **env;
}

// The message of the BadInput error `variables` must give.
std::string errorFor(const Variables& variables) {
  const auto env = tb::engine::launchEnvFrom(lookupIn(variables));
  EXPECT_FALSE(env.ok());
  if (env.ok()) return {};
  EXPECT_EQ(env.error().kind, tb::ErrorKind::BadInput);
  return env.error().message;
}

const std::vector<std::string> kHost = {"docker0", "eth0", "eth1", "ib0", "lo"};

TEST(LaunchEnv, NotAWorkerWithoutRankOrWorldSize) {
  for (const Variables& variables :
       {Variables{},
        Variables{{"LOCAL_RANK", "0"}, {"MASTER_ADDR", "node0"}, {"MASTER_PORT", "x"}}}) {
    const auto env = tb::engine::launchEnvFrom(lookupIn(variables));
    ASSERT_TRUE(env.ok()) << env.error().message;
    EXPECT_FALSE(env->has_value());
  }
}

TEST(LaunchEnv, DefaultsDescribeOneNode) {
  const LaunchEnv env = parsed({{"RANK", "1"}, {"WORLD_SIZE", "3"}});
  EXPECT_EQ(env.rank, 1);
  EXPECT_EQ(env.worldSize, 3);
  EXPECT_EQ(env.localRank, 1);
  EXPECT_EQ(env.localWorldSize, 3);
  EXPECT_EQ(env.groupRank, 0);
  EXPECT_EQ(env.masterAddr, "127.0.0.1");
  EXPECT_EQ(env.masterPort, 29500);
  EXPECT_FALSE(env.useAgentStore);
  EXPECT_EQ(env.restartCount, 0);
}

TEST(LaunchEnv, DefaultsFollowTheNodeLayout) {
  const LaunchEnv env = parsed({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_WORLD_SIZE", "4"}});
  EXPECT_EQ(env.localRank, 1);
  EXPECT_EQ(env.groupRank, 1);
}

TEST(LaunchEnv, ReadsWhatTorchrunStandaloneSets) {
  // Measured with `torchrun --standalone --nproc_per_node=2` (1.13), local rank 1.
  const LaunchEnv env = parsed({{"RANK", "1"},
                                {"LOCAL_RANK", "1"},
                                {"WORLD_SIZE", "2"},
                                {"LOCAL_WORLD_SIZE", "2"},
                                {"GROUP_RANK", "0"},
                                {"GROUP_WORLD_SIZE", "1"},
                                {"ROLE_RANK", "1"},
                                {"ROLE_WORLD_SIZE", "2"},
                                {"ROLE_NAME", "default"},
                                {"MASTER_ADDR", "localhost"},
                                {"MASTER_PORT", "43267"},
                                {"TORCHELASTIC_RUN_ID", "afe36807"},
                                {"TORCHELASTIC_USE_AGENT_STORE", "False"},
                                {"TORCHELASTIC_RESTART_COUNT", "0"},
                                {"TORCHELASTIC_MAX_RESTARTS", "0"},
                                {"NCCL_ASYNC_ERROR_HANDLING", "1"}});
  LaunchEnv expected;
  expected.rank = 1;
  expected.localRank = 1;
  expected.worldSize = 2;
  expected.localWorldSize = 2;
  expected.masterAddr = "localhost";
  expected.masterPort = 43267;
  EXPECT_EQ(env, expected);
}

TEST(LaunchEnv, RoundTripsThroughTheEnvironment) {
  int checked = 0;
  for (const int localWorld : {1, 2, 3}) {
    for (const int nodes : {1, 2, 4}) {
      const int world = localWorld * nodes;
      for (int rank = 0; rank < world; ++rank) {
        for (const bool agentStore : {false, true}) {
          LaunchEnv env;
          env.rank = rank;
          env.worldSize = world;
          env.localWorldSize = localWorld;
          env.localRank = rank % localWorld;
          env.groupRank = rank / localWorld;
          env.masterAddr = agentStore ? "node0.cluster.local" : "10.0.0.1";
          env.masterPort = agentStore ? std::uint16_t{1} : std::uint16_t{65535};
          env.useAgentStore = agentStore;
          env.restartCount = rank % 3;
          const auto back = tb::engine::launchEnvFrom(lookupIn(tb::engine::toEnvironment(env)));
          ASSERT_TRUE(back.ok()) << back.error().message;
          ASSERT_TRUE(back->has_value());
          EXPECT_EQ(**back, env) << "rank " << rank << " of " << world;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 50);
  // The defaults, too: a single process seen as a group of one.
  const auto one = tb::engine::launchEnvFrom(lookupIn(tb::engine::toEnvironment(LaunchEnv{})));
  ASSERT_TRUE(one.ok() && one->has_value());
  EXPECT_EQ(**one, LaunchEnv{});
}

TEST(LaunchEnv, WritesTorchrunsWholeEnvironment) {
  LaunchEnv env;
  env.rank = 5;
  env.localRank = 1;
  env.worldSize = 8;
  env.localWorldSize = 4;
  env.groupRank = 1;
  env.masterAddr = "node0";
  env.masterPort = 29517;
  env.useAgentStore = true;
  env.restartCount = 2;
  const Variables expected = {{"RANK", "5"},
                              {"LOCAL_RANK", "1"},
                              {"WORLD_SIZE", "8"},
                              {"LOCAL_WORLD_SIZE", "4"},
                              {"GROUP_RANK", "1"},
                              {"GROUP_WORLD_SIZE", "2"},
                              {"ROLE_RANK", "5"},
                              {"ROLE_WORLD_SIZE", "8"},
                              {"ROLE_NAME", "default"},
                              {"MASTER_ADDR", "node0"},
                              {"MASTER_PORT", "29517"},
                              {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                              {"TORCHELASTIC_RESTART_COUNT", "2"},
                              {"TORCHELASTIC_MAX_RESTARTS", "0"},
                              {"TORCHELASTIC_RUN_ID", "none"}};
  EXPECT_EQ(tb::engine::toEnvironment(env), expected);
}

TEST(LaunchEnv, AcceptsEveryAgentStoreSpelling) {
  for (const char* yes : {"True", "true", "1"}) {
    EXPECT_TRUE(parsed({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"TORCHELASTIC_USE_AGENT_STORE", yes}})
                    .useAgentStore)
        << yes;
  }
  for (const char* no : {"False", "false", "0"}) {
    EXPECT_FALSE(parsed({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"TORCHELASTIC_USE_AGENT_STORE", no}})
                     .useAgentStore)
        << no;
  }
}

TEST(LaunchEnv, AgentStorePrefixNamesTheAttempt) {
  LaunchEnv env;
  EXPECT_EQ(env.agentStorePrefix(), "/worker/attempt_0");
  env.restartCount = 3;
  EXPECT_EQ(env.agentStorePrefix(), "/worker/attempt_3");
  EXPECT_EQ(parsed({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"TORCHELASTIC_RESTART_COUNT", "7"}})
                .agentStorePrefix(),
            "/worker/attempt_7");
}

TEST(LaunchEnv, NamesEachBadVariableAndValue) {
  struct Case {
    Variables variables;
    std::vector<std::string> mentions;
  };
  const Variables two = {{"RANK", "0"}, {"WORLD_SIZE", "2"}};
  const auto with = [&](const std::string& name, const std::string& value) {
    Variables variables = two;
    variables[name] = value;
    return variables;
  };
  const std::vector<Case> cases = {
      {{{"RANK", "3"}}, {"RANK '3'", "WORLD_SIZE"}},
      {{{"WORLD_SIZE", "4"}}, {"WORLD_SIZE '4'", "RANK"}},
      {with("RANK", "-1"), {"RANK '-1'"}},
      {with("RANK", "+1"), {"RANK '+1'"}},
      {with("RANK", " 1"), {"RANK ' 1'"}},
      {with("RANK", "1.0"), {"RANK '1.0'"}},
      {with("RANK", ""), {"RANK ''"}},
      {with("RANK", "0x1"), {"RANK '0x1'"}},
      {with("RANK", "99999999999"), {"RANK '99999999999'"}},
      {with("RANK", "2"), {"RANK 2", "WORLD_SIZE 2"}},
      {with("WORLD_SIZE", "0"), {"WORLD_SIZE 0"}},
      {with("WORLD_SIZE", "two"), {"WORLD_SIZE 'two'"}},
      {{{"RANK", "0"}, {"WORLD_SIZE", "3"}, {"LOCAL_WORLD_SIZE", "2"}},
       {"WORLD_SIZE 3 is not a multiple of LOCAL_WORLD_SIZE 2"}},
      {with("LOCAL_WORLD_SIZE", "0"), {"LOCAL_WORLD_SIZE 0"}},
      {with("LOCAL_WORLD_SIZE", "-2"), {"LOCAL_WORLD_SIZE '-2'"}},
      {with("LOCAL_RANK", "2"), {"LOCAL_RANK 2", "LOCAL_WORLD_SIZE 2"}},
      {with("LOCAL_RANK", "a"), {"LOCAL_RANK 'a'"}},
      {{{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"LOCAL_WORLD_SIZE", "2"}, {"GROUP_RANK", "2"}},
       {"GROUP_RANK 2", "WORLD_SIZE 4", "LOCAL_WORLD_SIZE 2"}},
      {with("GROUP_RANK", "1"), {"GROUP_RANK 1"}},
      {with("GROUP_RANK", "x"), {"GROUP_RANK 'x'"}},
      {with("MASTER_ADDR", ""), {"MASTER_ADDR ''"}},
      {with("MASTER_PORT", "0"), {"MASTER_PORT 0"}},
      {with("MASTER_PORT", "65536"), {"MASTER_PORT 65536"}},
      {with("MASTER_PORT", "http"), {"MASTER_PORT 'http'"}},
      {with("TORCHELASTIC_USE_AGENT_STORE", "yes"), {"TORCHELASTIC_USE_AGENT_STORE 'yes'"}},
      {with("TORCHELASTIC_USE_AGENT_STORE", "TRUE"), {"TORCHELASTIC_USE_AGENT_STORE 'TRUE'"}},
      {with("TORCHELASTIC_USE_AGENT_STORE", ""), {"TORCHELASTIC_USE_AGENT_STORE ''"}},
      {with("TORCHELASTIC_RESTART_COUNT", "-1"), {"TORCHELASTIC_RESTART_COUNT '-1'"}},
  };
  for (const Case& bad : cases) {
    const std::string message = errorFor(bad.variables);
    for (const std::string& mention : bad.mentions) {
      EXPECT_NE(message.find(mention), std::string::npos)
          << "'" << message << "' lacks " << mention;
    }
  }
}

TEST(LaunchEnv, ProcessEnvironmentReadsGetenv) {
  const auto lookup = tb::engine::processEnvironment();
  ASSERT_EQ(::setenv("TB_LAUNCH_ENV_TEST", "eth0", 1), 0);
  EXPECT_EQ(lookup("TB_LAUNCH_ENV_TEST"), std::optional<std::string>("eth0"));
  ASSERT_EQ(::unsetenv("TB_LAUNCH_ENV_TEST"), 0);
  EXPECT_FALSE(lookup("TB_LAUNCH_ENV_TEST").has_value());
}

TEST(HostInterfaces, ListsLoopbackOnceSorted) {
  const auto names = tb::engine::hostInterfaces();
  EXPECT_NE(std::find(names.begin(), names.end(), "lo"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

std::vector<std::string> gloo(const std::string& value) {
  const auto names = tb::engine::glooInterfaces(lookupIn({{"GLOO_SOCKET_IFNAME", value}}), kHost);
  EXPECT_TRUE(names.ok()) << value << ": " << (names.ok() ? "" : names.error().message);
  return names.ok() ? *names : std::vector<std::string>{"(error)"};
}

std::string glooError(const std::string& value) {
  const auto names =
      tb::engine::glooInterfaces(lookupIn({{"GLOO_SOCKET_IFNAME", value}}), {"eth0", "lo"});
  EXPECT_FALSE(names.ok()) << value;
  if (names.ok()) return {};
  EXPECT_EQ(names.error().kind, tb::ErrorKind::BadInput);
  return names.error().message;
}

TEST(GlooInterfaces, UnsetEmptyOrOneCharacterMeansTheDefaultDevice) {
  const auto unset = tb::engine::glooInterfaces(lookupIn({}), kHost);
  ASSERT_TRUE(unset.ok());
  EXPECT_TRUE(unset->empty());
  EXPECT_TRUE(gloo("").empty());
  EXPECT_TRUE(gloo("x").empty());  // c10d's strlen > 1 rule: not even checked
  EXPECT_TRUE(gloo(",").empty());
}

TEST(GlooInterfaces, ExactNamesInOrder) {
  EXPECT_EQ(gloo("lo"), std::vector<std::string>({"lo"}));
  EXPECT_EQ(gloo("eth1,eth0"), std::vector<std::string>({"eth1", "eth0"}));
  EXPECT_EQ(gloo("eth0,"),
            std::vector<std::string>({"eth0"}));  // getline: nothing after the last comma
}

TEST(GlooInterfaces, EveryNameMustExist) {
  EXPECT_EQ(glooError("eth9"),
            "GLOO_SOCKET_IFNAME: no network interface 'eth9' on this host (interfaces: eth0, lo)");
  EXPECT_NE(glooError("eth").find("'eth'"), std::string::npos);  // no prefix matching
  EXPECT_NE(glooError("eth0,eth9").find("'eth9'"), std::string::npos);
  EXPECT_NE(glooError("eth0, lo").find("' lo'"), std::string::npos);  // no trimming, as c10d
  EXPECT_NE(glooError("eth0,,lo").find("''"), std::string::npos);
  EXPECT_NE(glooError("^eth0").find("'^eth0'"), std::string::npos);  // Gloo knows no exclusions
  const auto none = tb::engine::glooInterfaces(lookupIn({{"GLOO_SOCKET_IFNAME", "eth0"}}), {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("(interfaces: none)"), std::string::npos);
}

tb::Status nccl(const std::string& value) {
  return tb::engine::checkNcclInterfaces(lookupIn({{"NCCL_SOCKET_IFNAME", value}}), kHost);
}

TEST(NcclInterfaces, UnsetEmptyOrOneCharacterIsNotChecked) {
  EXPECT_TRUE(tb::engine::checkNcclInterfaces(lookupIn({}), kHost).ok());
  EXPECT_TRUE(nccl("").ok());
  EXPECT_TRUE(nccl("x").ok());
  EXPECT_TRUE(nccl("=").ok());
  EXPECT_TRUE(nccl("^").ok());
}

TEST(NcclInterfaces, PrefixesMatchAnyInterfaceStartingWithThem) {
  EXPECT_TRUE(nccl("eth").ok());
  EXPECT_TRUE(nccl("eth0").ok());
  EXPECT_TRUE(nccl("ib,lo").ok());
  EXPECT_TRUE(nccl("eth,,lo").ok());  // empty entries are skipped
  EXPECT_TRUE(nccl("ib0:1").ok());    // ":N" is a port, not part of the name
  const tb::Status missing = nccl("eth,enp");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, tb::ErrorKind::BadInput);
  EXPECT_EQ(missing.error().message,
            "NCCL_SOCKET_IFNAME: no network interface starting with 'enp' on this host "
            "(interfaces: docker0, eth0, eth1, ib0, lo)");
}

TEST(NcclInterfaces, EqualsMakesNamesExact) {
  EXPECT_TRUE(nccl("=eth0").ok());
  EXPECT_TRUE(nccl("=eth0,lo").ok());
  const tb::Status prefixOnly = nccl("=eth");
  ASSERT_FALSE(prefixOnly.ok());
  EXPECT_EQ(prefixOnly.error().message,
            "NCCL_SOCKET_IFNAME: no network interface 'eth' on this host "
            "(interfaces: docker0, eth0, eth1, ib0, lo)");
  EXPECT_FALSE(nccl("=,").ok());  // names nothing: NCCL would find no interface
  EXPECT_NE(nccl("=,").error().message.find("'=,'"), std::string::npos);
}

TEST(NcclInterfaces, CaretExcludesAndIsNeverAnError) {
  EXPECT_TRUE(nccl("^docker,lo").ok());
  EXPECT_TRUE(nccl("^nothing9").ok());
  EXPECT_TRUE(nccl("^=eth0").ok());
  EXPECT_TRUE(nccl("^docker0,eth0,eth1,ib0,lo").ok());
  // '^' counts only in front; further in it is part of a prefix no interface has.
  EXPECT_FALSE(nccl("=^eth0").ok());
  EXPECT_FALSE(nccl("eth0,^lo").ok());
}

}  // namespace
