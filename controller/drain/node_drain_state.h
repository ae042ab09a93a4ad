// What a node's drained TRES mean for the node's state, and what the
// node-level State= updates do to them (gres.md "Draining GRES").
//
// Pure: no I/O, no clock.
#pragma once

#include <string>
#include <vector>

#include "controller/drain/drained_tres.h"

namespace gantry::drain {

// DEGRADED is a flag next to the base state: IDLE+DEGRADED, MIXED+DEGRADED.
// A node is degraded while anything at all is drained.
bool nodeIsDegraded(const DrainedTres& record);

// The State= values of scontrol update NodeName= that touch TRES drains.
enum class NodeStateUpdate {
  Resume,          // clears the node drain and resumes every drained TRES that is present
  Undrain,         // clears the node drain; TRES drains stay
  ResumeKeepTres,  // same as Undrain
  Idle,            // same as Undrain
};

struct NodeStateOutcome {
  DrainedTres record;
  bool clearNodeDrain = true;  // every update above clears the node's own drain
  // GRES whose saved order was dropped: State=RESUME of a node drained for
  // its device order accepts the report, and the next registration saves the order then reported.
  std::vector<std::string> droppedOrders;
  // One line per device left drained because its slot is empty, as
  // applyDrainCommand words it.
  std::vector<std::string> leftDrained;
};

NodeStateOutcome applyNodeStateUpdate(const DrainedTres& record, NodeStateUpdate update, const std::string& nodeName);

}  // namespace gantry::drain
