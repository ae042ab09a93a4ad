#include "controller/drain/drain_request.h"

#include <nlohmann/json.hpp>

#include "common/config/value_parse.h"

namespace gantry::drain {
namespace {

using config::iequals;

Result<DrainAction> parseAction(const std::string& text, bool json) {
  std::string lower = config::toLower(text);
  if (lower == "drain") return DrainAction::Drain;
  if (lower == "resume") return DrainAction::Resume;
  if (json ? lower == "set_drain" : lower == "setdrain") return DrainAction::SetDrain;
  if (json) return Error{"\"action\": \"" + text + "\" is not drain, resume or set_drain"};
  return Error{"Action=" + text + " is not Drain, SetDrain or Resume"};
}

// A Count= amount: megabytes for mem (suffixes K, M, G, T), a count otherwise.
Result<uint64_t> parseAmount(const std::string& tres, const std::string& text) {
  return iequals(tres, "mem") ? config::parseSizeMb(text) : config::parseCount(text);
}

Status setSelector(DrainRequest& request, SelectorKind kind, const std::string& key) {
  if (request.selector != SelectorKind::None) {
    return Error{key + " is a second selector; give one of Index=, Uuid= and Count= (one TRES per command)"};
  }
  request.selector = kind;
  return okStatus();
}

Status checkComplete(const DrainRequest& request, const char* tresKey, const char* nodesKey, const char* actionKey,
                     bool actionSeen) {
  if (request.tres.empty()) return Error{std::string(tresKey) + " is required"};
  if (request.nodes.empty()) return Error{std::string(nodesKey) + " is required"};
  if (!actionSeen) return Error{std::string(actionKey) + " is required"};
  if (request.selector == SelectorKind::None) return Error{"one of Index=, Uuid= and Count= is required"};
  if (request.action != DrainAction::Resume && request.reason.empty()) {
    return Error{"Reason= is required for Action=" + toString(request.action)};
  }
  return okStatus();
}

// A list the API may give as one string ("0,2-3", "n1,n2"), a number, or an
// array of either; "" when it is none of those.
std::string jsonList(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
  if (!value.is_array()) return "";
  std::vector<std::string> items;
  for (const nlohmann::json& item : value) {
    std::string text = item.is_array() ? "" : jsonList(item);
    if (text.empty()) return "";
    items.push_back(text);
  }
  return config::join(items, ",");
}

}  // namespace

std::string toString(DrainAction action) {
  switch (action) {
    case DrainAction::Drain:
      return "Drain";
    case DrainAction::SetDrain:
      return "SetDrain";
    case DrainAction::Resume:
      return "Resume";
  }
  return "Drain";
}

Result<DrainRequest> parseScontrolDrainRequest(const std::vector<std::string>& words) {
  DrainRequest request;
  bool actionSeen = false;
  std::string countText;
  std::vector<std::string> seen;
  for (const std::string& word : words) {
    std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return Error{"\"" + word + "\" is not Key=Value"};
    std::string key = config::toLower(word.substr(0, eq));
    std::string value = word.substr(eq + 1);
    for (const std::string& earlier : seen) {
      if (earlier == key) return Error{word.substr(0, eq) + "= is given twice"};
    }
    seen.push_back(key);
    if (key == "tresname") {
      request.tres = value;
    } else if (key == "nodename") {
      request.nodes = value;
    } else if (key == "reason") {
      request.reason = value;
    } else if (key == "action") {
      auto action = parseAction(value, false);
      if (!action) return action.failure();
      request.action = *action;
      actionSeen = true;
    } else if (key == "index") {
      if (auto ok = setSelector(request, iequals(value, "ALL") ? SelectorKind::All : SelectorKind::Index, "Index=");
          !ok) {
        return ok.failure();
      }
      if (request.selector == SelectorKind::Index) {
        auto indexes = config::parseIntRanges(value);
        if (!indexes || indexes->empty()) {
          return Error{"Index=" + value + ": " + (indexes ? std::string("no index") : indexes.error())};
        }
        request.indexes = std::move(indexes.value());
      }
    } else if (key == "uuid") {
      if (auto ok = setSelector(request, SelectorKind::Uuid, "Uuid="); !ok) return ok.failure();
      if (value.empty()) return Error{"Uuid= is empty"};
      request.uuid = value;
    } else if (key == "count") {
      if (auto ok = setSelector(request, iequals(value, "ALL") ? SelectorKind::All : SelectorKind::Count, "Count=");
          !ok) {
        return ok.failure();
      }
      countText = value;
    } else {
      return Error{"unknown key " + word.substr(0, eq) +
                   "= for a TRES drain (TresName, NodeName, Index, Uuid, Count, Action, Reason)"};
    }
  }
  if (request.selector == SelectorKind::Count) {
    auto count = parseAmount(request.tres, countText);
    if (!count) return Error{"Count=" + countText + ": " + count.error()};
    request.count = *count;
  }
  if (auto ok = checkComplete(request, "TresName=", "NodeName=", "Action=", actionSeen); !ok) return ok.failure();
  return request;
}

Result<DrainRequest> parseJsonDrainRequest(const std::string& jsonText) {
  nlohmann::json body = nlohmann::json::parse(jsonText, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) return Error{"the TRES drain request is not a JSON object"};
  DrainRequest request;
  bool actionSeen = false;
  std::string countText;  // a count given as a string ("4G"), read once the tres is known
  auto text = [&](const std::string& key, const nlohmann::json& value) -> Result<std::string> {
    if (!value.is_string()) return Error{"\"" + key + "\" must be a string"};
    return value.get<std::string>();
  };
  for (const auto& [key, value] : body.items()) {
    if (key == "nodes" && value.is_array()) {
      request.nodes = jsonList(value);
      if (request.nodes.empty()) return Error{"\"nodes\" must be node names"};
    } else if (key == "name" || key == "nodes" || key == "reason" || key == "uuid" || key == "action") {
      auto s = text(key, value);
      if (!s) return s.failure();
      if (key == "name") request.tres = *s;
      if (key == "nodes") request.nodes = *s;
      if (key == "reason") request.reason = *s;
      if (key == "uuid") {
        if (auto ok = setSelector(request, SelectorKind::Uuid, "\"uuid\""); !ok) return ok.failure();
        request.uuid = *s;
      }
      if (key == "action") {
        auto action = parseAction(*s, true);
        if (!action) return action.failure();
        request.action = *action;
        actionSeen = true;
      }
    } else if (key == "index") {
      std::string listText = jsonList(value);
      if (iequals(listText, "ALL")) {
        return Error{"\"index\": \"ALL\" is refused; ask for every index with \"select_all\": true"};
      }
      auto indexes = config::parseIntRanges(listText);
      if (listText.empty() || !indexes || indexes->empty()) {
        return Error{"\"index\" must be an index list such as \"0,2-3\""};
      }
      if (auto ok = setSelector(request, SelectorKind::Index, "\"index\""); !ok) return ok.failure();
      request.indexes = std::move(indexes.value());
    } else if (key == "count") {
      if (auto ok = setSelector(request, SelectorKind::Count, "\"count\""); !ok) return ok.failure();
      if (value.is_number_unsigned()) {
        request.count = value.get<uint64_t>();
      } else if (value.is_string()) {
        countText = value.get<std::string>();
      } else {
        return Error{"\"count\" must be a number"};
      }
    } else if (key == "select_all") {
      if (!value.is_boolean()) return Error{"\"select_all\" must be true or false"};
      if (value.get<bool>()) {
        if (auto ok = setSelector(request, SelectorKind::All, "\"select_all\""); !ok) return ok.failure();
      }
    } else {
      return Error{"unknown key \"" + key + "\" in a TRES drain request"};
    }
  }
  if (request.selector == SelectorKind::Count && !countText.empty()) {
    if (iequals(countText, "ALL")) return Error{"\"count\": \"ALL\" is refused; use \"select_all\": true"};
    auto amount = parseAmount(request.tres, countText);
    if (!amount) return Error{"\"count\": " + amount.error()};
    request.count = *amount;
  }
  if (auto ok = checkComplete(request, "\"name\"", "\"nodes\"", "\"action\"", actionSeen); !ok) return ok.failure();
  return request;
}

}  // namespace gantry::drain
