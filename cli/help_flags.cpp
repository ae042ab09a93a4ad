#include "cli/help_flags.h"

#include "cli/scontrol_help.h"
#include "cli/usage_text.h"

namespace gantry::cli {
namespace {

// sacct's help as Slurm lays it out: each option on a line of its own
// ("     -j, --jobs=<value>:"), its description indented below.
std::string renderSacctHelp(const CLI::App& app) {
  std::string out = "sacct [<OPTION>]\n    Valid <OPTION> values are:\n";
  for (const CLI::Option* option :
       app.get_options([](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); })) {
    std::string names;
    for (const std::string& name : option->get_snames()) names += (names.empty() ? "-" : ", -") + name;
    for (const std::string& name : option->get_lnames()) names += (names.empty() ? "--" : ", --") + name;
    if (option->get_expected_max() > 0) names += "=<value>";
    out += "     " + names + ":\n                   " + option->get_description() + "\n";
  }
  return out;
}

}  // namespace

std::string versionText() { return std::string("slurm ") + kSlurmVersion + "\n"; }

void declareHelpFlags(CLI::App& app, HelpRequest& request, const std::string& helpNames) {
  app.set_help_flag(helpNames, "show this help message")->group(kHelpSection);
  app.add_flag("--usage", request.usage, "display a brief usage message")->group(kHelpSection);
  app.add_flag("-V,--version", request.version, "output version information and exit");
}

std::optional<std::string> helpAnswer(const CLI::App& app, const std::string& command, const ParseOutcome& parsed,
                                      const HelpRequest& request) {
  // scontrol has one text for both, as Slurm's prints its help for --usage.
  if (command == "scontrol" && (parsed.helpRequested || request.usage)) return renderScontrolHelp(app);
  if (command == "sacctmgr" && (parsed.helpRequested || request.usage)) {
    return renderCommandWordHelp(app, command, sacctmgrCommands());
  }
  if (command == "sacct" && parsed.helpRequested) return renderSacctHelp(app);
  if (parsed.helpRequested) return renderHelp(app, command);
  if (request.usage) return renderUsage(app, command);
  if (request.version) return versionText();
  return std::nullopt;
}

}  // namespace gantry::cli
