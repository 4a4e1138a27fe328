// See validation_common.hpp. The wording of each rule lives here once, so the
// same mistake reads the same in an env file, a manifest and a Dockerfile.
#include "validation_common.hpp"

#include "tb/common/text.hpp"
#include "tb/config/image_config.hpp"

namespace tb::config::detail {

void FindingSink::add(Severity severity, int line, std::string path, std::string rule,
                      std::string message, std::string fix) {
  findings_.push_back(Finding{severity, file_, line, std::move(path), std::move(rule),
                              std::move(message), std::move(fix)});
}

namespace {

void checkSocketInterface(FindingSink& sink, const Place& place, std::string_view value, int gpus) {
  const std::string text(value);
  if (value != "eth0" && value != "hpn0") {
    sink.add(Severity::Warning, place.line, place.path, "nccl-socket-ifname",
             "NCCL_SOCKET_IFNAME is '" + text +
                 "'; the image's notes give eth0 (pods of 1, 2, "
                 "4 or 8 GPUs) or hpn0 (all 16 GPUs of a machine)",
             "set NCCL_SOCKET_IFNAME=eth0, or hpn0 for a 16-GPU pod");
    return;
  }
  const std::string_view expected = socketInterfaceFor(gpus);
  if (gpus > 0 && !expected.empty() && value != expected) {
    sink.add(Severity::Error, place.line, place.path, "nccl-socket-ifname",
             "NCCL_SOCKET_IFNAME is '" + text + "' for a pod of " + std::to_string(gpus) +
                 " GPU(s); the image's notes give " + std::string(expected) + " for that size",
             "set NCCL_SOCKET_IFNAME=" + std::string(expected));
  }
}

void checkCheckpointOptimization(FindingSink& sink, const Place& place, std::string_view value) {
  if (value == "true") return;
  if (value == "false") {
    sink.add(Severity::Info, place.line, place.path, "checkpoint-optimization",
             "CHECKPOINT_OPTIMIZATION is false: the image's checkpoint optimization is off",
             "set CHECKPOINT_OPTIMIZATION=true to turn it on");
    return;
  }
  sink.add(Severity::Error, place.line, place.path, "checkpoint-optimization",
           "CHECKPOINT_OPTIMIZATION is '" + std::string(value) +
               "'; the image turns the optimization on only for the exact value true",
           "write CHECKPOINT_OPTIMIZATION=true (lower case, no quotes)");
}

}  // namespace

void checkImageVariable(FindingSink& sink, const Place& place, std::string_view name,
                        std::string_view value, int gpus) {
  if (name == "NCCL_SOCKET_IFNAME") checkSocketInterface(sink, place, value, gpus);
  if (name == "CHECKPOINT_OPTIMIZATION") checkCheckpointOptimization(sink, place, value);
}

std::string imageTag(std::string_view reference) {
  const auto at = reference.find('@');
  if (at != std::string_view::npos) reference = reference.substr(0, at);
  const auto slash = reference.rfind('/');
  const auto colon = reference.rfind(':');
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash)) {
    return {};
  }
  std::string tag(reference.substr(colon + 1));
  const std::string suffix = "-serverless";
  if (tag.ends_with(suffix)) tag.resize(tag.size() - suffix.size());
  return tag;
}

bool isTrainingImage(std::string_view reference) {
  return reference.find("training-nv-pytorch") != std::string_view::npos;
}

const catalog::Release* checkImageTag(FindingSink& sink, const Place& place,
                                      std::string_view reference, const catalog::Catalog& catalog) {
  const std::string tag = imageTag(reference);
  if (tag.empty()) {
    sink.add(Severity::Warning, place.line, place.path, "image-tag",
             "image '" + std::string(reference) +
                 "' has no tag, so it follows whatever "
                 "'latest' is and the compatibility verdict cannot be checked",
             "pin a release tag: " + joinList(catalog.tags()));
    return nullptr;
  }
  const catalog::Release* release = catalog.findRelease(tag);
  if (release == nullptr) {
    sink.add(Severity::Warning, place.line, place.path, "image-tag",
             "image tag '" + tag +
                 "' is not a release in the catalog, so its driver and "
                 "architecture requirements are unknown",
             "use a known tag (" + joinList(catalog.tags()) + ") or add it with --catalog");
  }
  return release;
}

}  // namespace tb::config::detail
