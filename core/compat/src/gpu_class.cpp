// GPU classing works on whole name tokens, never on substrings: "A10" must
// not match "A100", and "RTX A6000" must not look like a data-center "A6000".
// The rules run from the most specific (brand words such as GeForce, Quadro,
// "RTX PRO ... Server") to the model numbers, so that a consumer or
// workstation brand is never overruled by a model number it happens to share.
#include "tb/compat/gpu_class.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "tb/common/text.hpp"

namespace tb::compat {
namespace {

/// Lower-cased alphanumeric runs: "NVIDIA A100-SXM4-80GB" -> nvidia a100 sxm4 80gb.
std::vector<std::string> tokenize(std::string_view name) {
  std::vector<std::string> tokens;
  std::string current;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!current.empty()) {
      tokens.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

bool contains(const std::vector<std::string>& tokens, std::string_view word) {
  return std::find(tokens.begin(), tokens.end(), word) != tokens.end();
}

/// The token after "rtx", if any ("rtx a6000" -> "a6000").
std::string_view afterRtx(const std::vector<std::string>& tokens) {
  const auto it = std::find(tokens.begin(), tokens.end(), "rtx");
  if (it == tokens.end() || it + 1 == tokens.end()) return {};
  return *(it + 1);
}

bool isDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// Model numbers of NVIDIA's data-center line (formerly Tesla), as whole tokens.
constexpr std::string_view kDataCenterModels[] = {
    "k10",  "k20",  "k20m", "k20x", "k40",   "k40m", "k80",   "m4",    "m10",  "m40", "m60",
    "p4",   "p40",  "p100", "v100", "v100s", "t4",   "a2",    "a10",   "a10g", "a16", "a30",
    "a40",  "a100", "a800", "h100", "h800",  "h20",  "h200",  "gh200", "l4",   "l20", "l20a",
    "l20c", "l40",  "l40s", "b100", "b200",  "b300", "gb200", "gb300"};

bool isDataCenterModel(const std::vector<std::string>& tokens) {
  return std::any_of(std::begin(kDataCenterModels), std::end(kDataCenterModels),
                     [&](std::string_view model) { return contains(tokens, model); });
}

// Quadro RTX 4000/5000/6000/8000 and the RTX "Ada Generation" cards carry a
// round model number (500, 2000, 4000, 6000 ...); GeForce RTX numbers never
// are round to 500 (2080, 3090, 4090, 5090).
bool isRoundWorkstationNumber(std::string_view token) {
  if (!isDigits(token) || token.size() > 5) return false;
  const auto value = parseUnsigned(token).value_or(0);
  return value > 0 && value <= 8000 && value % 500 == 0;
}

// "RTX 4090" typed without "GeForce": the xx50..xx90 numbering of the consumer line.
bool isConsumerRtxNumber(std::string_view token) {
  if (!isDigits(token) || token.size() != 4) return false;
  const auto value = parseUnsigned(token).value_or(0);
  return value % 100 >= 50 && value % 10 == 0;
}

bool isRtxAWorkstation(std::string_view token) {
  return token.size() == 5 && token[0] == 'a' && isDigits(token.substr(1));
}

}  // namespace

std::string_view toString(GpuClass gpuClass) noexcept {
  switch (gpuClass) {
    case GpuClass::DataCenter: return "data-center";
    case GpuClass::Workstation: return "workstation";
    case GpuClass::Consumer: return "consumer";
    case GpuClass::Unknown: return "unknown";
  }
  return "unknown";
}

GpuClass classifyGpu(std::string_view name) {
  const auto tokens = tokenize(name);
  if (tokens.empty()) return GpuClass::Unknown;

  if (contains(tokens, "geforce") || contains(tokens, "titan") || contains(tokens, "gtx")) {
    return GpuClass::Consumer;
  }
  if (contains(tokens, "quadro")) return GpuClass::Workstation;

  const std::string_view rtxModel = afterRtx(tokens);
  if (rtxModel == "pro") {
    // The RTX PRO 6000 Blackwell Server Edition is sold and supported as a
    // data-center part; its Workstation and Max-Q siblings are not.
    return contains(tokens, "server") ? GpuClass::DataCenter : GpuClass::Workstation;
  }
  if (isRtxAWorkstation(rtxModel) || isRoundWorkstationNumber(rtxModel)) {
    return GpuClass::Workstation;
  }
  if (isConsumerRtxNumber(rtxModel)) return GpuClass::Consumer;

  if (tokens.front() == "tesla" || isDataCenterModel(tokens)) return GpuClass::DataCenter;
  return GpuClass::Unknown;
}

const std::vector<std::string>& knownGpuNames() {
  // Spelled as nvidia-smi prints them, so a picked name matches a detected one.
  static const std::vector<std::string> names = {
      "NVIDIA B200",
      "NVIDIA GB200",
      "NVIDIA H200",
      "NVIDIA H200 NVL",
      "NVIDIA GH200 480GB",
      "NVIDIA H100 80GB HBM3",
      "NVIDIA H100 PCIe",
      "NVIDIA H100 NVL",
      "NVIDIA H800",
      "NVIDIA H20",
      "NVIDIA A100-SXM4-80GB",
      "NVIDIA A100-SXM4-40GB",
      "NVIDIA A100 80GB PCIe",
      "NVIDIA A800-SXM4-80GB",
      "NVIDIA A30",
      "NVIDIA A40",
      "NVIDIA A10",
      "NVIDIA A10G",
      "NVIDIA A16",
      "NVIDIA A2",
      "NVIDIA L40S",
      "NVIDIA L40",
      "NVIDIA L20",
      "NVIDIA L4",
      "NVIDIA RTX PRO 6000 Blackwell Server Edition",
      "Tesla V100-SXM2-32GB",
      "Tesla V100-PCIE-16GB",
      "Tesla T4",
      "Tesla P100-PCIE-16GB",
      "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
      "NVIDIA RTX 6000 Ada Generation",
      "NVIDIA RTX 5000 Ada Generation",
      "NVIDIA RTX A6000",
      "NVIDIA RTX A5000",
      "NVIDIA RTX A4000",
      "Quadro RTX 8000",
      "Quadro RTX 6000",
      "NVIDIA GeForce RTX 5090",
      "NVIDIA GeForce RTX 4090",
      "NVIDIA GeForce RTX 3090",
      "NVIDIA TITAN RTX",
  };
  return names;
}

}  // namespace tb::compat
