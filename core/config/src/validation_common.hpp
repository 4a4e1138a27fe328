// Shared pieces of the validators: building findings, the rules on values
// that several file kinds carry (NCCL_SOCKET_IFNAME, CHECKPOINT_OPTIMIZATION),
// and the image-reference checks against the catalog.
#pragma once

#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "tb/catalog/catalog.hpp"
#include "tb/config/validation.hpp"

namespace tb::config::detail {

/// Collects findings for one file.
class FindingSink {
 public:
  explicit FindingSink(std::string file) : file_(std::move(file)) {}

  void add(Severity severity, int line, std::string path, std::string rule, std::string message,
           std::string fix);
  [[nodiscard]] std::vector<Finding> take() { return std::move(findings_); }
  [[nodiscard]] const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<Finding> findings_;
};

/// Where a value sits, for the findings about it.
struct Place {
  int line = 0;
  std::string path;
};

/// Checks an environment variable the image reads. `gpus` is the pod's GPU
/// count when the file says it (a manifest), 0 otherwise.
void checkImageVariable(FindingSink& sink, const Place& place, std::string_view name,
                        std::string_view value, int gpus);

/// The tag of a training-nv-pytorch image reference ("...:25.04-serverless"
/// -> "25.04"); empty when the reference has no tag.
[[nodiscard]] std::string imageTag(std::string_view reference);

/// Whether the reference names the training-nv-pytorch image.
[[nodiscard]] bool isTrainingImage(std::string_view reference);

/// Checks that the image's tag is in the catalog; returns the release or null.
const catalog::Release* checkImageTag(FindingSink& sink, const Place& place,
                                      std::string_view reference, const catalog::Catalog& catalog);

}  // namespace tb::config::detail
