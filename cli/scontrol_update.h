// `scontrol update NodeName=EXPR State=... Reason=...` as a request. Keys
// are case-insensitive, as in Slurm; values are kept as written.
#pragma once

#include <string>
#include <vector>

#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::cli {

// Fails naming the word and the rule: unknown key, missing NodeName,
// unknown state, or DOWN/DRAIN without a Reason.
Result<gantry::v1::UpdateNodeRequest> parseNodeUpdate(const std::vector<std::string>& words);

// A job update (`scontrol update JobId=N TimeLimit=... Name=... Comment=...
// Priority=... Partition=... NumNodes=... TresBind=...`): some word's key is
// JobId (Slurm takes "Job" and longer prefixes, in any case).
bool isJobUpdate(const std::vector<std::string>& words);

// Keys in any case (Name or JobName). Fails with Slurm's texts: "Invalid
// TimeLimit value", "Invalid Priority value: X", "Invalid NumNodes value:
// X", "Update of this parameter is not supported: WORD", "Invalid input:
// WORD" for a word without '=', a missing or bad JobId. The controller judges who may change what.
Result<gantry::v1::UpdateJobRequest> parseJobUpdate(const std::vector<std::string>& words);

// A TRES drain (`scontrol update TresName=gres/gpu NodeName=... Action=...`):
// some word's key is TresName, in any case. Such words go to the controller
// unchanged (UpdateTresRequest.words), which parses and judges them.
bool isTresUpdate(const std::vector<std::string>& words);

// The words after `show drainedtres`: nothing (every node), a host list, or
// NodeName=<hostlist> (key in any case). Gives the host list ("" for every
// node); fails naming the word on anything else or a bad host list.
Result<std::string> parseDrainedTresNodes(const std::vector<std::string>& rest);

}  // namespace gantry::cli
