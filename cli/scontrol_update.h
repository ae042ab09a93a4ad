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

// A job update (`scontrol update JobId=N TresBind=...`): some word's key
// is JobId (Slurm takes "Job" and longer prefixes, in any case).
bool isJobUpdate(const std::vector<std::string>& words);

// The request for a job update. Keys are read as Slurm's scontrol reads
// them (any case, prefixes from Slurm's shortest); the values are judged by
// the controller. Fails with Slurm's texts: "Invalid input: <word>" for a
// word without '=', "Update of this parameter is not supported: <word>"
// for a key Gantry cannot change, "Invalid job id specified" for a bad id.
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
