// Python's JSON (python_json.hpp): the literal rewrite, the stream buffer
// that applies it block by block, and the readers of single values.
#include "python_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace tb::logs::detail {
namespace {

/// Builds a JSON value from nlohmann's SAX events, as its DOM parser does,
/// but refuses nesting deeper than kMaxJsonDepth and, on any error (syntax,
/// a number such as 1e999 that overflows a double), records where and why
/// instead of throwing.
class JsonDomSax final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return add(nlohmann::json(nullptr)); }
  bool boolean(bool value) override { return add(nlohmann::json(value)); }
  bool number_integer(number_integer_t value) override { return add(nlohmann::json(value)); }
  bool number_unsigned(number_unsigned_t value) override { return add(nlohmann::json(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) override {
    return add(nlohmann::json(value));
  }
  bool string(string_t& value) override { return add(nlohmann::json(std::move(value))); }
  bool binary(binary_t& /*value*/) override { return true; }  // JSON text has no binary values

  bool start_object(std::size_t /*elements*/) override { return open(nlohmann::json::object()); }
  bool key(string_t& name) override {
    frames_.back().key = std::move(name);
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t /*elements*/) override { return open(nlohmann::json::array()); }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t position, const std::string& /*lastToken*/,
                   const nlohmann::detail::exception& error) override {
    // `position` counts the bytes read, the offending one included.
    errorByte_ = position > 0 ? position - 1 : 0;
    reason_ = jsonErrorReason(error.what());
    return false;
  }

  [[nodiscard]] nlohmann::json& root() { return root_; }
  [[nodiscard]] bool tooDeep() const { return tooDeep_; }
  [[nodiscard]] std::size_t errorByte() const { return errorByte_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  struct Frame {
    explicit Frame(nlohmann::json container) : value(std::move(container)) {}
    nlohmann::json value;
    std::string key;  ///< an object's key awaiting its value
  };

  bool open(nlohmann::json container) {
    if (frames_.size() >= kMaxJsonDepth) {
      tooDeep_ = true;
      return false;
    }
    frames_.emplace_back(std::move(container));
    return true;
  }

  bool add(nlohmann::json value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& top = frames_.back();
    if (top.value.is_object()) {
      top.value[top.key] = std::move(value);
    } else {
      top.value.push_back(std::move(value));
    }
    return true;
  }

  bool close() {
    nlohmann::json value = std::move(frames_.back().value);
    frames_.pop_back();
    return add(std::move(value));
  }

  std::vector<Frame> frames_;
  nlohmann::json root_;
  bool tooDeep_ = false;
  std::size_t errorByte_ = 0;
  std::string reason_;
};

}  // namespace

std::size_t rewritePythonLiterals(char* data, std::size_t size, bool atEnd,
                                  PythonLiteralScan& scan) {
  static constexpr std::string_view kNan = "NaN";
  static constexpr std::string_view kInf = "Infinity";
  static constexpr std::string_view kNegInf = "-Infinity";
  static constexpr std::string_view kNanString = "\"N\"";
  static constexpr std::string_view kInfString = "\"I\"     ";
  static constexpr std::string_view kNegInfString = "\"-I\"     ";
  static_assert(kNan.size() == kNanString.size() && kInf.size() == kInfString.size() &&
                kNegInf.size() == kNegInfString.size());

  std::size_t i = 0;
  while (i < size) {
    const char c = data[i];
    if (scan.inString) {
      if (scan.escaped) {
        scan.escaped = false;
      } else if (c == '\\') {
        scan.escaped = true;
      } else if (c == '"') {
        scan.inString = false;
      }
      ++i;
      continue;
    }
    std::string_view literal;
    std::string_view replacement;
    if (c == '"') {
      scan.inString = true;
      ++i;
      continue;
    }
    if (c == 'N') {
      literal = kNan;
      replacement = kNanString;
    } else if (c == 'I') {
      literal = kInf;
      replacement = kInfString;
    } else if (c == '-') {
      literal = kNegInf;
      replacement = kNegInfString;
    } else {
      ++i;
      continue;
    }
    const std::size_t available = std::min(size - i, literal.size());
    const std::string_view seen(data + i, available);
    if (seen != literal.substr(0, available)) {
      ++i;  // a number's minus sign, or text the parser will refuse itself
      continue;
    }
    if (available < literal.size()) {
      if (!atEnd) return i;  // the literal may go on in the next block
      ++i;
      continue;
    }
    std::memcpy(data + i, replacement.data(), replacement.size());
    i += literal.size();
  }
  return size;
}

std::uint64_t PythonJsonStreamBuf::offset() const {
  return delivered_ + static_cast<std::uint64_t>(gptr() - eback());
}

PythonJsonStreamBuf::int_type PythonJsonStreamBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  delivered_ += static_cast<std::uint64_t>(egptr() - eback());
  const std::size_t kept = keptEnd_ - keptBegin_;
  std::memmove(buffer_.data(), buffer_.data() + keptBegin_, kept);
  std::size_t size = kept;
  std::size_t ready = 0;
  while (ready == 0) {
    if (!atEnd_) {
      const std::size_t wanted = buffer_.size() - size;
      in_.read(buffer_.data() + size, static_cast<std::streamsize>(wanted));
      const auto got = static_cast<std::size_t>(in_.gcount());
      size += got;
      if (got < wanted) atEnd_ = true;
    }
    if (size == 0) break;
    ready = rewritePythonLiterals(buffer_.data(), size, atEnd_, scan_);
  }
  keptBegin_ = ready;
  keptEnd_ = size;
  setg(buffer_.data(), buffer_.data(), buffer_.data() + ready);
  if (ready == 0) return traits_type::eof();
  return traits_type::to_int_type(buffer_[0]);
}

std::string jsonErrorReason(std::string_view what) {
  if (const auto at = what.find("parse error"); at != std::string_view::npos) {
    if (const auto colon = what.find(": ", at); colon != std::string_view::npos) {
      return std::string(what.substr(colon + 2));
    }
  }
  if (what.starts_with("[json.exception.")) {
    if (const auto close = what.find("] "); close != std::string_view::npos) {
      return std::string(what.substr(close + 2));
    }
  }
  return std::string(what);
}

std::optional<std::size_t> jsonTooDeepAt(std::string_view text, std::size_t maxDepth) {
  std::size_t depth = 0;
  bool inString = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

std::optional<nlohmann::json> parsePythonJson(std::string_view text, JsonTextError& error) {
  std::string strict(text);
  PythonLiteralScan scan;
  rewritePythonLiterals(strict.data(), strict.size(), true, scan);
  if (const auto deep = jsonTooDeepAt(strict)) {
    error.byte = *deep;
    error.reason = "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return std::nullopt;
  }
  JsonDomSax sax;
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(strict, &sax);
  } catch (
      const nlohmann::json::exception& e) {  // not expected through a SAX, but never let one out
    error.byte = 0;
    error.reason = jsonErrorReason(e.what());
    return std::nullopt;
  }
  if (!parsed) {
    error.byte = sax.errorByte();
    error.reason = sax.tooDeep()
                       ? "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"
                       : sax.reason();
    return std::nullopt;
  }
  return std::move(sax.root());
}

bool jsonNumber(const nlohmann::json& value, std::optional<double>& out) {
  if (value.is_number()) {
    out = value.get<double>();
    return true;
  }
  if (value.is_null()) {
    out.reset();
    return true;
  }
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "N") {
      out = std::numeric_limits<double>::quiet_NaN();
      return true;
    }
    if (text == "I") {
      out = std::numeric_limits<double>::infinity();
      return true;
    }
    if (text == "-I") {
      out = -std::numeric_limits<double>::infinity();
      return true;
    }
  }
  return false;
}

std::optional<std::int64_t> jsonCount(const nlohmann::json& value) {
  // nlohmann's is_number_integer() is true for unsigned values too, so the
  // unsigned case comes first: get<std::int64_t>() would wrap 2^63 and over.
  if (value.is_number_unsigned()) {
    const auto unsignedValue = value.get<std::uint64_t>();
    if (unsignedValue > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return std::nullopt;
    }
    return static_cast<std::int64_t>(unsignedValue);
  }
  if (value.is_number_integer()) {
    const auto signedValue = value.get<std::int64_t>();
    if (signedValue < 0) return std::nullopt;
    return signedValue;
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && number >= 0.0 && number == std::floor(number) && number < 9.0e15) {
      return static_cast<std::int64_t>(number);
    }
  }
  return std::nullopt;
}

std::string jsonFound(const nlohmann::json& value) {
  constexpr std::size_t kMax = 60;
  // `replace`: bytes that are not UTF-8 (or a character cut at kMax) must
  // not throw here.
  const auto dump = [](const nlohmann::json& scalar) {
    return scalar.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  const auto counted = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  if (value.is_array()) return "an array of " + counted(value.size(), "value", "values");
  if (value.is_object()) return "an object of " + counted(value.size(), "key", "keys");
  if (value.is_binary()) return "binary data";
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.size() <= kMax) return "'" + dump(value) + "'";
    return "'" + dump(nlohmann::json(text.substr(0, kMax))) + "…'";
  }
  return "'" + dump(value) + "'";
}

}  // namespace tb::logs::detail
