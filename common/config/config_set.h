// Everything a daemon reads from its configuration directory, loaded as one
// unit so a reconfigure either replaces all of it or none of it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/config/cgroup_conf.h"
#include "common/config/diagnostic.h"
#include "common/config/gantry_conf.h"
#include "common/config/gres_conf.h"
#include "common/config/resctrl_conf.h"
#include "common/util/result.h"

namespace gantry::config {

struct ConfigSet {
  GantryConf gantry;
  GresConf gres;  // empty (present == false) when no node name was given
  CgroupConf cgroup;
  ResctrlConf resctrl;
  std::vector<Diagnostic> warnings;  // of every file
};

struct ConfigSetOptions {
  // The node agent's own name selects its gres.conf lines; the controller
  // leaves it empty and gets no gres records.
  std::string nodeName;
};

// Loads gantry.conf, then gres.conf, cgroup.conf and resctrl.yaml beside it.
// The error lists every problem of every file, one "file:line: ..." per line.
Result<ConfigSet> loadConfigSet(const std::filesystem::path& confDir, const ConfigSetOptions& options = {});

struct ReconfigureOutcome {
  bool applied = false;
  // On failure: "Resuming operation, reconfigure failed." followed by one
  // line per problem; the caller logs it. Empty on success.
  std::string message;
};

// Loads the directory again. On success `current` is replaced; on failure it
// is left exactly as it was, so the daemon keeps running on the previous
// configuration.
ReconfigureOutcome reconfigure(ConfigSet& current, const std::filesystem::path& confDir,
                               const ConfigSetOptions& options = {});

}  // namespace gantry::config
