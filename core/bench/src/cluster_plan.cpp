// plan.json is checked against its schema before any field is read, so the
// reads below can take the fields as the schema says they are.
#include "tb/bench/cluster_plan.hpp"

#include <nlohmann/json.hpp>

#include <array>

#include "tb/common/atomic_file.hpp"
#include "tb/common/json_schema.hpp"
#include "tb/common/name_table.hpp"
#include "tb/common/text.hpp"

namespace tb::embedded {
std::string_view clusterPlanSchemaJson();
}

namespace tb::bench {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<EnumName<Scheduler>, 3> kSchedulerNames = {{
    {Scheduler::Slurm, "slurm"},
    {Scheduler::Kubernetes, "k8s"},
    {Scheduler::Torchrun, "torchrun"},
}};

Json planVariablesJson(const std::vector<PlanVariable>& variables) {
  Json list = Json::array();
  for (const PlanVariable& variable : variables) {
    list.push_back({{"name", variable.name}, {"value", variable.value}});
  }
  return list;
}

Json planConfigurationJson(const PlanConfiguration& configuration) {
  return Json{{"label", label(configuration.step)},
              {"image", configuration.image},
              {"environment", planVariablesJson(configuration.environment)},
              {"compiler_optimization", configuration.compilerOptimization},
              {"checkpoint_optimization", configuration.checkpointOptimization},
              {"recompute", configuration.recompute},
              {"run_flags", configuration.runFlags}};
}

Json planJobJson(const PlanJob& job) {
  Json json{{"order", job.order}, {"label", label(job.step)}, {"repeat", job.repeat},
            {"name", job.name},   {"job_file", job.jobFile},  {"log_dir", job.logDir},
            {"log", job.log}};
  if (!job.runDir.empty()) json["run_dir"] = job.runDir;
  return json;
}

Json planWorkloadJson(const PlanWorkload& workload) {
  Json json{{"kind", workload.engine ? "engine" : "command"}};
  if (workload.engine) {
    json["model"] = workload.model;
    json["device"] = workload.device;
  }
  json["command"] = workload.command;
  return json;
}

// The schema allows only the four labels.
AblationStep planStepOf(const Json& json) { return *parseAblationLabel(json.get<std::string>()); }

PlanConfiguration planConfigurationFrom(const Json& json) {
  PlanConfiguration configuration;
  configuration.step = planStepOf(json.at("label"));
  configuration.image = json.at("image").get<std::string>();
  for (const Json& variable : json.at("environment")) {
    configuration.environment.push_back(
        {variable.at("name").get<std::string>(), variable.at("value").get<std::string>()});
  }
  configuration.compilerOptimization = json.at("compiler_optimization").get<bool>();
  configuration.checkpointOptimization = json.at("checkpoint_optimization").get<bool>();
  configuration.recompute = json.at("recompute").get<std::string>();
  configuration.runFlags = json.at("run_flags").get<std::vector<std::string>>();
  return configuration;
}

PlanJob planJobFrom(const Json& json) {
  PlanJob job;
  job.order = json.at("order").get<int>();
  job.step = planStepOf(json.at("label"));
  job.repeat = json.at("repeat").get<int>();
  job.name = json.at("name").get<std::string>();
  job.jobFile = json.at("job_file").get<std::string>();
  job.logDir = json.at("log_dir").get<std::string>();
  job.log = json.at("log").get<std::string>();
  job.runDir = json.value("run_dir", std::string());
  return job;
}

PlanWorkload planWorkloadFrom(const Json& json) {
  PlanWorkload workload;
  workload.engine = json.at("kind").get<std::string>() == "engine";
  workload.model = json.value("model", std::string());
  workload.device = json.value("device", std::string("cuda"));
  workload.command = json.at("command").get<std::vector<std::string>>();
  return workload;
}

const nlohmann::json& clusterPlanSchema() {
  static const nlohmann::json schema = nlohmann::json::parse(tb::embedded::clusterPlanSchemaJson());
  return schema;
}

// What the schema cannot say: one configuration per step, in chain order.
Status checkPlanConfigurations(const ClusterPlan& plan, const std::string& where) {
  for (std::size_t i = 0; i < kAblationSteps.size(); ++i) {
    if (plan.configurations[i].step != kAblationSteps[i]) {
      return makeError(ErrorKind::Parse, where + ": configurations[" + std::to_string(i) +
                                             "]: expected " +
                                             std::string(label(kAblationSteps[i])));
    }
  }
  return {};
}

}  // namespace

std::string_view toString(Scheduler scheduler) noexcept {
  return nameOf(kSchedulerNames, scheduler, "unknown");
}

Expected<Scheduler> parseScheduler(std::string_view text) {
  if (auto scheduler = valueNamed(kSchedulerNames, text)) return *scheduler;
  return makeError(ErrorKind::BadInput, "scheduler: '" + std::string(text) + "' is not one of " +
                                            joinList(namesOf(kSchedulerNames)));
}

const PlanConfiguration& ClusterPlan::configurationOf(const PlanJob& job) const {
  return configurations.at(static_cast<std::size_t>(chainIndex(job.step)));
}

std::vector<PlanJob> planJobs(int repeats, std::string_view jobExtension, bool runDirs) {
  std::vector<PlanJob> jobs;
  for (const ScheduledRun& run : interleavedSchedule(repeats)) {
    PlanJob job;
    job.order = static_cast<int>(jobs.size());
    job.step = run.step;
    job.repeat = run.repeat + 1;
    const std::string slug = labelSlug(run.step) + "-" + std::to_string(job.repeat);
    const std::string order = (job.order < 9 ? "0" : "") + std::to_string(job.order + 1);
    job.name = "tb-" + slug;
    job.jobFile = "jobs/" + order + "-" + slug + std::string(jobExtension);
    job.logDir = "logs/" + std::string(label(run.step)) + "/" + std::to_string(job.repeat);
    job.log = job.logDir + "/node-0.log";
    if (runDirs) job.runDir = job.logDir + "/run";
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string clusterPlanToJson(const ClusterPlan& plan) {
  Json configurations = Json::array();
  for (const PlanConfiguration& configuration : plan.configurations) {
    configurations.push_back(planConfigurationJson(configuration));
  }
  Json jobs = Json::array();
  for (const PlanJob& job : plan.jobs) jobs.push_back(planJobJson(job));
  const Json document{{"schema", "trainbench-cluster-plan"},
                      {"version", plan.version},
                      {"app_version", plan.appVersion},
                      {"created_at", plan.createdAt},
                      {"release", plan.release},
                      {"scheduler", toString(plan.scheduler)},
                      {"container", plan.container},
                      {"nodes", plan.nodes},
                      {"gpus_per_node", plan.gpusPerNode},
                      {"repeats", plan.repeats},
                      {"workload", planWorkloadJson(plan.workload)},
                      {"configurations", std::move(configurations)},
                      {"jobs", std::move(jobs)},
                      {"submit", plan.submitScript}};
  return document.dump(2) + "\n";
}

Expected<ClusterPlan> parseClusterPlan(std::string_view text, std::string_view origin) {
  const Json document = Json::parse(text, nullptr, false);
  const std::string where(origin);
  if (document.is_discarded()) return makeError(ErrorKind::Parse, where + ": not valid JSON");
  const std::vector<json_schema::Violation> violations =
      json_schema::validate(clusterPlanSchema(), document);
  if (!violations.empty()) {
    return makeError(ErrorKind::Parse,
                     where + ": " + violations.front().path + ": " + violations.front().message);
  }
  ClusterPlan plan;
  plan.version = document.at("version").get<int>();
  plan.appVersion = document.at("app_version").get<std::string>();
  plan.createdAt = document.at("created_at").get<std::string>();
  plan.release = document.at("release").get<std::string>();
  plan.scheduler = *parseScheduler(document.at("scheduler").get<std::string>());
  plan.container = document.at("container").get<std::string>();
  plan.nodes = document.at("nodes").get<int>();
  plan.gpusPerNode = document.at("gpus_per_node").get<int>();
  plan.repeats = document.at("repeats").get<int>();
  plan.workload = planWorkloadFrom(document.at("workload"));
  for (const Json& json : document.at("configurations")) {
    plan.configurations.push_back(planConfigurationFrom(json));
  }
  for (const Json& json : document.at("jobs")) plan.jobs.push_back(planJobFrom(json));
  plan.submitScript = document.at("submit").get<std::string>();
  if (Status valid = checkPlanConfigurations(plan, where); !valid) return valid.error();
  return plan;
}

Expected<ClusterPlan> loadClusterPlan(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kClusterPlanFile;
  Expected<std::string> text = readFile(path);
  if (!text) return std::move(text).error();
  return parseClusterPlan(*text, path.string());
}

}  // namespace tb::bench
