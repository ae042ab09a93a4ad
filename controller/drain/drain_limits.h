// MaxDrainedTres: how much of a TRES may be drained before the node itself is
// drained (gres.md "Bounding How Much May Be Drained"). gantry.conf parses
// the NodeName line's value into config::TresLimit (NodeConfig::
// maxDrainedTresLimits); this decides against a drained record.
//
// Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/config/gres_spec.h"
#include "controller/drain/drained_tres.h"

namespace gantry::drain {

// How much of one limited TRES is drained: devices (empty slots included) for
// gres/NAME and gres/NAME:TYPE, CPUs (every thread) for cpu, megabytes for
// mem, the drained amount of a count-only GRES (all its types for an untyped limit).
uint64_t drainedAmount(const DrainedTres& record, const std::string& limitTres);

// Within every limit: nullopt, and the node stays DEGRADED. Past one: the
// reason to drain the node with, naming each TRES past its limit, e.g.
// "MaxDrainedTres exceeded: gres/gpu 3 drained, limit 2".
std::optional<std::string> limitDrainReason(const DrainedTres& record, const std::vector<config::TresLimit>& limits);

}  // namespace gantry::drain
