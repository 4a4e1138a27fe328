// Where `--events FILE|-` sends JSON lines, for `run` and `benchmark` alike:
// "-" is stdout, anything else a file flushed line by line, so a reader (the
// Studio, a script tailing the file) sees each event at once.
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>

#include "tb/common/expected.hpp"
#include "tb/runs/run_event.hpp"

namespace tb::cli {

/// An empty sink for an empty target. A file that cannot be opened is an
/// error naming it ("--events: cannot write PATH: WHY"): bad input for a
/// folder given as the file, Io otherwise. `file` keeps the file open for
/// as long as the sink is used.
[[nodiscard]] Expected<runs::EventSink> openEventSink(const std::string& target, std::ostream& out,
                                                      std::shared_ptr<std::ofstream>& file);

}  // namespace tb::cli
