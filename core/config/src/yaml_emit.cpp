// See yaml_emit.hpp: JSON documents to YAML through yaml-cpp's emitter.
#include "yaml_emit.hpp"

#include <yaml-cpp/yaml.h>

#include <regex>
#include <stdexcept>

#include "tb/common/text.hpp"

namespace tb::config::detail {
namespace {

void emitValue(YAML::Emitter& out, const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        emitValue(out, item);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::ordered_json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : value) emitValue(out, item);
      out << YAML::EndSeq;
      return;
    case nlohmann::ordered_json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (plainScalarIsNotString(text)) out << YAML::DoubleQuoted;
      out << text;
      return;
    }
    case nlohmann::ordered_json::value_t::boolean: out << value.get<bool>(); return;
    case nlohmann::ordered_json::value_t::number_integer: out << value.get<long long>(); return;
    case nlohmann::ordered_json::value_t::number_unsigned:
      out << value.get<unsigned long long>();
      return;
    case nlohmann::ordered_json::value_t::number_float: out << value.get<double>(); return;
    case nlohmann::ordered_json::value_t::null: out << YAML::Null; return;
    case nlohmann::ordered_json::value_t::binary:
    case nlohmann::ordered_json::value_t::discarded: break;
  }
  throw std::logic_error("emitYamlStream: a manifest holds a value YAML cannot carry");
}

}  // namespace

bool plainScalarIsNotString(const std::string& text) {
  if (text.empty()) return true;
  static const std::regex kNonString(
      "(true|false|yes|no|on|off|y|n|null|~)|[-+]?(\\.?[0-9][0-9_]*(\\.[0-9_]*)?([eE][-+]?[0-9]+)?"
      "|0x[0-9a-f]+|0o[0-7]+|\\.inf|\\.nan)",
      std::regex::icase);
  return std::regex_match(toLower(text), kNonString);
}

std::string emitYamlStream(const std::vector<YamlDocument>& documents) {
  std::string stream;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    YAML::Emitter out;
    out.SetIndent(2);
    out.SetSeqFormat(YAML::Block);
    emitValue(out, documents[i].body);
    if (!out.good()) throw std::logic_error("emitYamlStream: " + out.GetLastError());
    if (i > 0) stream += "---\n";
    for (const std::string& comment : documents[i].comments) stream += "# " + comment + "\n";
    stream += out.c_str();
    stream += "\n";
  }
  return stream;
}

}  // namespace tb::config::detail
