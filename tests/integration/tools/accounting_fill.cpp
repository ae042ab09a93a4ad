// Test-only: writes accounting records into a store file through
// AccountingStore, as the controller will, so the command tests can fill
// the store before gantryctld starts (the core does not write records yet).
//
//   accounting_fill DATABASE < records.json
//   {"jobs": [{"job_id": 5, "step_id": "batch", ...}], "events": [{...}]}
//
// Keys are the snake_case names of the wire messages (AccountingJob,
// AccountingNodeEvent); a missing key keeps its default. Exit 1 with the
// store's message when a record is refused.
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/accounting/accounting_open.h"

namespace {

using gantry::accounting::JobRecord;
using gantry::accounting::NodeEvent;
using nlohmann::json;

template <typename T>
void take(const json& from, const char* key, T& into) {
  if (from.contains(key)) into = from.at(key).get<T>();
}

JobRecord jobFrom(const json& j) {
  JobRecord r;
  take(j, "cluster", r.cluster);
  take(j, "job_id", r.jobId);
  take(j, "step_id", r.stepId);
  take(j, "name", r.name);
  take(j, "user", r.user);
  take(j, "uid", r.uid);
  take(j, "group", r.group);
  take(j, "gid", r.gid);
  take(j, "account", r.account);
  take(j, "partition", r.partition);
  take(j, "submit_time", r.submitTime);
  take(j, "eligible_time", r.eligibleTime);
  take(j, "start_time", r.startTime);
  take(j, "end_time", r.endTime);
  if (j.contains("time_limit_minutes")) r.timeLimitMinutes = j.at("time_limit_minutes").get<uint32_t>();
  take(j, "state", r.state);
  if (j.contains("cancelled_by_uid")) r.cancelledByUid = j.at("cancelled_by_uid").get<uint32_t>();
  take(j, "exit_code", r.exitCode.code);
  take(j, "exit_signal", r.exitCode.signal);
  take(j, "derived_exit_code", r.derivedExitCode.code);
  take(j, "derived_exit_signal", r.derivedExitCode.signal);
  take(j, "node_count", r.nodeCount);
  take(j, "node_list", r.nodeList);
  take(j, "alloc_cpus", r.allocCpus);
  take(j, "req_tres", r.reqTres);
  take(j, "alloc_tres", r.allocTres);
  take(j, "tres_usage_in_min", r.usageIn.min);
  take(j, "tres_usage_in_min_node", r.usageIn.minNode);
  take(j, "tres_usage_in_min_task", r.usageIn.minTask);
  take(j, "tres_usage_in_max", r.usageIn.max);
  take(j, "tres_usage_in_max_node", r.usageIn.maxNode);
  take(j, "tres_usage_in_max_task", r.usageIn.maxTask);
  take(j, "tres_usage_in_ave", r.usageIn.ave);
  take(j, "tres_usage_in_tot", r.usageIn.tot);
  take(j, "reason", r.reason);
  take(j, "work_dir", r.workDir);
  take(j, "comment", r.comment);
  take(j, "array_job_id", r.arrayJobId);
  if (j.contains("array_task_id")) r.arrayTaskId = j.at("array_task_id").get<uint32_t>();
  take(j, "array_tasks", r.arrayTasks);
  return r;
}

NodeEvent eventFrom(const json& j) {
  NodeEvent e;
  take(j, "cluster", e.cluster);
  take(j, "node", e.node);
  take(j, "start_time", e.startTime);
  take(j, "end_time", e.endTime);
  take(j, "state", e.state);
  take(j, "reason", e.reason);
  take(j, "user", e.user);
  take(j, "tres", e.tres);
  take(j, "tres_reference", e.tresReference);
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: accounting_fill DATABASE < records.json\n";
    return 2;
  }
  json input;
  try {
    input = json::parse(std::cin);
  } catch (const std::exception& e) {
    std::cerr << "accounting_fill: " << e.what() << "\n";
    return 1;
  }
  gantry::accounting::AccountingConnection connection{};
  connection.backend = gantry::accounting::AccountingConnection::Backend::Sqlite;
  connection.path = argv[1];
  auto opened = gantry::accounting::openAccountingStore(connection);
  if (!opened) {
    std::cerr << "accounting_fill: " << opened.error() << "\n";
    return 1;
  }
  gantry::accounting::AccountingStore& store = **opened;
  std::vector<JobRecord> jobs;
  std::vector<NodeEvent> events;
  for (const auto& j : input.value("jobs", json::array())) jobs.push_back(jobFrom(j));
  for (const auto& e : input.value("events", json::array())) events.push_back(eventFrom(e));
  std::string failed;  // a transaction that did not commit
  auto done = [&failed](const gantry::Status& written) {
    if (!written) failed = written.error();
  };
  if (auto added = store.appendJobs(jobs, done); !added) {
    std::cerr << "accounting_fill: " << added.error() << "\n";
    return 1;
  }
  if (auto added = store.appendEvents(events, done); !added) {
    std::cerr << "accounting_fill: " << added.error() << "\n";
    return 1;
  }
  store.flush();
  store.close();
  if (!failed.empty()) {
    std::cerr << "accounting_fill: " << failed << "\n";
    return 1;
  }
  return 0;
}
