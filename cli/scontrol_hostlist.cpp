#include "cli/scontrol_hostlist.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "common/hostlist/hostlist.h"

namespace gantry::cli {
namespace {

// A file of names larger than this is not a list of names (Slurm's limit).
constexpr std::size_t kMaxNamesFileBytes = 1024 * 1024;

Error invalid(std::string_view text, const std::string& why) {
  return Error{"Invalid hostlist: " + std::string(text) + " (" + why + ")"};
}

}  // namespace

Result<std::string> hostnamesText(std::string_view expr) {
  auto names = hostlist::expand(expr);
  if (!names) return invalid(expr, names.error());
  std::string out;
  for (const auto& name : *names) out += name + "\n";
  return out;
}

Result<std::string> hostlistText(std::string_view text, bool sorted) {
  // Newlines separate names as commas do, so a file of names reads as is.
  auto names = hostlist::expand(text);
  if (!names) return invalid(text, names.error());
  std::vector<std::string> ordered = sorted ? hostlist::sortNames(std::move(*names)) : std::move(*names);
  return hostlist::compressInOrder(ordered) + "\n";
}

Result<std::string> readHostlistArgument(const std::string& argument) {
  if (argument != "-" && !argument.starts_with('/')) return argument;
  std::string text;
  if (argument == "-") {
    std::ostringstream in;
    in << std::cin.rdbuf();
    text = in.str();
  } else {
    std::ifstream file(argument, std::ios::binary);
    if (!file) return Error{"Can not open " + argument};
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
    if (file.bad()) return Error{"Error reading " + argument};
  }
  if (text.size() >= kMaxNamesFileBytes) {
    return Error{"File " + (argument == "-" ? std::string("standard input") : argument) + " is too large"};
  }
  return text;
}

}  // namespace gantry::cli
