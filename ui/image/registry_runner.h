// Registry calls take from milliseconds to the 30-second timeout, so they run
// on the thread pool and report back as signals. One call at a time: a new
// Refresh while one runs is refused by the panel, and Cancel sets the flag
// the transport polls, so the worker returns within about a second.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tb/common/expected.hpp"
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

/// Runs registry lookups in the thread pool, one at a time.
class RegistryRunner : public QObject {
  Q_OBJECT

 public:
  explicit RegistryRunner(QObject* parent = nullptr);
  /// Cancels a call in flight and waits for it: no worker outlives the runner.
  ~RegistryRunner() override;

  /// Lists the tags with their architectures. False while a call runs.
  bool listTags(const RegistryLookupTarget& target);
  /// Inspects one tag (platforms and image configs). False while a call runs.
  bool inspectTag(const RegistryLookupTarget& target, const QString& tag);
  /// Asks the call in flight to stop; finished() follows with a Cancelled error.
  void cancel();

  [[nodiscard]] bool isRunning() const noexcept { return running_; }

 Q_SIGNALS:
  void started();
  /// "Reading platforms 3 of 12"; emitted on the GUI thread.
  void progress(const QString& text);
  void finished(const tb::ui::RegistryOutcome& outcome);

 private:
  bool start(std::function<RegistryOutcome(const std::shared_ptr<std::atomic<bool>>&)> work);

  QFutureWatcher<RegistryOutcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  bool running_ = false;
};

}  // namespace tb::ui
