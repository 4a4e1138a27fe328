// DeepSpeed JSON rules. nlohmann/json gives the byte of a syntax error, which
// becomes a line; for a bad value, the line is where its key first appears
// (DeepSpeed configs rarely repeat a key), and the JSON pointer is exact.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "validators.hpp"

namespace tb::config::detail {
namespace {

using nlohmann::json;

int lineAtByte(std::string_view content, std::size_t byte) {
  byte = std::min(byte, content.size());
  return 1 + static_cast<int>(std::count(
                 content.begin(), content.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
}

int lineOfKey(std::string_view content, std::string_view key) {
  const auto at = content.find("\"" + std::string(key) + "\"");
  return at == std::string_view::npos ? 0 : lineAtByte(content, at);
}

void checkZero(FindingSink& sink, std::string_view content, const json& zero) {
  if (!zero.is_object()) {
    sink.add(Severity::Error, lineOfKey(content, "zero_optimization"), "/zero_optimization",
             "deepspeed-zero", "zero_optimization is " + zero.dump() + ", not an object",
             "write \"zero_optimization\": {\"stage\": 3, ...}");
    return;
  }
  if (const auto stage = zero.find("stage"); stage != zero.end()) {
    const bool valid =
        stage->is_number_integer() && stage->get<int>() >= 0 && stage->get<int>() <= 3;
    if (!valid) {
      sink.add(
          Severity::Error, lineOfKey(content, "stage"), "/zero_optimization/stage",
          "deepspeed-zero",
          "zero_optimization.stage is " + stage->dump() + "; DeepSpeed knows stages 0, 1, 2 and 3",
          "set \"stage\" to 0, 1, 2 or 3");
    }
  }
  if (const auto prefetch = zero.find("stage3_prefetch_bucket_size"); prefetch != zero.end()) {
    const bool allowed =
        prefetch->is_string() && (prefetch->get<std::string>().empty() || *prefetch == "auto");
    if (!allowed) {
      sink.add(Severity::Error, lineOfKey(content, "stage3_prefetch_bucket_size"),
               "/zero_optimization/stage3_prefetch_bucket_size", "stage3-prefetch-bucket-size",
               "stage3_prefetch_bucket_size is " + prefetch->dump() +
                   "; the image's notes say to leave it empty or \"auto\"",
               "set \"stage3_prefetch_bucket_size\": \"auto\" or remove the key");
    }
  }
}

bool enabled(const json& document, const char* section) {
  const auto it = document.find(section);
  if (it == document.end() || !it->is_object()) return false;
  const auto flag = it->find("enabled");
  return flag != it->end() && ((flag->is_boolean() && flag->get<bool>()) || *flag == "auto");
}

}  // namespace

void validateDeepSpeedJson(FindingSink& sink, std::string_view content) {
  json document;
  try {
    document = json::parse(content.begin(), content.end());
  } catch (const json::parse_error& error) {
    sink.add(Severity::Error, lineAtByte(content, error.byte == 0 ? 0 : error.byte - 1), "",
             "parse", "not valid JSON: " + std::string(error.what()),
             "fix the JSON syntax at that line");
    return;
  } catch (const json::exception& error) {
    // A number too large for a double (1e3083) is out_of_range, not a parse_error.
    sink.add(Severity::Error, 0, "", "parse", "not valid JSON: " + std::string(error.what()),
             "write numbers a double can hold");
    return;
  }
  if (!document.is_object()) {
    sink.add(Severity::Error, 1, "", "deepspeed-shape",
             "a DeepSpeed config is a JSON object, this is " + std::string(document.type_name()),
             "write the settings as {\"zero_optimization\": {...}, ...}");
    return;
  }
  if (const auto zero = document.find("zero_optimization"); zero != document.end()) {
    checkZero(sink, content, *zero);
  }
  if (enabled(document, "fp16") && !enabled(document, "bf16")) {
    sink.add(Severity::Warning, lineOfKey(content, "fp16"), "/fp16/enabled", "bf16",
             "fp16 is on and bf16 is off; the image's compiler optimization runs with bf16",
             "set \"bf16\": {\"enabled\": true} and \"fp16\": {\"enabled\": false}");
  }
}

}  // namespace tb::config::detail
