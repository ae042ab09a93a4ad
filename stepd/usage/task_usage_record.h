// What one task of a step used on this node, as gantrystepd writes it into
// result.json (`task_usage`, one object per task) and the node agent reads
// it back for the controller's StepComplete report. Shared by both sides so
// the key names live in one place.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

namespace gantry::stepd {

struct TaskUsageRecord {
  uint32_t task = 0;  // rank in the step
  uint64_t cpu_usec = 0;  // user + system CPU time
  uint64_t mem_peak_bytes = 0;  // peak resident memory
  uint64_t vmem_peak_bytes = 0;
  uint64_t pages = 0;  // major page faults
  uint64_t fs_disk_read_bytes = 0;
  uint64_t energy_joules = 0;
  // Unset: no sample (no reader, or every read failed).
  std::optional<uint64_t> gpu_mem_bytes{};
  // Unset: no valid sample.
  std::optional<uint64_t> gpu_util_percent{};

  bool operator==(const TaskUsageRecord&) const = default;
};

// The `task_usage` array; the GPU keys appear only when set.
nlohmann::json taskUsageToJson(const std::vector<TaskUsageRecord>& tasks);

// Reads a `task_usage` array back. An entry that is not an object or has no
// unsigned `task` is skipped, and a figure that is not an unsigned number
// reads as absent (0, or unset for the GPU keys): a damaged entry must not
// cost the step its report.
std::vector<TaskUsageRecord> taskUsageFromJson(const nlohmann::json& array);

}  // namespace gantry::stepd
