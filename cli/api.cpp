// gantry api POST /tres/: the REST API's per-device drain request, with the
// JSON body from --data or standard input, answered as JSON. I/O only; the
// rules are in api_request.h and the controller.
#include <iostream>
#include <iterator>
#include <optional>

#include "cli/api_request.h"
#include "cli/arg_parsing.h"
#include "cli/controller_client.h"
#include "cli/json_render.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

constexpr const char* kCommand = "api";

int usageError(const std::string& message) {
  std::cerr << kCommand << ": error: " << message << "\n";
  return kApiUsageStatus;
}

int printAnswer(const nlohmann::json& answer, int status) {
  std::cout << dumpJson(answer);
  return status;
}

}  // namespace

int runApi(const std::vector<std::string>& args) {
  std::string method, path, confDir, dataText;
  CLI::App app{"gantry api: the REST API's JSON requests (POST /tres/ only)", "api"};
  app.set_help_flag("--help", "print this help");
  app.add_option("method", method, "POST")->required();
  app.add_option("path", path, "/tres/")->required();
  CLI::Option* dataOption = app.add_option("--data", dataText, "the JSON body (default: read from standard input)");
  addConfDirOption(app, confDir);
  auto parsed = parseWords(app, args);
  if (!parsed) return usageError(parsed.error());
  if (!parsed->usageError.empty()) return usageError(parsed->usageError);
  if (parsed->helpRequested) {
    std::cout << parsed->helpText;
    return 0;
  }
  if (auto route = checkApiRoute(method, path); !route) return usageError(route.error());
  std::optional<std::string> data;
  if (dataOption->count() > 0) data = dataText;
  std::string stdinText;
  if (!data) stdinText.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  auto body = apiBody(data, stdinText);
  if (!body) return usageError(body.error());

  auto client = ControllerClient::connect(confDir);
  if (!client) return printAnswer(apiRefused(client.error()), 1);
  gantry::v1::UpdateTresRequest request;
  request.set_json(*body);
  auto response = client->call<gantry::v1::UpdateTresResponse>(
      [&](auto& stub, grpc::ClientContext* context, auto* out) { return stub.UpdateTres(context, request, out); });
  if (!response) return printAnswer(apiRefused(response.error()), 1);
  std::vector<std::string> warnings(response->left_drained().begin(), response->left_drained().end());
  return printAnswer(apiAccepted(warnings), 0);
}

}  // namespace gantry::cli
