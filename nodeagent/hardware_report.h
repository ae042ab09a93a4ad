// What the agent tells the controller about its node: CPU topology, memory
// and the merged GRES records in device order, plus the problems that must
// drain the node. Detection, gres.conf and every node-side check are done by
// nodegres::loadNodeHardware(); this file gathers its inputs from the
// configuration and turns its result into the registration message.
#pragma once

#include <string>
#include <vector>

#include "common/config/gantry_conf.h"
#include "common/util/result.h"
#include "gantry/v1/types.pb.h"
#include "nodeagent/gres/node_hardware.h"

namespace gantry::agent {

struct HardwareReport {
  nodegres::NodeHardware node;       // everything loadNodeHardware() found
  v1::NodeHardware hardware;         // the registration's view of it
  std::vector<std::string> errors;   // drain reasons sent with the registration
  std::vector<std::string> warnings;
  std::vector<std::string> log;      // "Found gpu:..." and "shard: ..." lines
};

struct ReportOptions {
  std::string confDir;
  std::string hostRoot = "/";
  std::vector<std::string> parameters;  // `gantryd -C --parameters=...`
  // dlopen names of NVML and ROCm SMI; "" = the vendor library (or the
  // GANTRY_NVML_LIBRARY / GANTRY_RSMI_LIBRARY environment variables).
  std::string nvmlLibrary, rsmiLibrary;
};

// Fails only on errors that must stop the agent before it registers: a
// gres.conf or cgroup.conf that does not load, CPUs or GPUs that cannot be
// detected, or a fatal merge check (Cores splitting a socket, ...).
Result<HardwareReport> collectHardware(const config::GantryConf& conf, const config::NodeConf& node,
                                       const ReportOptions& options);

// The same for the node named `nodeName` in `conf`, as a reconfigure needs
// it; fails when gantry.conf no longer lists the node.
Result<HardwareReport> collectHardwareFor(const config::GantryConf& conf, const std::string& nodeName,
                                          const ReportOptions& options);

// The `gantryd -C` output: the NodeName=... line, then one "Found
// gpu:<type>:<n> with Autodetect=..." line per detected type, then
// "UpTime=<days>-<hh>:<mm>:<ss>". Detection only,
// with gres.conf's AutoDetect (AutoDetect=full when there is no gres.conf):
// the merge checks must not hide the line an administrator runs -C to see,
// e.g. before choosing l3cache_as_socket. Fails when detection fails.
// The other notes of the detection ("AutoDetect=full: skipping ...") go to
// `notes` (may be null); gantryd prints them on stderr.
Result<std::string> formatNodeReport(const config::GantryConf& conf, const config::NodeConf& node,
                                     const ReportOptions& options, std::vector<std::string>* notes = nullptr);

// The `gantryd -G` output: every merged record in device order, the
// detected devices left out ("omitted: ..."), the shard dmem lines, then each
// warning and error as the agent would log them.
std::string formatGresReport(const HardwareReport& report);

}  // namespace gantry::agent
