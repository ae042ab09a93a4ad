// scontrol's commands for per-device drains: `update TresName=...` (the
// words go to the controller as written, and it parses them) and
// `show drainedtres [<hostlist> | NodeName=<hostlist>]`. I/O only.
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include "cli/controller_client.h"

namespace gantry::cli {

// Prints each left_drained line of the answer on stdout; 0 on success, 1
// with "scontrol: error: <message>" on stderr when the controller refuses.
int updateTres(const ControllerClient& client, const std::vector<std::string>& words);

// The controller's listing of `nodes` (a host list, "" for every node) as
// it comes, nothing when nothing is drained; with --json,
// {"drained_tres": [<line>, ...]}.
int showDrainedTres(const ControllerClient& client, const std::string& nodes, bool json);

// The lines a node or TRES update left drained, one per line on stdout.
template <typename Lines>
void printLeftDrained(const Lines& lines) {
  for (const auto& line : lines) std::cout << line << "\n";
}

}  // namespace gantry::cli
