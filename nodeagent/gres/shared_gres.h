// Shared GRES (shard, mps) belong to GPUs: each gres.conf line is spread over
// the GPUs it names by File, or else over the GPUs of its Type, the Count
// split evenly (the first GPUs take the remainder).
#pragma once

#include <string>
#include <vector>

#include "common/config/gres_conf.h"
#include "nodeagent/gres/records.h"

namespace gantry::nodegres {

// `records` starts with `gpuCount` GPU records; one shared record per GPU and
// GRES name is appended (two lines reaching one GPU add up). A line that
// reaches no GPU with device files adds a problem to `fatal`, naming the line.
void spreadSharedGres(std::vector<GresRecord>& records, size_t gpuCount,
                      const std::vector<const config::GresRecord*>& sharedLines, const std::string& nodeName,
                      std::vector<std::string>& fatal);

}  // namespace gantry::nodegres
