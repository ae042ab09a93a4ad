// Shared GRES (shard, mps) belong to GPUs. gres.conf gives their counts in
// three forms, and gantry.conf's Gres= stands in when gres.conf is silent:
//   - File + Count: that Count on the GPUs with those device files;
//   - Type + Count (no File): that Count on *every* GPU whose type contains
//     Type, per device; when several Types match a GPU the longest (most
//     specific) one decides, so lines never add up on one GPU;
//   - Count alone, and gantry.conf totals: a node total, split evenly over
//     the GPUs (of its Type, for a typed gantry.conf item), the first GPUs
//     taking the remainder.
#pragma once

#include <string>
#include <vector>

#include "common/config/gres_conf.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

// `records` starts with `gpuCount` GPU records; one shared record per GPU and
// GRES name is appended (two lines reaching one GPU add up, except the
// per-type form). `confLines` are gres.conf's shard/mps lines, `nodeTotals`
// the gantry.conf Gres= items of shared names gres.conf does not describe.
// A line that reaches no GPU with device files adds a problem to `fatal`,
// naming the line.
void spreadSharedGres(std::vector<GresRecord>& records, size_t gpuCount,
                      const std::vector<const config::GresRecord*>& confLines,
                      const std::vector<const config::GresRecord*>& nodeTotals, const std::string& nodeName,
                      std::vector<std::string>& fatal);

}  // namespace gantry::nodegres
