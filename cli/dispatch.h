// Which subcommand a `gantry` invocation means: the program's own name when
// it is called through a symlink ("squeue ..."), otherwise the first word
// ("gantry squeue ..."). Pure, so the rule is unit tested.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

struct Invocation {
  std::string subcommand;
  std::vector<std::string> args;  // the words after the subcommand
};

// `known` lists the subcommand names. Fails, with the list of known names,
// when no subcommand is given or the one given is unknown.
Result<Invocation> resolveInvocation(const std::string& argv0, const std::vector<std::string>& args,
                                     const std::vector<std::string>& known);

// The file name part of a path: "/usr/bin/squeue" -> "squeue".
std::string programName(const std::string& argv0);

}  // namespace gantry::cli
