// Shard device memory enforcement, node side: which dmem region each sharding
// GPU uses, the bytes one shard may take (capacity / shards on that GPU), and
// the one log line per sharding device the administrator reads at start-up.
#pragma once

#include <string>
#include <vector>

#include "common/config/gres_conf.h"
#include "nodeagent/gres/merge.h"

namespace gantry::nodegres {

// `out.records` starts with the GPU records, `gpuSources[i]` being the
// gres.conf line of GPU record i (or null). Fills dmemRegion,
// dmemCapacityBytes and dmemSliceBytes on each shard record and its GPU,
// appends "shard: ..." lines to out.log, and a problem to `fatal` for a
// DmemRegion= naming a region the node does not have.
void assignShardMemory(MergeResult& out, const DmemOptions& options,
                       const std::vector<const config::GresRecord*>& gpuSources, std::vector<std::string>& fatal);

}  // namespace gantry::nodegres
