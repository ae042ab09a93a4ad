#include "common/config/inert_keys.h"

#include <algorithm>
#include <initializer_list>

#include "common/config/scheduler_parameters.h"
#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

// The items of a comma list that `isInert` picks, joined again.
template <typename Pick>
std::string pickItems(std::string_view value, Pick isInert) {
  std::vector<std::string> picked;
  for (const auto& item : splitList(value)) {
    if (isInert(toLower(item))) picked.push_back(item);
  }
  return join(picked, ",");
}

bool isOneOf(std::string_view lower, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), lower) != names.end();
}

std::string debugFlagsPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& flag) { return flag != "selecttype"; });
}

// CR_CPU, CR_Core, CR_Memory and the _Memory forms match what selection
// does; MULTIPLE_SHARING_GRES_PJ reaches it through ClusterOptions.
std::string selectTypeParametersPart(std::string_view value, int) {
  return pickItems(value, [](std::string item) {
    if (item.rfind("opt_", 0) == 0) item = item.substr(4);
    return isOneOf(item, {"cr_socket", "cr_socket_memory", "cr_one_task_per_core", "cr_pack_nodes", "cr_lln",
                          "enforce_binding_gres", "one_task_per_sharing_gres", "cr_core_default_dist_block"});
  });
}

// Contain is read by the controller (the extern step).
std::string prologFlagsPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& flag) { return flag != "contain"; });
}

// The first controller host is used; the others would be backups.
std::string backupHostPart(std::string_view value, int occurrence) {
  return occurrence > 0 ? std::string(value) : "";
}

// max_script_size is read at submission, requeue_delay by the lifecycle,
// kill_invalid_depend and scheduler_parameters.h's items by the passes.
std::string schedulerParametersPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& item) {
    SchedulingParameters ignored;
    return item.rfind("max_script_size=", 0) != 0 && item.rfind("requeue_delay=", 0) != 0 &&
           item != "kill_invalid_depend" && !readSchedulingParameter(item, ignored).recognised;
  });
}

// switch_timeout, switch_retries and switch_drain_on_failure govern the
// switch/lua calls (controller/switch); the rest waits for its issue.
std::string slurmctldParametersPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& item) {
    return item.rfind("switch_timeout=", 0) != 0 && item.rfind("switch_retries=", 0) != 0 &&
           item.rfind("switch_drain_on_failure=", 0) != 0 && item != "drain_absent_gres";
  });
}

// jobs and nodes are acted on; usage and users concern accounting.
std::string privateDataPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& item) { return item != "jobs" && item != "nodes"; });
}



// sched/backfill (planned starts) and sched/gang (timeslicing) are acted
// on; sched/builtin would start jobs strictly in order.
std::string schedulerTypePart(std::string_view value, int) {
  std::string type = withPluginType(value, "sched");
  return type == "sched/gang" || type == "sched/backfill" ? "" : std::string(value);
}

// GANG is acted on; the preemption modes are not yet.
std::string preemptModePart(std::string_view value, int) {
  return pickItems(value, [](const std::string& mode) { return mode != "gang" && mode != "off"; });
}

std::string cgroupPluginPart(std::string_view value, int) {
  return iequals(value, "autodetect") || iequals(value, "cgroup/v2") ? "" : std::string(value);
}

// IgnoreSystemd=yes is what gantry does anyway.
std::string ignoreSystemdPart(std::string_view value, int) {
  auto ignore = parseBool(value);
  return ignore.ok() && !ignore.value() ? std::string(value) : "";
}

std::string gresFlagsPart(std::string_view value, int) {
  return pickItems(value, [](const std::string& flag) { return flag == "one_sharing" || flag == "all_sharing"; });
}

std::vector<InertKey> makeTable() {
  using P = KeyPlace;
  return {
      // ---- gantry.conf: cluster and daemons
      {P::Global, "SlurmctldHost", "", "controller failover",
       "a second and later SlurmctldHost is a backup controller that takes over when the primary stops",
       "high availability", "ctl2", backupHostPart},
      {P::Global, "BackupController", "", "controller failover", "names a backup controller host",
       "high availability", "ctl2"},
      {P::Global, "SlurmdUser", "", "node agent account",
       "the node agent runs as this user; today it runs as whoever started it", "nodeagent", "root"},
      {P::Global, "SlurmctldPidFile", "", "pid files", "the controller writes its process id here",
       "packaging", "/run/gantryctld.pid"},
      {P::Global, "SlurmdPidFile", "", "pid files", "the node agent writes its process id here (%n, %h expanded)",
       "packaging", "/run/gantryd.pid"},
      {P::Global, "DebugFlags", "", "debug flags other than SelectType",
       "each flag turns on its debug log; SelectType already does", "logging", "Gres", debugFlagsPart},
      {P::Global, "PrologFlags", "", "Prolog flags other than Contain",
       "Alloc, NoHold, Serial, X11 and the others change when and how the Prolog runs; Contain is acted on "
       "(the extern step)",
       "nodeagent", "Alloc", prologFlagsPart},
      {P::Global, "PrologSlurmctld", "", "controller Prolog",
       "the controller runs this program before a job starts", "controller", "/etc/gantry/ctld_prolog"},
      {P::Global, "EpilogSlurmctld", "", "controller Epilog", "the controller runs this program after a job ends",
       "controller", "/etc/gantry/ctld_epilog"},

      // ---- gantry.conf: scheduling, resources, plugins
      {P::Global, "SelectTypeParameters", "SelectTypeParameter", "selection option",
       "CR_Socket allocates whole sockets, CR_ONE_TASK_PER_CORE places one task per core, CR_Pack_Nodes packs "
       "tasks, CR_LLN prefers the least loaded node, ENFORCE_BINDING_GRES and ONE_TASK_PER_SHARING_GRES set "
       "--gres-flags defaults, CR_Core_Default_Dist_Block sets the task distribution; CR_CPU, CR_Core, CR_Memory, "
       "the _Memory forms and MULTIPLE_SHARING_GRES_PJ are acted on",
       "controller/select", "CR_Pack_Nodes", selectTypeParametersPart},
      {P::Global, "SchedulerType", "", "scheduler choice",
       "sched/builtin starts jobs strictly in order; under it Gantry starts every pending job that fits, in "
       "priority order, and plans no starts (sched/backfill, planned starts, and sched/gang, timeslicing, are "
       "acted on)",
       "controller/sched", "sched/builtin", schedulerTypePart},
      {P::Global, "SchedulerParameters", "", "scheduler parameters",
       "disable_job_shrink refuses to shrink running jobs; bf_* and the other items tune the scheduling loop; "
       "max_script_size, requeue_delay, kill_invalid_depend, bf_max_job_test, bf_max_job_user, bf_window, "
       "bf_resolution, bf_interval, bf_continue, default_queue_depth and sched_interval are acted on",
       "controller/sched", "disable_job_shrink", schedulerParametersPart},
      {P::Global, "PrivateData", "", "accounting privacy",
       "usage and users hide accounting records from other users; jobs and nodes are acted on",
       "controller/accounting", "usage", privateDataPart},
      {P::Global, "PreemptMode", "", "preemption and gang scheduling",
       "SUSPEND, REQUEUE and CANCEL say how a job is preempted; GANG (timeslicing) is acted on", "controller/sched",
       "SUSPEND", preemptModePart},
      {P::Global, "PreemptType", "", "preemption", "which jobs may preempt which (partition priority or QOS)",
       "controller/gang", "preempt/partition_prio"},
      {P::Global, "SlurmctldParameters", "", "other controller parameters",
       "items that tune parts of the controller not built yet; switch_timeout, switch_retries, "
       "switch_drain_on_failure and drain_absent_gres are acted on",
       "controller/core", "idle_on_node_suspend", slurmctldParametersPart},
      {P::Global, "SwitchParameters", "", "switch/lua interconnect lifecycle", "parameters handed to the switch plugin",
       "controller/switch", "verbose"},
      {P::Global, "ProctrackType", "", "process tracking choice",
       "chooses how a step's processes are found; the step launcher always tracks its own children",
       "stepd", "proctrack/cgroup"},
      {P::Global, "DefMemPerTask", "", "memory default per task", "memory given per task to a job that asks for none",
       "controller/core", "1024"},
      {P::Global, "MaxMemPerCPU", "", "memory limits", "the most memory a job may ask per CPU", "controller/core",
       "4096"},
      {P::Global, "MaxMemPerTask", "", "memory limits", "the most memory a job may ask per task", "controller/core",
       "4096"},
      {P::Global, "MaxMemPerNode", "", "memory limits", "the most memory a job may ask per node", "controller/core",
       "65536"},
      {P::Global, "AccountingStorageEnforce", "", "accounting storage", "limits enforced from accounting",
       "accounting (sacct)", "associations"},
      {P::Global, "AcctGatherEnergyType", "", "energy sampling",
       "acct_gather_energy/gpu keeps the GPU library loaded to read energy", "accounting (sacct)",
       "acct_gather_energy/gpu"},
      {P::Global, "AcctGatherNodeFreq", "", "energy sampling", "how often node energy is sampled",
       "accounting (sacct)", "30"},

      // ---- gantry.conf: NodeName lines
      {P::NodeLine, "NodeHostname", "", "configured host names",
       "%h in SlurmdSpoolDir, log and pid paths is this name; today the agent uses its machine's host name",
       "nodeagent", "host1"},
      {P::NodeLine, "TmpDisk", "", "temporary disk", "jobs asking --tmp go only to nodes with that much",
       "controller/select", "1024"},
      {P::NodeLine, "Weight", "", "node weights", "nodes of lower weight are preferred", "controller/select", "10"},

      // ---- gantry.conf: PartitionName lines
      {P::PartitionLine, "PreemptMode", "", "preemption", "how jobs of this partition are preempted",
       "controller/gang", "SUSPEND"},
      {P::PartitionLine, "PriorityTier", "", "partition priority tiers",
       "jobs of higher tiers are scheduled first (and may preempt lower ones)", "controller/sched", "2"},

      // ---- cgroup.conf
      {P::CgroupConf, "CgroupPlugin", "", "cgroup v1 and switching confinement off",
       "cgroup/v1 uses the v1 hierarchies, disabled turns confinement off; today confinement needs cgroup v2 "
       "and follows TaskPlugin=task/cgroup",
       "nodeagent", "cgroup/v1", cgroupPluginPart},
      {P::CgroupConf, "ConstrainSwapSpace", "", "swap limits", "steps get a swap limit", "stepd", "yes"},
      {P::CgroupConf, "AllowedRAMSpace", "", "memory limit share",
       "the memory limit is this percentage of the allocation; today it is the allocation", "stepd", "98"},
      {P::CgroupConf, "AllowedSwapSpace", "", "swap limits", "extra swap allowed, in percent of the allocation",
       "stepd", "10"},
      {P::CgroupConf, "IgnoreSystemd", "", "systemd delegation",
       "no: gantry asks systemd for a delegated cgroup; today it always manages its cgroups itself", "nodeagent",
       "no", ignoreSystemdPart},

      // ---- gres.conf
      {P::GresConf, "Flags", "", "one_sharing and all_sharing",
       "one_sharing and all_sharing choose whether a job's shares come from one GPU or from all; the other "
       "flags are acted on",
       "controller/select", "one_sharing", gresFlagsPart},
  };
}

}  // namespace

std::string_view toString(KeyPlace place) {
  switch (place) {
    case KeyPlace::Global: return "gantry.conf";
    case KeyPlace::NodeLine: return "gantry.conf NodeName lines";
    case KeyPlace::PartitionLine: return "gantry.conf PartitionName lines";
    case KeyPlace::CgroupConf: return "cgroup.conf";
    case KeyPlace::GresConf: return "gres.conf";
  }
  return "gantry.conf";
}

const std::vector<InertKey>& inertKeys() {
  static const std::vector<InertKey> table = makeTable();
  return table;
}

const InertKey* findInertKey(KeyPlace place, std::string_view key) {
  for (const auto& entry : inertKeys()) {
    if (entry.place != place) continue;
    if (iequals(entry.key, key) || (!entry.alias.empty() && iequals(entry.alias, key))) return &entry;
  }
  return nullptr;
}

std::optional<std::string> inertNote(const InertKey& entry, const KeyValue& pair, int occurrence) {
  std::string written = pair.key + "=" + pair.value;
  std::string tail = " is accepted but not yet acted on (" + std::string(entry.feature) + ")";
  if (entry.inertPart == nullptr) return written + tail;
  std::string part = entry.inertPart(pair.value, occurrence);
  if (part.empty()) return std::nullopt;
  if (part == pair.value) return written + tail;
  return written + ": " + part + tail;
}

void InertKeyNotes::check(KeyPlace place, const ConfLine& line, const KeyValue& pair) {
  const InertKey* entry = findInertKey(place, pair.key);
  if (entry == nullptr) return;
  auto seen = std::find_if(seen_.begin(), seen_.end(), [&](const auto& s) { return s.first == entry; });
  if (seen == seen_.end()) seen = seen_.insert(seen_.end(), {entry, 0});
  int occurrence = seen->second++;
  if (auto note = inertNote(*entry, pair, occurrence)) diagnostics_.note(line.file, line.line, std::move(*note));
}

}  // namespace gantry::config
