#include "nodeagent/device_confinement_check.h"

#include <linux/bpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gantry::agent {
namespace fs = std::filesystem;

namespace {

std::string joinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string underRoot(const std::string& hostRoot, const std::string& path) {
  if (hostRoot.empty() || hostRoot == "/") return path;
  return (fs::path(hostRoot) / fs::path(path).relative_path()).string();
}

}  // namespace

std::string deviceConfinementProblem(const DeviceConfinementFacts& facts) {
  if (!facts.constrainDevices) return "";
  const std::string consequence = "; steps are not device-confined and see every GPU of the node by its node index";
  if (!facts.taskCgroup) return "ConstrainDevices=yes but TaskPlugin has no task/cgroup" + consequence;
  if (!facts.cgroupV2) {
    return "ConstrainDevices=yes but " + facts.cgroupRoot + " is not a cgroup v2 hierarchy" + consequence;
  }
  if (!facts.bpfProblem.empty()) {
    return "ConstrainDevices=yes but the kernel refuses cgroup device programs (" + facts.bpfProblem + ")" +
           consequence;
  }
  if (!facts.gpuFilesNotDevices.empty()) {
    return "ConstrainDevices=yes but GPU file(s) " + joinList(facts.gpuFilesNotDevices) +
           " are not device nodes" + consequence;
  }
  return "";
}

std::string probeCgroupDeviceProgram() {
  // r0 = 1 (allow); exit.
  bpf_insn program[2] = {};
  program[0].code = BPF_ALU64 | BPF_MOV | BPF_K;
  program[0].dst_reg = BPF_REG_0;
  program[0].imm = 1;
  program[1].code = BPF_JMP | BPF_EXIT;
  static const char license[] = "GPL";
  bpf_attr attr{};
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.insns = reinterpret_cast<uint64_t>(program);
  attr.insn_cnt = 2;
  attr.license = reinterpret_cast<uint64_t>(license);
  long fd = ::syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof attr);
  if (fd < 0) return std::string("BPF_PROG_LOAD: ") + std::strerror(errno);
  ::close(static_cast<int>(fd));
  return "";
}

DeviceConfinementFacts deviceConfinementFacts(const DeviceConfinementInputs& inputs) {
  DeviceConfinementFacts facts;
  facts.constrainDevices = inputs.constrainDevices;
  facts.taskCgroup = inputs.taskCgroup;
  facts.cgroupRoot = inputs.cgroupRoot;
  if (!inputs.constrainDevices || !inputs.taskCgroup) return facts;
  std::error_code ec;
  facts.cgroupV2 = fs::exists(fs::path(inputs.cgroupRoot) / "cgroup.controllers", ec);
  if (!facts.cgroupV2) return facts;
  for (const auto& file : inputs.gpuFiles) {
    struct stat st {};
    std::string path = underRoot(inputs.hostRoot, file);
    if (::stat(path.c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
      facts.gpuFilesNotDevices.push_back(file);
    }
  }
  if (inputs.probe) facts.bpfProblem = inputs.probe();
  return facts;
}

}  // namespace gantry::agent
