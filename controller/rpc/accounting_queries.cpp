#include "controller/rpc/accounting_queries.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "common/hostlist/hostlist.h"

namespace gantry::ctlrpc {
namespace {

const char* const kAccountingOff =
    "Gantry accounting storage is disabled (AccountingStorageType is not set in gantry.conf)";

bool isStepId(const std::string& step) {
  if (step == "batch" || step == "extern" || step == "interactive") return true;
  return !step.empty() && step.size() <= 10 && std::all_of(step.begin(), step.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
}

template <typename List>
Status checkCount(const List& values, const std::string& field) {
  if (static_cast<size_t>(values.size()) <= kMaxAccountingFilterValues) return okStatus();
  return Error{field + ": at most " + std::to_string(kMaxAccountingFilterValues) + " values, got " +
               std::to_string(values.size())};
}

Result<std::optional<accounting::TimeWindow>> windowFrom(bool given, const v1::AccountingWindow& window) {
  if (!given) return std::optional<accounting::TimeWindow>{};
  if (window.start() > window.end()) {
    return Error{"window: start " + std::to_string(window.start()) + " is after end " +
                 std::to_string(window.end())};
  }
  return std::optional<accounting::TimeWindow>{accounting::TimeWindow{.start = window.start(), .end = window.end()}};
}

std::vector<std::string> clustersFrom(const google::protobuf::RepeatedPtrField<std::string>& asked, bool all,
                                      const std::string& localCluster) {
  if (all) return {};
  if (asked.empty()) return {localCluster};
  return {asked.begin(), asked.end()};
}

Result<std::set<std::string>> nodeSet(const std::string& expression, const std::string& field) {
  if (expression.empty()) return std::set<std::string>{};
  auto names = hostlist::expand(expression);
  if (!names) return Error{field + ": " + names.error()};
  if (names->size() > kMaxAccountingFilterValues) {
    return Error{field + ": at most " + std::to_string(kMaxAccountingFilterValues) + " nodes, got " +
                 std::to_string(names->size())};
  }
  return std::set<std::string>(names->begin(), names->end());
}

bool ranOn(const accounting::JobRecord& record, const std::set<std::string>& nodes) {
  auto names = hostlist::expand(record.nodeList);
  if (!names) return false;
  return std::any_of(names->begin(), names->end(), [&](const std::string& name) { return nodes.count(name) > 0; });
}

// -N: a job that ran on one of the nodes, with its steps; a step asked for
// alone (-j N.S) by its own nodes.
std::vector<accounting::JobRecord> onNodes(std::vector<accounting::JobRecord> records,
                                           const std::set<std::string>& nodes) {
  using Key = std::tuple<std::string, uint64_t, int64_t>;
  std::set<Key> keptJobs;
  std::vector<accounting::JobRecord> kept;
  for (auto& record : records) {
    Key key{record.cluster, record.jobId, record.submitTime};
    bool keep = record.stepId.empty() ? ranOn(record, nodes) : (keptJobs.count(key) > 0 || ranOn(record, nodes));
    if (keep && record.stepId.empty()) keptJobs.insert(key);
    if (keep) kept.push_back(std::move(record));
  }
  return kept;
}

}  // namespace

Result<accounting::JobQuery> jobQueryFrom(const v1::ListAccountingJobsRequest& request,
                                          const std::string& localCluster) {
  for (Status counted : {checkCount(request.ids(), "ids"), checkCount(request.uids(), "uids"),
                         checkCount(request.accounts(), "accounts"), checkCount(request.states(), "states"),
                         checkCount(request.clusters(), "clusters")}) {
    if (!counted) return counted.failure();
  }
  accounting::JobQuery query;
  for (const auto& id : request.ids()) {
    if (id.job_id() == 0) return Error{"ids: must be a job id (1 or more), got 0"};
    accounting::JobSelector selector{.jobId = id.job_id(), .arrayTask = std::nullopt, .stepId = std::nullopt};
    if (id.has_array_task()) {
      if (id.array_task_id() >= 4000001) {
        return Error{"ids: array task " + std::to_string(id.array_task_id()) + " is above the largest (4000000)"};
      }
      selector.arrayTask = id.array_task_id();
    }
    if (id.has_step()) {
      if (!isStepId(id.step_id())) {
        return Error{"ids: step id of job " + std::to_string(id.job_id()) +
                     " must be a number, batch, extern or interactive, got '" + id.step_id() + "'"};
      }
      selector.stepId = id.step_id();
    } else if (!id.step_id().empty()) {
      return Error{"ids: step_id '" + id.step_id() + "' given without has_step"};
    }
    query.ids.push_back(std::move(selector));
  }
  query.uids.assign(request.uids().begin(), request.uids().end());
  query.accounts.assign(request.accounts().begin(), request.accounts().end());
  query.states.assign(request.states().begin(), request.states().end());
  auto window = windowFrom(request.has_window(), request.window());
  if (!window) return window.failure();
  query.window = *window;
  query.allocationsOnly = request.allocations_only();
  query.clusters = clustersFrom(request.clusters(), request.all_clusters(), localCluster);
  return query;
}

Result<accounting::EventQuery> eventQueryFrom(const v1::ListNodeEventsRequest& request,
                                              const std::string& localCluster) {
  if (Status counted = checkCount(request.states(), "states"); !counted) return counted.failure();
  if (Status counted = checkCount(request.clusters(), "clusters"); !counted) return counted.failure();
  auto nodes = nodeSet(request.nodes(), "nodes");
  if (!nodes) return nodes.failure();
  accounting::EventQuery query;
  query.nodes.assign(nodes->begin(), nodes->end());
  query.states.assign(request.states().begin(), request.states().end());
  auto window = windowFrom(request.has_window(), request.window());
  if (!window) return window.failure();
  query.window = *window;
  query.openOnly = request.open_only();
  query.clusters = clustersFrom(request.clusters(), request.all_clusters(), localCluster);
  return query;
}

Result<v1::ListAccountingJobsResponse> listAccountingJobs(const AccountingAccess& access,
                                                          const v1::ListAccountingJobsRequest& request,
                                                          const auth::Identity& caller, bool administrator) {
  if (access.store == nullptr) return Error{ErrorCode::NotNow, kAccountingOff};
  auto query = jobQueryFrom(request, access.cluster);
  if (!query) return query.failure();
  auto nodes = nodeSet(request.node_list(), "node_list");
  if (!nodes) return nodes.failure();
  auto records = access.store->jobs(*query);
  if (!records) return records.failure();
  std::vector<accounting::JobRecord> found = std::move(*records);
  if (!nodes->empty()) found = onNodes(std::move(found), *nodes);
  bool onlyOwn = access.privateJobs && !administrator;
  v1::ListAccountingJobsResponse response;
  for (const auto& record : found) {
    if (onlyOwn && record.uid != caller.uid) continue;
    *response.add_jobs() = toWire(record);
  }
  return response;
}

Result<v1::ListNodeEventsResponse> listNodeEvents(const AccountingAccess& access,
                                                  const v1::ListNodeEventsRequest& request) {
  if (access.store == nullptr) return Error{ErrorCode::NotNow, kAccountingOff};
  auto query = eventQueryFrom(request, access.cluster);
  if (!query) return query.failure();
  auto events = access.store->events(*query);
  if (!events) return events.failure();
  v1::ListNodeEventsResponse response;
  for (const auto& event : *events) *response.add_events() = toWire(event);
  return response;
}

v1::AccountingJob toWire(const accounting::JobRecord& record) {
  v1::AccountingJob out;
  out.set_cluster(record.cluster);
  out.set_job_id(record.jobId);
  out.set_step_id(record.stepId);
  out.set_name(record.name);
  out.set_user(record.user);
  out.set_uid(record.uid);
  out.set_group(record.group);
  out.set_gid(record.gid);
  out.set_account(record.account);
  out.set_partition(record.partition);
  out.set_submit_time(record.submitTime);
  out.set_eligible_time(record.eligibleTime);
  out.set_start_time(record.startTime);
  out.set_end_time(record.endTime);
  out.set_has_time_limit(record.timeLimitMinutes.has_value());
  out.set_time_limit_minutes(record.timeLimitMinutes.value_or(0));
  out.set_state(record.state);
  out.set_has_cancelled_by(record.cancelledByUid.has_value());
  out.set_cancelled_by_uid(record.cancelledByUid.value_or(0));
  out.mutable_exit_code()->set_code(record.exitCode.code);
  out.mutable_exit_code()->set_signal(record.exitCode.signal);
  out.mutable_derived_exit_code()->set_code(record.derivedExitCode.code);
  out.mutable_derived_exit_code()->set_signal(record.derivedExitCode.signal);
  out.set_node_count(record.nodeCount);
  out.set_node_list(record.nodeList);
  out.set_alloc_cpus(record.allocCpus);
  out.set_req_tres(record.reqTres);
  out.set_alloc_tres(record.allocTres);
  out.set_tres_usage_in_min(record.usageIn.min);
  out.set_tres_usage_in_min_node(record.usageIn.minNode);
  out.set_tres_usage_in_min_task(record.usageIn.minTask);
  out.set_tres_usage_in_max(record.usageIn.max);
  out.set_tres_usage_in_max_node(record.usageIn.maxNode);
  out.set_tres_usage_in_max_task(record.usageIn.maxTask);
  out.set_tres_usage_in_ave(record.usageIn.ave);
  out.set_tres_usage_in_tot(record.usageIn.tot);
  out.set_reason(record.reason);
  out.set_work_dir(record.workDir);
  out.set_comment(record.comment);
  out.set_array_job_id(record.arrayJobId);
  out.set_has_array_task(record.arrayTaskId.has_value());
  out.set_array_task_id(record.arrayTaskId.value_or(0));
  out.set_array_tasks(record.arrayTasks);
  return out;
}

v1::AccountingNodeEvent toWire(const accounting::NodeEvent& event) {
  v1::AccountingNodeEvent out;
  out.set_cluster(event.cluster);
  out.set_node(event.node);
  out.set_start_time(event.startTime);
  out.set_end_time(event.endTime);
  out.set_state(event.state);
  out.set_reason(event.reason);
  out.set_user(event.user);
  out.set_tres(event.tres);
  out.set_tres_reference(event.tresReference);
  return out;
}

}  // namespace gantry::ctlrpc
