// gantry.conf (slurm.conf syntax) as typed structs. The daemons read these
// structs only; all parsing and validation happens in loadGantryConf().
//
// Keys are case-insensitive. Unknown keys produce a warning naming file and
// line and are otherwise ignored, so an existing site's slurm.conf loads.
// docs/configuration.md lists every key, its type, default and meaning.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config/conf_reader.h"
#include "common/config/diagnostic.h"
#include "common/config/gres_spec.h"
#include "common/config/scheduler_parameters.h"
#include "common/util/result.h"

namespace gantry::config {

struct NodeConf {
  std::string name;
  std::string addr;  // NodeAddr; defaults to name
  std::string hostname;  // NodeHostname; defaults to name
  int port = 0;  // 0 = use GantryConf::slurmdPort
  // Topology. `sockets` counts every socket on the node (Boards x
  // SocketsPerBoard); cpus is derived from the topology when not written.
  int cpus = 1, boards = 1, sockets = 1, coresPerSocket = 1, threadsPerCore = 1;
  int socketsPerBoard = 1;
  uint64_t realMemoryMb = 1;
  uint64_t tmpDiskMb = 0;
  std::vector<GresCount> gres;
  std::vector<std::string> features;
  int weight = 1;
  std::string state;  // as written ("" when absent)
  std::vector<std::string> parameters;  // node Parameters=
  std::string maxDrainedTres;  // raw, as written
  std::vector<TresLimit> maxDrainedTresLimits;  // parsed form of maxDrainedTres
  // RestrictedCoresPerGPU: that many cores bound to each GPU are kept for
  // jobs given that GPU (or shares of it); 0 = none kept.
  int restrictedCoresPerGpu = 0;
  std::string sourceFile;
  int sourceLine = 0;

  bool hasParameter(std::string_view name) const;
};

enum class OverSubscribeMode { No, Yes, Force, Exclusive };
std::string_view toString(OverSubscribeMode mode);

struct PartitionConf {
  std::string name;
  std::vector<std::string> nodes;  // expanded node names
  std::string nodesExpr;  // Nodes= as written
  bool isDefault = false;
  int maxNodes = -1;  // -1 unlimited
  int64_t maxTimeMinutes = -1, defaultTimeMinutes = -1;  // -1 INFINITE / unset
  OverSubscribeMode overSubscribe = OverSubscribeMode::No;
  int overSubscribeCount = 1;  // jobs per resource; 4 for YES/FORCE without a count
  // How many jobs may share one CPU here: N for FORCE:N and YES:N (YES
  // only for jobs that ask -s), 1 otherwise. Above 1 the partition is
  // timesliced under gang scheduling.
  int cpuSharers() const {
    bool shares = overSubscribe == OverSubscribeMode::Force || overSubscribe == OverSubscribeMode::Yes;
    return shares && overSubscribeCount > 1 ? overSubscribeCount : 1;
  }
  std::string preemptMode;
  int priorityTier = 1;
  // priority/multifactor: this partition's share of PriorityWeightPartition
  // (its PriorityJobFactor over the largest of all partitions), and the
  // weights that turn a job's TRES into billing units for fair share
  // ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0"; empty: CPUs).
  uint32_t priorityJobFactor = 1;
  std::string tresBillingWeights;
  std::string state = "UP";  // UP, DOWN, DRAIN, INACTIVE
  std::string sourceFile;
  int sourceLine = 0;
};

struct ControllerHost {
  std::string host;
  std::string addr;  // defaults to host
};

// SelectTypeParameters as flags.
struct SelectTypeFlags {
  bool crCpu = false, crCore = false, crSocket = false, crMemory = false;
  bool oneTaskPerCore = false, packNodes = false, lln = false;
  bool multipleSharingGresPj = false;  // MULTIPLE_SHARING_GRES_PJ
  bool enforceBindingGres = false, oneTaskPerSharingGres = false;
};

struct GantryConf {
  std::string clusterName = "gantry";
  std::string controllerHost, controllerAddr;  // first SlurmctldHost=name(addr)
  std::vector<ControllerHost> controllerHosts;  // every SlurmctldHost, primary first
  int controllerPort = 6817, slurmdPort = 6818;  // SlurmctldPort, SlurmdPort
  std::string slurmUser = "root";
  std::string slurmdUser = "root";
  std::string authType = "auth/munge";
  std::string authInfo;  // raw, e.g. "socket=/run/munge/munge.socket.2"
  std::string stateSaveLocation = "/var/spool/gantry/ctld", slurmdSpoolDir = "/var/spool/gantry/d";
  std::string slurmctldLogFile, slurmdLogFile, slurmctldPidFile, slurmdPidFile;
  std::string slurmctldDebug = "info", slurmdDebug = "info";
  std::vector<std::string> debugFlags;
  bool debugSelectType = false;  // DebugFlags=SelectType
  int slurmdTimeoutSec = 300;
  bool jobRequeue = true;
  int maxJobCount = 10000;
  // MaxArraySize: every --array index must be below it (Slurm's default
  // and upper bound).
  int maxArraySize = 1001;
  // PriorityType and priority/multifactor's settings (controller/core/priority.h).
  std::string priorityType = "priority/basic";
  uint32_t priorityWeightAge = 0, priorityWeightFairshare = 0, priorityWeightJobSize = 0,
           priorityWeightPartition = 0, priorityWeightQos = 0;
  int64_t priorityMaxAgeSeconds = 7 * 86400;
  int64_t priorityDecayHalfLifeSeconds = 7 * 86400;  // 0: usage never decays
  std::string priorityUsageResetPeriod = "NONE";      // NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY
  bool priorityFavorSmall = false;
  int64_t priorityCalcPeriodSeconds = 300;
  // MinJobAge: seconds an ended job stays in the controller's memory (and
  // listed) before only the store has it; 0 keeps ended jobs for good.
  int64_t minJobAgeSeconds = 300;

  std::vector<std::string> slurmdParameters;
  bool configOverrides = false;  // SlurmdParameters=config_overrides
  bool l3cacheAsSocket = false, numaNodeAsSocket = false;

  std::string selectType = "select/cons_tres";
  std::vector<std::string> selectTypeParameters;
  SelectTypeFlags select;

  std::vector<std::string> gresTypes;

  std::string schedulerType = "sched/backfill";  // sched/builtin, sched/backfill, sched/gang
  int schedulerTimeSliceSec = 30;
  std::vector<std::string> schedulerParameters;
  bool disableJobShrink = false;
  // SchedulerParameters=kill_invalid_depend: a job whose dependency can
  // never be satisfied is cancelled instead of waiting (reason
  // DependencyNeverSatisfied) for its owner to fix it.
  bool killInvalidDepend = false;
  // The passes' depth and intervals, and backfill's limits.
  SchedulingParameters scheduling;
  // SchedulerParameters=max_script_size=N: the largest batch script accepted.
  uint64_t maxScriptSizeBytes = 4 * 1024 * 1024;
  // SchedulerParameters=requeue_delay=N: a requeued job may start again N
  // seconds after its requeue, no sooner, so that its last run is gone from
  // its nodes. Without it 121 s: Slurm's wait, its credential lifetime (120)
  // plus the second its credential timestamps need, which Gantry does not.
  int requeueDelaySec = 121;
  // PrivateData=jobs,nodes,usage,users: what other users may not see.
  struct PrivateData {
    bool jobs = false;
    bool nodes = false;
    bool usage = false;
    bool users = false;
  } privateData;
  std::vector<std::string> preemptMode;  // upper case: OFF, CANCEL, GANG, REQUEUE, SUSPEND, WITHIN
  std::string preemptType = "preempt/none";

  std::vector<std::string> slurmctldParameters;
  int switchTimeoutSec = 60;  // switch_timeout
  int switchRetries = 3;  // switch_retries
  bool switchDrainOnFailure = true;  // switch_drain_on_failure
  bool drainAbsentGres = false;  // drain_absent_gres
  std::string switchType = "switch/none";

  std::vector<std::string> taskPlugins;  // TaskPlugin, in order
  std::string proctrackType = "proctrack/cgroup";
  std::string jobAcctGatherType = "jobacct_gather/none";  // none, linux or cgroup
  std::string jobAcctGatherFrequency;
  // JobAcctGatherFrequency's task=N (or a bare N): seconds between usage
  // samples of a step; 0 samples only at the step's end.
  int jobAcctGatherTaskSec = 30;
  std::vector<std::string> jobAcctGatherParams;
  bool disableGpuAcct = false;  // JobAcctGatherParams=DisableGPUAcct
  std::vector<std::string> accountingStorageTres;  // checked by accounting::trackedTresFrom
  std::string accountingStorageType = "accounting_storage/none";
  // Where accounting keeps its records (docs/accounting.md).
  // accounting_storage/slurmdbd, which a Slurm site's file names, is our
  // own SQLite store: Gantry has no separate database daemon.
  struct AccountingStorage {
    enum class Backend { None, Sqlite, Postgresql } backend = Backend::None;
    std::string loc;   // AccountingStorageLoc: SQLite file, or PostgreSQL database
    std::string host;  // AccountingStorageHost (PostgreSQL)
    int port = 0;      // AccountingStoragePort; 0: the backend's default
    std::string user, pass;
  } accounting;
  bool accountingEnabled() const { return accounting.backend != AccountingStorage::Backend::None; }
  std::string acctGatherEnergyType = "acct_gather_energy/none";

  // Memory defaults and limits in MB; 0 = not set.
  uint64_t defMemPerCpuMb = 0, defMemPerTaskMb = 0, defMemPerNodeMb = 0;
  uint64_t maxMemPerCpuMb = 0, maxMemPerTaskMb = 0, maxMemPerNodeMb = 0;

  std::string prolog, epilog, prologSlurmctld, epilogSlurmctld;
  int prologEpilogTimeoutSec = 60;  // PrologEpilogTimeout: the node kills a Prolog/Epilog after this
  bool allowSpecResourcesUsage = false;

  std::vector<NodeConf> nodes;  // one entry per expanded node, in file order
  std::vector<PartitionConf> partitions;
  std::vector<std::pair<std::string, std::string>> entries;  // every global key=value as read
  std::string sourceFile;  // the gantry.conf that was loaded

  const NodeConf* findNode(std::string_view name) const;
  const PartitionConf* findPartition(std::string_view name) const;
  const PartitionConf* defaultPartition() const;
  bool hasTaskPlugin(std::string_view plugin) const;  // e.g. "task/cgroup"
  // Gang timeslicing is on with SchedulerType=sched/gang or PreemptMode
  // containing GANG.
  bool gangScheduling() const;
  bool gresTypeConfigured(std::string_view name) const;
};

struct Loaded {
  GantryConf conf;
  std::vector<Diagnostic> warnings;
  // Keys accepted but not yet acted on, one note per line (inert_keys.h);
  // the controller logs them as warnings at start.
  std::vector<Diagnostic> notes;
};

// Reads and validates `file` with its Includes. The error text lists every
// problem, one "file:line: ..." per line.
Result<Loaded> loadGantryConf(const std::filesystem::path& file);

// The same from text in memory (tests, fuzzing). `fileName` appears in the
// diagnostics; Include is followed only when options allow.
Result<Loaded> parseGantryConf(std::string_view text, const std::string& fileName, const ReadOptions& options = {});

// Both errors and warnings, for tools that report everything at once.
struct GantryConfParse {
  GantryConf conf;
  Diagnostics diagnostics;
};
GantryConfParse interpretGantryConf(const ReadResult& read, const std::string& mainFile);

// Replaces %n with the node name, %h with the host name and %% with '%' in
// SlurmdSpoolDir, log and pid file paths. Other % sequences stay as written.
std::string expandPathPattern(std::string_view pattern, std::string_view nodeName, std::string_view hostName);

}  // namespace gantry::config
