// A stand-in libnvidia-ml for the host detection tests, loaded through the
// same dlopen path as the real one, so the probe's prototypes, its RAII
// shutdown and its error handling are exercised without a GPU. It answers
// like a two-GPU H200 host; environment variables make it misbehave:
//   TB_FAKE_NVML_INIT_ERROR=N   nvmlInit_v2 returns N
//   TB_FAKE_NVML_DRIVER=TEXT    the driver version string it reports
//   TB_FAKE_NVML_CUDA_ERROR=N   nvmlSystemGetCudaDriverVersion_v2 returns N
// tbFakeNvmlInits / tbFakeNvmlShutdowns let a test check that every
// successful init was paired with a shutdown.
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int inits = 0;
int shutdowns = 0;
int devices[2] = {0, 1};

int errorFromEnvironment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : 0;
}

int copyText(const std::string& text, char* buffer, unsigned length) {
  if (text.size() + 1 > length) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return 0;
}

}  // namespace

extern "C" {

struct nvmlDevice_st;

int nvmlInit_v2() {
  if (const int error = errorFromEnvironment("TB_FAKE_NVML_INIT_ERROR")) return error;
  ++inits;
  return 0;
}

int nvmlShutdown() {
  ++shutdowns;
  return 0;
}

const char* nvmlErrorString(int code) {
  return code == 9 ? "Driver Not Loaded" : code == 12 ? "Library Not Found" : "Unknown Error";
}

int nvmlSystemGetDriverVersion(char* buffer, unsigned length) {
  const char* driver = std::getenv("TB_FAKE_NVML_DRIVER");
  return copyText(driver != nullptr ? driver : "570.124.06", buffer, length);
}

int nvmlSystemGetCudaDriverVersion_v2(int* version) {
  if (const int error = errorFromEnvironment("TB_FAKE_NVML_CUDA_ERROR")) return error;
  *version = 12080;
  return 0;
}

int nvmlDeviceGetCount_v2(unsigned* count) {
  *count = 2;
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_st** device) {
  if (index >= 2) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = reinterpret_cast<nvmlDevice_st*>(&devices[index]);
  return 0;
}

int nvmlDeviceGetName(nvmlDevice_st* device, char* buffer, unsigned length) {
  if (device == nullptr) return 2;
  return copyText("NVIDIA H200", buffer, length);
}

int tbFakeNvmlInits() { return inits; }
int tbFakeNvmlShutdowns() { return shutdowns; }

}  // extern "C"
