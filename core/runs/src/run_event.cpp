// Parsing is tolerant of what it does not know (extra fields, new event names)
// and strict about what it uses: a step without a numeric loss is an error
// naming the field, because a curve built from a default 0 would lie.
#include "tb/runs/run_event.hpp"

#include <fstream>

#include "json_fields.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::runs {
namespace {

using nlohmann::json;

Error fieldError(const char* field, const char* expected) {
  return makeError(ErrorKind::Parse, std::string("field '") + field + "' missing or not " +
                                         expected);
}

Expected<double> number(const json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end() || !it->is_number()) return fieldError(field, "a number");
  return it->get<double>();
}

double numberOr(const json& object, const char* field, double fallback) {
  const auto it = object.find(field);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

std::uint64_t bytesOr(const json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_number_unsigned() ? it->get<std::uint64_t>() : 0;
}

std::int64_t integerOr(const json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

std::string textOr(const json& object, const char* field) {
  const auto it = object.find(field);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> optionalNumber(const json& object, const char* field) {
  const auto it = object.find(field);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

Expected<StepSample> parseStep(const json& object) {
  auto loss = number(object, "loss");
  if (!loss) return loss.error();
  if (!object.contains("step") || !object["step"].is_number_integer()) {
    return fieldError("step", "an integer");
  }
  StepSample sample;
  sample.step = object["step"].get<std::int64_t>();
  sample.loss = *loss;
  sample.stepTimeSeconds = numberOr(object, "step_time_s", 0.0);
  sample.tokensPerSecond = numberOr(object, "tokens_per_s", 0.0);
  sample.liveBytes = bytesOr(object, "live_bytes");
  sample.peakBytes = bytesOr(object, "peak_bytes");
  sample.gradNorm = numberOr(object, "grad_norm", 0.0);
  sample.learningRate = numberOr(object, "lr", 0.0);
  return sample;
}

void parseStart(const json& object, RunEvent& event) {
  event.params = integerOr(object, "params");
  event.runDir = textOr(object, "run_dir");
  if (const auto config = object.find("config"); config != object.end() && config->is_object()) {
    event.totalSteps = integerOr(*config, "steps");
    event.memoryBudget = bytesOr(*config, "memory_budget");
    if (const auto model = config->find("model"); model != config->end() && model->is_object()) {
      event.model = textOr(*model, "name");
    }
  }
  if (const auto recompute = object.find("recompute");
      recompute != object.end() && recompute->is_object()) {
    event.recompute = textOr(*recompute, "policy");
  }
}

}  // namespace

namespace detail {

Expected<SummaryFields> parseSummary(const json& object) {
  if (!object.is_object()) return makeError(ErrorKind::Parse, "summary is not a JSON object");
  const std::string status = textOr(object, "status");
  const auto state = runStateFromStatus(status);
  if (!state) {
    return makeError(ErrorKind::Parse, "field 'status' is '" + status +
                                           "', not completed, interrupted, oom or failed");
  }
  SummaryFields summary;
  summary.state = *state;
  summary.message = textOr(object, "message");
  summary.model = textOr(object, "model");
  summary.steps = integerOr(object, "steps");
  summary.tokensPerSecond = numberOr(object, "tokens_per_s", 0.0);
  summary.stepTimeSeconds = numberOr(object, "step_time_s", 0.0);
  summary.peakBytes = bytesOr(object, "peak_bytes");
  summary.lossFirst = optionalNumber(object, "loss_first");
  summary.lossLast = optionalNumber(object, "loss_last");
  summary.mfu = numberOr(object, "mfu", 0.0);
  summary.threads = static_cast<int>(integerOr(object, "threads"));
  summary.recompute = textOr(object, "recompute");
  return summary;
}

}  // namespace detail

Expected<RunEvent> parseEventLine(std::string_view line) {
  json object = json::parse(line, nullptr, false);
  if (object.is_discarded()) return makeError(ErrorKind::Parse, "not valid JSON");
  if (!object.is_object()) return makeError(ErrorKind::Parse, "not a JSON object");
  RunEvent event;
  event.name = textOr(object, "event");
  if (event.name.empty()) return fieldError("event", "a string");
  event.elapsedSeconds = numberOr(object, "elapsed_s", 0.0);
  if (event.name == "step") {
    auto sample = parseStep(object);
    if (!sample) return sample.error();
    event.kind = EventKind::Step;
    event.sample = *sample;
  } else if (event.name == "start") {
    event.kind = EventKind::Start;
    parseStart(object, event);
  } else if (event.name == "end") {
    const auto summary = object.find("summary");
    if (summary == object.end()) return fieldError("summary", "an object");
    auto fields = detail::parseSummary(*summary);
    if (!fields) return fields.error();
    event.kind = EventKind::End;
    event.summary = std::move(*fields);
  } else if (event.name == "error") {
    event.kind = EventKind::Error;
    event.message = textOr(object, "message");
  }
  return event;
}

Expected<EventFile> readEvents(const std::filesystem::path& runDir) {
  const std::filesystem::path path = runDir / "events.jsonl";
  std::ifstream in(path);
  if (!in) return makeError(ErrorKind::Io, "cannot read " + path.string());
  EventFile file;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    auto event = parseEventLine(line);
    if (event) {
      file.events.push_back(std::move(*event));
    } else {
      file.problems.push_back("line " + std::to_string(number) + ": " + event.error().message);
    }
  }
  if (in.bad()) return makeError(ErrorKind::Io, "error while reading " + path.string());
  return file;
}

std::vector<StepSample> stepSamples(const std::vector<RunEvent>& events) {
  std::vector<StepSample> samples;
  for (const RunEvent& event : events) {
    if (event.kind == EventKind::Step) samples.push_back(event.sample);
  }
  return samples;
}

}  // namespace tb::runs
