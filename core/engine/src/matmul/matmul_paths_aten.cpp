// The probe's candidates in a build without oneDNN (an upstream LibTorch
// ships no oneDNN headers to build against): ATen's path alone, so the probe
// measures it and the engine takes it.
#include "matmul/matmul_path.hpp"

namespace tb::engine {

const std::vector<const MatmulPath*>& cpuMatmulPaths() {
  static const std::vector<const MatmulPath*> paths{&atenMatmulPath()};
  return paths;
}

std::string oneDnnVersion() { return {}; }

}  // namespace tb::engine
