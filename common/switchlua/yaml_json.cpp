#include "common/switchlua/yaml_json.h"

#include <charconv>
#include <cmath>
#include <regex>

#include <yaml-cpp/yaml.h>

namespace gantry::switchlua {
namespace {

using nlohmann::json;

void emit(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      if (value.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (const auto& [name, element] : value.items()) {
        out << YAML::Key << YAML::DoubleQuoted << name << YAML::Value;
        emit(out, element);
      }
      out << YAML::EndMap;
      return;
    case json::value_t::array:
      if (value.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const auto& element : value) emit(out, element);
      out << YAML::EndSeq;
      return;
    case json::value_t::string: out << YAML::DoubleQuoted << value.get<std::string>(); return;
    case json::value_t::boolean: out << (value.get<bool>() ? "true" : "false"); return;
    case json::value_t::number_integer: out << value.get<int64_t>(); return;
    case json::value_t::number_unsigned: out << value.get<uint64_t>(); return;
    case json::value_t::number_float: out << value.dump(); return;  // JSON's shortest round-trip form
    default: out << YAML::Null; return;
  }
}

std::string place(const YAML::Mark& mark) {
  if (mark.is_null()) return "";
  return " at line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

// A plain (unquoted) scalar, read by the YAML 1.2 core schema.
json plainScalar(const std::string& text) {
  static const std::regex kNull("~|null|Null|NULL");
  static const std::regex kTrue("true|True|TRUE");
  static const std::regex kFalse("false|False|FALSE");
  static const std::regex kInteger("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (text.empty() || std::regex_match(text, kNull)) return nullptr;
  if (std::regex_match(text, kTrue)) return true;
  if (std::regex_match(text, kFalse)) return false;
  if (std::regex_match(text, kInteger)) {
    int64_t number = 0;
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    auto [end, error] = std::from_chars(begin, text.data() + text.size(), number);
    if (error == std::errc() && end == text.data() + text.size()) return number;
  }
  if (std::regex_match(text, kFloat)) {
    double number = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(number)) return number;
  }
  return text;
}

// Nesting deeper than this is refused, as for JSON text.
constexpr int kMaxYamlDepth = 100;

Result<json> convert(const YAML::Node& node, int depth) {
  if (depth > kMaxYamlDepth) return Error{"nested more than " + std::to_string(kMaxYamlDepth) + " levels deep" + place(node.Mark())};
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: return json(nullptr);
    case YAML::NodeType::Scalar:
      // yaml-cpp tags a quoted scalar "!" and a plain one "?".
      if (node.Tag() == "!") return json(node.Scalar());
      return plainScalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& element : node) {
        auto value = convert(element, depth + 1);
        if (!value) return value;
        out.push_back(std::move(*value));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& pair : node) {
        if (!pair.first.IsScalar()) return Error{"a mapping key that is not a scalar" + place(pair.first.Mark())};
        auto value = convert(pair.second, depth + 1);
        if (!value) return value;
        out[pair.first.Scalar()] = std::move(*value);
      }
      return out;
    }
  }
  return json(nullptr);
}

}  // namespace

std::string jsonToYaml(const json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

Result<json> yamlToJson(const std::string& text) {
  try {
    return convert(YAML::Load(text), 1);
  } catch (const YAML::Exception& e) {
    return Error{e.msg + place(e.mark)};
  }
}

}  // namespace gantry::switchlua
