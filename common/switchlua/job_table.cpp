#include "common/switchlua/job_table.h"

#include <nlohmann/json.hpp>

namespace gantry::switchlua {
namespace {

// An absent optional is left out, which the script reads as nil.
template <typename T>
void setIfPresent(nlohmann::json& table, const char* key, const std::optional<T>& value) {
  if (value) table[key] = *value;
}

}  // namespace

std::string jobTableJson(const SwitchJob& job) {
  nlohmann::json table = {
      {"job_id", job.jobId},         {"sluid", job.sluid},        {"user", job.user},
      {"user_id", job.userId},       {"group_id", job.groupId},   {"name", job.name},
      {"nodes", job.nodes},          {"node_list", job.nodeNames}, {"num_nodes", job.numNodes},
      {"num_tasks", job.numTasks},   {"network", job.network},    {"batch", job.batch},
      {"requeue", job.requeue},      {"restart_cnt", job.restartCount},
  };
  if (job.nodeNames.empty()) table["node_list"] = nlohmann::json::array();
  setIfPresent(table, "partition", job.partition);
  setIfPresent(table, "account", job.account);
  setIfPresent(table, "time_limit", job.timeLimitMinutes);
  // Names come from the configuration and the submission; a byte that is
  // not UTF-8 is replaced rather than failing the call.
  return table.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string stepTableJson(const SwitchStep& step) {
  nlohmann::json table = {{"job_id", step.jobId}, {"sluid", step.sluid}};
  setIfPresent(table, "partition", step.partition);
  return table.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gantry::switchlua
