// What the controller decides when a node agent registers its GRES: the
// reasons, if any, to drain the node. Each reason is shown as the node's
// Reason until an administrator resumes it (and comes back at the next
// registration if the hardware is still wrong).
//
// Pure: no I/O, no clock. The core converts the registration message into
// RegisteredGres before calling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/config/gres_spec.h"

namespace gantry::drain {

// One GRES record as the agent registered it, in the agent's device order.
struct RegisteredGres {
  std::string name = "gpu";
  std::string type;
  int files = 0;        // device files; 0 for a count-only or shared record without File
  uint64_t count = 1;   // 1 for a device; the count of a shared or count-only record
  std::vector<int> chunkSizes, chunkOrder;
};

struct RegistrationInput {
  std::vector<config::GresCount> configured;  // gantry.conf Gres= of the node
  // SlurmdParameters=config_overrides: a count-only GRES (bandwidth, ...)
  // reported short does not drain, as for CPUs and memory. Device GRES still
  // drain: the spec keeps absent devices drained whatever this says.
  bool configOverrides = false;
  std::vector<RegisteredGres> registered;
  // Device GRES (gpu, nic, ...) whose count reconcileDeviceOrder judges
  // against the saved device order (device_order.h): no short-count reason
  // here for them, whatever their type.
  std::vector<std::string> countedByOrder;
  // Problems the agent found itself (a GPU omitted for contradicting
  // gres.conf, detected devices gantry.conf does not account for).
  std::vector<std::string> agentErrors;
};

// The drain reasons, in a stable order: the agent's own errors, then short
// counts ("gres/gpu count reported lower than configured (3 < 4)"), then the
// chunk rules (ChunkSizes on shared GRES or next to them, records of one Type
// that disagree, and gres::validateChunkLayout for each chunked domain: domain
// size a multiple of and at least the largest size, 1..1024 devices,
// ChunkOrder as long as the domain). Empty: the node may take work.
std::vector<std::string> registrationDrainReasons(const RegistrationInput& input);

}  // namespace gantry::drain
