// JSON as Python's json.dumps writes it. Its default allow_nan=True writes
// NaN, Infinity and -Infinity as bare literals, which strict JSON (and
// nlohmann's parser) refuses; the Trainer's trainer_state.json, DLLogger's
// `DLLL {…}` lines and mlperf_logging's `:::MLLOG {…}` lines all go through
// json.dumps, so a diverged loss or an overflowed grad norm shows up as one.
//
// How they are read: before nlohmann sees the text, each such literal outside
// a string is overwritten in place by a string of the same length — NaN by
// "N", Infinity by "I" and five blanks, -Infinity by "-I" and five blanks —
// and jsonNumber() reads those strings back as the numbers. Keeping the
// length means the byte offsets in nlohmann's errors are offsets into the
// original file. (nlohmann's SAX interface does not help here: its lexer
// rejects the literals before any SAX event.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tb::logs::detail {

/// Where a scan of JSON text stands between two blocks of it.
struct PythonLiteralScan {
  bool inString = false;
  bool escaped = false;
};

/// Rewrites Python's literals in data[0, size) in place and returns how many
/// leading bytes are final. That is fewer than `size` only when the block
/// ends inside what may be a literal and more text follows (`atEnd` false):
/// the caller passes the rest again, with what follows, next time.
std::size_t rewritePythonLiterals(char* data, std::size_t size, bool atEnd,
                                  PythonLiteralScan& scan);

/// A stream buffer over `in` that hands nlohmann the text with Python's
/// literals rewritten, block by block, so a long trainer_state.json is parsed
/// without holding the file.
class PythonJsonStreamBuf final : public std::streambuf {
 public:
  explicit PythonJsonStreamBuf(std::istream& in) : in_(in) {}

  /// The offset in the file of the next byte the parser will read.
  [[nodiscard]] std::uint64_t offset() const;

 protected:
  int_type underflow() override;

 private:
  std::istream& in_;
  std::array<char, 64 * 1024> buffer_{};
  std::size_t keptBegin_ = 0;  ///< bytes read but not yet final: [keptBegin_, keptEnd_)
  std::size_t keptEnd_ = 0;
  std::uint64_t delivered_ = 0;
  bool atEnd_ = false;
  PythonLiteralScan scan_;
};

/// JSON nested deeper than this is refused (a file of 500,000 '[' is an
/// attack or a corruption, not a log). No framework's file comes close: a
/// trainer_state.json nests a handful of levels, an MLLOG or DLLL record two.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// nlohmann's message without its "[json.exception.parse_error.101] parse
/// error at line L, column C: " or "[json.exception.out_of_range.406] "
/// prefix (we say where ourselves).
std::string jsonErrorReason(std::string_view what);

/// The 0-based byte of `text` where JSON nesting first goes deeper than
/// `maxDepth` (an opening bracket outside a string), if it does. One pass,
/// no recursion.
std::optional<std::size_t> jsonTooDeepAt(std::string_view text,
                                         std::size_t maxDepth = kMaxJsonDepth);

/// Why one line's JSON could not be read: the 0-based byte of the text where
/// the parser stopped, and the reason.
struct JsonTextError {
  std::size_t byte = 0;
  std::string reason;
};

/// One line's JSON, as Python writes it. Never throws on bad input: a syntax
/// error, a number out of a double's range (1e999) and nesting deeper than
/// kMaxJsonDepth all come back as `error`.
std::optional<nlohmann::json> parsePythonJson(std::string_view text, JsonTextError& error);

/// A JSON value read as a number into `out`: a number as it is, the strings
/// the rewrite above left for NaN/Infinity/-Infinity as those, null (Python's
/// None) as no value. Returns false for any other kind of value.
bool jsonNumber(const nlohmann::json& value, std::optional<double>& out);

/// A JSON value read as a whole, non-negative count (a step, a batch, a
/// sequence length): an integer from 0 to 2^63 - 1, or a float with no
/// fraction below 2^53 (Python writes 99.0 for a float step). Anything else
/// — negative, at or over 2^63, fractional, not a number — is no count.
std::optional<std::int64_t> jsonCount(const nlohmann::json& value);

/// What a value is, for an error message's "found …", in bounded time and
/// memory whatever the value: a scalar quoted as JSON writes it ('"1.7?"',
/// '12'), a long string cut to its first 60 bytes before it is copied, a
/// container described ("an array of 3 values", "an object of 2 keys")
/// rather than written out.
std::string jsonFound(const nlohmann::json& value);

}  // namespace tb::logs::detail
