#include "cli/scontrol_update.h"

#include <cctype>
#include <set>

#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

bool startsWithKey(const std::string& word, const std::string& key) {
  if (word.size() <= key.size() || word[key.size()] != '=') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) != key[i]) return false;
  }
  return true;
}

}  // namespace

Result<gantry::v1::UpdateNodeRequest> parseNodeUpdate(const std::vector<std::string>& words) {
  static const std::set<std::string> kStates = {"DOWN", "DRAIN", "FAIL", "RESUME", "IDLE", "UNDRAIN",
                                                "RESUME_KEEP_TRES"};
  gantry::v1::UpdateNodeRequest request;
  for (const std::string& word : words) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) {
      return Error{"update: '" + word + "' is not of the form Key=Value"};
    }
    std::string key = upper(word.substr(0, eq));
    std::string value = word.substr(eq + 1);
    if (key == "NODENAME" || key == "NODE") {
      request.set_node_names(value);
    } else if (key == "STATE") {
      std::string state = upper(value);
      if (!kStates.count(state)) {
        return Error{"update: State=" + value +
                     ": expected DOWN, DRAIN, FAIL, RESUME, RESUME_KEEP_TRES, IDLE or UNDRAIN"};
      }
      request.set_state(state);
    } else if (key == "REASON") {
      request.set_reason(value);
    } else {
      return Error{"update: unknown key '" + word.substr(0, eq) +
                   "': node updates take NodeName, State and Reason"};
    }
  }
  if (request.node_names().empty()) return Error{"update: NodeName=<nodes> is required"};
  if (request.state().empty() && request.reason().empty()) {
    return Error{"update: nothing to change; give State= and/or Reason="};
  }
  if ((request.state() == "DOWN" || request.state() == "DRAIN" || request.state() == "FAIL") &&
      request.reason().empty()) {
    return Error{"update: State=" + request.state() + " requires Reason=\"...\""};
  }
  return request;
}

Result<std::string> parseDrainedTresNodes(const std::vector<std::string>& rest) {
  if (rest.empty()) return std::string();
  if (rest.size() > 1) {
    return Error{"show drainedtres: give at most one host list, got " + std::to_string(rest.size()) + " words"};
  }
  std::string nodes = rest.front();
  if (startsWithKey(nodes, "nodename")) {
    nodes = nodes.substr(nodes.find('=') + 1);
  } else if (nodes.find('=') != std::string::npos) {
    return Error{"show drainedtres: unknown option '" + rest.front() +
                 "'; give a host list or NodeName=<hostlist>"};
  }
  if (nodes.empty()) return Error{"show drainedtres: NodeName= is empty"};
  if (auto names = hostlist::expand(nodes); !names) return Error{"show drainedtres: " + names.error()};
  return nodes;
}

bool isTresUpdate(const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (upper(word.substr(0, word.find('='))) == "TRESNAME" && word.find('=') != std::string::npos) return true;
  }
  return false;
}

}  // namespace gantry::cli
