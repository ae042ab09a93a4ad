// Builders shared by the accounting store tests: records in a few words, a
// fresh database in a temporary folder, and labels that make a query's
// answer readable in a table row.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "controller/accounting/records.h"

namespace gantry::accounting::testing {

// An arbitrary moment, so every time in a test reads as an offset from it.
constexpr int64_t kT0 = 1'900'000'000;

// The file `name` in this test run's temporary folder.
inline std::string freshDatabasePath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("gantry-accounting-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// The same, with any database there removed.
inline std::string freshDatabase(const std::string& name) {
  auto path = freshDatabasePath(name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return path;
}

struct JobSpec {
  std::string cluster = "north";
  uint64_t id = 1;
  std::string step;
  uint32_t uid = 3000;
  std::string account = "optics";
  int64_t submit = kT0;
  int64_t eligible = kT0;
  int64_t start = 0;
  int64_t end = 0;
  std::string state = "PENDING";
  uint64_t arrayJob = 0;  // job arrays: the array's id, the task's index
  std::optional<uint32_t> arrayTask;
  std::string arrayTasks;  // the array's record of tasks not yet started
};

inline JobRecord jobRecord(const JobSpec& spec) {
  JobRecord record;
  record.cluster = spec.cluster;
  record.jobId = spec.id;
  record.stepId = spec.step;
  record.name = "train-" + std::to_string(spec.id);
  record.user = "u" + std::to_string(spec.uid);
  record.uid = spec.uid;
  record.group = "g" + std::to_string(spec.uid);
  record.gid = spec.uid;
  record.account = spec.account;
  record.partition = "gpu";
  record.submitTime = spec.submit;
  record.eligibleTime = spec.eligible;
  record.startTime = spec.start;
  record.endTime = spec.end;
  record.state = spec.state;
  record.arrayJobId = spec.arrayJob;
  record.arrayTaskId = spec.arrayTask;
  record.arrayTasks = spec.arrayTasks;
  return record;
}

// "402", "402.batch"; a record of another cluster than north gets "@south".
inline std::string label(const JobRecord& record) {
  return std::to_string(record.jobId) + (record.stepId.empty() ? "" : "." + record.stepId) +
         (record.cluster == "north" ? "" : "@" + record.cluster);
}

inline std::string label(const NodeEvent& event) {
  return event.cluster + "/" + event.node + "/" + event.state;
}

template <typename Record>
std::vector<std::string> labels(const std::vector<Record>& records) {
  std::vector<std::string> out;
  for (const auto& record : records) out.push_back(label(record));
  return out;
}

}  // namespace gantry::accounting::testing
