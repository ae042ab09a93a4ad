// The cgroup v2 confinement of one step: a job directory
// <root>/<base>/<job> (the job SLUID, or job_<id> with CgroupJobIdPaths=yes)
// and a step directory step_<id> beneath it that holds the tasks.
//
// Limits: cpuset.cpus (ConstrainCores), memory.max (ConstrainRAMSpace), and
// dmem.max plus dmem.min per region (ConstrainDeviceMemory). The step
// directory always gets its limits; the job directory gets them when this
// step creates it (the first step of the job on the node, normally extern
// or batch, which carries the whole job's resources), except cpuset.cpus,
// which grows to the union of the steps' cores.
//
// Not thread-safe; one gantrystepd owns one StepCgroup.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "stepd/core/dmem_limits.h"

namespace gantry::stepd {

struct StepCgroupOptions {
  std::string root;  // cgroup v2 mount point (host root already applied)
  std::string base = "gantry";
  std::string job_dir_name;   // see jobCgroupName
  std::string step_dir_name;  // see stepCgroupName
  // Write +controller into cgroup.subtree_control from the top of the
  // hierarchy down to the job, so the step can use them.
  bool enable_controllers = false;
  bool constrain_cores = false;
  bool constrain_ram = false;
  bool constrain_device_memory = false;
};

struct StepCgroupLimits {
  std::vector<int> cores;
  uint64_t memory_bytes = 0;  // 0 = no limit
  std::vector<DmemLimit> dmem;
};

std::string jobCgroupName(const std::string& cluster, uint64_t job_id, bool job_id_paths);
std::string stepCgroupName(const std::string& step_id);

// "0-3,8": the cpuset list form of a set of CPU ids (sorted, merged ranges).
std::string formatCpuList(const std::vector<int>& cpus);
// Parses the cpuset list form; bad text gives an error naming it.
Result<std::vector<int>> parseCpuList(const std::string& text);

class StepCgroup {
 public:
  // Creates the directories (missing ones only), enables the controllers
  // when asked, and writes the limits. Fails with the path and value of the
  // first refused write.
  static Result<StepCgroup> create(const StepCgroupOptions& options, const StepCgroupLimits& limits);

  const std::string& jobPath() const { return job_path_; }
  const std::string& stepPath() const { return step_path_; }

  Status addProcess(pid_t pid) const;
  // cgroup.freeze: true stops every task of the step, false lets them go on.
  Status setFrozen(bool frozen) const;
  // True when cgroup.events reports "frozen 1".
  bool isFrozen() const;
  // cgroup.kill: SIGKILL to every process of the step, including those that
  // left the task's process group.
  Status killAll() const;
  // Highest device-memory use per region: dmem.peak where the kernel has
  // it, dmem.current otherwise. Empty when neither is readable.
  std::map<std::string, uint64_t> deviceMemoryPeak() const;
  // Device-memory use per region now (dmem.current); empty when unreadable.
  std::map<std::string, uint64_t> deviceMemoryCurrent() const;
  // Removes the step directory, then the job directory if no step is left.
  Status remove() const;

 private:
  StepCgroup(std::string job_path, std::string step_path)
      : job_path_(std::move(job_path)), step_path_(std::move(step_path)) {}
  std::string job_path_;
  std::string step_path_;
};

}  // namespace gantry::stepd
