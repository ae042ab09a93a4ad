// Who may change which field of a job, and when (scontrol update JobId=):
// judged before anything changes, with Slurm's texts, which scripts grep
// for. Pure: the caller passes what it knows of the job and the caller.
//
//   - only the job's owner, root or SlurmUser: "Access/permission denied"
//   - an ended job changes no more: "Job has already finished"
//   - Priority is for root and SlurmUser: "Access/permission denied"
//   - a plain user may shorten the time limit, never lengthen it (nor
//     make it UNLIMITED): "Access/permission denied"
//   - Partition, NumNodes, Gres, Dependency and StartTime only while the
//     job is pending: "Job is no longer pending execution"
//   - NumNodes below 1: "Node count specification invalid"
//   - a time limit below -1 (UNLIMITED): "Requested time limit is invalid
//     (missing or exceeds some limit)"
// Whether the job fits its (new) partition is the core's to check after.
#pragma once

#include <cstdint>

#include "common/util/result.h"
#include "gantry/v1/controller.pb.h"

namespace gantry::core {

struct JobUpdateFacts {
  bool owner = false;
  bool admin = false;
  bool pending = false;
  bool ended = false;
  int64_t timeLimitSeconds = 0;  // the job's limit now; -1: UNLIMITED
};

Status checkJobUpdate(const v1::UpdateJobRequest& request, const JobUpdateFacts& facts);

}  // namespace gantry::core
