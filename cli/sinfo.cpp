// gantry sinfo: partitions and nodes in Slurm's views or as JSON.
#include <ctime>
#include <set>
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/format_sinfo.h"
#include "cli/json_meta.h"
#include "cli/json_render.h"
#include "cli/node_state_filter.h"
#include "cli/query_options.h"
#include "cli/subcommands.h"
#include "cli/time_format.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {

int runSinfo(const std::vector<std::string>& args) {
  SinfoOptions options;
  CLI::App app{"gantry sinfo: partitions and nodes", "sinfo"};
  declareSinfoOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sinfo", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sinfo", parsed->usageError);
  if (auto answer = helpAnswer(app, "sinfo", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }

  SinfoView view = options.reasons ? SinfoView::kReasons : options.nodeView ? SinfoView::kNodes : SinfoView::kPartitions;
  LineFormat lineFormat =
      defaultSinfoFormat(view, SinfoDefaults{.summarize = options.summarize, .longList = options.longList});
  if (!options.format.empty() && !options.longFormat.empty()) {
    return reportError("sinfo", "-o/--format and -O/--Format cannot be combined");
  }
  if (!options.format.empty()) {
    auto custom = parseSinfoFormat(options.format);
    if (!custom) return reportError("sinfo", custom.error());
    lineFormat = *custom;
  } else if (!options.longFormat.empty()) {
    auto custom = parseSinfoFieldList(options.longFormat);
    if (!custom) return reportError("sinfo", custom.error());
    lineFormat = *custom;
  }

  NodeSelection selection;
  selection.respondingOnly = options.responding;
  selection.deadOnly = options.dead;
  if (!options.states.empty()) {
    auto filter = parseNodeStateFilter(options.states);
    if (!filter) {
      reportError("sinfo", filter.error());
      return reportError("sinfo", "valid states: " + validNodeStateNames());
    }
    selection.states = *filter;
  }
  std::set<std::string> onlyNodes;
  if (!options.nodeNames.empty()) {
    auto expanded = hostlist::expand(options.nodeNames);
    if (!expanded) return reportError("sinfo", "'" + options.nodeNames + "' invalid entry for --nodes");
    onlyNodes.insert(expanded->begin(), expanded->end());
  }
  bool filtered = !options.states.empty() || !options.nodeNames.empty() || options.responding || options.dead;

  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("sinfo", client.error());
  gantry::v1::ListPartitionsRequest partitionQuery;
  std::stringstream names(options.partitions);
  for (std::string name; std::getline(names, name, ',');) {
    if (!name.empty()) partitionQuery.add_names(name);
  }
  auto partitionList = client->call<gantry::v1::ListPartitionsResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListPartitions(context, partitionQuery, out);
      });
  if (!partitionList) return reportError("sinfo", partitionList.error());
  auto nodeList = client->call<gantry::v1::ListNodesResponse>(
      [](auto& stub, grpc::ClientContext* context, auto* out) {
        return stub.ListNodes(context, gantry::v1::ListNodesRequest{}, out);
      });
  if (!nodeList) return reportError("sinfo", nodeList.error());

  std::vector<gantry::v1::Partition> partitionVec(partitionList->partitions().begin(),
                                                  partitionList->partitions().end());
  std::vector<gantry::v1::Node> nodeVec;
  for (const gantry::v1::Node& node : nodeList->nodes()) {
    if (!onlyNodes.empty() && !onlyNodes.contains(node.name())) continue;
    if (nodeSelected(selection, node)) nodeVec.push_back(node);
  }
  if (options.json) {
    nlohmann::json out = listToJson("partitions", partitionVec);
    out["nodes"] = listToJson("nodes", nodeVec)["nodes"];
    std::cout << dumpJson(withEnvelope(std::move(out), localJsonMeta("sinfo", args, *client)));
    return 0;
  }
  if (options.longList && !options.noHeader) std::cout << longListingDateLine(std::time(nullptr));
  std::cout << renderSinfo(lineFormat, partitionVec, nodeVec,
                           SinfoRenderOptions{.view = view, .header = !options.noHeader, .nodesFiltered = filtered});
  return 0;
}

}  // namespace gantry::cli
