#include "cli/dispatch.h"

#include <algorithm>

namespace gantry::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

std::string programName(const std::string& argv0) {
  size_t slash = argv0.find_last_of('/');
  return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
}

Result<Invocation> resolveInvocation(const std::string& argv0, const std::vector<std::string>& args,
                                     const std::vector<std::string>& known) {
  auto isKnown = [&known](const std::string& name) {
    return std::find(known.begin(), known.end(), name) != known.end();
  };
  std::string self = programName(argv0);
  if (isKnown(self)) return Invocation{self, args};
  if (args.empty()) return Error{"no subcommand given; expected one of: " + joined(known)};
  if (!isKnown(args.front())) {
    return Error{"unknown subcommand '" + args.front() + "'; expected one of: " + joined(known)};
  }
  return Invocation{args.front(), std::vector<std::string>(args.begin() + 1, args.end())};
}

}  // namespace gantry::cli
