// ConstrainDevices on cgroup v2: the kernel has no devices.allow file, so
// access is decided by a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the
// step's cgroup. Ours refuses the node's GPU device files that the step was
// not allocated and lets every other device through, so /dev/null, the
// driver control nodes (nvidiactl, nvidia-uvm) and the allocated GPUs keep
// working. Loading and attaching go through libbpf.
#pragma once

#include <linux/bpf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::stepd {

struct DeviceNumber {
  bool block = false;  // false = character device
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string path;    // for messages
};

// stat()s each file under host_root; an error names the file.
Result<std::vector<DeviceNumber>> deviceNumbers(const std::vector<std::string>& files, const std::string& host_root);

// The files of `node_files` that are not in `allowed_files`.
std::vector<std::string> filesToDeny(const std::vector<std::string>& node_files,
                                     const std::vector<std::string>& allowed_files);

// Pure: the program, one five-instruction test per refused device, then
// "allow". Returns 0 (refuse) on a match of type, major and minor.
std::vector<bpf_insn> denyListProgram(const std::vector<DeviceNumber>& denied);

// Loads the program and attaches it to the cgroup directory (alongside any
// programs already attached above it). Fails with the reason from the kernel.
Status attachDeviceFilter(const std::string& cgroup_dir, const std::vector<DeviceNumber>& denied);

}  // namespace gantry::stepd
