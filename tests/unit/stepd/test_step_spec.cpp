#include <catch2/catch.hpp>

#include "stepd/core/step_spec.h"

using gantry::stepd::parseStepSpec;

TEST_CASE("a full batch spec is parsed", "[stepd][spec]") {
  auto spec = parseStepSpec(R"({
    "job_id": 12, "step_id": "batch", "job_name": "x", "uid": 1000, "gid": 1001, "user": "alice",
    "work_dir": "/home/alice", "script": "#!/bin/bash\necho hi\n", "stdout": "slurm-%j.out",
    "env": {"PATH": "/usr/bin"}, "node_name": "n1", "nodelist": "n[1-2]", "num_nodes": 2,
    "cores": [0, 1], "mem_mb": 1024, "node_gpu_files": ["/dev/nvidia0", "/dev/nvidia1"], "unknown_key": {"ignored": true},
    "gpus": [{"index": 2, "name": "shard", "pci_bus_id": "0000:01:00.0", "shares": 3, "share_count": 16,
              "dmem_region": "nvidia/0000:01:00/vidmem", "dmem_slice_bytes": 1049429504}],
    "cgroup": {"root": "/sys/fs/cgroup", "constrain_device_memory": true, "job_id_paths": true},
    "resctrl": {"root": "/sys/fs/resctrl", "group": "cpu_only"}})");
  REQUIRE(spec.ok());
  CHECK(spec->job_id == 12);
  CHECK(spec->isBatch());
  CHECK(spec->uid == 1000);
  CHECK(spec->gid == 1001);
  CHECK(spec->env.at("PATH") == "/usr/bin");
  CHECK(spec->cores == std::vector<int>{0, 1});
  CHECK(spec->stdin_path == "/dev/null");
  CHECK(spec->node_gpu_files.size() == 2);
  REQUIRE(spec->gpus.size() == 1);
  CHECK(spec->gpus[0].dmem_slice_bytes == 1049429504ULL);
  REQUIRE(spec->cgroup.has_value());
  CHECK(spec->cgroup->constrain_device_memory);
  CHECK(spec->cgroup->job_id_paths);
  CHECK(spec->cgroup->base == "gantry");
  REQUIRE(spec->resctrl.has_value());
  CHECK(spec->resctrl->group == "cpu_only");
}

TEST_CASE("absent cgroup and resctrl objects mean no confinement", "[stepd][spec]") {
  auto spec = parseStepSpec(R"({"job_id": 1, "step_id": 0, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"]})");
  REQUIRE(spec.ok());
  CHECK(spec->step_id == "0");
  CHECK_FALSE(spec->cgroup.has_value());
  CHECK_FALSE(spec->resctrl.has_value());
}

TEST_CASE("CPUs per task and task affinity are read, and default to 1 and unbound", "[stepd][spec]") {
  auto bound = parseStepSpec(R"({"job_id": 1, "step_id": 0, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"],
                                 "cores": [2, 3], "cpus_per_task": 2, "task_affinity": true})");
  REQUIRE(bound.ok());
  CHECK(bound->cpus_per_task == 2);
  CHECK(bound->task_affinity);
  auto plain = parseStepSpec(R"({"job_id": 1, "step_id": 0, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"]})");
  REQUIRE(plain.ok());
  CHECK(plain->cpus_per_task == 1);
  CHECK_FALSE(plain->task_affinity);
}

TEST_CASE("the extern step may come without a command", "[stepd][spec]") {
  auto spec = parseStepSpec(R"({"job_id": 1, "step_id": "extern", "uid": 0, "gid": 0, "work_dir": "/", "kill_wait_sec": 3})");
  REQUIRE(spec.ok());
  CHECK(spec->holdsOnly());
  CHECK(spec->kill_wait_sec == 3);
}

TEST_CASE("bad specs are refused with the key named", "[stepd][spec]") {
  SECTION("missing required key") {
    auto spec = parseStepSpec(R"({"job_id": 1, "step_id": "batch", "gid": 0, "work_dir": "/", "script": "x"})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"uid\"") != std::string::npos);
  }
  SECTION("batch step without script") {
    auto spec = parseStepSpec(R"({"job_id": 1, "step_id": "batch", "uid": 0, "gid": 0, "work_dir": "/"})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"script\"") != std::string::npos);
  }
  SECTION("other step without argv") {
    auto spec = parseStepSpec(R"({"job_id": 1, "step_id": "3", "uid": 0, "gid": 0, "work_dir": "/"})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"argv\"") != std::string::npos);
  }
  SECTION("wrong type") {
    auto spec = parseStepSpec(R"({"job_id": "twelve", "step_id": "0", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"]})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"job_id\"") != std::string::npos);
  }
  SECTION("nested wrong type") {
    auto spec = parseStepSpec(
        R"({"job_id": 1, "step_id": "0", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"], "gpus": [{"index": "a"}]})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"index\"") != std::string::npos);
  }
  SECTION("not JSON") {
    auto spec = parseStepSpec("{nope");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("not valid JSON") != std::string::npos);
  }
}

TEST_CASE("--gpu-bind and the socket layout it needs are read from spec.json", "[stepd][spec]") {
  auto spec = parseStepSpec(R"({"job_id": 3, "step_id": "1", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"],
    "gpu_bind": "verbose,closest", "gpu_sockets": [[0], [], [1]], "socket_cores": [[0, 1], [2, 3]]})");
  REQUIRE(spec.ok());
  CHECK(spec->gpu_bind == "verbose,closest");
  CHECK(spec->gpu_sockets == std::vector<std::vector<int>>{{0}, {}, {1}});
  CHECK(spec->socket_cores == std::vector<std::vector<int>>{{0, 1}, {2, 3}});
  auto wrong = parseStepSpec(R"({"job_id": 3, "step_id": "1", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"],
    "gpu_sockets": "0"})");
  REQUIRE_FALSE(wrong.ok());
  CHECK_THAT(wrong.error(), Catch::Contains("\"gpu_sockets\" has the wrong type"));
}

TEST_CASE("--gpu-freq and the GPU library to hold are read from spec.json", "[stepd][spec]") {
  auto spec = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"],
    "gpu_freq": "highm1,verbose",
    "gpu_library": {"plugin": "rsmi", "library": "librocm_smi_test.so", "purpose": "--gpu-freq"}})");
  REQUIRE(spec.ok());
  CHECK(spec->gpu_freq == "highm1,verbose");
  REQUIRE(spec->gpu_library.has_value());
  CHECK(spec->gpu_library->plugin == "rsmi");
  CHECK(spec->gpu_library->library == "librocm_smi_test.so");
  CHECK(spec->gpu_library->purpose == "--gpu-freq");

  auto none = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"]})");
  REQUIRE(none.ok());
  CHECK(none->gpu_freq.empty());
  CHECK_FALSE(none->gpu_library.has_value());

  auto notObject = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/",
    "argv": ["x"], "gpu_library": "nvml"})");
  REQUIRE_FALSE(notObject.ok());
  CHECK_THAT(notObject.error(), Catch::Contains("\"gpu_library\" must be an object"));
  auto noPlugin = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/",
    "argv": ["x"], "gpu_library": {"library": "x.so"}})");
  REQUIRE_FALSE(noPlugin.ok());
  CHECK_THAT(noPlugin.error(), Catch::Contains("\"gpu_library\" needs a \"plugin\""));
}

TEST_CASE("the job's switch/lua state is read from the spec", "[stepd][spec][switch]") {
  SECTION("a managed job with its dictionary and sluid") {
    auto spec = parseStepSpec(R"({"job_id": 5, "step_id": 2, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"],
      "switch_managed": true, "switch_stepinfo": "{\"vni\": 8}", "switch_sluid": "sABC"})");
    REQUIRE(spec.ok());
    CHECK(spec->switch_managed);
    CHECK(spec->switch_stepinfo == std::optional<std::string>(R"({"vni": 8})"));
    CHECK(spec->switch_sluid == "sABC");
  }
  SECTION("without the keys: unmanaged, no dictionary") {
    auto spec = parseStepSpec(R"({"job_id": 5, "step_id": 2, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"]})");
    REQUIRE(spec.ok());
    CHECK_FALSE(spec->switch_managed);
    CHECK_FALSE(spec->switch_stepinfo.has_value());
    CHECK(spec->switch_sluid.empty());
  }
  SECTION("a dictionary that is not text is refused, naming the key") {
    auto spec = parseStepSpec(R"({"job_id": 5, "step_id": 2, "uid": 0, "gid": 0, "work_dir": "/", "argv": ["true"],
      "switch_managed": true, "switch_stepinfo": {"vni": 8}})");
    REQUIRE_FALSE(spec.ok());
    CHECK(spec.error().find("\"switch_stepinfo\"") != std::string::npos);
  }
}

TEST_CASE("usage accounting settings are read from spec.json's accounting key", "[stepd][spec][usage]") {
  auto spec = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"],
    "accounting": {"interval_sec": 7, "tracked_tres": ["gres/gpumem"], "disable_gpu_acct": true,
                   "gpu_plugin": "rsmi", "gpus": [{"index": 3, "vendor": "amd", "mig": true}], "constrain_devices": true, "cgroup_version": 1,
                   "later_key": 1}})");
  REQUIRE(spec.ok());
  REQUIRE(spec->accounting.has_value());
  CHECK(spec->accounting->interval_sec == 7);
  CHECK(spec->accounting->tracked_tres == std::vector<std::string>{"gres/gpumem"});
  CHECK(spec->accounting->disable_gpu_acct);
  CHECK(spec->accounting->gpu_plugin == "rsmi");
  REQUIRE(spec->accounting->gpus.size() == 1);
  CHECK(spec->accounting->gpus[0].index == 3);
  CHECK(spec->accounting->gpus[0].vendor == "amd");
  CHECK(spec->accounting->gpus[0].mig);
  CHECK(spec->accounting->constrain_devices);
  CHECK(spec->accounting->cgroup_version == 1);

  auto none = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/", "argv": ["x"]})");
  REQUIRE(none.ok());
  CHECK_FALSE(none->accounting.has_value());

  auto notObject = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/",
    "argv": ["x"], "accounting": true})");
  REQUIRE_FALSE(notObject.ok());
  CHECK_THAT(notObject.error(), Catch::Contains("\"accounting\" must be an object"));
  auto badVersion = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/",
    "argv": ["x"], "accounting": {"cgroup_version": 3}})");
  REQUIRE_FALSE(badVersion.ok());
  CHECK_THAT(badVersion.error(), Catch::Contains("\"cgroup_version\" must be 1 or 2"));
  auto wrongType = parseStepSpec(R"({"job_id": 4, "step_id": "2", "uid": 0, "gid": 0, "work_dir": "/",
    "argv": ["x"], "accounting": {"interval_sec": "often"}})");
  REQUIRE_FALSE(wrongType.ok());
  CHECK_THAT(wrongType.error(), Catch::Contains("\"interval_sec\" has the wrong type"));
}
