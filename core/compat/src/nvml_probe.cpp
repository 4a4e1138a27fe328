// NVML is loaded with dlopen so that TrainBench starts on machines without
// an NVIDIA driver and has no link-time dependency on one. nvml.h is not on
// users' machines either, so the few prototypes used are declared here, from
// NVML's documented C API (every function returns nvmlReturn_t, 0 = success).
#include <cstring>

#include "host_probes.hpp"
#include "tb/common/shared_library.hpp"

namespace tb::compat::detail {
namespace {

using NvmlReturn = int;
struct NvmlDeviceOpaque;  // what nvmlDevice_t points to; never dereferenced
using NvmlDevice = NvmlDeviceOpaque*;

constexpr NvmlReturn kNvmlSuccess = 0;
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned kDeviceNameBufferSize = 96;     // NVML_DEVICE_NAME_V2_BUFFER_SIZE

Error nvmlError(std::string message) { return makeError(ErrorKind::Runtime, "NVML: " + message); }

struct NvmlApi {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*driverVersion)(char*, unsigned) = nullptr;
  NvmlReturn (*cudaDriverVersion)(int*) = nullptr;
  NvmlReturn (*deviceCount)(unsigned*) = nullptr;
  NvmlReturn (*deviceHandle)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*deviceName)(NvmlDevice, char*, unsigned) = nullptr;
  const char* (*errorString)(NvmlReturn) = nullptr;  // optional: only for messages

  [[nodiscard]] std::string describe(NvmlReturn code) const {
    const char* text = errorString != nullptr ? errorString(code) : nullptr;
    const std::string number = "error " + std::to_string(code);
    return text != nullptr ? number + " (" + text + ")" : number;
  }
};

// nvmlInit_v2 succeeded: nvmlShutdown must follow on every path out.
class NvmlSession {
 public:
  explicit NvmlSession(const NvmlApi& api) : api_(api) {}
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  ~NvmlSession() { api_.shutdown(); }

 private:
  const NvmlApi& api_;
};

Expected<NvmlApi> resolve(const SharedLibrary& library, const std::string& path) {
  NvmlApi api;
  api.init = library.symbol<decltype(api.init)>("nvmlInit_v2");
  api.shutdown = library.symbol<decltype(api.shutdown)>("nvmlShutdown");
  api.driverVersion = library.symbol<decltype(api.driverVersion)>("nvmlSystemGetDriverVersion");
  api.cudaDriverVersion =
      library.symbol<decltype(api.cudaDriverVersion)>("nvmlSystemGetCudaDriverVersion_v2");
  if (api.cudaDriverVersion == nullptr) {
    api.cudaDriverVersion =
        library.symbol<decltype(api.cudaDriverVersion)>("nvmlSystemGetCudaDriverVersion");
  }
  api.deviceCount = library.symbol<decltype(api.deviceCount)>("nvmlDeviceGetCount_v2");
  api.deviceHandle = library.symbol<decltype(api.deviceHandle)>("nvmlDeviceGetHandleByIndex_v2");
  api.deviceName = library.symbol<decltype(api.deviceName)>("nvmlDeviceGetName");
  api.errorString = library.symbol<decltype(api.errorString)>("nvmlErrorString");

  struct Required {
    const char* name;
    bool found;
  };
  const Required required[] = {{"nvmlInit_v2", api.init != nullptr},
                               {"nvmlShutdown", api.shutdown != nullptr},
                               {"nvmlSystemGetDriverVersion", api.driverVersion != nullptr},
                               {"nvmlDeviceGetCount_v2", api.deviceCount != nullptr},
                               {"nvmlDeviceGetHandleByIndex_v2", api.deviceHandle != nullptr},
                               {"nvmlDeviceGetName", api.deviceName != nullptr}};
  for (const auto& symbol : required) {
    if (!symbol.found) return nvmlError(path + " lacks " + symbol.name);
  }
  return api;
}

std::string bufferText(const char* buffer, std::size_t size) {
  return std::string(buffer, ::strnlen(buffer, size));
}

}  // namespace

Expected<ProbeResult> probeNvml(const std::string& library) {
  // Closed (dlclose) on every path out, after the session below has ended.
  auto shared = SharedLibrary::open(library);
  if (!shared) return nvmlError(shared.error().message);
  auto api = resolve(*shared, library);
  if (!api) return std::move(api).error();

  if (const NvmlReturn code = api->init(); code != kNvmlSuccess) {
    return nvmlError("nvmlInit_v2 failed with " + api->describe(code));
  }
  const NvmlSession session(*api);

  char versionBuffer[kDriverVersionBufferSize] = {};
  if (const NvmlReturn code = api->driverVersion(versionBuffer, kDriverVersionBufferSize);
      code != kNvmlSuccess) {
    return nvmlError("nvmlSystemGetDriverVersion failed with " + api->describe(code));
  }
  const std::string versionText = bufferText(versionBuffer, sizeof versionBuffer);
  auto driver = catalog::DriverVersion::parse(versionText);
  if (!driver) return nvmlError(driver.error().message);

  ProbeResult result;
  result.driver = *driver;
  if (api->cudaDriverVersion != nullptr) {
    // Fails with NVML_ERROR_LIBRARY_NOT_FOUND when libcuda is missing; the
    // kernel driver version above is still right, so this only costs a note.
    int cuda = 0;
    if (const NvmlReturn code = api->cudaDriverVersion(&cuda); code == kNvmlSuccess) {
      result.cudaDriverVersion = cuda;
    } else {
      result.notes.push_back("NVML: CUDA driver version unavailable: " + api->describe(code));
    }
  }

  unsigned count = 0;
  if (const NvmlReturn code = api->deviceCount(&count); code != kNvmlSuccess) {
    result.notes.push_back("NVML: nvmlDeviceGetCount_v2 failed with " + api->describe(code));
    return result;
  }
  for (unsigned index = 0; index < count; ++index) {
    NvmlDevice device = nullptr;
    char nameBuffer[kDeviceNameBufferSize] = {};
    NvmlReturn code = api->deviceHandle(index, &device);
    if (code == kNvmlSuccess) code = api->deviceName(device, nameBuffer, kDeviceNameBufferSize);
    if (code != kNvmlSuccess) {
      // Keep the GPU in the count: an unreadable name is still a GPU.
      result.notes.push_back("NVML: name of GPU " + std::to_string(index) +
                             " unavailable: " + api->describe(code));
    }
    result.gpuNames.push_back(bufferText(nameBuffer, sizeof nameBuffer));
  }
  return result;
}

}  // namespace tb::compat::detail
