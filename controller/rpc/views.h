// The controller's records in their wire form, and back. This is the only
// place the core's model meets v1::Job and v1::Node: listings are built
// here, and the store keeps jobs in the same encoding.
#pragma once

#include <functional>
#include <string>

#include "common/util/result.h"
#include "controller/core/core_state.h"
#include "gantry/v1/types.pb.h"

namespace gantry::views {

v1::JobState toWire(core::JobState state);
core::JobState fromWire(v1::JobState state);

// What of a job goes on the wire besides its state and resources.
struct JobDetail {
  bool steps = false;                 // Job.steps
  bool scriptAndEnvironment = false;  // spec.script and spec.environment
  bool switchState = false;           // Job.switch_state (switch/lua's dictionary and calls)
  bool usage = false;                 // the tasks' reported usage (Job.batch_usage, JobStep.usage)
};
// Listings: steps when asked for, never the script, the environment or the
// switch/lua dictionary.
inline constexpr JobDetail kListingDetail{.steps = false, .scriptAndEnvironment = false, .switchState = false};
// The store keeps everything.
inline constexpr JobDetail kStoredDetail{
    .steps = true, .scriptAndEnvironment = true, .switchState = true, .usage = true};

// A job's switch/lua record in its stored form, and back. Error: a stored
// value out of range (a damaged or newer record).
v1::SwitchState switchToWire(const interconnect::SwitchRecord& record);
Result<interconnect::SwitchRecord> switchFromWire(uint64_t job, const v1::SwitchState& wire);

v1::Job jobToWire(const core::JobRecord& job, const select::Cluster& cluster, const JobDetail& detail);

// A stored job back into a record. `indexOf` maps a node name to its
// selection index (-1 when the node is no longer configured; such grants
// are dropped).
core::JobRecord jobFromWire(const v1::Job& wire, const std::function<int(const std::string&)>& indexOf);

// A task's usage as a node reports it (and as the store keeps it), and back.
accounting::TaskUsageSample taskUsageFromWire(const std::string& node, const v1::TaskUsage& wire);
v1::TaskUsage taskUsageToWire(const accounting::TaskUsageSample& sample);

// The node as sinfo and scontrol show it.
// `now` (unix seconds) is the LastBusyTime of a node that holds a job.
v1::Node nodeToWire(const core::NodeRecord& node, const core::CoreState& state, int64_t now);
// "MIXED+DRAIN", "DOWN+NOT_RESPONDING", ... and the same as enum and flags.
std::string nodeStateText(const core::NodeRecord& node);
v1::NodeBaseState nodeBaseState(const core::NodeRecord& node);
uint32_t nodeStateFlags(const core::NodeRecord& node);

}  // namespace gantry::views
