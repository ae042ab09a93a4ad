#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "stepd/cgroup/device_filter.h"
#include "stepd/cgroup/step_cgroup.h"

using namespace gantry::stepd;

TEST_CASE("only the node's unallocated GPU files are refused", "[stepd][devices]") {
  CHECK(filesToDeny({"/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia1"}, {"/dev/nvidia1"}) ==
        std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia2"});
  CHECK(filesToDeny({"/dev/nvidia0"}, {"/dev/nvidia0"}).empty());
}

TEST_CASE("device numbers come from the device files", "[stepd][devices]") {
  auto numbers = deviceNumbers({"/dev/null"}, "/");
  REQUIRE(numbers.ok());
  REQUIRE(numbers->size() == 1);
  CHECK_FALSE((*numbers)[0].block);
  CHECK((*numbers)[0].major == 1);
  CHECK((*numbers)[0].minor == 3);
  auto missing = deviceNumbers({"/dev/nvidia-none"}, "/");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().find("/dev/nvidia-none") != std::string::npos);
  CHECK_FALSE(deviceNumbers({"/etc/hostname"}, "/").ok());
}

TEST_CASE("the program tests each refused device, then allows", "[stepd][devices]") {
  CHECK(denyListProgram({}).size() == 6);
  auto program = denyListProgram({{.block = false, .major = 195, .minor = 0, .path = "/dev/nvidia0"},
                                  {.block = true, .major = 8, .minor = 1, .path = "/dev/sda1"}});
  REQUIRE(program.size() == 16);
  CHECK(program[4].code == (BPF_JMP | BPF_JNE | BPF_K));
  CHECK(program[4].imm == BPF_DEVCG_DEV_CHAR);
  CHECK(program[4].off == 4);
  CHECK(program[5].imm == 195);
  CHECK(program[6].imm == 0);
  CHECK(program[7].imm == 0);  // r0 = 0: refuse
  CHECK(program[9].imm == BPF_DEVCG_DEV_BLOCK);
  CHECK(program[14].imm == 1);  // r0 = 1: allow
  CHECK(program[15].code == (BPF_JMP | BPF_EXIT));
}

TEST_CASE("an attached filter refuses a device to a real task", "[stepd][devices][real]") {
  const std::string root = "/sys/fs/cgroup/unified";
  const std::string base = "gantry-devtest-" + std::to_string(::getpid());
  std::error_code ec;
  if (!std::filesystem::exists(root + "/cgroup.controllers") ||
      !std::filesystem::create_directory(root + "/" + base, ec)) {
    WARN("skipped: no cgroup v2 (" << root << " missing or not writable)");
    return;
  }
  auto cgroup = StepCgroup::create({.root = root, .base = base, .job_dir_name = "job_1", .step_dir_name = "step_0"}, {});
  REQUIRE(cgroup.ok());
  auto denied = deviceNumbers({"/dev/zero"}, "/");
  REQUIRE(denied.ok());
  auto attached = attachDeviceFilter(cgroup->stepPath(), *denied);
  if (!attached) {
    WARN("skipped: BPF device programs unavailable here: " << attached.error());
  } else {
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      if (!cgroup->addProcess(::getpid())) ::_exit(10);
      int zero = ::open("/dev/zero", O_RDONLY);
      if (zero >= 0 || errno != EPERM) ::_exit(11);
      int null = ::open("/dev/null", O_RDONLY);
      ::_exit(null >= 0 ? 0 : 12);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(cgroup->remove().ok());
  std::filesystem::remove(root + "/" + base, ec);
}
