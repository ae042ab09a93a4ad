// The string forms of a step's TRES usage, as sacct prints TRESUsageIn*:
// "name=value" pairs joined by commas, in TRES name order (cpu, energy,
// fs/disk, gres/gpumem, gres/gpuutil, mem, pages, vmem).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/accounting/tres_usage.h"

namespace gantry::accounting {

// One value in its TRES's form: cpu as HH:MM:SS, D-HH:MM:SS from a day on;
// mem and vmem in KiB with a K suffix, gres/gpumem in MiB with an M suffix
// (rounded down; a zero is a bare 0); everything else as a plain number.
std::string formatTresValue(std::string_view tres, uint64_t value);

// TRESUsageInAve, TRESUsageInTot.
std::string formatTresValues(const std::map<std::string, uint64_t>& values);
// TRESUsageInMin, TRESUsageInMax.
std::string formatTresValues(const std::map<std::string, TresExtreme>& extremes);
// TRESUsageInMinNode, TRESUsageInMaxNode: the node that gave each.
std::string formatTresNodes(const std::map<std::string, TresExtreme>& extremes);
// TRESUsageInMinTask, TRESUsageInMaxTask: the task that gave each.
std::string formatTresTasks(const std::map<std::string, TresExtreme>& extremes);

}  // namespace gantry::accounting
