#include "stepd/usage/task_usage_record.h"

#include <nlohmann/json.hpp>
#include <string>

namespace gantry::stepd {
namespace {

std::optional<uint64_t> unsignedAt(const nlohmann::json& entry, const char* key) {
  auto found = entry.find(key);
  if (found == entry.end() || !found->is_number_unsigned()) return std::nullopt;
  return found->get<uint64_t>();
}

}  // namespace

nlohmann::json taskUsageToJson(const std::vector<TaskUsageRecord>& tasks) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& usage : tasks) {
    nlohmann::json entry = {{"task", usage.task},
                            {"cpu_usec", usage.cpu_usec},
                            {"mem_peak_bytes", usage.mem_peak_bytes},
                            {"vmem_peak_bytes", usage.vmem_peak_bytes},
                            {"pages", usage.pages},
                            {"fs_disk_read_bytes", usage.fs_disk_read_bytes},
                            {"energy_joules", usage.energy_joules}};
    if (usage.gpu_mem_bytes) entry["gpu_mem_bytes"] = *usage.gpu_mem_bytes;
    if (usage.gpu_util_percent) entry["gpu_util_percent"] = *usage.gpu_util_percent;
    array.push_back(std::move(entry));
  }
  return array;
}

std::vector<TaskUsageRecord> taskUsageFromJson(const nlohmann::json& array) {
  std::vector<TaskUsageRecord> tasks;
  if (!array.is_array()) return tasks;
  for (const auto& entry : array) {
    if (!entry.is_object()) continue;
    auto task = unsignedAt(entry, "task");
    if (!task || *task > UINT32_MAX) continue;
    TaskUsageRecord usage;
    usage.task = static_cast<uint32_t>(*task);
    usage.cpu_usec = unsignedAt(entry, "cpu_usec").value_or(0);
    usage.mem_peak_bytes = unsignedAt(entry, "mem_peak_bytes").value_or(0);
    usage.vmem_peak_bytes = unsignedAt(entry, "vmem_peak_bytes").value_or(0);
    usage.pages = unsignedAt(entry, "pages").value_or(0);
    usage.fs_disk_read_bytes = unsignedAt(entry, "fs_disk_read_bytes").value_or(0);
    usage.energy_joules = unsignedAt(entry, "energy_joules").value_or(0);
    usage.gpu_mem_bytes = unsignedAt(entry, "gpu_mem_bytes");
    usage.gpu_util_percent = unsignedAt(entry, "gpu_util_percent");
    tasks.push_back(usage);
  }
  return tasks;
}

}  // namespace gantry::stepd
