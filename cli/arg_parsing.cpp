#include "cli/arg_parsing.h"

#include <algorithm>

namespace gantry::cli {

Result<ParseOutcome> parseWords(CLI::App& app, const std::vector<std::string>& words) {
  // CLI11 consumes a vector from its back, so it wants the words reversed.
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return ParseOutcome{true, app.help()};
  } catch (const CLI::CallForAllHelp&) {
    return ParseOutcome{true, app.help("", CLI::AppFormatMode::All)};
  } catch (const CLI::ParseError& e) {
    return Error{e.what()};
  }
  return ParseOutcome{};
}

std::vector<std::string> argsAfterProgram(int argc, char** argv, int skip) {
  std::vector<std::string> args;
  for (int i = skip; i < argc; ++i) args.emplace_back(argv[i]);
  return args;
}

}  // namespace gantry::cli
