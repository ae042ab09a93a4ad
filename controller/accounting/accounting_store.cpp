#include "controller/accounting/accounting_store.h"

#include "controller/accounting/record_checks.h"

namespace gantry::accounting {

Status AccountingStore::appendJobs(std::vector<JobRecord> records, Callback done) {
  for (const auto& record : records) {
    if (auto status = checkJobRecord(record); !status) return status;
  }
  return queueWrite(AccountingWrite{.jobs = std::move(records), .events = {}}, std::move(done));
}

Status AccountingStore::appendEvents(std::vector<NodeEvent> events, Callback done) {
  for (const auto& event : events) {
    if (auto status = checkNodeEvent(event); !status) return status;
  }
  return queueWrite(AccountingWrite{.jobs = {}, .events = std::move(events)}, std::move(done));
}

Result<std::vector<JobRecord>> AccountingStore::jobs(const JobQuery& query) const {
  if (auto status = checkJobQuery(query); !status) return status.failure();
  return readJobs(query);
}

Result<std::vector<NodeEvent>> AccountingStore::events(const EventQuery& query) const {
  if (auto status = checkEventQuery(query); !status) return status.failure();
  return readEvents(query);
}

}  // namespace gantry::accounting
