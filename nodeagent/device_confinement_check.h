// Whether ConstrainDevices=yes can really be honoured on this node. The
// agent says so at start when it cannot (and runs steps unconfined, so a
// job's GPU variables keep the node's indexes instead of pretending to be
// renumbered inside a filter that is not there).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gantry::agent {

// What the decision is made from; gathered by deviceConfinementFacts().
struct DeviceConfinementFacts {
  bool constrainDevices = false;  // cgroup.conf ConstrainDevices=yes
  bool taskCgroup = false;        // TaskPlugin has task/cgroup
  std::string cgroupRoot;         // CgroupMountpoint under the host root
  bool cgroupV2 = false;          // cgroupRoot is a cgroup v2 hierarchy
  std::string bpfProblem;         // why no cgroup device program loads; "" when one does
  std::vector<std::string> gpuFilesNotDevices;  // node GPU files missing or not device nodes
};

// "" when devices are confined as configured (or confinement is not asked
// for); otherwise the one sentence an administrator needs, starting with
// "ConstrainDevices=yes but ...".
std::string deviceConfinementProblem(const DeviceConfinementFacts& facts);

// Loads (and drops again) the smallest cgroup device program; "" when the
// kernel takes it, otherwise the kernel's reason.
std::string probeCgroupDeviceProgram();

struct DeviceConfinementInputs {
  bool constrainDevices = false;
  bool taskCgroup = false;
  std::string cgroupRoot;              // host root already applied
  std::string hostRoot = "/";
  std::vector<std::string> gpuFiles;   // every GPU device file of the node (/dev/...)
  // Tests replace the kernel probe.
  std::function<std::string()> probe = probeCgroupDeviceProgram;
};

// Looks at the node (only what the decision needs: the probe runs only
// when everything else allows confinement).
DeviceConfinementFacts deviceConfinementFacts(const DeviceConfinementInputs& inputs);

}  // namespace gantry::agent
