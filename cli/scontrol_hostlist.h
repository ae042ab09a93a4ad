// `scontrol show hostnames|hostlist|hostlistsorted`: host list expressions
// turned into names and back, without the controller. Slurm's forms:
// hostnames takes an expression (or $SLURM_NODELIST) and prints one name a
// line; hostlist and hostlistsorted take names (commas or white space
// between them, ranges allowed), "-" for standard input or an absolute
// path of a file of names, and print one expression.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace gantry::cli {

// The names of `expr`, one a line. Fails with "Invalid hostlist: ...".
Result<std::string> hostnamesText(std::string_view expr);

// `names` (an expression, or names a line each) as one expression and a
// newline: in the order given (duplicates kept), or sorted. Fails with
// "Invalid hostlist: ...".
Result<std::string> hostlistText(std::string_view names, bool sorted);

// The names argument of show hostlist: itself, or the contents of standard
// input ("-") or of the file it names (an absolute path). Fails naming the
// file that cannot be read, or one too large to be a list of names.
Result<std::string> readHostlistArgument(const std::string& argument);

}  // namespace gantry::cli
