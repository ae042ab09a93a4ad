#include "controller/accounting/write_collapse.h"

#include <map>
#include <tuple>

#include "controller/accounting/accounting_sql.h"

namespace gantry::accounting {
namespace {

// `key` gives a tuple of references into the record: the records outlive
// the map.
template <typename Record, typename Key, typename Replaces>
std::vector<const Record*> collapse(const std::vector<const Record*>& records, Key key, Replaces replaces) {
  std::vector<const Record*> kept;
  std::map<decltype(key(*records.front())), size_t> slot;
  for (const Record* record : records) {
    auto [at, inserted] = slot.emplace(key(*record), kept.size());
    if (inserted) kept.push_back(record);
    else if (replaces(*record, *kept[at->second])) kept[at->second] = record;
  }
  return kept;
}

}  // namespace

std::vector<const JobRecord*> collapseJobs(const std::vector<const JobRecord*>& records) {
  if (records.empty()) return {};
  return collapse(
      records, [](const JobRecord& r) { return std::tie(r.cluster, r.jobId, r.stepId, r.submitTime); },
      // The upsert's WHERE excluded.progress >= job_records.progress.
      [](const JobRecord& later, const JobRecord& kept) {
        return sql::jobProgress(later.startTime, later.endTime) >= sql::jobProgress(kept.startTime, kept.endTime);
      });
}

std::vector<const NodeEvent*> collapseEvents(const std::vector<const NodeEvent*>& events) {
  if (events.empty()) return {};
  return collapse(
      events, [](const NodeEvent& e) { return std::tie(e.cluster, e.node, e.startTime, e.state); },
      // The upsert's WHERE excluded.end_time <> 0 OR node_events.end_time = 0.
      [](const NodeEvent& later, const NodeEvent& kept) { return later.endTime != 0 || kept.endTime == 0; });
}

}  // namespace gantry::accounting
