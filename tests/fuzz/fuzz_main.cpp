// One libFuzzer entry point, built once per target with TB_FUZZ_TARGET naming
// it (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tb::fuzz::Target* target = [] {
    const tb::fuzz::Target* found = tb::fuzz::findTarget(TB_FUZZ_TARGET);
    if (found == nullptr) {
      std::fprintf(stderr, "no fuzz target named %s\n", TB_FUZZ_TARGET);
      std::abort();
    }
    return found;
  }();
  target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
