// Tags and scalar decoding of TensorBoard event files; see tensorboard_scalars.hpp.
#include "tensorboard_scalars.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace tb::logs::detail::tensorboard {
namespace pb = tb::logs::tfevents;
namespace {

std::optional<std::size_t> findTag(std::string_view tag, bool prefixedOnly) {
  for (std::size_t i = 0; i < kKnownTags.size(); ++i) {
    if (kKnownTags[i].tag == tag && (!prefixedOnly || kKnownTags[i].prefixable)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> lookupTag(std::string_view tag) {
  if (auto exact = findTag(tag, false)) return exact;
  // One leading folder off, for torchtitan's tag prefix; its validation
  // metrics ("validation_metrics/throughput(tps)") are not training steps.
  const auto slash = tag.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  if (tag.substr(0, slash) == "validation_metrics") return std::nullopt;
  return findTag(tag.substr(slash + 1), true);
}

void rememberPlugin(const pb::Summary::Value& value, TagPlugin& plugin) {
  if (!value.has_metadata()) return;
  const auto& metadata = value.metadata();
  const std::string& name = metadata.plugin_data().plugin_name();
  if (name == "scalars") {
    plugin = TagPlugin::Scalars;
  } else if (!name.empty()) {
    plugin = TagPlugin::Other;
  } else if (metadata.data_class() == pb::DATA_CLASS_SCALAR) {
    plugin = TagPlugin::Scalars;
  }
}

namespace {

std::uint64_t littleEndian(const std::string& bytes) {
  std::uint64_t value = 0;
  for (std::size_t i = bytes.size(); i > 0; --i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i - 1]);
  }
  return value;
}

double halfToDouble(std::uint32_t bits) {
  const bool negative = (bits & 0x8000U) != 0;
  const int exponent = static_cast<int>((bits >> 10) & 0x1FU);
  const double mantissa = static_cast<double>(bits & 0x3FFU);
  double magnitude = 0.0;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);  // subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0.0 ? HUGE_VAL : std::nan("");
  } else {
    magnitude = std::ldexp(1024.0 + mantissa, exponent - 25);
  }
  return negative ? -magnitude : magnitude;
}

double bfloat16ToDouble(std::uint32_t bits) {
  return static_cast<double>(std::bit_cast<float>((bits & 0xFFFFU) << 16));
}

/// The value of a one-element numeric tensor (rank 0, or every dimension 1),
/// from its typed field or its little-endian tensor_content; anything else
/// (strings, histograms, images) is no scalar.
std::optional<double> scalarOf(const pb::TensorProto& tensor) {
  if (tensor.tensor_shape().unknown_rank()) return std::nullopt;
  for (const auto& dim : tensor.tensor_shape().dim()) {
    if (dim.size() != 1) return std::nullopt;
  }
  const std::string& content = tensor.tensor_content();
  switch (tensor.dtype()) {
    case pb::DT_FLOAT:
      if (tensor.float_val_size() == 1) return static_cast<double>(tensor.float_val(0));
      if (content.size() == 4) {
        return static_cast<double>(
            std::bit_cast<float>(static_cast<std::uint32_t>(littleEndian(content))));
      }
      return std::nullopt;
    case pb::DT_DOUBLE:
      if (tensor.double_val_size() == 1) return tensor.double_val(0);
      if (content.size() == 8) return std::bit_cast<double>(littleEndian(content));
      return std::nullopt;
    case pb::DT_INT32:
      if (tensor.int_val_size() == 1) return static_cast<double>(tensor.int_val(0));
      if (content.size() == 4) {
        return static_cast<double>(
            std::bit_cast<std::int32_t>(static_cast<std::uint32_t>(littleEndian(content))));
      }
      return std::nullopt;
    case pb::DT_INT64:
      if (tensor.int64_val_size() == 1) return static_cast<double>(tensor.int64_val(0));
      if (content.size() == 8) {
        return static_cast<double>(std::bit_cast<std::int64_t>(littleEndian(content)));
      }
      return std::nullopt;
    case pb::DT_HALF:
    case pb::DT_BFLOAT16: {
      std::uint32_t bits = 0;
      if (tensor.half_val_size() == 1) {
        bits = static_cast<std::uint32_t>(tensor.half_val(0));
      } else if (content.size() == 2) {
        bits = static_cast<std::uint32_t>(littleEndian(content));
      } else {
        return std::nullopt;
      }
      return tensor.dtype() == pb::DT_HALF ? halfToDouble(bits) : bfloat16ToDouble(bits);
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<double> scalarOf(const pb::Summary::Value& value, TagPlugin plugin) {
  if (value.has_simple_value()) return static_cast<double>(value.simple_value());
  // A tensor of another plugin (text, hparams, …) is not ours even if it
  // happens to hold one number.
  if (value.has_tensor() && plugin != TagPlugin::Other) return scalarOf(value.tensor());
  return std::nullopt;
}

}  // namespace tb::logs::detail::tensorboard
