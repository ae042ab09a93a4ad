// sinfo's node selection: -t/--states names, -r/--responding, -d/--dead and
// the StateComplete field, decided from a node's base_state and
// state_flags as Slurm's sinfo decides them.
//
// A state name may be any leading part of one of Slurm's names or short
// names, case-insensitive ("dr" is drain, "draine" drained), tried in
// Slurm's order so the same abbreviation picks the same state. Names are
// flag states where Slurm treats them so: "drain" takes draining and
// drained nodes, "comp" any node still finishing a job, "alloc" any node
// with work (allocated or mixed). Slurm states Gantry never has (maint,
// resv, planned, future, cloud, power and reboot states, error, blocked)
// are accepted and match no node, so a site's scripts keep working.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "gantry/v1/types.pb.h"

namespace gantry::cli {

enum class StateName {
  kUnknown, kDown, kIdle, kAllocated, kError, kMixed, kFuture, kBlocked, kPlanned, kDrain,
  kDrained, kReserved, kDraining, kCompleting, kNoRespond, kPower, kFail, kMaint, kReboot, kCloud,
};

struct StateTerm {
  StateName state;
  bool negated = false;  // "~drain" or "!drain": nodes not drained or draining
};

struct NodeStateFilter {
  std::vector<StateTerm> terms;  // empty: every node
  bool everyStateMustMatch = false;  // the list was joined with '&' or '+'
};

// "idle,mix", "drain&no_respond", "idle+~drain", "all". An unknown name
// fails with Slurm's text: Bad state string: "NAME".
Result<NodeStateFilter> parseNodeStateFilter(const std::string& list);

// Every accepted name, comma-separated, as Slurm lists them after a bad one.
std::string validNodeStateNames();

bool nodeMatchesState(StateName state, gantry::v1::NodeBaseState base, uint32_t flags);
bool nodeMatchesStates(const NodeStateFilter& filter, gantry::v1::NodeBaseState base, uint32_t flags);

struct NodeSelection {
  NodeStateFilter states;
  bool respondingOnly = false;  // -r
  bool deadOnly = false;        // -d
};
bool nodeSelected(const NodeSelection& selection, const gantry::v1::Node& node);

// -O StateComplete: the base state and then every flag, '+'-joined in
// Slurm's flag order, lowercase: "mixed+drain+not_responding".
std::string nodeStateComplete(gantry::v1::NodeBaseState base, uint32_t flags);

}  // namespace gantry::cli
