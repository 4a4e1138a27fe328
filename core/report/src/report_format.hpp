// Number formatting shared by the text renderers, so that HTML, Markdown and
// the GUI's tables show the same digits for the same value.
#pragma once

#include <cstdint>
#include <string>

namespace tb::report::detail {

/// Fixed-point with `decimals` digits: fixed(1234.567, 1) == "1234.6".
[[nodiscard]] std::string fixed(double value, int decimals);

/// "1.52×", or "—" when there is no speedup to show.
[[nodiscard]] std::string speedupText(double speedup);

/// The GPUs of a row: "8", or "—" for the engine's CPU runs (0 GPUs).
[[nodiscard]] std::string gpusText(int gpus);

/// Base64 (RFC 4648) for data: URLs.
[[nodiscard]] std::string base64(const std::string& data);

}  // namespace tb::report::detail
