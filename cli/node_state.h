// Node states as sinfo prints them, decided from the node's base_state and
// state_flags (the controller's `state` text, "MIXED+DRAIN", is for display
// only and never read here). DRAIN folds into drained or draining (still
// running or finishing work), FAIL likewise into fail or failing (after
// DRAIN, as Slurm names them), NOT_RESPONDING adds a trailing '*'. DEGRADED
// is not shown by sinfo; scontrol prints the controller's text.
#pragma once

#include <cstdint>
#include <string>

#include "gantry/v1/types.pb.h"

namespace gantry::cli {

// "idle", "mixed", "allocated", "completing", "drained", "draining",
// "fail", "failing", "down", "unknown", each with '*' when the node does
// not respond.
std::string nodeStateLong(gantry::v1::NodeBaseState base, uint32_t flags);
// "idle", "mix", "alloc", "comp", "drain", "drng", "fail", "failg", "down",
// "unk" (+ '*').
std::string nodeStateCompact(gantry::v1::NodeBaseState base, uint32_t flags);

std::string nodeStateLong(const gantry::v1::Node& node);
std::string nodeStateCompact(const gantry::v1::Node& node);

// Down, or drained with no work left on it: sinfo counts its CPUs as
// "other" in CPUS(A/I/O/T).
bool nodeUnusable(const gantry::v1::Node& node);

}  // namespace gantry::cli
