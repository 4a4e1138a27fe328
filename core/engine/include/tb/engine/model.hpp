// The engine trains the model description shared with the memory predictor,
// the CLI and the GUI (core/model); these names bring it into tb::engine.
#pragma once

#include "tb/model/model_config.hpp"

namespace tb::engine {

using model::kNormEpsilon;
using model::ModelConfig;

}  // namespace tb::engine
