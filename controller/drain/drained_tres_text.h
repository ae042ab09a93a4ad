// How drained TRES are shown: the DrainedTRES= field of scontrol show node
// (and sinfo -R for a node that is only DEGRADED), and scontrol show drainedtres.
//
// Pure: no I/O, no clock.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "controller/drain/drained_tres.h"

namespace gantry::drain {

// "gpu(IDX:3)(ecc_errors),bandwidth:2(hw_check),cpu(IDX:0,2-3)(flaky_cores),mem:4096(bad_dimm)":
// device GRES by name, then count-only GRES, then CPUs, then memory. Devices
// and CPUs that share a reason are listed in one entry; an empty slot is
// listed by its index like any device. "" when nothing is drained (the field is then omitted).
std::string formatDrainedTres(const DrainedTres& record);

// scontrol show drainedtres: one line per drain of each node, in the words of
// scontrol update TresName= so a line can be turned into its Resume:
//   NodeName=n1 TresName=gres/gpu Index=2 Uuid=GPU-... Reason=bad_fan
//   NodeName=n1 TresName=gres/gpu Index=5 Reason=gres/gpu:not_found   (empty
//   slot: no Uuid) NodeName=n1 TresName=cpu Index=0-1 Reason=flaky NodeName=n1
//   TresName=mem Count=2048 Reason=dimm
// Nodes with nothing drained print nothing. Each line ends in "\n".
std::string formatDrainedTresListing(const std::vector<std::pair<std::string, DrainedTres>>& nodes);

}  // namespace gantry::drain
