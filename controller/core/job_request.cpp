#include "controller/core/job_request.h"

#include <algorithm>
#include <climits>
#include <string>

#include "common/gres/gpu_bind.h"
#include "common/gres/tres_bind.h"
#include "common/util/checked.h"
#include "controller/core/overcommit.h"
#include "controller/core/partition_fit.h"

namespace gantry::core {
namespace {

// Slurm's words for the two ways a size or count can be out of reach.
constexpr const char* kMemoryUnsatisfiable = "Memory specification can not be satisfied";
constexpr const char* kNodeConfigUnavailable = "Requested node configuration is not available";
constexpr const char* kGresUnsupported = "Requested GRES option unsupported by configured SelectType plugin";
constexpr const char* kInvalidTres = "Invalid Trackable RESource (TRES) specification";
constexpr const char* kTimeLimitInvalid = "Requested time limit is invalid (missing or exceeds some limit)";
// Slurm keeps time limits in 32-bit minutes with the top value meaning
// INFINITE; anything longer is refused, which keeps every later sum of a
// start time and a limit far from overflowing.
constexpr int64_t kMaxTimeLimitMinutes = 0xFFFFFFFELL;

Status nonNegative(int64_t value, const char* option, const char* field) {
  if (value < 0) {
    return Error{std::string("invalid ") + option + " (" + field + "): must be 0 or more, got " +
                 std::to_string(value)};
  }
  return okStatus();
}

std::string times(const char* a, int64_t x, const char* b, int64_t y) {
  return std::string(a) + "=" + std::to_string(x) + " x " + b + "=" + std::to_string(y);
}

// The fewest GPUs the job asks of any one node it runs on, as far as the
// options tell (a --gpus total may land one per node).
int64_t leastGpusOnOneNode(const v1::JobSpec& spec) {
  int64_t tasksOnOneNode = std::max(spec.ntasks_per_node(), 1);
  int64_t gpus = std::max<int64_t>(spec.gpus_per_node(), spec.gpus() > 0 ? 1 : 0);
  gpus = std::max(gpus, spec.gpus_per_task() * tasksOnOneNode);
  gpus = std::max(gpus, int64_t{spec.gpus_per_socket()} * std::max(spec.sockets_per_node(), 1));
  for (const auto& gres : spec.gres()) {
    if (gres.name() == "gpu") gpus = std::max<int64_t>(gpus, static_cast<int64_t>(std::min<uint64_t>(gres.count(), 64)));
  }
  return gpus;
}

// Every product of counts the selection computes must fit the int it is
// computed in: one that overflows could never be served and would otherwise
// wrap into a small number.
Status checkCountProducts(const v1::JobSpec& spec) {
  struct Product {
    const char* a;
    int64_t x;
    const char* b;
    int64_t y;
  };
  int64_t tasks = std::max(spec.ntasks(), 1);
  int64_t tasksOnOneNode = std::max(spec.ntasks_per_node(), 1);
  for (const Product& p : std::initializer_list<Product>{
           {"--ntasks", tasks, "--cpus-per-task", std::max(spec.cpus_per_task(), 1)},
           {"--ntasks-per-node", spec.ntasks_per_node(), "--cpus-per-task", std::max(spec.cpus_per_task(), 1)},
           {"--nodes", std::max(spec.min_nodes(), 1), "--ntasks-per-node", spec.ntasks_per_node()},
           {"--gpus-per-task", spec.gpus_per_task(), "--ntasks", std::max(tasks, tasksOnOneNode)},
           {"--gpus-per-node", spec.gpus_per_node(), "--nodes", std::max(spec.min_nodes(), 1)},
           {"--gpus-per-socket", spec.gpus_per_socket(), "--sockets-per-node", spec.sockets_per_node()},
           // Last: the GPU count of one node is only known to fit once the rows above hold.
           {"--cpus-per-gpu", spec.cpus_per_gpu(), "GPUs on a node", -1}}) {
    int64_t y = p.y >= 0 ? p.y : leastGpusOnOneNode(spec);
    auto product = checkedMul(p.x, y);
    if (!product || *product > INT_MAX) {
      return Error{std::string(kNodeConfigUnavailable) + ": " + times(p.a, p.x, p.b, y) + " is out of range"};
    }
  }
  return okStatus();
}

// Memory per cpu or per GPU times the cpus or GPUs one node must give is
// the least memory that node needs; a product that overflows is a request
// no node can serve.
Status checkMemoryProducts(const v1::JobSpec& spec) {
  uint64_t cpusOnOneNode = static_cast<uint64_t>(std::max(spec.cpus_per_task(), 1)) *
                           static_cast<uint64_t>(std::max(spec.ntasks_per_node(), 1));
  uint64_t gpus = static_cast<uint64_t>(leastGpusOnOneNode(spec));
  cpusOnOneNode = std::max(cpusOnOneNode, gpus * static_cast<uint64_t>(std::max(spec.cpus_per_gpu(), 0)));
  if (spec.mem_per_cpu_mb() > 0 && !checkedMul<uint64_t>(spec.mem_per_cpu_mb(), cpusOnOneNode)) {
    return Error{std::string(kMemoryUnsatisfiable) + ": --mem-per-cpu=" + std::to_string(spec.mem_per_cpu_mb()) +
                 "M x " + std::to_string(cpusOnOneNode) + " cpus is out of range"};
  }
  if (spec.mem_per_gpu_mb() > 0 && !checkedMul<uint64_t>(spec.mem_per_gpu_mb(), std::max<uint64_t>(gpus, 1))) {
    return Error{std::string(kMemoryUnsatisfiable) + ": --mem-per-gpu=" + std::to_string(spec.mem_per_gpu_mb()) +
                 "M x " + std::to_string(gpus) + " GPUs is out of range"};
  }
  return okStatus();
}

// --gpus-per-task (and --tres-per-task=gres/gpu, which arrives as it) multiplies
// by the task count, so the job must say how many tasks it runs: -n, or
// --ntasks-per-node, or a --gpus total that divides into tasks. A node count
// alone leaves that open.
Status checkGpusPerTaskHasTasks(const v1::JobSpec& spec) {
  if (spec.gpus_per_task() == 0 || spec.ntasks() > 0 || spec.ntasks_per_node() > 0 || spec.gpus() > 0) {
    return okStatus();
  }
  return Error{"--gpus-per-task (or --tres-per-task=gres/gpu): Requires the job to specify a task count "
               "(-n/--ntasks, --ntasks-per-node, or --gpus with --gpus-per-task)"};
}

// A malformed --gpu-bind is refused when the job is submitted, not when its
// first step starts.
Status checkGpuBind(const v1::JobSpec& spec) {
  if (spec.gpu_bind().empty()) return okStatus();
  if (auto bind = gres::parseGpuBind(spec.gpu_bind()); !bind) return Error{"--gpu-bind: " + bind.error()};
  return okStatus();
}

// --tres-bind is judged here, as Slurm's controller judges it, so sbatch,
// srun, salloc and scontrol update TresBind= meet one rule.
Status checkTresBind(const v1::JobSpec& spec) {
  if (auto status = gres::checkTresBind(spec.tres_bind()); !status) {
    return Error{std::string(kInvalidTres) + ": --tres-bind: " + status.error()};
  }
  return okStatus();
}

// --gpus-per-socket multiplies by the sockets the job uses on a node, so the
// job must say how many (--sockets-per-node).
Status checkGpusPerSocketHasSockets(const v1::JobSpec& spec) {
  if (spec.gpus_per_socket() == 0 || spec.sockets_per_node() > 0) return okStatus();
  return Error{"--gpus-per-socket: Requires the job to specify a task socket (--sockets-per-node)"};
}

// The GPU options beyond --gres belong to select/cons_tres; under
// select/cons_res or select/linear a job using any of them is rejected.
Status checkConsTresOptions(const v1::JobSpec& spec, const config::GantryConf& conf) {
  if (conf.selectType == "select/cons_tres") return okStatus();
  struct Option {
    const char* name;
    bool given;
  };
  for (const Option& option : std::initializer_list<Option>{{"--gpus", spec.gpus() > 0},
                                                            {"--gpus-per-node", spec.gpus_per_node() > 0},
                                                            {"--gpus-per-socket", spec.gpus_per_socket() > 0},
                                                            {"--gpus-per-task", spec.gpus_per_task() > 0},
                                                            {"--cpus-per-gpu", spec.cpus_per_gpu() > 0},
                                                            {"--mem-per-gpu", spec.mem_per_gpu_mb() > 0},
                                                            {"--gpu-freq", !spec.gpu_freq().empty()},
                                                            {"--gpu-bind", !spec.gpu_bind().empty()}}) {
    if (!option.given) continue;
    return Error{std::string(kGresUnsupported) + ": " + option.name + " needs SelectType=select/cons_tres, "
                 "this cluster runs SelectType=" + conf.selectType + " (request GPUs with --gres=gpu:N)"};
  }
  // Shared GPUs are a cons_tres feature too (gres/mps, gres/shard).
  for (const auto& gres : spec.gres()) {
    if (gres.name() != "mps" && gres.name() != "shard") continue;
    return Error{std::string(kGresUnsupported) + ": gres/" + gres.name() +
                 " needs SelectType=select/cons_tres, this cluster runs SelectType=" + conf.selectType};
  }
  return okStatus();
}

Status checkTimeLimit(const v1::JobSpec& spec) {
  if (spec.time_limit_minutes() > kMaxTimeLimitMinutes ||
      spec.time_limit_seconds() > kMaxTimeLimitMinutes * 60) {
    return Error{std::string(kTimeLimitInvalid) + ": --time is longer than " +
                 std::to_string(kMaxTimeLimitMinutes) + " minutes"};
  }
  return okStatus();
}

}  // namespace

Status checkTresBindValue(const std::string& tresBind) {
  v1::JobSpec spec;
  spec.set_tres_bind(tresBind);
  return checkTresBind(spec);
}

bool maySharePartitionCpus(const config::PartitionConf* partition, const v1::JobSpec& spec) {
  if (partition == nullptr) return false;
  if (partition->overSubscribe == config::OverSubscribeMode::Force) return true;
  return partition->overSubscribe == config::OverSubscribeMode::Yes && spec.oversubscribe();
}

Result<select::Request> jobSpecToRequest(const v1::JobSpec& spec, const config::GantryConf& conf) {
  struct Count {
    int64_t value;
    const char* option;
    const char* field;
  };
  for (const Count& count : std::initializer_list<Count>{
           {spec.min_nodes(), "--nodes", "spec.min_nodes"},
           {spec.max_nodes(), "--nodes (maximum)", "spec.max_nodes"},
           {spec.ntasks(), "--ntasks", "spec.ntasks"},
           {spec.ntasks_per_node(), "--ntasks-per-node", "spec.ntasks_per_node"},
           {spec.cpus_per_task(), "--cpus-per-task", "spec.cpus_per_task"},
           {spec.gpus(), "--gpus", "spec.gpus"},
           {spec.gpus_per_node(), "--gpus-per-node", "spec.gpus_per_node"},
           {spec.gpus_per_socket(), "--gpus-per-socket", "spec.gpus_per_socket"},
           {spec.gpus_per_task(), "--gpus-per-task", "spec.gpus_per_task"},
           {spec.cpus_per_gpu(), "--cpus-per-gpu", "spec.cpus_per_gpu"},
           {spec.sockets_per_node(), "--sockets-per-node", "spec.sockets_per_node"},
           {spec.ntasks_per_socket(), "--ntasks-per-socket", "spec.ntasks_per_socket"},
           {spec.core_spec(), "--core-spec", "spec.core_spec"},
           {spec.thread_spec(), "--thread-spec", "spec.thread_spec"}}) {
    if (auto status = nonNegative(count.value, count.option, count.field); !status) return Error{status.error()};
  }
  if (auto status = checkCountProducts(spec); !status) return Error{status.failure()};
  if (auto status = checkMemoryProducts(spec); !status) return Error{status.failure()};
  if (auto status = checkTimeLimit(spec); !status) return Error{status.failure()};
  if (auto status = checkGpusPerTaskHasTasks(spec); !status) return Error{status.failure()};
  if (auto status = checkGpusPerSocketHasSockets(spec); !status) return Error{status.failure()};
  if (auto status = checkGpuBind(spec); !status) return Error{status.failure()};
  if (auto status = checkTresBind(spec); !status) return Error{status.failure()};
  if (auto status = checkConsTresOptions(spec, conf); !status) return Error{status.failure()};
  if (spec.max_nodes() > 0 && spec.min_nodes() > spec.max_nodes()) {
    return Error{std::string(kNodeCountInvalid) + ": --nodes minimum " + std::to_string(spec.min_nodes()) +
                 " is above the maximum " + std::to_string(spec.max_nodes())};
  }
  select::Request request;
  request.minNodes = spec.min_nodes() > 0 ? spec.min_nodes() : 1;
  // -N a without a maximum asks for exactly a nodes: -N1 keeps the job on
  // one node however many tasks it has.
  request.maxNodes = spec.max_nodes() > 0 ? spec.max_nodes() : spec.min_nodes();
  request.ntasks = spec.ntasks() > 0 ? spec.ntasks() : 1;
  request.ntasksPerNode = spec.ntasks_per_node();
  request.cpusPerTask = spec.cpus_per_task() > 0 ? spec.cpus_per_task() : 1;
  request.memPerNodeMb = spec.mem_per_node_mb();
  request.memPerCpuMb = spec.mem_per_cpu_mb();
  // DefMemPerCPU/DefMemPerNode fill in only when the job names no memory at all.
  if (request.memPerNodeMb == 0 && request.memPerCpuMb == 0 && spec.mem_per_gpu_mb() == 0) {
    if (conf.defMemPerCpuMb > 0) request.memPerCpuMb = conf.defMemPerCpuMb;
    else if (conf.defMemPerNodeMb > 0) request.memPerNodeMb = conf.defMemPerNodeMb;
  }
  if (spec.mem_per_node_mb() > 0 && spec.mem_per_cpu_mb() > 0) {
    return Error{"--mem and --mem-per-cpu are mutually exclusive"};
  }
  for (const auto& gres : spec.gres()) {
    if (gres.name().empty()) return Error{"invalid --gres: an item has no name"};
    if (!conf.gresTypeConfigured(gres.name())) {
      return Error{"Invalid generic resource (gres) specification: " + gres.name() +
                   " is not in GresTypes"};
    }
    request.gresPerNode.push_back(select::GresRequest{
        .name = gres.name(), .type = gres.type(), .count = gres.count() > 0 ? gres.count() : 1});
  }
  request.gpus = spec.gpus();
  request.gpusPerNode = spec.gpus_per_node();
  request.gpusPerSocket = spec.gpus_per_socket();
  request.socketsPerNode = spec.sockets_per_node();
  request.ntasksPerSocket = spec.ntasks_per_socket();
  request.gpusPerTask = spec.gpus_per_task();
  request.cpusPerGpu = spec.cpus_per_gpu();
  request.memPerGpuMb = spec.mem_per_gpu_mb();
  request.gpuType = spec.gpu_type();
  request.gpuFreq = spec.gpu_freq();
  bool enforceLinks = false, ignoreLinks = false;
  for (const auto& flag : spec.gres_flags()) {
    if (flag == "enforce-binding") request.enforceBinding = true;
    else if (flag == "enforce-links") enforceLinks = true;
    else if (flag == "ignore-links") ignoreLinks = true;
    else if (flag == "disable-binding") request.enforceBinding = false;
    else return Error{"invalid --gres-flags: " + flag};
  }
  if (enforceLinks && ignoreLinks) {
    return Error{"--gres-flags=enforce-links and ignore-links are mutually exclusive"};
  }
  request.links = enforceLinks ? select::LinkPolicy::Enforce
                               : (ignoreLinks ? select::LinkPolicy::Ignore : select::LinkPolicy::Prefer);
  request.exclusive = spec.exclusive();
  // --exclusive=topo takes whole nodes (gantry has no topology blocks);
  // user shares only with the same user; mcs, without an MCS plugin, shares
  // like any job.
  const std::string& mode = spec.exclusive_mode();
  if (!mode.empty() && mode != "user" && mode != "mcs" && mode != "topo") {
    return Error{"invalid --exclusive=" + mode + " (spec.exclusive_mode): expected user, mcs or topo"};
  }
  if (spec.exclusive() && (mode == "user" || mode == "mcs")) {
    return Error{"--exclusive=" + mode + " shares nodes, but spec.exclusive asks for whole nodes"};
  }
  if (mode == "topo") request.exclusive = true;
  request.exclusiveUser = mode == "user";
  request.coreSpec = spec.core_spec();
  // Without AllowSpecResourcesUsage=YES the two are accepted and change
  // nothing: the node stays shared (the selection only acts on them when
  // ClusterOptions allows it).
  request.threadSpec = spec.thread_spec();
  if (spec.oversubscribe() && spec.exclusive()) {
    return Error{"--exclusive and --oversubscribe are mutually exclusive"};
  }
  request.mayShare = maySharePartitionCpus(conf.findPartition(spec.partition()), spec);
  // As in Slurm (its ticket 25536), a job whose tasks each take GPUs is
  // not overcommitted: counting one task per node would also count one
  // task's GPUs per node.
  if (spec.overcommit() && !request.exclusive && spec.gpus_per_task() == 0) request = overcommitted(request);
  return request;
}

}  // namespace gantry::core
