// gantry sinfo: partitions and nodes in Slurm's views or as JSON.
#include <sstream>

#include "cli/arg_parsing.h"
#include "cli/help_flags.h"
#include "cli/controller_client.h"
#include "cli/format_sinfo.h"
#include "cli/json_render.h"
#include "cli/subcommands.h"

namespace gantry::cli {

int runSinfo(const std::vector<std::string>& args) {
  bool nodeView = false, reasons = false, noHeader = false, json = false;
  std::string format, longFormat, partitions, confDir;
  CLI::App app{"gantry sinfo: partitions and nodes", "sinfo"};
  HelpRequest helpRequest;
  declareHelpFlags(app, helpRequest);
  app.add_flag("-N,--Node", nodeView, "one line per node");
  app.add_flag("-R,--list-reasons", reasons, "list reasons nodes are down or drained");
  app.add_flag("-h,--noheader", noHeader, "omit the header line");
  app.add_option("-o,--format", format, "format string of %codes")->type_name("format");
  app.add_option("-O,--Format", longFormat, "comma-separated field names")->type_name("field(s)");
  app.add_option("-p,--partition", partitions, "comma-separated partitions")->type_name("partition(s)");
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
  std::vector<gantry::v1::Node> nodeVec(nodeList->nodes().begin(), nodeList->nodes().end());
  if (json) {
    nlohmann::json out = listToJson("partitions", partitionVec);
    out["nodes"] = listToJson("nodes", nodeVec)["nodes"];
    std::cout << dumpJson(out);
    return 0;
  }
  std::cout << renderSinfo(lineFormat, partitionVec, nodeVec,
                           SinfoRenderOptions{.view = view, .header = !noHeader});
  return 0;
}

}  // namespace gantry::cli
