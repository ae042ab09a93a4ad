// The node events accounting keeps (sacctmgr show event): which events a
// node should have open given its present state, and what changes when
// that state moves. Pure: no I/O, no clock.
//
// A node has at most two events open at once, on two independent tracks:
//  - its state: DOWN (set down, or not responding) or DRAIN (set to drain,
//    or drained by a failed registration);
//  - DEGRADED, while a TRES that accounting counts is drained one by one
//    (controller/drain). Its TRES column counts only the drained TRES that
//    count (cpu and mem always, a GRES when AccountingStorageTRES tracks
//    it); TresReference lists them as DrainedTRES does. A drain of only
//    untracked GRES opens nothing.
// An event whose state, reason or TRES changes is closed and a new one
// opened, so the history says what was drained when.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/accounting/tracked_tres.h"
#include "controller/accounting/records.h"
#include "controller/core/records.h"

namespace gantry::core {

// The events the node should have open now, without times. nullopt: its
// state is not known (not registered since the controller started and not
// yet found unresponsive); leave its events as they are.
std::optional<std::vector<accounting::NodeEvent>> wantedNodeEvents(const NodeRecord& node,
                                                                   const accounting::TrackedTres& tracked,
                                                                   const std::string& cluster);

// Open events by node; the strand's.
class NodeEventBook {
 public:
  // At start: the events the accounting store holds open.
  void adopt(const std::vector<accounting::NodeEvent>& open);
  // The records to write so that the node's open events are `wanted`:
  // each open event that is no longer wanted, closed at `now`, and each
  // wanted one not yet open, opened at `now`.
  std::vector<accounting::NodeEvent> update(const std::string& node, const std::vector<accounting::NodeEvent>& wanted,
                                            int64_t now);
  const std::vector<accounting::NodeEvent>& openOn(const std::string& node) const;

 private:
  std::map<std::string, std::vector<accounting::NodeEvent>> open_;
  std::map<std::string, int64_t> lastStart_;  // "node\nstate" -> the latest start given
};

}  // namespace gantry::core
