#include "controller/switch/runner/call_protocol.h"

#include <nlohmann/json.hpp>

namespace gantry::interconnect {
namespace {

using nlohmann::json;
using switchlua::CallOutcome;
using switchlua::CallResult;
using switchlua::DictionaryStatus;
using switchlua::EntryValueKind;
using switchlua::ScriptLogLevel;
using switchlua::TableEntry;

constexpr int kLastLevel = static_cast<int>(ScriptLogLevel::Debug4);
constexpr int kLastOutcome = static_cast<int>(CallOutcome::InvalidArgument);
constexpr int kLastDictionary = static_cast<int>(DictionaryStatus::TooDeep);
constexpr int kLastEntryKind = static_cast<int>(EntryValueKind::Other);

// Lines are JSON objects, and dump() never writes a raw newline, so a
// message never spans lines.
std::string line(const json& message) { return message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n"; }

json entryJson(const TableEntry& entry) {
  json out = {{"key_text", entry.keyText},     {"key_type", entry.keyType}, {"kind", static_cast<int>(entry.kind)},
              {"text", entry.text},            {"value_type", entry.valueType}};
  if (entry.name) out["name"] = *entry.name;
  return out;
}

json resultJson(const CallResult& result) {
  json out = {{"outcome", static_cast<int>(result.outcome)},
              {"message", result.message},
              {"first_type", result.firstType},
              {"dictionary", static_cast<int>(result.dictionary)},
              {"dictionary_json", result.dictionaryJson},
              {"dictionary_problem", result.dictionaryProblem},
              {"second_entries", json::array()}};
  if (result.number) out["number"] = *result.number;
  if (result.boolean) out["boolean"] = *result.boolean;
  for (const auto& entry : result.secondEntries) out["second_entries"].push_back(entryJson(entry));
  return out;
}

// An enum sent as its number, checked against the range it may take.
template <typename Enum>
Enum enumAt(const json& object, const char* field, int last) {
  int value = object.at(field).get<int>();
  if (value < 0 || value > last) throw std::out_of_range(std::string(field) + " out of range");
  return static_cast<Enum>(value);
}

TableEntry entryOf(const json& in) {
  TableEntry entry;
  if (in.contains("name")) entry.name = in.at("name").get<std::string>();
  entry.keyText = in.at("key_text").get<std::string>();
  entry.keyType = in.at("key_type").get<std::string>();
  entry.kind = enumAt<EntryValueKind>(in, "kind", kLastEntryKind);
  entry.text = in.at("text").get<std::string>();
  entry.valueType = in.at("value_type").get<std::string>();
  return entry;
}

CallResult resultOf(const json& in) {
  CallResult result;
  result.outcome = enumAt<CallOutcome>(in, "outcome", kLastOutcome);
  result.message = in.at("message").get<std::string>();
  result.firstType = in.at("first_type").get<std::string>();
  if (in.contains("number")) result.number = in.at("number").get<double>();
  if (in.contains("boolean")) result.boolean = in.at("boolean").get<bool>();
  result.dictionary = enumAt<DictionaryStatus>(in, "dictionary", kLastDictionary);
  result.dictionaryJson = in.at("dictionary_json").get<std::string>();
  result.dictionaryProblem = in.at("dictionary_problem").get<std::string>();
  for (const auto& entry : in.at("second_entries")) result.secondEntries.push_back(entryOf(entry));
  return result;
}

}  // namespace

std::string encodeOrder(const CallOrder& order) {
  json arguments = json::array();
  for (const auto& argument : order.arguments) arguments.push_back(argument ? json(*argument) : json(nullptr));
  json out = {{"script", order.script.string()}, {"function", order.function}, {"arguments", arguments}};
  if (order.runAs) {
    out["run_as"] = {{"uid", order.runAs->uid}, {"gid", order.runAs->gid}, {"groups", order.runAs->groups}};
  }
  return line(out);
}

Result<CallOrder> decodeOrder(std::string_view text) {
  try {
    json in = json::parse(text);
    CallOrder order;
    order.script = in.at("script").get<std::string>();
    order.function = in.at("function").get<std::string>();
    for (const auto& argument : in.at("arguments")) {
      if (argument.is_null()) {
        order.arguments.emplace_back(std::nullopt);
      } else {
        order.arguments.emplace_back(argument.get<std::string>());
      }
    }
    if (auto runAs = in.find("run_as"); runAs != in.end()) {
      order.runAs = CallIdentity{.uid = runAs->at("uid").get<uint32_t>(),
                                 .gid = runAs->at("gid").get<uint32_t>(),
                                 .groups = runAs->at("groups").get<std::vector<uint32_t>>()};
    }
    return order;
  } catch (const std::exception& e) {
    return Error{ErrorCode::Invalid, std::string("switch call order: ") + e.what()};
  }
}

std::string encodeLogLine(ScriptLogLevel level, const std::string& text) {
  return line({{"log", static_cast<int>(level)}, {"line", text}});
}

std::string encodeResult(const CallResult& result) { return line({{"result", resultJson(result)}}); }

std::string encodeOrderError(const std::string& why) { return line({{"order_refused", why}}); }

Result<ChannelMessage> decodeChannelLine(std::string_view text) {
  try {
    json in = json::parse(text);
    if (in.contains("log")) {
      return ChannelMessage{channel::LogLine{enumAt<ScriptLogLevel>(in, "log", kLastLevel), in.at("line").get<std::string>()}};
    }
    if (in.contains("result")) return ChannelMessage{channel::Finished{resultOf(in.at("result"))}};
    if (in.contains("order_refused")) return ChannelMessage{channel::OrderRefused{in.at("order_refused").get<std::string>()}};
    return Error{ErrorCode::Internal, "switch call channel: a line that is no message"};
  } catch (const std::exception& e) {
    return Error{ErrorCode::Internal, std::string("switch call channel: ") + e.what()};
  }
}

}  // namespace gantry::interconnect
