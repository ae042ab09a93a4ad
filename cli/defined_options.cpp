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

void collectDefinedOptions(const CLI::App& app, std::map<std::string, std::string>& into) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0 || option->get_lnames().empty() || option->get_positional()) continue;
    const std::string& name = option->get_lnames().front();
    if (name == "help" || name == "usage") continue;
    into[name] = valueOf(*option);
  }
}

std::vector<std::string> definedOptionLines(const CLI::App& declared, const std::map<std::string, std::string>& set) {
  const std::string separator = "-------------------- --------------------";
  std::vector<std::string> lines = {"defined options", separator};
  for (const CLI::Option* option : declared.get_options()) {
    if (option->get_lnames().empty()) continue;
    auto value = set.find(option->get_lnames().front());
    if (value == set.end()) continue;
    char line[512];
    std::snprintf(line, sizeof line, "%-20s: %s", value->first.c_str(), value->second.c_str());
    lines.emplace_back(line);
  }
  lines.push_back(separator);
  lines.push_back("end of defined options");
  return lines;
}

std::vector<std::string> definedOptionLines(const CLI::App& app) {
  std::map<std::string, std::string> set;
  collectDefinedOptions(app, set);
  return definedOptionLines(app, set);
}

}  // namespace gantry::cli
