// Events are dumped with invalid UTF-8 replaced, not rejected: a file path in
// a message must never make the log throw.
#include "event_log.hpp"

#include <utility>

namespace tb::engine {

EventLog::EventLog(RunDirectory& directory, EventSink sink)
    : directory_(&directory), sink_(std::move(sink)) {}

void EventLog::emit(const char* event, nlohmann::json fields) {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  fields["event"] = event;
  fields["elapsed_s"] = elapsed.count();
  const std::string line =
      fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (sink_) sink_(line);
  if (const Status written = directory_->appendEvent(line); !written && writeError_.empty()) {
    writeError_ = written.error().message;
  }
}

}  // namespace tb::engine
