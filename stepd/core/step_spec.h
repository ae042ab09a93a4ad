// The description of one step on one node, as the node agent hands it to
// gantrystepd in <step dir>/spec.json. Plain data; parsing is pure (text in,
// struct or error out) so it is unit-tested without files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace gantry::stepd {

// One GPU (or a share of one, for mps/shard) allocated to the step on this
// node. `index` is the device's position among the node's GPUs.
// Every member has a default so designated initializers may name only some.
struct GpuAllocation {
  int index = 0;
  std::string name = "gpu";  // "gpu", "mps" or "shard"
  std::string type{};
  std::vector<std::string> files{};
  std::string uuid{};
  std::string pci_bus_id{};  // e.g. 0000:01:00.0
  std::string vendor{};      // "nvidia", "amd", "intel" or empty
  int64_t shares = 0;       // mps/shard units allocated on this device
  int64_t share_count = 0;  // mps/shard units configured on this device
  std::string dmem_region{};  // e.g. nvidia/0000:01:00/vidmem; "" or "off" = unenforced
  uint64_t dmem_slice_bytes = 0;  // device memory per shard
};

struct CgroupSpec {
  std::string root;  // mount point of the cgroup v2 hierarchy
  bool constrain_cores = false;
  bool constrain_ram = false;
  bool constrain_devices = false;
  bool constrain_device_memory = false;
  bool enable_controllers = false;
  bool job_id_paths = false;
  std::string base = "gantry";  // directory under root holding job cgroups
};

struct ResctrlSpec {
  std::string root = "/sys/fs/resctrl";
  std::string group;  // empty = stay in the current group
};

// Where srun serves gantry.v1.StepIo for an interactive step.
struct IoSpec {
  std::string addr;
  int port = 0;
  std::string token;
  bool pty = false;  // srun --pty: the one task runs on a pseudo terminal
  // srun -o/-e/-i: these streams go to files on the node instead of srun
  // (patterns as for batch steps; empty: the stream goes to srun).
  std::string stdout_file;
  std::string stderr_file;
  std::string stdin_file;
};

// The GPU management library the step's launcher loads and holds while the
// step runs, as the agent decided it (detect::stepHeldLibrary): for GPU usage
// accounting of a step with a GPU, or to set --gpu-freq.
struct GpuLibrarySpec {
  std::string plugin;   // "nvml" or "rsmi" (or "oneapi", which cannot be loaded)
  std::string library;  // the name the agent dlopens (an override); "" = the vendor's own names
  std::string purpose;  // for the log line: "--gpu-freq", "GPU accounting" or both
};

// Usage accounting of the step's tasks (the agent's gantry.conf, gres.conf
// and cgroup.conf). Absent from spec.json when JobAcctGatherType is
// jobacct_gather/none: then nothing is sampled and result.json has no
// task_usage.
struct AccountingSpec {
  uint32_t interval_sec = 30;  // JobAcctGatherFrequency task=; 0 = only at the end
  std::vector<std::string> tracked_tres{};  // AccountingStorageTRES, as accounting::trackedTresFrom reads it
  bool disable_gpu_acct = false;  // JobAcctGatherParams=DisableGPUAcct
  // The GPU plugin AutoDetect selected on this node (under AutoDetect=full,
  // the mechanism that found the first device): "nvml", "rsmi", another
  // mechanism, or "" for none.
  std::string gpu_plugin{};
  // What the agent knows of each of the step's GPUs (by index) beyond the
  // `gpus` key: the vendor detection found and whether it is a MIG instance.
  struct Gpu {
    int index = 0;
    std::string vendor{};  // "" = as in `gpus`
    bool mig = false;
  };
  std::vector<Gpu> gpus{};
  bool constrain_devices = false;  // cgroup.conf ConstrainDevices
  int cgroup_version = 2;
};

struct StepSpec {
  uint64_t job_id = 0;
  std::string step_id;  // "batch", "extern" or a number
  std::string job_name;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;
  std::string work_dir;
  std::string script;             // batch steps
  // Batch steps: a directory, made for the user alone, for the script the
  // task runs (the step directory is root's). Empty: the step directory.
  std::string script_dir;
  std::vector<std::string> argv;  // other steps; may be empty for the extern step; batch: the script's arguments
  uint32_t kill_wait_sec = 10;    // SIGTERM to SIGKILL when terminating
  std::string stdout_pattern;
  std::string stderr_pattern;  // empty = same as stdout
  bool open_append = false;    // --open-mode=append: keep what the output files hold
  std::string stdin_path = "/dev/null";
  std::map<std::string, std::string> env;
  std::string node_name;
  int node_id = 0;
  std::string nodelist;
  int num_nodes = 1;
  int ntasks = 1;
  int tasks_on_node = 1;
  int first_task_id = 0;
  int cpus_on_node = 0;
  std::vector<int> cores;
  int cpus_per_task = 1;
  // TaskPlugin has task/affinity: each task is bound to its share of the
  // step's CPUs where task_affinity.h says so.
  bool task_affinity = false;
  uint64_t mem_mb = 0;
  uint64_t time_limit_sec = 0;
  std::string partition;
  std::string cluster;
  std::string submit_host;
  std::string submit_dir;
  std::vector<GpuAllocation> gpus;
  // Every GPU device file of the node (allocated or not); with
  // ConstrainDevices the ones not allocated to the step are refused to it.
  std::vector<std::string> node_gpu_files;
  // The node has GPUs: a step given none of them must not see GPU
  // variables it inherited (from the batch script that started srun).
  bool node_has_gpus = false;
  std::vector<std::string> gres_flags;
  // --gpu-bind as the user gave it ("" = none); the sockets of each of the
  // node's GPUs by GPU index (empty = unknown), and the cores of each socket,
  // for the bindings that follow the task's CPUs (closest, single).
  std::string gpu_bind;
  std::vector<std::vector<int>> gpu_sockets;
  std::vector<std::vector<int>> socket_cores;
  std::string gpu_freq;  // --gpu-freq as given ("" = none)
  std::optional<GpuLibrarySpec> gpu_library;  // absent: the launcher loads none
  std::optional<CgroupSpec> cgroup;
  std::optional<ResctrlSpec> resctrl;
  std::optional<AccountingSpec> accounting;  // absent: no usage sampling
  // Present for srun's steps: output, input and signals travel over gRPC
  // instead of the stdout/stderr/stdin names.
  std::optional<IoSpec> io;
  std::string host_root = "/";
  // SwitchType=switch/lua: the switch.lua to load before the step runs; a
  // script that does not load fails the step. Empty: no switch plugin.
  std::string switch_script;
  // The job's switch/lua state, as the controller passed it: the setup
  // returned a dictionary (the step functions run for the job); that
  // dictionary as JSON text (absent: it could not be passed, and the step
  // functions get nil); the sluid of the job's current run (empty: the
  // job's SLUID, see sluid.h).
  bool switch_managed = false;
  std::optional<std::string> switch_stepinfo;
  std::string switch_sluid;
  // A task of a job array: the array's job id and the task's index (%A
  // and %a in output names); 0 and -1 otherwise.
  uint64_t array_job_id = 0;
  int64_t array_task_id = -1;

  bool isBatch() const { return step_id == "batch"; }
  // The extern step without a command runs no task: it only holds the
  // job's confinement on the node until it is told to end.
  bool holdsOnly() const { return step_id == "extern" && argv.empty(); }
};

// Parses the JSON text of spec.json. Unknown keys are ignored. Fails, naming
// the key and the rule, when a required key (job_id, step_id, uid, gid,
// work_dir, and script for batch or argv for other steps) is missing or a
// key has the wrong type.
Result<StepSpec> parseStepSpec(const std::string& json_text);

}  // namespace gantry::stepd
