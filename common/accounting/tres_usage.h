// A step's TRES usage: per-task samples gathered into the four
// TRESUsageIn* figures accounting keeps (Min, Max, Ave, Tot), with the node
// and task that gave each minimum and maximum.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/accounting/tracked_tres.h"

namespace gantry::accounting {

// What one task used, as gathered at the end of the step.
struct TaskUsageSample {
  std::string node;  // the node the task ran on
  uint32_t task = 0;  // the task's rank in the step
  uint64_t cpuSeconds = 0;
  uint64_t memBytes = 0;   // peak resident memory
  uint64_t vmemBytes = 0;  // peak virtual memory
  uint64_t pages = 0;      // major page faults
  uint64_t fsDiskBytes = 0;  // bytes read from local disk
  uint64_t energyJoules = 0;
  // Unset when the task recorded no sample (no reader, or every read failed).
  std::optional<uint64_t> gpuMemBytes;
  std::optional<uint64_t> gpuUtilPercent;
};

// One extreme of one TRES: its value and who gave it.
struct TresExtreme {
  uint64_t value = 0;
  std::string node;
  uint32_t task = 0;
};

// Keyed by TRES name ("cpu", "gres/gpumem", ...). Values are in the units
// of TaskUsageSample (seconds, bytes, joules, percent).
struct StepTresUsage {
  std::map<std::string, TresExtreme> min, max;
  std::map<std::string, uint64_t> ave, tot;
};

// Gathers the samples of a step. cpu, energy, fs/disk, mem, pages and vmem
// are always present (they are always tracked); gres/gpumem and
// gres/gpuutil only when tracked and at least one task has a sample, and
// then over the tasks that have one. Ave is Tot over those tasks, rounded
// down. On a tie the task given first is the one named. No samples: empty.
StepTresUsage stepTresUsage(const std::vector<TaskUsageSample>& tasks, const TrackedTres& tracked);

}  // namespace gantry::accounting
