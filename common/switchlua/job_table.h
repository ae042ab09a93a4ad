// The `job` argument of slurm_switch_job_start()/job_complete() and the
// `step` argument of the step functions, built from plain values so the
// library knows nothing of the controller's records or the wire types.
//
// The tables carry what a site needs to set up an interconnect and nothing
// secret: no environment, no batch script, no credential. The dictionary
// the script returned (jobinfo/stepinfo) is a separate argument.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gantry::switchlua {

struct SwitchJob {
  uint64_t jobId = 0;                    // job_id
  std::string sluid{};                     // sluid: new on each run of the job
  std::string user{};                      // user (name)
  uint32_t userId = 0;                   // user_id
  uint32_t groupId = 0;                  // group_id
  std::optional<std::string> partition{};  // partition (nil when none)
  std::string name{};                      // name
  std::optional<std::string> account{};    // account (nil when none)
  std::string nodes{};                     // nodes: the allocation as a host list ("c[01-04]")
  std::vector<std::string> nodeNames{};    // node_list: the same nodes, one name each, in allocation order
  uint32_t numNodes = 0;                 // num_nodes
  uint32_t numTasks = 0;                 // num_tasks
  std::string network{};                   // network: the --network value
  bool batch = false;                    // batch: a batch job (not salloc/srun)
  bool requeue = false;                  // requeue: may be requeued if the setup fails
  int restartCount = 0;                  // restart_cnt: runs before this one
  std::optional<int64_t> timeLimitMinutes{};  // time_limit (nil when unlimited)
};

struct SwitchStep {
  uint64_t jobId = 0;                    // job_id
  std::optional<std::string> partition{};  // partition (nil when none)
  std::string sluid{};                     // sluid
};

// JSON text for callFunction()'s arguments; field names as commented above.
std::string jobTableJson(const SwitchJob& job);
std::string stepTableJson(const SwitchStep& step);

}  // namespace gantry::switchlua
