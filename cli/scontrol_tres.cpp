#include "cli/scontrol_tres.h"

#include <cctype>
#include <iostream>

#include "cli/json_render.h"
#include "cli/subcommands.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

constexpr const char* kCommand = "scontrol";

bool startsWithKey(const std::string& word, const std::string& key) {
  if (word.size() <= key.size() || word[key.size()] != '=') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[i])) != key[i]) return false;
  }
  return true;
}

// "show drainedtres n[1-2]" or "show drainedtres NodeName=n[1-2]": the host
// list, "" for every node. A bad expression is refused here, before a call.
Result<std::string> drainedTresNodes(const std::vector<std::string>& rest) {
  if (rest.empty()) return std::string();
  if (rest.size() > 1) return Error{"show drainedtres: give at most one host list, got " + std::to_string(rest.size()) + " words"};
  std::string nodes = rest.front();
  if (startsWithKey(nodes, "nodename")) {
    nodes = nodes.substr(nodes.find('=') + 1);
  } else if (nodes.find('=') != std::string::npos) {
    return Error{"show drainedtres: unknown option '" + rest.front() + "'; give a host list or NodeName=<hostlist>"};
  }
  if (nodes.empty()) return Error{"show drainedtres: NodeName= is empty"};
  if (auto names = hostlist::expand(nodes); !names) return Error{"show drainedtres: " + names.error()};
  return nodes;
}

}  // namespace

int updateTres(const ControllerClient& client, const std::vector<std::string>& words) {
  gantry::v1::UpdateTresRequest request;
  for (const std::string& word : words) request.add_words(word);
  auto response = client.call<gantry::v1::UpdateTresResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.UpdateTres(context, request, out); });
  if (!response) return reportError(kCommand, response.error());
  printLeftDrained(response->left_drained());
  return 0;
}

int showDrainedTres(const ControllerClient& client, const std::vector<std::string>& rest, bool json) {
  auto nodes = drainedTresNodes(rest);
  if (!nodes) return reportError(kCommand, nodes.error());
  gantry::v1::ListDrainedTresRequest request;
  request.set_node_names(*nodes);
  auto response = client.call<gantry::v1::ListDrainedTresResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListDrainedTres(context, request, out);
      });
  if (!response) return reportError(kCommand, response.error());
  if (!json) {
    std::cout << response->listing();
    return 0;
  }
  nlohmann::json lines = nlohmann::json::array();
  size_t start = 0;
  const std::string& listing = response->listing();
  while (start < listing.size()) {
    size_t end = listing.find('\n', start);
    if (end == std::string::npos) end = listing.size();
    if (end > start) lines.push_back(listing.substr(start, end - start));
    start = end + 1;
  }
  std::cout << dumpJson(nlohmann::json{{"drained_tres", lines}});
  return 0;
}

}  // namespace gantry::cli
