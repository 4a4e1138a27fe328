// The Trainer rule of the image's notes: torch_compile=True only with bf16=True
// and gradient_checkpointing=True. Python is not parsed; the keyword
// arguments are found by pattern, which is what a TrainingArguments(...) call
// or a dict of the same names looks like in practice. Only literal True and
// False are judged; a variable is left alone rather than guessed at.
#include <map>
#include <regex>

#include "tb/common/text.hpp"
#include "validators.hpp"

namespace tb::config::detail {
namespace {

struct Setting {
  std::string value;
  int line = 0;
};

// name=True / "name": True, the last occurrence of each name.
std::map<std::string, Setting> booleanSettings(std::string_view content) {
  static const std::regex kSetting(
      R"re(["']?(torch_compile|bf16|fp16|gradient_checkpointing)["']?\s*[=:]\s*(\w+))re");
  std::map<std::string, Setting> settings;
  int lineNumber = 0;
  for (std::string_view raw : split(content, '\n')) {
    ++lineNumber;
    std::string line(raw);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (std::sregex_iterator it(line.begin(), line.end(), kSetting), end; it != end; ++it) {
      settings[(*it)[1]] = Setting{(*it)[2], lineNumber};
    }
  }
  return settings;
}

}  // namespace

void validateTrainingArgs(FindingSink& sink, std::string_view content) {
  const auto settings = booleanSettings(content);
  const auto compile = settings.find("torch_compile");
  if (compile == settings.end() || compile->second.value != "True") {
    sink.add(Severity::Info, compile == settings.end() ? 0 : compile->second.line, "",
             "torch-compile", "torch_compile is not True: the image's compiler optimization is off",
             "set torch_compile=True together with bf16=True and gradient_checkpointing=True");
    return;
  }
  for (const char* required : {"bf16", "gradient_checkpointing"}) {
    const auto setting = settings.find(required);
    if (setting != settings.end() && setting->second.value == "True") continue;
    const bool literalFalse = setting != settings.end() && setting->second.value == "False";
    if (setting != settings.end() && !literalFalse) continue;  // a variable: not judged
    sink.add(Severity::Error, literalFalse ? setting->second.line : compile->second.line, "",
             "torch-compile",
             std::string("torch_compile=True without ") + required +
                 "=True; the image's notes pair the compiler optimization with bf16 and "
                 "gradient checkpointing",
             std::string("add ") + required + "=True next to torch_compile=True");
  }
  const auto fp16 = settings.find("fp16");
  if (fp16 != settings.end() && fp16->second.value == "True") {
    sink.add(Severity::Warning, fp16->second.line, "", "bf16",
             "fp16=True with torch_compile=True; the image's compiler optimization runs with bf16",
             "use bf16=True and drop fp16");
  }
}

}  // namespace tb::config::detail
