#include "cli/defined_options.h"

#include <cstdio>

namespace gantry::cli {
namespace {

std::string valueOf(const CLI::Option& option) {
  if (option.get_expected_max() == 0) {
    // A flag. Slurm keeps -v and -Q as counts and prints the number.
    const std::string& name = option.get_lnames().front();
    if (name == "verbose" || name == "quiet") return std::to_string(option.count());
    return "set";
  }
  std::string value;
  for (const std::string& result : option.results()) {
    if (!value.empty()) value += ',';
    value += result;
  }
  return value;
}

}  // namespace

std::vector<std::string> definedOptionLines(const CLI::App& app) {
  const std::string separator = "-------------------- --------------------";
  std::vector<std::string> lines = {"defined options", separator};
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty() || option->get_positional()) continue;
    const std::string& name = option->get_lnames().front();
    if (name == "help" || name == "usage") continue;
    char line[512];
    std::snprintf(line, sizeof line, "%-20s: %s", name.c_str(), valueOf(*option).c_str());
    lines.emplace_back(line);
  }
  lines.push_back(separator);
  lines.push_back("end of defined options");
  return lines;
}

}  // namespace gantry::cli
