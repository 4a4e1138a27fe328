// The two calls the registry panel makes, each shaped as one background
// task's work: target in, an outcome out that is an answer or an error,
// never an exception. Registry calls take from milliseconds to the 30-second
// timeout; Cancel stops the token the transport polls, so a call returns
// within about a second with a Cancelled error.
#pragma once

#include <QString>

#include <optional>
#include <vector>

#include "tb/common/expected.hpp"
#include "tb/common/stop_token.hpp"
#include "ui/image/registry_lookup.h"

namespace tb::ui {

/// What one background call produced: tags or an inspection, or an error.
struct RegistryOutcome {
  enum class Kind { Tags, Inspection };
  Kind kind = Kind::Tags;
  QString host;  ///< the registry asked, for messages
  QString tag;   ///< Inspection: the tag inspected
  std::vector<TagPlatforms> tags;
  std::optional<tb::registry::ImageInspection> inspection;
  std::optional<tb::Error> error;  ///< set when the call failed or was cancelled
};

/// Lists the tags with their architectures; `progress` hears manifests read.
[[nodiscard]] RegistryOutcome listRegistryTags(const RegistryLookupTarget& target,
                                               const tb::StopToken& cancel,
                                               const tb::ProgressFn& progress);

/// Inspects one tag (platforms and image configs).
[[nodiscard]] RegistryOutcome inspectRegistryTag(const RegistryLookupTarget& target,
                                                 const QString& tag, const tb::StopToken& cancel);

}  // namespace tb::ui
