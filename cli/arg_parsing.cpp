#include "cli/arg_parsing.h"

#include <algorithm>

namespace gantry::cli {

Result<ParseOutcome> parseWords(CLI::App& app, const std::vector<std::string>& words, OperandOrder order) {
  auto scanned = scanCommandLine(app, words, order);
  if (!scanned) {
    ParseOutcome refused;
    refused.usageError = scanned.error();
    return refused;
  }
  std::vector<std::string> forCli11 = scanned->options;
  ParseOutcome outcome;
  if (order == OperandOrder::kOptionsFirst) {
    outcome.operands = scanned->operands;
  } else if (!scanned->operands.empty()) {
    // After "--" CLI11 hands every word to the positional arguments, even
    // one that starts with a dash.
    forCli11.push_back("--");
    forCli11.insert(forCli11.end(), scanned->operands.begin(), scanned->operands.end());
  }
  // CLI11 consumes a vector from its back, so it wants the words reversed.
  std::vector<std::string> reversed(forCli11.rbegin(), forCli11.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    outcome.helpRequested = true;
    outcome.helpText = app.help();
  } catch (const CLI::CallForAllHelp&) {
    outcome.helpRequested = true;
    outcome.helpText = app.help("", CLI::AppFormatMode::All);
  } catch (const CLI::ParseError& e) {
    return Error{e.what()};
  }
  return outcome;
}

std::string usageErrorText(const std::string& command, const std::string& complaint) {
  std::string text = command + ": " + complaint + "\n";
  if (command != "sacct") text += "Try \"" + command + " --help\" for more information\n";
  return text;
}

int usageExitCode(const std::string& command) {
  return command == "sbatch" || command == "srun" || command == "salloc" ? 255 : 1;
}

std::vector<std::string> argsAfterProgram(int argc, char** argv, int skip) {
  std::vector<std::string> args;
  for (int i = skip; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

void addConfDirOption(CLI::App& app, std::string& confDir) {
  app.add_option("--conf-dir", confDir,
                 "configuration directory (default $GANTRY_CONF_DIR, then /etc/gantry)");
}

}  // namespace gantry::cli
