// slurm.conf's keys for one host are those a controller and a node daemon
// need without slurmdbd and without cgroups: munge for authentication (its
// socket given through AuthInfo), process tracking by /proc, no task
// binding, cores as the consumable resource, and jobs kept in the
// controller for ten minutes after they end (MinJobAge) so that `scontrol
// show job` still answers for the whole test.
#include "slurm_cluster.hpp"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"

namespace tb::cli::test {
namespace {

namespace fs = std::filesystem;

std::string fileText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string shortHostName() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  std::string host(name);
  return host.substr(0, host.find('.'));
}

// munge takes any key of at least 32 bytes; it must be private to its owner.
void writeMungeKey(const fs::path& path) {
  std::random_device random;
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 1024; ++i) out.put(static_cast<char>(random() & 0xff));
  out.close();
  fs::permissions(path, fs::perms::owner_read, fs::perm_options::replace);
}

std::string slurmConf(const fs::path& dir) {
  const std::string host = shortHostName();
  const unsigned cpus = std::max(1U, std::thread::hardware_concurrency());
  std::ostringstream conf;
  conf << "ClusterName=tbtest\n"
       // On loopback by address: the host name need not resolve.
       << "SlurmctldHost=" << host << "(127.0.0.1)\n"
       << "SlurmctldPort=" << freeLoopbackPort() << "\n"
       << "SlurmdPort=" << freeLoopbackPort() << "\n"
       << "AuthType=auth/munge\nCredType=cred/munge\n"
       << "AuthInfo=socket=" << (dir / "munge.socket").string() << "\n"
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
       << "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
       << "SchedulerType=sched/builtin\nMpiDefault=none\n"
       << "SlurmUser=root\nSlurmdUser=root\nReturnToService=2\nMinJobAge=600\n"
       << "StateSaveLocation=" << (dir / "state").string() << "\n"
       << "SlurmdSpoolDir=" << (dir / "spool").string() << "\n"
       << "SlurmctldPidFile=" << (dir / "slurmctld.pid").string() << "\n"
       << "SlurmdPidFile=" << (dir / "slurmd.pid").string() << "\n"
       << "SlurmctldLogFile=" << (dir / "slurmctld.log").string() << "\n"
       << "SlurmdLogFile=" << (dir / "slurmd.log").string() << "\n"
       << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=" << cpus
       << " RealMemory=1000 State=UNKNOWN\n"
       << "PartitionName=tb Nodes=" << host << " Default=YES MaxTime=INFINITE State=UP\n";
  return conf.str();
}

std::optional<std::string> startDaemon(const std::vector<std::string>& argv,
                                       const std::map<std::string, std::string>& environment,
                                       const fs::path& log) {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  options.environment = environment;
  auto result = runProcess(argv, options);
  if (!result) return argv[0] + ": " + result.error().message;
  if (result->exitCode != 0) {
    return argv[0] + " exited " + std::to_string(result->exitCode) + ": " + result->standardError +
           fileText(log);
  }
  return std::nullopt;
}

void stopByPidFile(const fs::path& pidFile) {
  std::ifstream in(pidFile);
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 0) return;
  ::kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
}

// "Key=Value Key=Value …" of `scontrol show job -o`.
std::map<std::string, std::string> scontrolFields(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream words(line);
  std::string word;
  while (words >> word) {
    const std::size_t equals = word.find('=');
    if (equals != std::string::npos) fields[word.substr(0, equals)] = word.substr(equals + 1);
  }
  return fields;
}

}  // namespace

bool slurmInstalled() {
  return fs::exists("/usr/sbin/slurmctld") && fs::exists("/usr/sbin/slurmd") &&
         fs::exists("/usr/sbin/munged") && fs::exists("/usr/bin/sbatch");
}

OneHostSlurm::~OneHostSlurm() { stop(); }

std::optional<std::string> OneHostSlurm::start(const fs::path& dir) {
  dir_ = dir;
  fs::create_directories(dir / "state");
  fs::create_directories(dir / "spool");
  writeMungeKey(dir / "munge.key");
  std::ofstream(dir / "slurm.conf") << slurmConf(dir);
  started_ = true;
  const auto env = environment();
  if (auto failed =
          startDaemon({"/usr/sbin/munged", "--force", "--socket=" + (dir / "munge.socket").string(),
                       "--key-file=" + (dir / "munge.key").string(),
                       "--pid-file=" + (dir / "munged.pid").string(),
                       "--seed-file=" + (dir / "munge.seed").string(),
                       "--log-file=" + (dir / "munged.log").string()},
                      env, dir / "munged.log")) {
    return failed;
  }
  const std::string conf = (dir / "slurm.conf").string();
  if (auto failed = startDaemon({"/usr/sbin/slurmctld", "-f", conf}, env, dir / "slurmctld.log")) {
    return failed;
  }
  if (auto failed = startDaemon({"/usr/sbin/slurmd", "-f", conf}, env, dir / "slurmd.log")) {
    return failed;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (run({"sinfo", "-h", "-o", "%T"}).standardOutput == "idle\n") return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  return "the node did not become idle within 30 s:\n" + fileText(dir / "slurmctld.log") +
         fileText(dir / "slurmd.log");
}

void OneHostSlurm::stop() {
  if (!started_) return;
  started_ = false;
  (void)run({"scancel", "--full", "--user=root"});
  stopByPidFile(dir_ / "slurmd.pid");
  stopByPidFile(dir_ / "slurmctld.pid");
  stopByPidFile(dir_ / "munged.pid");
}

std::map<std::string, std::string> OneHostSlurm::environment() const {
  return {{"SLURM_CONF", (dir_ / "slurm.conf").string()}, {"LC_ALL", "C"}};
}

ProcessResult OneHostSlurm::run(const std::vector<std::string>& argv) const {
  ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  options.environment = environment();
  auto result = runProcess(argv, options);
  return result ? *result : ProcessResult{};
}

std::optional<SlurmJobState> OneHostSlurm::job(const std::string& id) const {
  const ProcessResult shown = run({"scontrol", "show", "job", "-o", id});
  if (shown.exitCode != 0) return std::nullopt;
  auto fields = scontrolFields(shown.standardOutput);
  return SlurmJobState{.state = fields["JobState"],
                       .startTime = fields["StartTime"],
                       .endTime = fields["EndTime"],
                       .reason = fields["Reason"]};
}

}  // namespace tb::cli::test
