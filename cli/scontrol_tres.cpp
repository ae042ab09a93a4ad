#include "cli/scontrol_tres.h"

#include <iostream>

#include "cli/json_render.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

constexpr const char* kCommand = "scontrol";

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

int showDrainedTres(const ControllerClient& client, const std::string& nodes, bool json) {
  gantry::v1::ListDrainedTresRequest request;
  request.set_node_names(nodes);
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
