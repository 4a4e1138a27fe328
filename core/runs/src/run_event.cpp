// Parsing is tolerant of what it does not know (extra fields, new event names)
// and strict about what it uses: a step without a loss is an error naming the
// field, because a curve built from a default 0 would lie.
#include "tb/runs/run_event.hpp"

#include <limits>

#include "json_fields.hpp"
#include "tb/common/atomic_file.hpp"

namespace tb::runs {
namespace {

using namespace detail;

Expected<double> number(const json& object, const char* field) {
  const json* value = member(object, field);
  if (value == nullptr || !value->is_number()) return fieldError(field, "a number");
  return value->get<double>();
}

// A NaN loss (a diverged step, or one the tuned runtime did not read back) is
// written by nlohmann as null and read back as NaN, which readers skip:
// never as a default 0, which a curve would plot as a real loss.
Expected<double> lossOf(const json& object) {
  const json* value = member(object, "loss");
  if (value != nullptr && value->is_null()) return std::numeric_limits<double>::quiet_NaN();
  return number(object, "loss");
}

Expected<StepSample> parseStep(const json& object) {
  auto loss = lossOf(object);
  if (!loss) return loss.error();
  if (!object.contains("step") || !object["step"].is_number_integer()) {
    return fieldError("step", "an integer");
  }
  StepSample sample;
  sample.step = object["step"].get<std::int64_t>();
  sample.loss = *loss;
  sample.seq = integerOr(object, "seq");
  sample.stepTimeSeconds = numberOr(object, "step_time_s", 0.0);
  sample.tokensPerSecond = numberOr(object, "tokens_per_s", 0.0);
  sample.liveBytes = bytesOr(object, "live_bytes");
  sample.peakBytes = bytesOr(object, "peak_bytes");
  sample.gradNorm = numberOr(object, "grad_norm", 0.0);
  sample.learningRate = numberOr(object, "lr", 0.0);
  sample.commWaitSeconds = optionalNumber(object, "comm_wait_s");
  sample.cpuSeconds = optionalNumber(object, "cpu_s");
  return sample;
}

void parseStart(const json& object, RunEvent& event) {
  event.params = integerOr(object, "params");
  event.runDir = textOr(object, "run_dir");
  event.matmulPath = textOr(object, "matmul_path");
  event.flopsPerToken = numberOr(object, "flops_per_token", 0.0);
  event.matmulGflops = numberOr(object, "matmul_gflops", 0.0);
  if (const json* config = objectMember(object, "config")) {
    event.totalSteps = integerOr(*config, "steps");
    event.memoryBudget = bytesOr(*config, "memory_budget");
    event.threads = static_cast<int>(integerOr(*config, "threads"));
    event.torchVersion = textOr(*config, "torch_version");
    if (const json* model = objectMember(*config, "model")) event.model = textOr(*model, "name");
  }
  if (const json* recompute = objectMember(object, "recompute")) {
    event.recompute = textOr(*recompute, "policy");
  }
}

}  // namespace

json toJson(const StepSample& sample) {
  json object{{"step", sample.step},
              {"loss", sample.loss},
              {"seq", sample.seq},
              {"step_time_s", sample.stepTimeSeconds},
              {"tokens_per_s", sample.tokensPerSecond},
              {"live_bytes", sample.liveBytes},
              {"peak_bytes", sample.peakBytes},
              {"grad_norm", sample.gradNorm},
              {"lr", sample.learningRate}};
  if (sample.commWaitSeconds) object["comm_wait_s"] = *sample.commWaitSeconds;
  if (sample.cpuSeconds) object["cpu_s"] = *sample.cpuSeconds;
  return object;
}

std::string rankStepLine(int rank, const StepSample& sample, double elapsedSeconds) {
  json object = toJson(sample);
  object["event"] = "rank_step";
  object["elapsed_s"] = elapsedSeconds;
  object["rank"] = rank;
  return object.dump();
}

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
  } else if (event.name == "rank_step") {
    const json* rank = member(object, "rank");
    if (rank == nullptr || !rank->is_number_integer() || rank->get<std::int64_t>() < 0 ||
        rank->get<std::int64_t>() > std::numeric_limits<int>::max()) {
      return fieldError("rank", "a rank (an integer from 0)");
    }
    auto sample = parseStep(object);
    if (!sample) return sample.error();
    event.kind = EventKind::RankStep;
    event.rank = rank->get<int>();
    event.sample = *sample;
  } else if (event.name == "start") {
    event.kind = EventKind::Start;
    parseStart(object, event);
  } else if (event.name == "end") {
    const auto summary = object.find("summary");
    if (summary == object.end()) return fieldError("summary", "an object");
    auto fields = summaryFromJson(*summary);
    if (!fields) return fields.error();
    event.kind = EventKind::End;
    event.summary = std::move(*fields);
  } else if (event.name == "error") {
    event.kind = EventKind::Error;
    event.errorState = runStateFromStatus(textOr(object, "status")).value_or(RunState::Failed);
    event.message = textOr(object, "message");
  }
  return event;
}

EventFile parseEvents(std::string_view text) {
  EventFile file;
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto event = parseEventLine(line);
    if (event) {
      file.events.push_back(std::move(*event));
    } else {
      file.problems.push_back("line " + std::to_string(number) + ": " + event.error().message);
    }
  }
  return file;
}

Expected<EventFile> readEvents(const std::filesystem::path& runDir) {
  const Expected<std::string> text = readFile(runDir / "events.jsonl");
  if (!text) return text.error();
  return parseEvents(*text);
}

std::int64_t lastStep(std::string_view eventsJsonl) {
  std::size_t end = eventsJsonl.size();
  while (end > 0) {
    const std::size_t newline = eventsJsonl.rfind('\n', end - 1);
    const std::size_t begin = newline == std::string_view::npos ? 0 : newline + 1;
    const auto event = parseEventLine(eventsJsonl.substr(begin, end - begin));
    if (event && event->kind == EventKind::Step) return event->sample.step;
    if (newline == std::string_view::npos) break;
    end = newline;
  }
  return 0;
}

std::int64_t lastStepOfRun(const std::filesystem::path& runDir) {
  const Expected<std::string> text = readFile(runDir / "events.jsonl");
  return text ? lastStep(*text) : 0;
}

std::vector<StepSample> stepSamples(const std::vector<RunEvent>& events) {
  std::vector<StepSample> samples;
  for (const RunEvent& event : events) {
    if (event.kind == EventKind::Step) samples.push_back(event.sample);
  }
  return samples;
}

}  // namespace tb::runs
