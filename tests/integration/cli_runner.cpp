// Failures to start the binary are reported as test failures with the
// reason, never as crashes, so a missing build shows up clearly in ctest.
#include "cli_runner.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tb/common/subprocess.hpp"

namespace tb::cli::test {

CliRun runCli(const std::vector<std::string>& args,
              const std::map<std::string, std::string>& environment,
              const std::vector<std::string>& unset) {
  std::vector<std::string> argv{TRAINBENCH_EXE};
  argv.insert(argv.end(), args.begin(), args.end());

  ProcessOptions options;
  options.timeout = std::chrono::milliseconds(30000);
  options.environment = {
      {"TRAINBENCH_DISABLE_NVML", "1"},
      {"TRAINBENCH_NVIDIA_SMI", "/nonexistent/nvidia-smi"},
      {"TRAINBENCH_PROC_DRIVER_VERSION", "/nonexistent/proc-driver-version"},
      {"LC_ALL", "C"},
  };
  for (const auto& [name, value] : environment) options.environment[name] = value;
  options.unsetEnvironment = unset;

  CliRun run;
  auto result = runProcess(argv, options);
  if (!result) {
    ADD_FAILURE() << "cannot start " << TRAINBENCH_EXE << ": " << result.error().message;
    return run;
  }
  EXPECT_FALSE(result->timedOut) << "trainbench timed out";
  EXPECT_EQ(result->signal, 0) << "trainbench was killed by signal " << result->signal;
  run.exitCode = result->exitCode;
  run.out = std::move(result->standardOutput);
  run.err = std::move(result->standardError);
  return run;
}

std::string fixture(const std::string& name) {
  return std::string(TB_TEST_DATA_DIR) + "/cli/" + name;
}

std::map<std::string, std::string> fakeSmiHost(const std::string& script) {
  return {{"TRAINBENCH_NVIDIA_SMI", fixture(script)}};
}

nlohmann::json parseSingleDocument(const CliRun& run) {
  try {
    return nlohmann::json::parse(run.out);
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << "stdout is not exactly one JSON document: " << error.what() << "\nstdout:\n"
                  << run.out << "\nstderr:\n"
                  << run.err;
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
}

const std::vector<std::string>& builtinTags() {
  static const std::vector<std::string> tags{"25.04", "25.06", "25.07", "25.08", "25.09", "25.10"};
  return tags;
}

int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace tb::cli::test
