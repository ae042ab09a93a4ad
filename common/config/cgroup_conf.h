// cgroup.conf: which resources the step launcher confines. Checked against
// gantry.conf because some settings only make sense with others.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/config/conf_reader.h"
#include "common/config/diagnostic.h"
#include "common/config/gantry_conf.h"
#include "common/util/result.h"

namespace gantry::config {

struct CgroupConf {
  bool present = false;  // false: no cgroup.conf was found; defaults apply
  std::string file;
  std::string mountPoint = "/sys/fs/cgroup";  // CgroupMountpoint
  std::string plugin = "autodetect";  // CgroupPlugin: autodetect, cgroup/v1, cgroup/v2
  bool constrainCores = false;
  bool constrainRamSpace = false;
  bool constrainSwapSpace = false;
  bool constrainDevices = false;
  bool constrainDeviceMemory = false;  // dmem limits for shards
  bool enableControllers = false;
  bool cgroupJobIdPaths = false;  // job cgroup named after the job id instead of the SLUID
  bool ignoreSystemd = false;
  double allowedRamSpacePercent = 100.0;
  double allowedSwapSpacePercent = 0.0;
  std::vector<Diagnostic> warnings;
};

// Reads `path`; a missing file yields defaults. Rejects, naming file and
// line, ConstrainDeviceMemory=yes without ConstrainDevices=yes or without
// task/cgroup in the TaskPlugin of `gantry`.
Result<CgroupConf> loadCgroupConf(const std::filesystem::path& path, const GantryConf& gantry);
Result<CgroupConf> parseCgroupConf(std::string_view text, const std::string& fileName, const GantryConf& gantry,
                                   const ReadOptions& options = {});

// Errors and warnings together (checkAll).
struct CgroupConfParse {
  CgroupConf conf;
  Diagnostics diagnostics;
};
CgroupConfParse interpretCgroupConf(const ReadResult& read, const std::string& fileName, const GantryConf& gantry);

}  // namespace gantry::config
