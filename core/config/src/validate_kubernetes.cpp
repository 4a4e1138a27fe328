// Kubernetes manifest rules, per container that runs the training image: the
// tag and architecture against the catalog (through the compatibility
// verdict), the GPU count, `command:` hiding the entrypoint, and the env
// values the image reads. yaml-cpp keeps each node's line, so findings point
// at the line as well as the path.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <array>
#include <initializer_list>

#include "tb/compat/gpu_class.hpp"
#include "tb/compat/verdict.hpp"
#include "tb/config/image_config.hpp"
#include "validators.hpp"
#include "yaml_emit.hpp"
#include "yaml_guard.hpp"

namespace tb::config::detail {
namespace {

constexpr int kGpusPerMachine = 16;

Place placeOf(const YAML::Node& node, std::string path) {
  return Place{node.Mark().is_null() ? 0 : node.Mark().line + 1, std::move(path)};
}

// yaml-cpp throws when a missing key of a const node is indexed again, so
// nested lookups go through here and yield an undefined node instead.
YAML::Node child(const YAML::Node& node, std::initializer_list<const char*> keys) {
  YAML::Node current = node;
  for (const char* key : keys) {
    if (!current || !current.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& lookup = current;  // const: a missing key must not be inserted
    const YAML::Node next = lookup[key];
    if (!next) return YAML::Node(YAML::NodeType::Undefined);
    current.reset(next);
  }
  return current;
}

std::string scalarOr(const YAML::Node& node, const std::string& fallback) {
  return node && node.IsScalar() ? node.Scalar() : fallback;
}

struct PodSpec {
  YAML::Node spec;
  std::string path;
};

// Where a workload keeps its pod template, by kind.
std::vector<PodSpec> podSpecs(const YAML::Node& object, const std::string& prefix) {
  const std::string kind = scalarOr(child(object, {"kind"}), "");
  const YAML::Node spec = child(object, {"spec"});
  if (!spec || !spec.IsMap()) return {};
  if (kind == "Pod") return {{spec, prefix + "spec"}};
  if (kind == "CronJob") {
    const YAML::Node inner = child(spec, {"jobTemplate", "spec", "template", "spec"});
    if (inner && inner.IsMap()) return {{inner, prefix + "spec.jobTemplate.spec.template.spec"}};
    return {};
  }
  const YAML::Node inner = child(spec, {"template", "spec"});
  if (inner && inner.IsMap()) return {{inner, prefix + "spec.template.spec"}};
  return {};
}

void checkPlatform(FindingSink& sink, const PodSpec& pod, const catalog::Release& release,
                   const catalog::Catalog& catalog) {
  const YAML::Node selector = child(pod.spec, {"nodeSelector"});
  if (!selector || !selector.IsMap()) return;
  const YAML::Node arch = child(selector, {"kubernetes.io/arch"});
  if (arch && arch.IsScalar()) {
    const auto parsed = catalog::parseCpuArch(arch.Scalar());
    if (parsed) {
      // The verdict is asked with a driver that meets the release's own
      // requirement, so only the architecture can make it say no.
      compat::CompatQuery query;
      auto driver =
          catalog::DriverVersion::parse(std::to_string(release.requiredDriverMajor) + ".0");
      if (driver) query.driver = *driver;
      query.arch = *parsed;
      const auto verdict = compat::evaluateCompat(release, catalog, query);
      if (verdict.status == compat::VerdictStatus::Unsupported) {
        sink.add(Severity::Error, placeOf(arch, "").line,
                 pod.path + ".nodeSelector[kubernetes.io/arch]", "image-arch",
                 verdict.reasons.empty()
                     ? "release " + release.tag + " is not published for " + arch.Scalar()
                     : verdict.reasons.front(),
                 "select nodes of an architecture the release is published for");
      }
    }
  }
  const YAML::Node product = child(selector, {"nvidia.com/gpu.product"});
  if (product && product.IsScalar()) {
    std::string name = product.Scalar();
    std::replace(name.begin(), name.end(), '-', ' ');
    if (compat::classifyGpu(name) == compat::GpuClass::Consumer) {
      sink.add(Severity::Warning, placeOf(product, "").line,
               pod.path + ".nodeSelector[nvidia.com/gpu.product]", "gpu-class",
               "GPU '" + product.Scalar() +
                   "' is a consumer GPU: CUDA forward compatibility "
                   "does not apply, so nodes need driver >= " +
                   std::to_string(release.requiredDriverMajor),
               "run on data-center GPUs or make sure the nodes' driver is new enough");
    }
  }
}

int checkGpuResources(FindingSink& sink, const YAML::Node& container, const std::string& path) {
  const YAML::Node limit = child(container, {"resources", "limits", "nvidia.com/gpu"});
  if (!limit || !limit.IsScalar()) {
    sink.add(Severity::Warning, placeOf(container, "").line, path + ".resources.limits",
             "gpu-resources", "the container requests no GPUs (no nvidia.com/gpu limit)",
             "add resources.limits[nvidia.com/gpu]: 8 (1, 2, 4, 8 or 16)");
    return 0;
  }
  const Place place = placeOf(limit, path + ".resources.limits[nvidia.com/gpu]");
  int gpus = 0;
  if (!YAML::convert<int>::decode(limit, gpus) || gpus < 1) {
    sink.add(Severity::Error, place.line, place.path, "gpu-resources",
             "nvidia.com/gpu is '" + limit.Scalar() + "', not a positive whole number",
             "give the GPU count as a number: 1, 2, 4, 8 or 16");
    return 0;
  }
  if (gpus > kGpusPerMachine) {
    sink.add(Severity::Error, place.line, place.path, "gpu-resources",
             "nvidia.com/gpu is " + std::to_string(gpus) +
                 "; one machine has 16 GPUs, so the "
                 "pod can never be scheduled",
             "use at most 16 GPUs per pod and more pods (an indexed Job) for more");
  } else if (socketInterfaceFor(gpus).empty()) {
    sink.add(Severity::Warning, place.line, place.path, "gpu-resources",
             "nvidia.com/gpu is " + std::to_string(gpus) +
                 "; the image's notes cover pods of "
                 "1, 2, 4, 8 or 16 GPUs",
             "use 1, 2, 4, 8 or 16 GPUs per pod");
  }
  return gpus;
}

void checkEnv(FindingSink& sink, const YAML::Node& container, const std::string& path, int gpus) {
  bool socketSet = false;
  bool checkpointSet = false;
  const YAML::Node env = child(container, {"env"});
  for (std::size_t i = 0; env && env.IsSequence() && i < env.size(); ++i) {
    const YAML::Node item = env[i];
    const std::string name = scalarOr(child(item, {"name"}), "");
    const YAML::Node value = child(item, {"value"});
    const std::string itemPath = path + ".env[" + std::to_string(i) + "]";
    socketSet = socketSet || name == "NCCL_SOCKET_IFNAME";
    checkpointSet = checkpointSet || name == "CHECKPOINT_OPTIMIZATION";
    if (!value || !value.IsScalar()) continue;
    if (value.Tag() == "?" && plainScalarIsNotString(value.Scalar())) {
      sink.add(Severity::Error, placeOf(value, "").line, itemPath + ".value", "env-value-type",
               name + ": value " + value.Scalar() +
                   " is not a string in YAML; Kubernetes "
                   "rejects env values that are booleans or numbers",
               "quote it: value: \"" + value.Scalar() + "\"");
    }
    checkImageVariable(sink, placeOf(value, itemPath + ".value"), name, value.Scalar(), gpus);
  }
  const std::string_view expected = socketInterfaceFor(gpus);
  if (!socketSet) {
    sink.add(Severity::Warning, placeOf(container, "").line, path + ".env", "nccl-socket-ifname",
             "NCCL_SOCKET_IFNAME is not set",
             expected.empty() ? "set NCCL_SOCKET_IFNAME=eth0 (1, 2, 4, 8 GPUs) or hpn0 (16)"
                              : "set NCCL_SOCKET_IFNAME=" + std::string(expected) +
                                    " for a pod of " + std::to_string(gpus) + " GPU(s)");
  }
  if (!checkpointSet) {
    sink.add(Severity::Info, placeOf(container, "").line, path + ".env", "checkpoint-optimization",
             "CHECKPOINT_OPTIMIZATION is not set: the image's checkpoint optimization is off",
             "add {name: CHECKPOINT_OPTIMIZATION, value: \"true\"} to turn it on");
  }
}

void checkContainer(FindingSink& sink, const PodSpec& pod, const YAML::Node& container,
                    const std::string& path, const catalog::Catalog& catalog) {
  const std::string image = scalarOr(child(container, {"image"}), "");
  if (!isTrainingImage(image)) return;
  const catalog::Release* release =
      checkImageTag(sink, placeOf(child(container, {"image"}), path + ".image"), image, catalog);
  if (release != nullptr) checkPlatform(sink, pod, *release, catalog);
  if (const YAML::Node command = child(container, {"command"})) {
    sink.add(Severity::Warning, placeOf(command, "").line, path + ".command", "entrypoint",
             "command: replaces the image's entrypoint, which enables CUDA forward "
             "compatibility; on an older driver the container then fails or runs without it",
             "move the command line to args: and leave command: out");
  }
  const int gpus = checkGpuResources(sink, container, path);
  checkEnv(sink, container, path, gpus);
}

}  // namespace

void validateKubernetesManifest(FindingSink& sink, std::string_view content,
                                const catalog::Catalog& catalog) {
  if (const auto control = controlCharacter(content)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", control->second);
    sink.add(Severity::Error, control->first, "", "parse",
             std::string("not valid YAML: control character ") + hex + " (is this a text file?)",
             "save the manifest as plain text");
    return;
  }
  std::vector<YAML::Node> documents;
  try {
    documents = loadAllDocuments(content);
  } catch (const YAML::Exception& error) {
    sink.add(Severity::Error, error.mark.is_null() ? 0 : error.mark.line + 1, "", "parse",
             "not valid YAML: " + error.msg, "fix the YAML syntax at that line");
    return;
  }
  bool anyWorkload = false;
  for (std::size_t d = 0; d < documents.size(); ++d) {
    const YAML::Node& object = documents[d];
    if (object.IsNull()) continue;
    const std::string prefix = documents.size() > 1 ? "[" + std::to_string(d) + "]." : "";
    if (!object.IsMap() || !child(object, {"kind"}) || !child(object, {"apiVersion"})) {
      sink.add(Severity::Error, placeOf(object, "").line, prefix.empty() ? "$" : prefix,
               "k8s-shape",
               "document " + std::to_string(d + 1) +
                   " is not a Kubernetes object (no apiVersion and kind)",
               "give every document apiVersion: and kind:");
      continue;
    }
    for (const PodSpec& pod : podSpecs(object, prefix)) {
      anyWorkload = true;
      const YAML::Node containers = child(pod.spec, {"containers"});
      for (std::size_t c = 0; containers && containers.IsSequence() && c < containers.size(); ++c) {
        checkContainer(sink, pod, containers[c],
                       pod.path + ".containers[" + std::to_string(c) + "]", catalog);
      }
    }
  }
  if (!anyWorkload) {
    sink.add(Severity::Info, 0, "", "k8s-shape", "no Pod or workload with a pod template found",
             "validate the manifest that runs the training container");
  }
}

}  // namespace tb::config::detail
