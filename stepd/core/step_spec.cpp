#include "stepd/core/step_spec.h"

#include <nlohmann/json.hpp>

namespace gantry::stepd {
namespace {

using nlohmann::json;

// A key of the wrong type; thrown inside this file only, so the message can
// name the key, and turned into an Error by parseStepSpec.
struct WrongType {
  std::string key;
  std::string detail;
};

template <typename T>
T readAs(const json& value, const char* key) {
  try {
    return value.get<T>();
  } catch (const json::exception& e) {
    throw WrongType{key, e.what()};
  }
}

template <typename T>
void readOptional(const json& object, const char* key, T& out) {
  auto it = object.find(key);
  if (it != object.end() && !it->is_null()) out = readAs<T>(*it, key);
}

Status requireKey(const json& object, const char* key, const char* where) {
  if (object.contains(key) && !object.at(key).is_null()) return okStatus();
  return Error{std::string(where) + ": required key \"" + key + "\" is missing"};
}

GpuAllocation parseGpu(const json& entry) {
  GpuAllocation gpu;
  readOptional(entry, "index", gpu.index);
  readOptional(entry, "name", gpu.name);
  readOptional(entry, "type", gpu.type);
  readOptional(entry, "files", gpu.files);
  readOptional(entry, "uuid", gpu.uuid);
  readOptional(entry, "pci_bus_id", gpu.pci_bus_id);
  readOptional(entry, "vendor", gpu.vendor);
  readOptional(entry, "shares", gpu.shares);
  readOptional(entry, "share_count", gpu.share_count);
  readOptional(entry, "dmem_region", gpu.dmem_region);
  readOptional(entry, "dmem_slice_bytes", gpu.dmem_slice_bytes);
  return gpu;
}

CgroupSpec parseCgroup(const json& object) {
  CgroupSpec cgroup;
  readOptional(object, "root", cgroup.root);
  readOptional(object, "constrain_cores", cgroup.constrain_cores);
  readOptional(object, "constrain_ram", cgroup.constrain_ram);
  readOptional(object, "constrain_devices", cgroup.constrain_devices);
  readOptional(object, "constrain_device_memory", cgroup.constrain_device_memory);
  readOptional(object, "enable_controllers", cgroup.enable_controllers);
  readOptional(object, "job_id_paths", cgroup.job_id_paths);
  readOptional(object, "base", cgroup.base);
  return cgroup;
}

AccountingSpec parseAccounting(const json& object) {
  AccountingSpec accounting;
  readOptional(object, "interval_sec", accounting.interval_sec);
  readOptional(object, "tracked_tres", accounting.tracked_tres);
  readOptional(object, "disable_gpu_acct", accounting.disable_gpu_acct);
  readOptional(object, "gpu_plugin", accounting.gpu_plugin);
  if (auto it = object.find("gpus"); it != object.end() && !it->is_null()) {
    if (!it->is_array()) throw WrongType{"accounting.gpus", "must be an array"};
    for (const auto& entry : *it) {
      AccountingSpec::Gpu gpu;
      readOptional(entry, "index", gpu.index);
      readOptional(entry, "vendor", gpu.vendor);
      readOptional(entry, "mig", gpu.mig);
      accounting.gpus.push_back(gpu);
    }
  }
  readOptional(object, "constrain_devices", accounting.constrain_devices);
  readOptional(object, "cgroup_version", accounting.cgroup_version);
  return accounting;
}

// step_id may arrive as a number (0) or a string ("0", "batch").
std::string readStepId(const json& value) {
  if (value.is_number_unsigned() || value.is_number_integer()) return std::to_string(value.get<int64_t>());
  return readAs<std::string>(value, "step_id");
}

Result<StepSpec> parseObject(const json& doc) {
  if (!doc.is_object()) return Error{"spec.json: top level must be a JSON object"};
  for (const char* key : {"job_id", "step_id", "uid", "gid", "work_dir"}) {
    if (auto s = requireKey(doc, key, "spec.json"); !s) return Error{s.error()};
  }
  StepSpec spec;
  spec.job_id = readAs<uint64_t>(doc.at("job_id"), "job_id");
  spec.step_id = readStepId(doc.at("step_id"));
  if (spec.step_id.empty()) return Error{"spec.json: key \"step_id\" must not be empty"};
  spec.uid = readAs<uint32_t>(doc.at("uid"), "uid");
  spec.gid = readAs<uint32_t>(doc.at("gid"), "gid");
  spec.work_dir = readAs<std::string>(doc.at("work_dir"), "work_dir");
  readOptional(doc, "job_name", spec.job_name);
  readOptional(doc, "user", spec.user);
  readOptional(doc, "script", spec.script);
  readOptional(doc, "script_dir", spec.script_dir);
  readOptional(doc, "argv", spec.argv);
  if (spec.isBatch() && spec.script.empty())
    return Error{"spec.json: key \"script\" is required (and non-empty) for a batch step"};
  readOptional(doc, "kill_wait_sec", spec.kill_wait_sec);
  if (!spec.isBatch() && spec.step_id != "extern" && spec.argv.empty())
    return Error{"spec.json: key \"argv\" is required (and non-empty) for step " + spec.step_id};
  readOptional(doc, "stdout", spec.stdout_pattern);
  readOptional(doc, "stderr", spec.stderr_pattern);
  readOptional(doc, "open_append", spec.open_append);
  readOptional(doc, "stdin", spec.stdin_path);
  if (spec.stdin_path.empty()) spec.stdin_path = "/dev/null";
  readOptional(doc, "env", spec.env);
  readOptional(doc, "node_name", spec.node_name);
  readOptional(doc, "node_id", spec.node_id);
  readOptional(doc, "nodelist", spec.nodelist);
  readOptional(doc, "num_nodes", spec.num_nodes);
  readOptional(doc, "ntasks", spec.ntasks);
  readOptional(doc, "tasks_on_node", spec.tasks_on_node);
  readOptional(doc, "first_task_id", spec.first_task_id);
  readOptional(doc, "cpus_on_node", spec.cpus_on_node);
  readOptional(doc, "cores", spec.cores);
  readOptional(doc, "cpus_per_task", spec.cpus_per_task);
  readOptional(doc, "task_affinity", spec.task_affinity);
  readOptional(doc, "mem_mb", spec.mem_mb);
  readOptional(doc, "time_limit_sec", spec.time_limit_sec);
  readOptional(doc, "partition", spec.partition);
  readOptional(doc, "cluster", spec.cluster);
  readOptional(doc, "submit_host", spec.submit_host);
  readOptional(doc, "submit_dir", spec.submit_dir);
  readOptional(doc, "gres_flags", spec.gres_flags);
  readOptional(doc, "node_gpu_files", spec.node_gpu_files);
  readOptional(doc, "node_has_gpus", spec.node_has_gpus);
  readOptional(doc, "gpu_bind", spec.gpu_bind);
  readOptional(doc, "gpu_sockets", spec.gpu_sockets);
  readOptional(doc, "socket_cores", spec.socket_cores);
  readOptional(doc, "gpu_freq", spec.gpu_freq);
  readOptional(doc, "switch_script", spec.switch_script);
  readOptional(doc, "switch_managed", spec.switch_managed);
  if (auto it = doc.find("switch_stepinfo"); it != doc.end() && !it->is_null())
    spec.switch_stepinfo = readAs<std::string>(*it, "switch_stepinfo");
  readOptional(doc, "switch_sluid", spec.switch_sluid);
  readOptional(doc, "array_job_id", spec.array_job_id);
  readOptional(doc, "array_task_id", spec.array_task_id);
  readOptional(doc, "host_root", spec.host_root);
  if (spec.tasks_on_node < 1) return Error{"spec.json: key \"tasks_on_node\" must be at least 1"};
  if (auto it = doc.find("gpus"); it != doc.end() && !it->is_null()) {
    if (!it->is_array()) return Error{"spec.json: key \"gpus\" must be an array"};
    for (const auto& entry : *it) spec.gpus.push_back(parseGpu(entry));
  }
  if (auto it = doc.find("gpu_library"); it != doc.end() && !it->is_null()) {
    if (!it->is_object()) return Error{"spec.json: key \"gpu_library\" must be an object"};
    GpuLibrarySpec library;
    readOptional(*it, "plugin", library.plugin);
    readOptional(*it, "library", library.library);
    readOptional(*it, "purpose", library.purpose);
    if (library.plugin.empty()) return Error{"spec.json: key \"gpu_library\" needs a \"plugin\""};
    spec.gpu_library = library;
  }
  if (auto it = doc.find("cgroup"); it != doc.end() && it->is_object()) spec.cgroup = parseCgroup(*it);
  if (auto it = doc.find("resctrl"); it != doc.end() && it->is_object()) {
    ResctrlSpec resctrl;
    readOptional(*it, "root", resctrl.root);
    readOptional(*it, "group", resctrl.group);
    spec.resctrl = resctrl;
  }
  if (auto it = doc.find("accounting"); it != doc.end() && !it->is_null()) {
    if (!it->is_object()) return Error{"spec.json: key \"accounting\" must be an object"};
    spec.accounting = parseAccounting(*it);
    if (spec.accounting->cgroup_version != 1 && spec.accounting->cgroup_version != 2)
      return Error{"spec.json: key \"accounting\": \"cgroup_version\" must be 1 or 2"};
  }
  if (auto it = doc.find("io"); it != doc.end() && !it->is_null()) {
    if (!it->is_object()) return Error{"spec.json: key \"io\" must be an object"};
    IoSpec io;
    readOptional(*it, "addr", io.addr);
    readOptional(*it, "port", io.port);
    readOptional(*it, "token", io.token);
    readOptional(*it, "pty", io.pty);
    readOptional(*it, "stdout", io.stdout_file);
    readOptional(*it, "stderr", io.stderr_file);
    readOptional(*it, "stdin", io.stdin_file);
    if (io.addr.empty() || io.port <= 0 || io.port > 65535) {
      return Error{"spec.json: key \"io\" needs \"addr\" and a \"port\" in 1-65535"};
    }
    spec.io = io;
  }
  return spec;
}

}  // namespace

Result<StepSpec> parseStepSpec(const std::string& json_text) {
  // nlohmann-json reports bad input by exception; it stays inside this
  // function and becomes an Error value.
  try {
    return parseObject(json::parse(json_text));
  } catch (const json::parse_error& e) {
    return Error{std::string("spec.json: not valid JSON: ") + e.what()};
  } catch (const WrongType& e) {
    return Error{"spec.json: key \"" + e.key + "\" has the wrong type (" + e.detail + ")"};
  } catch (const json::exception& e) {
    return Error{std::string("spec.json: ") + e.what()};
  }
}

}  // namespace gantry::stepd
