// The node agent's part of task/resctrl, run at every start and
// reconfigure: when the kernel knows resctrl and resctrl.yaml exists, mount
// /sys/fs/resctrl if needed, check that the groups fit the hardware's
// CLOSIDs, create the missing group directories and write every schemata
// in file order. Groups are never removed and the filesystem is never
// unmounted. All paths go through host_root so tests use fixture trees.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/config/resctrl_conf.h"
#include "common/util/result.h"

namespace gantry::resctrl {

// Mounts a resctrl filesystem on `target`; injected so tests need no root.
using ResctrlMounter = std::function<Status(const std::string& target, const std::string& options)>;

// The real mount(2) of type resctrl.
Status mountResctrl(const std::string& target, const std::string& options);

struct ResctrlSetupOptions {
  std::string host_root = "/";
  config::ResctrlConf conf;  // conf.present == false: no resctrl.yaml
  ResctrlMounter mounter = mountResctrl;
};

struct ResctrlSetupOutcome {
  bool managed = false;  // false: nothing done, see reason
  std::string reason;
  std::vector<std::string> created_groups;
  int closids_needed = 0;
  int closids_available = 0;
};

// Ok with managed=false when there is no kernel support, no config, or
// the filesystem cannot be mounted. The group names were checked by the
// parser (common/config). An Error is fatal to the agent: too few CLOSIDs, a directory that cannot be created, or a
// rejected schemata (groups earlier in the file keep their new values).
Result<ResctrlSetupOutcome> setUpResctrlGroups(const ResctrlSetupOptions& options);

}  // namespace gantry::resctrl
