// Which of this host's addresses another host reaches us on: the one the
// kernel would send from toward that host. srun serves its step's streams
// there (the agents reach the controller's network, so they reach this
// address too) instead of on every interface.
//
// Thread-safety: free function without shared state.
#pragma once

#include <string>

#include "common/util/result.h"

namespace gantry::cli {

// The numeric local address (IPv4 dotted, or IPv6 without brackets) of a
// UDP socket connected to `host`:`port` (no packet is sent). Fails naming
// the host when it does not resolve or is not reachable.
Result<std::string> localAddressToward(const std::string& host, int port);

}  // namespace gantry::cli
