#include "stepd/cgroup/device_filter.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gantry::stepd {
namespace {

bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst & 0xf;
  i.src_reg = src & 0xf;
  i.off = off;
  i.imm = imm;
  return i;
}

bpf_insn loadWord(uint8_t dst, uint8_t src, int16_t off) { return insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0); }
bpf_insn jumpIfNotEqual(uint8_t reg, int32_t value, int16_t skip) {
  return insn(BPF_JMP | BPF_JNE | BPF_K, reg, 0, skip, value);
}
bpf_insn moveImmediate(uint8_t reg, int32_t value) { return insn(BPF_ALU64 | BPF_MOV | BPF_K, reg, 0, 0, value); }
bpf_insn andImmediate(uint8_t reg, int32_t value) { return insn(BPF_ALU | BPF_AND | BPF_K, reg, 0, 0, value); }
bpf_insn exitProgram() { return insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }

std::string joinRoot(const std::string& host_root, const std::string& path) {
  if (host_root.empty() || host_root == "/") return path;
  std::string root = host_root;
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root + path;
}

}  // namespace

Result<std::vector<DeviceNumber>> deviceNumbers(const std::vector<std::string>& files, const std::string& host_root) {
  std::vector<DeviceNumber> numbers;
  for (const auto& file : files) {
    struct stat st {};
    const std::string path = joinRoot(host_root, file);
    if (::stat(path.c_str(), &st) != 0) return Error{"device file " + path + ": " + std::strerror(errno)};
    if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) return Error{"device file " + path + " is not a device"};
    numbers.push_back({.block = S_ISBLK(st.st_mode), .major = major(st.st_rdev), .minor = minor(st.st_rdev),
                       .path = file});
  }
  return numbers;
}

std::vector<std::string> filesToDeny(const std::vector<std::string>& node_files,
                                     const std::vector<std::string>& allowed_files) {
  std::vector<std::string> denied;
  for (const auto& file : node_files) {
    if (std::find(allowed_files.begin(), allowed_files.end(), file) == allowed_files.end() &&
        std::find(denied.begin(), denied.end(), file) == denied.end())
      denied.push_back(file);
  }
  return denied;
}

std::vector<bpf_insn> denyListProgram(const std::vector<DeviceNumber>& denied) {
  // Context: struct bpf_cgroup_dev_ctx { u32 access_type; u32 major; u32 minor; },
  // the device type in the low 16 bits of access_type.
  std::vector<bpf_insn> program = {
      loadWord(BPF_REG_2, BPF_REG_1, 0),
      andImmediate(BPF_REG_2, 0xFFFF),
      loadWord(BPF_REG_3, BPF_REG_1, 4),
      loadWord(BPF_REG_4, BPF_REG_1, 8),
  };
  for (const auto& device : denied) {
    const int32_t type = device.block ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
    // Each test skips the rest of its block (to the next block) on a mismatch.
    program.push_back(jumpIfNotEqual(BPF_REG_2, type, 4));
    program.push_back(jumpIfNotEqual(BPF_REG_3, static_cast<int32_t>(device.major), 3));
    program.push_back(jumpIfNotEqual(BPF_REG_4, static_cast<int32_t>(device.minor), 2));
    program.push_back(moveImmediate(BPF_REG_0, 0));
    program.push_back(exitProgram());
  }
  program.push_back(moveImmediate(BPF_REG_0, 1));
  program.push_back(exitProgram());
  return program;
}

Status attachDeviceFilter(const std::string& cgroup_dir, const std::vector<DeviceNumber>& denied) {
  const auto program = denyListProgram(denied);
  int prog_fd = bpf_prog_load(BPF_PROG_TYPE_CGROUP_DEVICE, "gantry_devices", "GPL", program.data(), program.size(),
                              nullptr);
  if (prog_fd < 0) return Error{"device filter: loading the BPF program failed: " + std::string(std::strerror(-prog_fd))};
  int cgroup_fd = ::open(cgroup_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgroup_fd < 0) {
    int saved = errno;
    ::close(prog_fd);
    return Error{"device filter: cannot open " + cgroup_dir + ": " + std::strerror(saved)};
  }
  int rc = bpf_prog_attach(prog_fd, cgroup_fd, BPF_CGROUP_DEVICE, BPF_F_ALLOW_MULTI);
  const int saved = errno;
  ::close(cgroup_fd);
  ::close(prog_fd);  // the attachment keeps the program alive with the cgroup
  if (rc != 0)
    return Error{"device filter: attaching to " + cgroup_dir + " failed: " + std::strerror(rc < 0 ? -rc : saved)};
  return okStatus();
}

}  // namespace gantry::stepd
