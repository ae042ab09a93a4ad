#include "common/config/gantry_conf_keys.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "common/config/gantry_conf.h"
#include "common/config/value_parse.h"

namespace gantry::config {
namespace {

using Apply = std::function<void(KeyContext&)>;

void setString(KeyContext& c, std::string& field) { field = c.pair.value; }

void setInt(KeyContext& c, int& field, int min, int max) {
  auto value = parseUint(c.pair.value, static_cast<uint64_t>(max));
  if (!value || static_cast<int>(value.value()) < min) {
    c.error("expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
    return;
  }
  field = static_cast<int>(value.value());
}

void setSeconds(KeyContext& c, int64_t& field) {
  auto value = parseUint(c.pair.value, static_cast<uint64_t>(INT32_MAX));
  if (!value) {
    c.error("expected a number of seconds from 0 to " + std::to_string(INT32_MAX));
    return;
  }
  field = static_cast<int64_t>(value.value());
}

void setWeight(KeyContext& c, uint32_t& field) {
  auto value = parseUint(c.pair.value, UINT32_MAX);
  if (!value) {
    c.error("expected an integer from 0 to " + std::to_string(UINT32_MAX));
    return;
  }
  field = static_cast<uint32_t>(value.value());
}

// A Slurm duration (minutes, D-H, D-H:M, ...) kept in seconds; INFINITE
// is refused: these periods must end.
void setDuration(KeyContext& c, int64_t& seconds) {
  auto minutes = parseTimeMinutes(c.pair.value);
  if (!minutes || minutes.value() < 0) {
    c.error(minutes ? "must be a finite time" : minutes.error());
    return;
  }
  seconds = minutes.value() * 60;
}

void setBool(KeyContext& c, bool& field) {
  auto value = parseBool(c.pair.value);
  if (!value) {
    c.error(value.error());
    return;
  }
  field = value.value();
}

void setSizeMb(KeyContext& c, uint64_t& field) {
  auto value = parseSizeMb(c.pair.value);
  if (!value) {
    c.error(value.error());
    return;
  }
  field = value.value();
}

// A plugin key: the plugin's full name ("select/cons_tres") or its name
// alone ("cons_tres"), in any case. Every allowed name has the same type.
void setPlugin(KeyContext& c, std::string& field, std::initializer_list<std::string_view> allowed) {
  std::string_view first = *allowed.begin();
  std::string full = withPluginType(c.pair.value, first.substr(0, first.find('/')));
  for (std::string_view option : allowed) {
    if (option == full) {
      field = std::string(option);
      return;
    }
  }
  std::vector<std::string> names(allowed.begin(), allowed.end());
  c.error("must be one of " + join(names, ", ") + " (the part after / alone is accepted too)");
}

void setPort(KeyContext& c, int& field) {
  // SlurmctldPort may be a range ("6817-6820"); the first port is used.
  std::string text = c.pair.value.substr(0, c.pair.value.find('-'));
  auto value = parseUint(text, 65535);
  if (!value || value.value() == 0) {
    c.error("expected a port number from 1 to 65535");
    return;
  }
  field = static_cast<int>(value.value());
}

void setLogLevel(KeyContext& c, std::string& field) {
  static const std::unordered_set<std::string> kLevels = {"quiet", "fatal", "error", "info", "verbose", "debug",
                                                          "debug2", "debug3", "debug4", "debug5"};
  std::string lower = toLower(c.pair.value);
  auto numeric = parseUint(lower, 9);
  if (!kLevels.count(lower) && !numeric) {
    c.error("must be a log level (quiet, fatal, error, info, verbose, debug, debug2 ... debug5) or 0-9");
    return;
  }
  field = lower;
}

// "host" or "host(addr)".
void addControllerHost(KeyContext& c) {
  const std::string& v = c.pair.value;
  ControllerHost host;
  std::size_t open = v.find('(');
  if (open == std::string::npos) {
    host.host = v;
    host.addr = v;
  } else {
    if (v.back() != ')' || open == 0) {
      c.error("expected HOST or HOST(ADDRESS)");
      return;
    }
    host.host = v.substr(0, open);
    host.addr = v.substr(open + 1, v.size() - open - 2);
    if (host.addr.empty()) host.addr = host.host;
  }
  if (host.host.empty()) {
    c.error("the host name is empty");
    return;
  }
  c.conf.controllerHosts.push_back(host);
  c.conf.controllerHost = c.conf.controllerHosts.front().host;
  c.conf.controllerAddr = c.conf.controllerHosts.front().addr;
}

void setSelectTypeParameters(KeyContext& c) {
  GantryConf& conf = c.conf;
  conf.selectTypeParameters = splitList(c.pair.value);
  conf.select = SelectTypeFlags{};
  int resourceKinds = 0;
  for (const std::string& raw : conf.selectTypeParameters) {
    std::string p = toLower(raw);
    if (p.rfind("opt_", 0) == 0) p = p.substr(4);
    if (p == "cr_cpu" || p == "cr_cpu_memory") {
      conf.select.crCpu = true;
      ++resourceKinds;
    } else if (p == "cr_core" || p == "cr_core_memory") {
      conf.select.crCore = true;
      ++resourceKinds;
    } else if (p == "cr_socket" || p == "cr_socket_memory") {
      conf.select.crSocket = true;
      ++resourceKinds;
    } else if (p == "cr_memory") {
      conf.select.crMemory = true;
    } else if (p == "cr_one_task_per_core") {
      conf.select.oneTaskPerCore = true;
    } else if (p == "cr_pack_nodes") {
      conf.select.packNodes = true;
    } else if (p == "cr_lln") {
      conf.select.lln = true;
    } else if (p == "multiple_sharing_gres_pj") {
      conf.select.multipleSharingGresPj = true;
    } else if (p == "enforce_binding_gres") {
      conf.select.enforceBindingGres = true;
    } else if (p == "one_task_per_sharing_gres") {
      conf.select.oneTaskPerSharingGres = true;
    } else if (p == "cr_core_default_dist_block" || p == "cr_other_cons_res" || p == "cr_other_cons_tres") {
      // accepted for compatibility; no effect in gantry
    } else {
      c.error("unknown parameter \"" + raw + "\"");
      continue;
    }
    if (p.size() > 7 && p.compare(p.size() - 7, 7, "_memory") == 0) conf.select.crMemory = true;
  }
  if (resourceKinds > 1) c.error("CR_CPU, CR_Core and CR_Socket exclude each other; name only one");
}

void setPreemptMode(KeyContext& c) {
  static const std::unordered_set<std::string> kModes = {"OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "WITHIN",
                                                         "PRIORITY"};
  c.conf.preemptMode.clear();
  for (const std::string& mode : splitList(c.pair.value)) {
    std::string upper = mode;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
    if (!kModes.count(upper)) {
      c.error("unknown mode \"" + mode + "\" (expected OFF, CANCEL, GANG, REQUEUE, SUSPEND or WITHIN)");
      continue;
    }
    c.conf.preemptMode.push_back(upper);
  }
}

void setSchedulerParameters(KeyContext& c) {
  c.conf.schedulerParameters = splitList(c.pair.value);
  c.conf.disableJobShrink = false;
  c.conf.killInvalidDepend = false;
  c.conf.maxScriptSizeBytes = 4 * 1024 * 1024;
  c.conf.requeueDelaySec = 121;
  c.conf.scheduling = {};
  for (const auto& p : c.conf.schedulerParameters) {
    if (iequals(p, "disable_job_shrink")) c.conf.disableJobShrink = true;
    if (iequals(p, "kill_invalid_depend")) c.conf.killInvalidDepend = true;
    std::size_t eq = p.find('=');
    if (eq != std::string::npos && iequals(std::string_view(p).substr(0, eq), "requeue_delay")) {
      std::string value = p.substr(eq + 1);
      bool digits = !value.empty() && value.size() <= 7 &&
                    std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (!digits) {
        c.error("requeue_delay=" + value + " is not a number of seconds");
        continue;
      }
      c.conf.requeueDelaySec = std::stoi(value);
      continue;
    }
    if (auto read = config::readSchedulingParameter(p, c.conf.scheduling); read.recognised) {
      if (!read.error.empty()) c.error(read.error);
      continue;
    }
    if (eq != std::string::npos && iequals(std::string_view(p).substr(0, eq), "max_script_size")) {
      std::string value = p.substr(eq + 1);
      bool digits = !value.empty() && value.size() <= 12 &&
                    std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (!digits || std::stoull(value) == 0) {
        c.error("max_script_size=" + value + " is not a positive number of bytes");
        continue;
      }
      c.conf.maxScriptSizeBytes = std::stoull(value);
    }
  }
}

void setPrivateData(KeyContext& c) {
  c.conf.privateData = {};
  for (const auto& item : splitList(c.pair.value)) {
    if (iequals(item, "jobs")) {
      c.conf.privateData.jobs = true;
    } else if (iequals(item, "nodes")) {
      c.conf.privateData.nodes = true;
    } else if (iequals(item, "usage")) {
      c.conf.privateData.usage = true;
    } else if (iequals(item, "users")) {
      c.conf.privateData.users = true;
    } else if (iequals(item, "accounts") || iequals(item, "cloud") || iequals(item, "events") ||
               iequals(item, "partitions") || iequals(item, "reservations")) {
      // Slurm's other items name things gantry does not have yet.
    } else {
      c.error("unknown item \"" + item + "\" (expected jobs, nodes, usage, users)");
    }
  }
}

// "name=value" -> value when `item` has that name.
bool optionValue(const std::string& item, std::string_view name, std::string& value) {
  std::size_t eq = item.find('=');
  if (!iequals(std::string_view(item).substr(0, eq), name)) return false;
  value = eq == std::string::npos ? "" : item.substr(eq + 1);
  return true;
}

void setSlurmctldParameters(KeyContext& c) {
  GantryConf& conf = c.conf;
  conf.slurmctldParameters = splitList(c.pair.value);
  for (const auto& item : conf.slurmctldParameters) {
    std::string value;
    if (optionValue(item, "switch_timeout", value)) {
      auto seconds = parseUint(value, 86400);
      if (!seconds || seconds.value() == 0) c.error("switch_timeout must be a number of seconds from 1 to 86400");
      else conf.switchTimeoutSec = static_cast<int>(seconds.value());
    } else if (optionValue(item, "switch_retries", value)) {
      auto retries = parseUint(value, 1000);
      if (!retries) c.error("switch_retries must be a count from 0 to 1000");
      else conf.switchRetries = static_cast<int>(retries.value());
    } else if (optionValue(item, "switch_drain_on_failure", value)) {
      auto drain = value.empty() ? Result<bool>(true) : parseBool(value);
      if (!drain) c.error("switch_drain_on_failure must be yes or no");
      else conf.switchDrainOnFailure = drain.value();
    } else if (optionValue(item, "drain_absent_gres", value)) {
      conf.drainAbsentGres = true;
    }
  }
}

void setSlurmdParameters(KeyContext& c) {
  GantryConf& conf = c.conf;
  conf.slurmdParameters = splitList(c.pair.value);
  for (const auto& item : conf.slurmdParameters) {
    if (iequals(item, "config_overrides")) conf.configOverrides = true;
    if (iequals(item, "l3cache_as_socket")) conf.l3cacheAsSocket = true;
    if (iequals(item, "numa_node_as_socket")) conf.numaNodeAsSocket = true;
  }
  if (conf.l3cacheAsSocket && conf.numaNodeAsSocket) {
    c.error("l3cache_as_socket and numa_node_as_socket exclude each other");
  }
}

// GRES names; "gres/gpu" (the TRES spelling) is taken as "gpu".
void setGresTypes(KeyContext& c) {
  c.conf.gresTypes.clear();
  for (const auto& name : splitList(c.pair.value)) {
    bool full = name.size() > 5 && iequals(std::string_view(name).substr(0, 5), "gres/");
    c.conf.gresTypes.push_back(full ? name.substr(5) : name);
  }
}

void setTaskPlugins(KeyContext& c) {
  static const std::unordered_set<std::string> kPlugins = {"task/cgroup", "task/affinity", "task/resctrl",
                                                           "task/none"};
  c.conf.taskPlugins.clear();
  for (const auto& plugin : splitList(c.pair.value)) {
    // Slurm takes a plugin's name without its type too: "cgroup,affinity".
    std::string lower = withPluginType(plugin, "task");
    if (!kPlugins.count(lower)) {
      c.error("unknown task plugin \"" + plugin + "\" (expected task/cgroup, task/affinity, task/resctrl or task/none)");
      continue;
    }
    c.conf.taskPlugins.push_back(lower);
  }
}

void setDebugFlags(KeyContext& c) {
  c.conf.debugFlags = splitList(c.pair.value);
  c.conf.debugSelectType = false;
  for (const auto& flag : c.conf.debugFlags) {
    if (iequals(flag, "SelectType")) c.conf.debugSelectType = true;
  }
}

void setJobAcctGatherParams(KeyContext& c) {
  c.conf.jobAcctGatherParams = splitList(c.pair.value);
  c.conf.disableGpuAcct = false;
  for (const auto& p : c.conf.jobAcctGatherParams) {
    if (iequals(p, "DisableGPUAcct")) c.conf.disableGpuAcct = true;
  }
}

const std::unordered_map<std::string, Apply>& keyTable() {
  static const std::unordered_map<std::string, Apply> table = {
      {"clustername", [](KeyContext& c) { setString(c, c.conf.clusterName); }},
      {"slurmctldhost", addControllerHost},
      {"controlmachine", addControllerHost},
      {"controladdr",
       [](KeyContext& c) {
         if (c.conf.controllerHosts.empty()) {
           c.error("ControlAddr needs a ControlMachine line before it");
           return;
         }
         c.conf.controllerHosts.front().addr = c.pair.value;
         c.conf.controllerAddr = c.pair.value;
       }},
      {"backupcontroller", addControllerHost},
      {"slurmctldport", [](KeyContext& c) { setPort(c, c.conf.controllerPort); }},
      {"slurmdport", [](KeyContext& c) { setPort(c, c.conf.slurmdPort); }},
      {"slurmuser", [](KeyContext& c) { setString(c, c.conf.slurmUser); }},
      {"slurmduser", [](KeyContext& c) { setString(c, c.conf.slurmdUser); }},
      {"authtype", [](KeyContext& c) { setPlugin(c, c.conf.authType, {"auth/munge", "auth/none", "auth/slurm"}); }},
      {"authinfo", [](KeyContext& c) { setString(c, c.conf.authInfo); }},
      {"statesavelocation", [](KeyContext& c) { setString(c, c.conf.stateSaveLocation); }},
      {"slurmdspooldir", [](KeyContext& c) { setString(c, c.conf.slurmdSpoolDir); }},
      {"slurmctldlogfile", [](KeyContext& c) { setString(c, c.conf.slurmctldLogFile); }},
      {"slurmdlogfile", [](KeyContext& c) { setString(c, c.conf.slurmdLogFile); }},
      {"slurmctldpidfile", [](KeyContext& c) { setString(c, c.conf.slurmctldPidFile); }},
      {"slurmdpidfile", [](KeyContext& c) { setString(c, c.conf.slurmdPidFile); }},
      {"slurmctlddebug", [](KeyContext& c) { setLogLevel(c, c.conf.slurmctldDebug); }},
      {"slurmddebug", [](KeyContext& c) { setLogLevel(c, c.conf.slurmdDebug); }},
      {"debugflags", setDebugFlags},
      {"slurmdtimeout", [](KeyContext& c) { setInt(c, c.conf.slurmdTimeoutSec, 0, 65535); }},
      {"jobrequeue", [](KeyContext& c) { setBool(c, c.conf.jobRequeue); }},
      {"maxjobcount", [](KeyContext& c) { setInt(c, c.conf.maxJobCount, 1, 100000000); }},
      {"maxarraysize", [](KeyContext& c) { setInt(c, c.conf.maxArraySize, 0, 4000001); }},
      {"prioritytype",
       [](KeyContext& c) { setPlugin(c, c.conf.priorityType, {"priority/basic", "priority/multifactor"}); }},
      {"priorityweightage", [](KeyContext& c) { setWeight(c, c.conf.priorityWeightAge); }},
      {"priorityweightfairshare", [](KeyContext& c) { setWeight(c, c.conf.priorityWeightFairshare); }},
      {"priorityweightjobsize", [](KeyContext& c) { setWeight(c, c.conf.priorityWeightJobSize); }},
      {"priorityweightpartition", [](KeyContext& c) { setWeight(c, c.conf.priorityWeightPartition); }},
      {"priorityweightqos", [](KeyContext& c) { setWeight(c, c.conf.priorityWeightQos); }},
      {"prioritymaxage", [](KeyContext& c) { setDuration(c, c.conf.priorityMaxAgeSeconds); }},
      {"prioritydecayhalflife", [](KeyContext& c) { setDuration(c, c.conf.priorityDecayHalfLifeSeconds); }},
      {"prioritycalcperiod",
       [](KeyContext& c) {
         setDuration(c, c.conf.priorityCalcPeriodSeconds);
         if (c.conf.priorityCalcPeriodSeconds <= 0) c.error("must be at least one minute");
       }},
      {"priorityfavorsmall", [](KeyContext& c) { setBool(c, c.conf.priorityFavorSmall); }},
      {"priorityusageresetperiod",
       [](KeyContext& c) {
         static const std::vector<std::string> kPeriods = {"NONE",    "NOW",       "DAILY", "WEEKLY",
                                                            "MONTHLY", "QUARTERLY", "YEARLY"};
         std::string value = c.pair.value;
         for (char& ch : value) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
         if (std::find(kPeriods.begin(), kPeriods.end(), value) == kPeriods.end()) {
           c.error("must be one of " + join(kPeriods, ", "));
           return;
         }
         c.conf.priorityUsageResetPeriod = value;
       }},
      {"minjobage", [](KeyContext& c) { setSeconds(c, c.conf.minJobAgeSeconds); }},
      {"slurmdparameters", setSlurmdParameters},
      {"selecttype",
       [](KeyContext& c) { setPlugin(c, c.conf.selectType, {"select/cons_tres", "select/cons_res", "select/linear"}); }},
      {"selecttypeparameters", setSelectTypeParameters},
      {"selecttypeparameter", setSelectTypeParameters},  // singular spelling in older guides
      {"grestypes", setGresTypes},
      {"schedulertype",
       [](KeyContext& c) { setPlugin(c, c.conf.schedulerType, {"sched/builtin", "sched/backfill", "sched/gang"}); }},
      {"schedulertimeslice", [](KeyContext& c) { setInt(c, c.conf.schedulerTimeSliceSec, 5, 86400); }},
      {"schedulerparameters", setSchedulerParameters},
      {"privatedata", setPrivateData},
      {"preemptmode", setPreemptMode},
      {"preempttype",
       [](KeyContext& c) {
         setPlugin(c, c.conf.preemptType, {"preempt/none", "preempt/partition_prio", "preempt/qos"});
       }},
      {"slurmctldparameters", setSlurmctldParameters},
      {"switchtype", [](KeyContext& c) { setPlugin(c, c.conf.switchType, {"switch/none", "switch/lua"}); }},
      {"taskplugin", setTaskPlugins},
      {"proctracktype",
       [](KeyContext& c) {
         setPlugin(c, c.conf.proctrackType, {"proctrack/cgroup", "proctrack/linuxproc", "proctrack/pgid"});
       }},
      {"jobacctgathertype", setJobAcctGatherType},
      {"jobacctgatherfrequency", setJobAcctGatherFrequency},
      {"jobacctgatherparams", setJobAcctGatherParams},
      {"accountingstoragetres", setAccountingStorageTres},
      {"accountingstoragetype", setAccountingStorageType},
      {"accountingstorageloc", [](KeyContext& c) { setString(c, c.conf.accounting.loc); }},
      {"accountingstoragehost", [](KeyContext& c) { setString(c, c.conf.accounting.host); }},
      {"accountingstorageport", setAccountingStoragePort},
      {"accountingstorageuser", [](KeyContext& c) { setString(c, c.conf.accounting.user); }},
      {"accountingstoragepass", [](KeyContext& c) { setString(c, c.conf.accounting.pass); }},
      {"acctgatherenergytype", [](KeyContext& c) { setString(c, c.conf.acctGatherEnergyType); }},
      {"defmempercpu", [](KeyContext& c) { setSizeMb(c, c.conf.defMemPerCpuMb); }},
      {"defmempertask", [](KeyContext& c) { setSizeMb(c, c.conf.defMemPerTaskMb); }},
      {"defmempernode", [](KeyContext& c) { setSizeMb(c, c.conf.defMemPerNodeMb); }},
      {"maxmempercpu", [](KeyContext& c) { setSizeMb(c, c.conf.maxMemPerCpuMb); }},
      {"maxmempertask", [](KeyContext& c) { setSizeMb(c, c.conf.maxMemPerTaskMb); }},
      {"maxmempernode", [](KeyContext& c) { setSizeMb(c, c.conf.maxMemPerNodeMb); }},
      {"prolog", [](KeyContext& c) { setString(c, c.conf.prolog); }},
      {"epilog", [](KeyContext& c) { setString(c, c.conf.epilog); }},
      {"prologepilogtimeout", [](KeyContext& c) { setInt(c, c.conf.prologEpilogTimeoutSec, 1, 65535); }},
      {"prologslurmctld", [](KeyContext& c) { setString(c, c.conf.prologSlurmctld); }},
      {"epilogslurmctld", [](KeyContext& c) { setString(c, c.conf.epilogSlurmctld); }},
      {"allowspecresourcesusage", [](KeyContext& c) { setBool(c, c.conf.allowSpecResourcesUsage); }},
  };
  return table;
}

}  // namespace

bool applyGlobalKey(KeyContext& context) {
  const auto& table = keyTable();
  auto it = table.find(toLower(context.pair.key));
  if (it == table.end()) return false;
  it->second(context);
  return true;
}

bool isIgnoredGlobalKey(std::string_view lowerKey) {
  static const std::unordered_set<std::string_view> kIgnored = {
      "accountingstorageenforce", "acctgathernodefreq", "authalttypes", "backupaddr", "burstbuffertype",
      "communicationparameters", "completewait", "corespecplugin", "cpufreqdef", "credtype", "enforcepartlimits",
      "epilogmsgtime", "firstjobid", "groupupdateforce", "healthcheckinterval", "healthcheckprogram",
      "inactivelimit", "jobcomphost", "jobcomploc", "jobcomppass", "jobcomptype", "jobcompuser",
      "jobsubmitplugins", "killonbadexit", "killwait", "launchparameters", "licenses", "logtimeformat", "mailprog",
      "maxstepcount", "maxtaskspernode", "mcsplugin", "messagetimeout", "mpidefault",
      "mpiparams", "overtimelimit", "plugindir", "prologflags", "propagateresourcelimits",
      "propagateresourcelimitsexcept", "resumeprogram", "resumetimeout", "returntoservice", "schedulerrootfilter",
      "slurmctldsyslogdebug", "slurmctldtimeout", "slurmdsyslogdebug", "slurmschedlogfile", "slurmschedloglevel",
      "srunportrange", "suspendprogram", "suspendtime", "suspendtimeout", "switchparameters", "taskepilog",
      "taskprolog", "tmpfs", "topologyplugin", "trackwckey", "treewidth", "unkillablestepprogram",
      "unkillablesteptimeout", "usepam", "vsizefactor", "waittime", "x11parameters"};
  return kIgnored.count(lowerKey) > 0;
}

}  // namespace gantry::config
