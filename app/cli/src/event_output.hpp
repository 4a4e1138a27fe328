// Where `--events FILE|-` sends JSON lines, for `run` and `benchmark` alike:
// "-" is stdout, anything else a file flushed line by line, so a reader (the
// Studio, a script tailing the file) sees each event at once.
#pragma once

#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "tb/runs/run_event.hpp"

namespace tb::cli {

/// An empty sink for an empty target; none when the file cannot be opened.
/// `file` keeps the file open for as long as the sink is used.
[[nodiscard]] std::optional<runs::EventSink> openEventSink(const std::string& target,
                                                           std::ostream& out,
                                                           std::shared_ptr<std::ofstream>& file);

}  // namespace tb::cli
