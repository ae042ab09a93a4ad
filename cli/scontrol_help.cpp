#include "cli/scontrol_help.h"

#include <algorithm>

namespace gantry::cli {
namespace {

constexpr size_t kDescriptionColumn = 30;

// "-d or --details", "--json", "--conf-dir=<value>", as Slurm's scontrol
// help spells its options.
std::string spelling(const CLI::Option& option) {
  std::string out;
  if (!option.get_snames().empty()) out = "-" + option.get_snames().front();
  if (!option.get_lnames().empty()) {
    if (!out.empty()) out += " or ";
    out += "--" + option.get_lnames().front();
    if (option.get_expected_max() > 0) out += "=<value>";
  }
  return out;
}

// `left` then the description's words on lines of 80 columns, every line
// after the first starting at the description column.
std::string wrappedDescription(std::string left, const std::string& description) {
  constexpr size_t kLineWidth = 80;
  std::string out = left;
  size_t lastBreak = out.rfind('\n');
  size_t column = lastBreak == std::string::npos ? out.size() : out.size() - lastBreak - 1;
  size_t at = 0;
  bool first = true;  // no space before the first word of a line
  while (at < description.size()) {
    size_t end = std::min(description.find(' ', at), description.size());
    std::string word = description.substr(at, end - at);
    if (!first && column + 1 + word.size() > kLineWidth) {
      out += "\n" + std::string(kDescriptionColumn, ' ');
      column = kDescriptionColumn;
      first = true;
    }
    if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
    at = end + 1;
  }
  return out + "\n";
}

}  // namespace

const std::vector<ScontrolCommand>& scontrolCommands() {
  static const std::vector<ScontrolCommand> commands = {
      {"help", "print this description of use"},
      {"hold <job_list>", "keep the pending jobs from starting"},
      {"ping", "tell whether the controller answers"},
      {"reconfigure", "have the controller read its configuration again"},
      {"release <job_list>", "let held jobs start again"},
      {"requeue <job_list>", "put running or ended batch jobs back in the queue for a new run"},
      {"resume <job_list>", "continue suspended jobs"},
      {"show <ENTITY> [<ID>]", "print the state of one record, or of all: job, step, node, partition, config, "
                               "licenses, reservations, drainedtres, hostnames, hostlist, hostlistsorted"},
      {"shutdown [slurmctld|controller]", "stop the controller (the node agents keep running)"},
      {"suspend <job_list>", "stop running jobs, keeping their allocation"},
      {"update <SPECIFICATIONS>", "change a node (NodeName= State= Reason=) or one of its GRES (TresName= "
                                  "NodeName= Index=|Uuid=|Count= Action= Reason=)"},
      {"version", "print the Slurm version Gantry follows"},
      {"write batch_script <job_id> [<file>]", "write the job's batch script to the file, or to stdout with -"},
  };
  return commands;
}

const std::vector<ScontrolCommand>& sacctmgrCommands() {
  static const std::vector<ScontrolCommand> commands = {
      {"help", "print this description of use"},
      {"show event [<CONDITIONS>]", "list node events (Nodes=, States=, Start=, End=, Format=)"},
      {"version", "print the Slurm version Gantry follows"},
  };
  return commands;
}

std::string renderScontrolHelp(const CLI::App& app) { return renderCommandWordHelp(app, "scontrol", scontrolCommands()); }

std::string renderCommandWordHelp(const CLI::App& app, const std::string& program,
                                  const std::vector<ScontrolCommand>& commands) {
  std::string out = program + " [<OPTION>] [<COMMAND>]\n    Valid <OPTION> values are:\n";
  auto options = app.get_options([](const CLI::Option* o) { return o->nonpositional() && !o->get_group().empty(); });
  for (const CLI::Option* option : options) {
    out += "     " + spelling(*option) + ": " + option->get_description() + "\n";
  }
  out += "\n    Valid <COMMAND> values are:\n";
  for (const ScontrolCommand& command : commands) {
    std::string left = std::string("     ") + command.syntax;
    left += left.size() < kDescriptionColumn ? std::string(kDescriptionColumn - left.size(), ' ') : "\n" +
                                                   std::string(kDescriptionColumn, ' ');
    out += wrappedDescription(left, command.description);
  }
  return out;
}

}  // namespace gantry::cli
