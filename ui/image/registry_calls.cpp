// Plain functions, run on a worker thread: they build their own client (its
// transport is not shared between threads) and touch no widget.
#include "ui/image/registry_calls.h"

#include <utility>

#include "ui/qt_text.h"

namespace tb::ui {

RegistryOutcome listRegistryTags(const RegistryLookupTarget& target, const tb::StopToken& cancel,
                                 const tb::ProgressFn& progress) {
  RegistryOutcome outcome;
  outcome.kind = RegistryOutcome::Kind::Tags;
  outcome.host = toQString(target.host);
  auto client = makeLookupClient(target, cancel);
  if (!client) {
    outcome.error = client.error();
    return outcome;
  }
  auto tags = listTagsWithPlatforms(**client, target.repository, cancel, progress);
  if (tags) {
    outcome.tags = std::move(*tags);
  } else {
    outcome.error = tags.error();
  }
  return outcome;
}

RegistryOutcome inspectRegistryTag(const RegistryLookupTarget& target, const QString& tag,
                                   const tb::StopToken& cancel) {
  RegistryOutcome outcome;
  outcome.kind = RegistryOutcome::Kind::Inspection;
  outcome.host = toQString(target.host);
  outcome.tag = tag;
  auto client = makeLookupClient(target, cancel);
  if (!client) {
    outcome.error = client.error();
    return outcome;
  }
  auto inspection = tb::registry::inspectImage(**client, target.repository, toStdString(tag));
  if (inspection) {
    outcome.inspection = std::move(*inspection);
  } else {
    outcome.error = inspection.error();
  }
  return outcome;
}

}  // namespace tb::ui
