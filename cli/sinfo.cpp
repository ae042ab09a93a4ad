// gantry sinfo: partitions and nodes in Slurm's views or as JSON.
#include <set>
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/format_sinfo.h"
#include "cli/json_meta.h"
#include "cli/json_render.h"
#include "cli/node_state_filter.h"
#include "cli/subcommands.h"
#include "common/hostlist/hostlist.h"

namespace gantry::cli {

int runSinfo(const std::vector<std::string>& args) {
  bool nodeView = false, reasons = false, noHeader = false, json = false;
  bool responding = false, dead = false, exact = false, all = false;
  std::string format, longFormat, partitions, confDir, states, nodeNames;
  CLI::App app{"gantry sinfo: partitions and nodes", "sinfo"};
  HelpRequest helpRequest;
  declareHelpFlags(app, helpRequest);
  app.add_flag("-N,--Node", nodeView, "one line per node");
  app.add_flag("-R,--list-reasons", reasons, "list reasons nodes are down or drained");
  app.add_flag("-h,--noheader", noHeader, "omit the header line");
  app.add_option("-o,--format", format, "format string of %codes")->type_name("format");
  app.add_option("-O,--Format", longFormat, "comma-separated field names")->type_name("field(s)");
  app.add_option("-p,--partition", partitions, "comma-separated partitions")->type_name("partition(s)");
  app.add_option("-t,--states", states, "node states to list (idle,mix,drain,...)")->type_name("state(s)");
  app.add_option("-n,--nodes", nodeNames, "nodes to list (a hostlist)")->type_name("nodes");
  app.add_flag("-r,--responding", responding, "only nodes that respond");
  app.add_flag("-d,--dead", dead, "only nodes that do not respond");
  // Rows already group only nodes with equal values, which is what -e asks;
  // Gantry has no hidden partitions for -a to reveal.
  app.add_flag("-e,--exact", exact, "group only nodes with equal CPUs, memory and disk (always so)");
  app.add_flag("-a,--all", all, "list every partition (always so)");
  app.add_flag("--json", json, "print JSON");
  addConfDirOption(app, confDir);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sinfo", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sinfo", parsed->usageError);
  if (auto answer = helpAnswer(app, "sinfo", *parsed, helpRequest)) {
    std::cout << *answer;
    return 0;
  }

  SinfoView view = reasons ? SinfoView::kReasons : nodeView ? SinfoView::kNodes : SinfoView::kPartitions;
  LineFormat lineFormat = defaultSinfoFormat(view);
  if (!format.empty() && !longFormat.empty()) {
    return reportError("sinfo", "-o/--format and -O/--Format cannot be combined");
  }
  if (!format.empty()) {
    auto custom = parseSinfoFormat(format);
    if (!custom) return reportError("sinfo", custom.error());
    lineFormat = *custom;
  } else if (!longFormat.empty()) {
    auto custom = parseSinfoFieldList(longFormat);
    if (!custom) return reportError("sinfo", custom.error());
    lineFormat = *custom;
  }

  NodeSelection selection;
  selection.respondingOnly = responding;
  selection.deadOnly = dead;
  if (!states.empty()) {
    auto filter = parseNodeStateFilter(states);
    if (!filter) {
      reportError("sinfo", filter.error());
      return reportError("sinfo", "valid states: " + validNodeStateNames());
    }
    selection.states = *filter;
  }
  std::set<std::string> onlyNodes;
  if (!nodeNames.empty()) {
    auto expanded = hostlist::expand(nodeNames);
    if (!expanded) return reportError("sinfo", "'" + nodeNames + "' invalid entry for --nodes");
    onlyNodes.insert(expanded->begin(), expanded->end());
  }
  bool filtered = !states.empty() || !nodeNames.empty() || responding || dead;

  auto client = ControllerClient::connect(confDir);
  if (!client) return reportError("sinfo", client.error());
  gantry::v1::ListPartitionsRequest partitionQuery;
  std::stringstream names(partitions);
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
  if (json) {
    nlohmann::json out = listToJson("partitions", partitionVec);
    out["nodes"] = listToJson("nodes", nodeVec)["nodes"];
    std::cout << dumpJson(withEnvelope(std::move(out), localJsonMeta("sinfo", args, *client)));
    return 0;
  }
  std::cout << renderSinfo(lineFormat, partitionVec, nodeVec,
                           SinfoRenderOptions{.view = view, .header = !noHeader, .nodesFiltered = filtered});
  return 0;
}

}  // namespace gantry::cli
