// gantry sacctmgr: only `show event` (and its `list events` spellings);
// Gantry keeps no associations, accounts or QOS of its own to manage.
#include <cctype>
#include <ctime>

#include "cli/arg_parsing.h"
#include "cli/controller_client.h"
#include "cli/help_flags.h"
#include "cli/json_render.h"
#include "cli/query_options.h"
#include "cli/sacctmgr_event.h"
#include "cli/scontrol_help.h"
#include "cli/subcommands.h"

namespace gantry::cli {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool isShow(const std::string& word) {
  std::string w = lower(word);
  return w == "show" || w == "list";
}

bool isEvent(const std::string& word) {
  std::string w = lower(word);
  return w == "event" || w == "events";
}

}  // namespace

int runSacctmgr(const std::vector<std::string>& args) {
  SacctmgrOptions options;
  CLI::App app{"gantry sacctmgr: show node events (sacctmgr show event [conditions] [Format=...])", "sacctmgr"};
  declareSacctmgrOptions(app, options);
  auto parsed = parseWords(app, args);
  if (!parsed) return reportError("sacctmgr", parsed.error());
  if (!parsed->usageError.empty()) return reportUsageError("sacctmgr", parsed->usageError);
  if (auto answer = helpAnswer(app, "sacctmgr", *parsed, options.help)) {
    std::cout << *answer;
    return 0;
  }
  if (options.command.empty()) {
    return reportError("sacctmgr", "no command given (Gantry's sacctmgr supports: show event)");
  }
  if (options.command[0] == "help") {
    std::cout << renderCommandWordHelp(app, "sacctmgr", sacctmgrCommands());
    return 0;
  }
  if (options.command[0] == "version") {
    std::cout << versionText();
    return 0;
  }
  if (!isShow(options.command[0])) {
    return reportError("sacctmgr", "'" + options.command[0] +
                                       "' is not supported: Gantry's sacctmgr only shows node events "
                                       "(sacctmgr show event)");
  }
  if (options.command.size() < 2 || !isEvent(options.command[1])) {
    std::string what = options.command.size() < 2 ? std::string("nothing") : "'" + options.command[1] + "'";
    return reportError("sacctmgr", "show " + what + " is not supported: Gantry's sacctmgr only shows node events "
                                   "(sacctmgr show event)");
  }
  auto now = static_cast<int64_t>(std::time(nullptr));
  auto plan = planEventQuery(std::vector<std::string>(options.command.begin() + 2, options.command.end()), now);
  if (!plan) return reportError("sacctmgr", plan.error());

  auto client = ControllerClient::connect(options.confDir);
  if (!client) return reportError("sacctmgr", client.error());
  auto response = client->call<v1::ListNodeEventsResponse>([&](auto& stub, grpc::ClientContext* context, auto* out) {
    return stub.ListNodeEvents(context, plan->request, out);
  });
  if (!response) return reportAccountingError("sacctmgr", response.failure());
  std::vector<v1::AccountingNodeEvent> events(response->events().begin(), response->events().end());
  if (options.json) {
    std::cout << dumpJson(listToJson("events", events));
    return 0;
  }
  TableStyle style{.header = !options.noHeader,
                   .parsable = options.parsable2  ? Parsable::NoTrailing
                               : options.parsable ? Parsable::Trailing
                                                  : Parsable::No};
  std::cout << renderEvents(plan->fields, events, style, now);
  return 0;
}

}  // namespace gantry::cli
